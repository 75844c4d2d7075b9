// Signing keys: generated on first use, kept in D1 with the private JWK encrypted (AES-GCM, key
// derived from KEY_ENCRYPTION_SECRET with HKDF). A rotated-in key is published in the JWKS one
// JWKS max-age before it signs; a superseded key stays published until every token it signed has
// expired. The imported private key is cached per isolate, so a token costs one RSA signature.
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Env } from '../env';
import { base64url, fromBase64url, nowSeconds } from './crypto';
import { type DbLike } from './store/handle';
import * as keyStore from './store/keys';
import { TOKEN_LIFETIME_MAX } from './app-types';

export const SIGNING_ALG = 'RS256';
/** Cache-Control max-age of the JWKS: a new key is published at least this long before it signs. */
export const JWKS_MAX_AGE_SECONDS = 3600;
/** The longest-lived token we sign (access tokens; ID tokens live 300 s), plus clock skew. */
export const KEY_RETIREMENT_GRACE_SECONDS = TOKEN_LIFETIME_MAX + 60;
/** How long an isolate trusts its copy of the key list (well under the publication lead). */
const KEY_LIST_TTL_MS = 5 * 60_000;
const UNKNOWN_KID_RELOAD_MS = 5_000;

type KeyRow = keyStore.KeyRow;

/** Thrown by a rotation while the last rotated-in key has not started signing yet. */
export class RotationRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RotationRefusedError';
  }
}

let keyList: { rows: KeyRow[]; loadedAt: number } | undefined;
const privateKeys = new Map<string, Promise<CryptoKey>>();

/** Forget cached keys (tests, and after a rotation in this isolate). */
export function resetKeyCache(): void {
  keyList = undefined;
  privateKeys.clear();
}

async function encryptionKey(env: Pick<Env, 'KEY_ENCRYPTION_SECRET'>): Promise<CryptoKey> {
  if (!env.KEY_ENCRYPTION_SECRET) throw new Error('KEY_ENCRYPTION_SECRET is not set');
  const ikm = await crypto.subtle.importKey('raw', new TextEncoder().encode(env.KEY_ENCRYPTION_SECRET), 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new TextEncoder().encode('identity/signing-keys'), info: new TextEncoder().encode('private-jwk/aes-256-gcm/v1') },
    ikm,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** `v1.<iv>.<ciphertext>`; the kid is bound as additional data so rows cannot be swapped. */
async function encryptPrivateJwk(env: Pick<Env, 'KEY_ENCRYPTION_SECRET'>, kid: string, jwk: JWK): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = new TextEncoder().encode(JSON.stringify(jwk));
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(kid) }, await encryptionKey(env), data);
  return `v1.${base64url(iv)}.${base64url(ct)}`;
}

async function decryptPrivateJwk(env: Env, kid: string, sealed: string): Promise<JWK> {
  const [version, iv, ct] = sealed.split('.');
  if (version !== 'v1' || !iv || !ct) throw new Error(`signing key ${kid}: unknown encryption format`);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: fromBase64url(iv), additionalData: new TextEncoder().encode(kid) },
    await encryptionKey(env),
    fromBase64url(ct),
  );
  return JSON.parse(new TextDecoder().decode(plain)) as JWK;
}

/** A new RSA key pair as a row: public JWK, private JWK sealed with KEY_ENCRYPTION_SECRET. */
export async function sealNewKey(env: Pick<Env, 'KEY_ENCRYPTION_SECRET'>, activatesAt: number): Promise<keyStore.NewKeyRow & { activatesAt: number }> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true, modulusLength: 2048 });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    alg: SIGNING_ALG,
    publicJwk: { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' },
    privateJwkEncrypted: await encryptPrivateJwk(env, kid, await exportJWK(privateKey)),
    activatesAt,
  };
}

