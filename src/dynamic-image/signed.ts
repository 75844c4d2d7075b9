/**
 * Signed preview URLs: a preview request carried in a GET URL, so a storefront page can use it
 * directly as `<img src>` (one round trip instead of POST + GET).
 *
 *   <base>/api/rendering/preview?r=<request>&sig=<signature>
 *
 *   request   = base64url(deflate-raw(JSON of the PreviewModel body))   (no padding)
 *   signature = base64url(HMAC-SHA256(secret, "preview.v1." + request)) (no padding)
 *   secret    = PREVIEW_URL_SECRET when set, else RENDERING_API_KEY
 *
 * The storefront's back end holds the secret and builds the URLs (POST /api/rendering/preview/url
 * or the recipe in docs/rendering.md); the browser never sees the secret. Whether a URL without
 * `sig` is served is the deployment's setting PREVIEW_ALLOW_UNSIGNED (default false); a `sig`
 * that is present is always checked. Free of HTTP: failures are ApiErrors the app maps.
 */
import { ApiError, badRequest } from '../errors';
import { readAll } from '../http/read-limited';

/** Prefix of the signed text, so a signature made for something else never verifies here. */
const DOMAIN = 'preview.v1.';
/** Far above any real request (URLs themselves stop near 8 KB); bounds what inflating may allocate. */
export const MAX_REQUEST_JSON_BYTES = 64 * 1024;
const MAX_PARAM_CHARS = 16 * 1024;
const B64URL = /^[A-Za-z0-9_-]+$/;

export interface SigningEnv {
  PREVIEW_URL_SECRET?: string;
  RENDERING_API_KEY?: string;
  PREVIEW_ALLOW_UNSIGNED?: string;
}

export const unsignedAllowed = (env: SigningEnv) => /^true$/i.test(env.PREVIEW_ALLOW_UNSIGNED?.trim() ?? '');

function secretOf(env: SigningEnv): string | null {
  return env.PREVIEW_URL_SECRET?.trim() || env.RENDERING_API_KEY?.trim() || null;
}

export function base64url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string, param: string): Uint8Array {
  if (!text || text.length > MAX_PARAM_CHARS || !B64URL.test(text) || text.length % 4 === 1) {
    throw badRequest(`"${param}" is not base64url text (A–Z, a–z, 0–9, - and _, no padding).`, [{ path: param, reason: 'malformed base64url' }]);
  }
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream, limit = Infinity): Promise<Uint8Array> {
  const tooLarge = () => badRequest(`The request in "r" inflates to more than ${limit / 1024} KB.`, [{ path: 'r', reason: 'too large' }]);
  return readAll(new Blob([bytes]).stream().pipeThrough(stream), limit, tooLarge, 'cancel');
}

/** `r` for a request body (any JSON the PreviewModel accepts). */
export async function encodePreviewRequest(body: unknown): Promise<string> {
  return base64url(await pipe(new TextEncoder().encode(JSON.stringify(body)), new CompressionStream('deflate-raw')));
}

/** The JSON value carried by `r`; 400 when it is not base64url, not deflate-raw or not JSON. */
export async function decodePreviewRequest(r: string): Promise<unknown> {
  const packed = fromBase64url(r, 'r');
  let bytes: Uint8Array;
  try {
    bytes = await pipe(packed, new DecompressionStream('deflate-raw'), MAX_REQUEST_JSON_BYTES);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest('"r" is not deflate-raw compressed data.', [{ path: 'r', reason: 'malformed deflate stream' }]);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`The request in "r" is not valid JSON: ${(e as Error).message}`, [{ path: 'r', reason: 'malformed JSON' }]);
  }
}

const keys = new Map<string, Promise<CryptoKey>>();
function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.clear(); // one secret per deployment: never hold more than the current one
    keys.set(secret, key);
  }
  return key;
}

function noSecret(): ApiError {
  return new ApiError(403, 'forbidden', 'Signed preview URLs are not configured: set PREVIEW_URL_SECRET (or RENDERING_API_KEY).');
}

/** `sig` for `r`. */
export async function signPreviewRequest(env: SigningEnv, r: string): Promise<string> {
  const secret = secretOf(env);
  if (!secret) throw noSecret();
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(secret), new TextEncoder().encode(DOMAIN + r));
  return base64url(new Uint8Array(mac));
}

/**
 * Accepts `r` when `sig` is its signature (401 when `sig` is missing and unsigned URLs are off,
 * 403 when it is wrong). Compared by HMAC verify, in constant time.
 */
export async function checkSignature(env: SigningEnv, r: string, sig: string | undefined): Promise<void> {
  if (!sig) {
    if (unsignedAllowed(env)) return;
    throw new ApiError(401, 'unauthorized', 'This preview URL is not signed: add "sig", the HMAC-SHA256 of the request (docs/rendering.md, Signed preview URLs).', [
      { path: 'sig', reason: 'required' },
    ]);
  }
  const secret = secretOf(env);
  if (!secret) throw noSecret();
  const mac = B64URL.test(sig) && sig.length === 43 ? fromBase64url(sig, 'sig') : null;
  const ok = mac && (await crypto.subtle.verify('HMAC', await hmacKey(secret), mac, new TextEncoder().encode(DOMAIN + r)));
  if (!ok) throw new ApiError(403, 'forbidden', 'The signature of this preview URL is not valid.', [{ path: 'sig', reason: 'does not match the request' }]);
}

/** Whether an If-None-Match header value names `etag` (weak comparison, RFC 9110 13.1.2). */
export function etagMatches(ifNoneMatch: string | undefined | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
