/**
 * Every request this Worker makes to a URL someone else chose (image URLs in rendering data;
 * import-from-URL and invoke-url in the platform) goes through `outboundFetch`:
 *
 * - http(s) only; plain http only in local development (`REGION=local`);
 * - no loopback, private, link-local, unique-local, multicast or reserved IP literals (v4 in any
 *   notation the URL parser accepts — decimal, octal, hex —, v6, IPv4-mapped and other v6 forms
 *   that embed a v4 address), no `localhost`, `*.localhost`, `*.local`, `*.internal` or
 *   single-label names, unless `OUTBOUND_ALLOW_HOSTS` (development only) names the host;
 * - redirects followed by hand, at most `maxRedirects`, each hop checked like the first URL;
 *   credentials headers are dropped when a redirect leaves the origin;
 * - a time limit for the whole exchange and a byte limit counted while streaming (a declared
 *   Content-Length over the limit is refused before reading);
 * - an optional `sniff` of the first bytes that aborts a body of the wrong kind at once;
 * - `refuseOrigins` (pipeline jobs: `platformOrigins`): the platform's own scheme + host + port,
 *   on the first URL and every redirect, so a pipeline cannot call the platform in a loop; other
 *   ports of the same host stay reachable under the rules above;
 * - `hop`: sent as `X-Platform-Hop` (HOP_HEADER) on every request; the platform counts it when
 *   a call creates a project (docs/security.md);
 * - errors (`OutboundError`, stable `code`) never echo the upstream status or body: the caller
 *   hands the message to a client, and an upstream answer is not ours to relay. `refused` tells
 *   whether the URL itself is unacceptable (the caller's input) or the remote did not deliver.
 *
 * Names that resolve to private addresses cannot be checked here (Workers have no resolver
 * API); on Cloudflare, Workers' fetch does not reach private networks in any case.
 *
 * @example
 * const res = await outboundFetch('https://example.com/a.jpg', { env: c.env, maxBytes: 25 << 20 });
 * res.bytes; // Uint8Array
 */
import { concat } from '../engine/raster/bytes';

/** The bindings outbound policy reads. */
export interface OutboundEnv {
  REGION?: string;
  /** Comma-separated host names or IP literals that may be fetched although internal (development). */
  OUTBOUND_ALLOW_HOSTS?: string;
  /** The platform's own origins (`platformOrigins`). */
  ISSUER?: string;
  PUBLIC_BASE_URL?: string;
}

/**
 * The header every call made by a pipeline job carries: 1 + the hop of the request that created
 * the job's project (0 for a request not made by a job). Project creation past MAX_HOP_DEPTH is
 * refused, so a pipeline that calls the platform (through a relay, another name of the host, or
 * with the tenant's permission) cannot create projects forever.
 */
export const HOP_HEADER = 'X-Platform-Hop';
export const MAX_HOP_DEPTH = 3;

/** The hop a request carries: a whole number from HOP_HEADER, 0 when absent or malformed. */
export function hopOf(headers: Headers): number {
  const v = headers.get(HOP_HEADER)?.trim() ?? '';
  return /^\d{1,6}$/.test(v) ? Number(v) : 0;
}

/**
 * The platform's own origins (scheme, host and port, as `URL.origin` writes them): ISSUER,
 * PUBLIC_BASE_URL and any `extra` base URL it was reached at. Empty or invalid values are skipped.
 */
export function platformOrigins(env: OutboundEnv, ...extra: Array<string | null | undefined>): string[] {
  const out = new Set<string>();
  for (const v of [env.ISSUER, env.PUBLIC_BASE_URL, ...extra]) {
    if (!v) continue;
    try {
      const origin = new URL(v).origin;
      if (origin !== 'null') out.add(origin);
    } catch {
      // not a URL: nothing to refuse
    }
  }
  return [...out];
}