/** The published keys, creating the first one race-free (insert-if-absent, then re-read). */
async function publishedKeyRows(env: Env, options: { fresh?: boolean } = {}): Promise<KeyRow[]> {
  if (!options.fresh && keyList && Date.now() - keyList.loadedAt < KEY_LIST_TTL_MS) return keyList.rows;
  let rows = await keyStore.listPublished(env.DB, nowSeconds());
  if (rows.length === 0) {
    // Active from before the (slow) key generation, so the caller's "now" already finds it.
    const start = nowSeconds();
    await keyStore.insertFirst(env.DB, await sealNewKey(env, start));
    rows = await keyStore.listPublished(env.DB, nowSeconds());
  }
  keyList = { rows, loadedAt: Date.now() };
  return rows;
}

/** The key that signs now: the newest one whose activation time has come. */
export async function getSigningKey(env: Env): Promise<{ kid: string; key: CryptoKey }> {
  // The clock is read at each pick: creating the first key may take longer than a second.
  const pick = (rows: KeyRow[]) => rows.filter((r) => r.activatesAt <= nowSeconds()).at(-1);
  let row = pick(await publishedKeyRows(env));
  if (!row) row = pick(await publishedKeyRows(env, { fresh: true }));
  if (!row) throw new Error('no active signing key');
  let key = privateKeys.get(row.kid);
  if (!key) {
    const { kid, privateJwkEncrypted } = row;
    key = decryptPrivateJwk(env, kid, privateJwkEncrypted).then((jwk) => importJWK(jwk, SIGNING_ALG) as Promise<CryptoKey>);
    key.catch(() => privateKeys.delete(kid));
    privateKeys.set(kid, key);
  }
  return { kid: row.kid, key: await key };
}

/** The JWKS document: current, next and not-yet-retired previous keys (always read fresh). */
export async function getJwks(env: Env): Promise<{ keys: JWK[] }> {
  const rows = await publishedKeyRows(env, { fresh: true });
  return { keys: rows.map((r) => r.publicJwk as JWK) };
}

let lastUnknownKidReload = 0;

/** A jose key resolver over the published keys; an unknown kid triggers one (throttled) reload. */
export async function verificationKeySet(env: Env, kid: string | undefined): Promise<ReturnType<typeof createLocalJWKSet>> {
  let rows = await publishedKeyRows(env);
  if (kid && !rows.some((r) => r.kid === kid) && Date.now() - lastUnknownKidReload > UNKNOWN_KID_RELOAD_MS) {
    lastUnknownKidReload = Date.now();
    rows = await publishedKeyRows(env, { fresh: true });
  }
  return createLocalJWKSet({ keys: rows.map((r) => r.publicJwk as JWK) });
}

/**
 * Rotates the signing key: the new key is published now and signs from one JWKS max-age later;
 * older keys stay published until the longest token lifetime after that. Refused (and nothing
 * written) while a previously rotated-in key still waits to activate, so the JWKS cannot grow
 * by repeated rotations. An operator action: `npm run keys:rotate` (scripts/rotate-keys.mjs);
 * no route of the Worker calls it.
 */
export async function rotateSigningKey(d1: D1Database, env: Pick<Env, 'KEY_ENCRYPTION_SECRET' | 'DB'>): Promise<{ kid: string; activatesAt: number }> {
  await publishedKeyRows(env as Env, { fresh: true }); // make sure generation 1 exists
  const now = nowSeconds();
  const row = { ...(await sealNewKey(env, now + JWKS_MAX_AGE_SECONDS)), createdAt: now };
  const ok = await keyStore.rotate(d1, row, rotationRetiresAt(row.activatesAt));
  resetKeyCache();
  if (!ok) throw new RotationRefusedError('A rotated-in key is published but does not sign yet; rotate again once it has activated (see `npm run keys:rotate`).');
  return { kid: row.kid!, activatesAt: row.activatesAt };
}

/** When the keys a rotation supersedes leave the JWKS. */
export const rotationRetiresAt = (activatesAt: number): number => activatesAt + KEY_RETIREMENT_GRACE_SECONDS;

/** The key rows with their schedule (no private parts): the admin page and the rotate script. */
export const listSigningKeys = (db: DbLike) => keyStore.list(db);