export interface OutboundOptions {
  env: OutboundEnv;
  method?: string;
  headers?: HeadersInit;
  /** Re-sent on 307/308 redirects, so a string or bytes, not a stream. */
  body?: string | Uint8Array | null;
  signal?: AbortSignal;
  /** The whole exchange, redirects and body included. Default 10 s. */
  timeoutMs?: number;
  /** Most body bytes read. Default 25 MB. */
  maxBytes?: number;
  /** Default 3. */
  maxRedirects?: number;
  /**
   * Looks at the first bytes of a successful answer (at least `SNIFF_BYTES`, fewer only when the
   * body is shorter); a returned reason aborts the download with ERR_OUTBOUND_CONTENT.
   */
  sniff?: (head: Uint8Array) => string | undefined;
  /**
   * Told of every body chunk as it arrives (its byte length), e.g. to keep a budget shared by
   * concurrent downloads; whatever it throws aborts the download and is rethrown as it is.
   */
  onBytes?: (bytes: number) => void;
  /** Origins never fetched, redirects included (`platformOrigins` for pipeline jobs). */
  refuseOrigins?: readonly string[];
  /** Sent as HOP_HEADER (calls made by pipeline jobs); overrides any value in `headers`. */
  hop?: number;
  /**
   * Hand back the unread `body` instead of `bytes` (which stays empty): the caller streams it and
   * counts it against its own limit; the time limit still covers reading it.
   */
  stream?: boolean;
}

export interface OutboundResponse {
  /** The URL that finally answered (after redirects). */
  url: string;
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** With `stream`: the body, not yet read. */
  body?: ReadableStream<Uint8Array> | null;
}

export type OutboundErrorCode =
  | 'ERR_OUTBOUND_URL'
  | 'ERR_OUTBOUND_HOST'
  | 'ERR_OUTBOUND_REDIRECT'
  | 'ERR_OUTBOUND_STATUS'
  | 'ERR_OUTBOUND_TOO_LARGE'
  | 'ERR_OUTBOUND_CONTENT'
  | 'ERR_OUTBOUND_TIMEOUT'
  | 'ERR_OUTBOUND_NETWORK';

export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    /** A sentence fit for a client, naming no upstream status or content. */
    message: string,
    /** true: the URL itself is not acceptable (a 400 for the caller); false: the remote did not deliver. */
    readonly refused: boolean,
    /** For logs only: the upstream status of an ERR_OUTBOUND_STATUS. */
    readonly upstreamStatus?: number,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export const OUTBOUND_DEFAULTS = Object.freeze({ timeoutMs: 10_000, maxBytes: 25 * 1024 * 1024, maxRedirects: 3 });
/** How many bytes `sniff` gets to see. */
export const SNIFF_BYTES = 16;

const SENSITIVE_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/**
 * The URL parsed and checked against the outbound policy; throws OutboundError (refused) when it
 * may not be fetched.
 */
export function checkOutboundUrl(raw: string | URL, env: OutboundEnv, base?: URL, refuseOrigins?: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new OutboundError('ERR_OUTBOUND_URL', 'not a valid absolute URL.', true);
  }
  const allowHttp = env.REGION === 'local';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp)) {
    const reason = url.protocol === 'http:' ? 'only https URLs are allowed.' : `the ${url.protocol} scheme is not allowed; use https.`;
    throw new OutboundError('ERR_OUTBOUND_URL', reason, true);
  }
  if (url.username || url.password) throw new OutboundError('ERR_OUTBOUND_URL', 'URLs with credentials are not allowed.', true);
  if (refuseOrigins?.includes(url.origin)) {
    throw new OutboundError('ERR_OUTBOUND_HOST', `${url.origin} is the platform's own origin; the platform does not call itself (pipelines, webhooks).`, true);
  }
  const host = url.hostname.toLowerCase();
  if (!allowedHosts(env).has(host.replace(/^\[|\]$/g, '')) && isInternalHost(host)) {
    throw new OutboundError('ERR_OUTBOUND_HOST', 'the host is internal (loopback, private, link-local or a local name); only public hosts may be fetched.', true);
  }
  return url;
}

function allowedHosts(env: OutboundEnv): Set<string> {
  return new Set(
    (env.OUTBOUND_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, ''))
      .filter(Boolean),
  );
}

/** Whether a URL host (as `URL.hostname` gives it: v6 in brackets, v4 normalised) is internal. */
export function isInternalHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[')) {
    const v6 = parseIpv6(host.slice(1, -1));
    return v6 === null || internalV6(v6);
  }
  const v4 = parseIpv4(host);
  if (v4 !== null) return internalV4(v4);
  // A name that only looks numeric (e.g. `1.2.3.4.5`, `0x7f.1` left unparsed) is refused too.
  if (/^[0-9.]+$/.test(host) || /^0x/i.test(host)) return true;
  if (!host.includes('.')) return true; // single label: resolved by local search domains only
  return host === 'localhost' || /\.(localhost|local|internal|localdomain|home\.arpa)$/.test(host);
}

/**
 * An IPv4 literal in any form inet_aton accepts (`127.1`, `0x7f.0.0.1`, `017700000001`,
 * `2130706433`); the WHATWG URL parser already normalises these, this repeats it for hosts that
 * reach us by other means. Null when not an IPv4 literal.
 */
export function parseIpv4(host: string): number | null {
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = Number(p);
    else return null;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255) || last >= 256 ** (4 - nums.length)) return null;
  return nums.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + last;
}

const inV4 = (ip: number, base: string, bits: number) => {
  const b = parseIpv4(base)!;
  const size = 2 ** (32 - bits);
  return Math.floor(ip / size) === Math.floor(b / size);
};

function internalV4(ip: number): boolean {
  return [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8],
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8],
    ['169.254.0.0', 16], // link-local (cloud metadata services live here)
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15], // benchmarking
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ].some(([base, bits]) => inV4(ip, base as string, bits as number));
}

/** Eight 16-bit groups, or null when not an IPv6 literal. */
export function parseIpv6(text: string): number[] | null {
  let s = text.toLowerCase();
  if (s.includes('%')) return null; // zone ids never appear in URLs we accept
  // A trailing dotted IPv4 (`::ffff:127.0.0.1`) stands for the last two groups.
  const v4 = /(^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const n = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.test(v4[2]) ? parseIpv4(v4[2]) : null;
    if (n === null) return null;
    s = `${s.slice(0, s.length - v4[2].length)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  return [...head, ...new Array(8 - given).fill('0'), ...rest].map((g) => parseInt(g, 16));
}

function internalV6(g: number[]): boolean {
  const v4At = (hi: number, lo: number) => internalV4(g[hi] * 65536 + g[lo]);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return true; // ::
  if (zeroUpTo(7) && g[7] === 1) return true; // ::1
  if (zeroUpTo(5) && g[5] === 0xffff) return v4At(6, 7); // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return v4At(6, 7); // ::ffff:0:a.b.c.d (IPv4-translated)
  if (zeroUpTo(6)) return v4At(6, 7); // ::a.b.c.d (IPv4-compatible, deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b) return v4At(6, 7); // NAT64
  if (g[0] === 0x2002) return v4At(1, 2); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** Fetches `url` under the outbound policy; see the module comment. */
export async function outboundFetch(url: string | URL, options: OutboundOptions): Promise<OutboundResponse> {
  const timeoutMs = options.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let current = checkOutboundUrl(url, options.env, undefined, options.refuseOrigins);
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body ?? null;
  const headers = new Headers(options.headers);
  if (options.hop !== undefined) headers.set(HOP_HEADER, String(options.hop));
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await fetch(current, { method, headers, body, redirect: 'manual', signal });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel().catch(() => {});
        if (redirects >= maxRedirects) throw new OutboundError('ERR_OUTBOUND_REDIRECT', `more than ${maxRedirects} redirects.`, false);
        let next: URL;
        try {
          next = checkOutboundUrl(location, options.env, current, options.refuseOrigins);
        } catch (e) {
          const reason = e instanceof OutboundError ? e.message : 'its target is not valid.';
          throw new OutboundError('ERR_OUTBOUND_REDIRECT', `a redirect leads to a URL that is not allowed: ${reason}`, false);
        }
        if (next.origin !== current.origin) for (const h of SENSITIVE_HEADERS) headers.delete(h);
        // Fetch standard: 303 (and 301/302 after a POST) continue as GET without a body.
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = null;
          headers.delete('content-type');
        }
        current = next;
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new OutboundError('ERR_OUTBOUND_STATUS', 'the server did not answer with the content.', false, res.status);
      }
      if (options.stream) return { url: current.href, status: res.status, headers: res.headers, bytes: new Uint8Array(0), body: res.body };
      const bytes = await readBody(res, maxBytes, options.sniff, options.onBytes);
      return { url: current.href, status: res.status, headers: res.headers, bytes };
    }
  } catch (e) {
    if (e instanceof OutboundError || e instanceof CallbackError) throw e instanceof CallbackError ? e.cause : e;
    if (timeout.aborted) throw new OutboundError('ERR_OUTBOUND_TIMEOUT', `no complete answer within ${timeoutMs / 1000} s.`, false);
    if (options.signal?.aborted) throw new OutboundError('ERR_OUTBOUND_NETWORK', 'the request was cancelled.', false);
    throw new OutboundError('ERR_OUTBOUND_NETWORK', 'the connection failed.', false);
  }
}

/** Carries what an `onBytes` callback threw through the fetch's own error handling. */
class CallbackError extends Error {}

const tooLarge = (maxBytes: number) =>
  new OutboundError('ERR_OUTBOUND_TOO_LARGE', `it is larger than ${+(maxBytes / 1024 / 1024).toFixed(2)} MB.`, false);

/**
 * The body, up to `maxBytes`, sniffed once its first bytes are in. A declared length is trusted
 * for the allocation (one buffer, no copy) but never for the limit: the count is what arrives.
 */
async function readBody(res: Response, maxBytes: number, sniff: OutboundOptions['sniff'], onBytes: OutboundOptions['onBytes']): Promise<Uint8Array> {
  const declared = res.headers.has('content-length') ? Number(res.headers.get('content-length')) : NaN;
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge(maxBytes);
  }
  if (!res.body) {
    const refusal = sniff?.(new Uint8Array(0));
    if (refusal) throw new OutboundError('ERR_OUTBOUND_CONTENT', refusal, false);
    return new Uint8Array(0);
  }
  const reader = res.body.getReader();
  const fail = async (err: Error): Promise<never> => {
    await reader.cancel().catch(() => {});
    throw err;
  };
  const buffer = Number.isFinite(declared) && declared > 0 ? new Uint8Array(declared) : null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let sniffed = !sniff;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > maxBytes) await fail(tooLarge(maxBytes));
    if (onBytes) {
      try {
        onBytes(value.byteLength);
      } catch (cause) {
        await fail(new CallbackError('onBytes', { cause }));
      }
    }
    if (buffer) {
      if (total + value.byteLength > buffer.length) await fail(new OutboundError('ERR_OUTBOUND_NETWORK', 'the answer is longer than it declared.', false));
      buffer.set(value, total);
    } else chunks.push(value);
    total += value.byteLength;
    if (!sniffed && total >= SNIFF_BYTES) {
      sniffed = true;
      const head = buffer ? buffer.subarray(0, total) : concat(chunks);
      const refusal = sniff!(head);
      if (refusal) await fail(new OutboundError('ERR_OUTBOUND_CONTENT', refusal, false));
    }
  }
  const bytes = buffer ? buffer.subarray(0, total) : chunks.length === 1 ? chunks[0]! : concat(chunks);
  if (!sniffed) {
    const refusal = sniff!(bytes);
    if (refusal) throw new OutboundError('ERR_OUTBOUND_CONTENT', refusal, false);
  }
  return bytes;
}
