// Signing keys: generated on first use, kept in D1 with the private JWK encrypted (AES-GCM, key
// derived from KEY_ENCRYPTION_SECRET with HKDF). A rotated-in key is published in the JWKS one
// JWKS max-age before it signs; a superseded key stays published until every token it signed has
// expired. The imported private key is cached per isolate, so a token costs one RSA signature.
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { desc, gt, isNull, or } from 'drizzle-orm';
import { getDb, type Database } from '../db/client';
import { signingKeys } from '../db/schema';
import type { Env } from '../env';
import { base64url, fromBase64url, nowSeconds } from './crypto';
import { asDb, type DbLike } from './store/handle';
import { TOKEN_LIFETIME_MAX } from './app-types';

export const SIGNING_ALG = 'RS256';
/** Cache-Control max-age of the JWKS: a new key is published at least this long before it signs. */
export const JWKS_MAX_AGE_SECONDS = 3600;
/** The longest-lived token we sign (access tokens; ID tokens live 300 s), plus clock skew. */
export const KEY_RETIREMENT_GRACE_SECONDS = TOKEN_LIFETIME_MAX + 60;
/** How long an isolate trusts its copy of the key list (well under the publication lead). */
const KEY_LIST_TTL_MS = 5 * 60_000;
const UNKNOWN_KID_RELOAD_MS = 5_000;

type KeyRow = typeof signingKeys.$inferSelect;

let keyList: { rows: KeyRow[]; loadedAt: number } | undefined;
const privateKeys = new Map<string, Promise<CryptoKey>>();

/** Forget cached keys (tests, and after a rotation in this isolate). */
export function resetKeyCache(): void {
  keyList = undefined;
  privateKeys.clear();
}

async function encryptionKey(env: Env): Promise<CryptoKey> {
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
async function encryptPrivateJwk(env: Env, kid: string, jwk: JWK): Promise<string> {
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

async function newKeyRow(env: Env, generation: number, activatesAt: number): Promise<typeof signingKeys.$inferInsert> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true, modulusLength: 2048 });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    kid,
    generation,
    alg: SIGNING_ALG,
    publicJwk: { ...publicJwk, kid, alg: SIGNING_ALG, use: 'sig' },
    privateJwkEncrypted: await encryptPrivateJwk(env, kid, await exportJWK(privateKey)),
    activatesAt,
  };
}

async function loadKeyRows(db: Database): Promise<KeyRow[]> {
  const now = nowSeconds();
  return db
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.retiresAt), gt(signingKeys.retiresAt, now)))
    .orderBy(signingKeys.generation)
    .all();
}

/** The published keys, creating the first one race-free (insert-if-absent, then re-read). */
async function publishedKeyRows(env: Env, options: { fresh?: boolean } = {}): Promise<KeyRow[]> {
  if (!options.fresh && keyList && Date.now() - keyList.loadedAt < KEY_LIST_TTL_MS) return keyList.rows;
  const db = getDb(env.DB);
  let rows = await loadKeyRows(db);
  if (rows.length === 0) {
    await db.insert(signingKeys).values(await newKeyRow(env, 1, nowSeconds())).onConflictDoNothing();
    rows = await loadKeyRows(db);
  }
  keyList = { rows, loadedAt: Date.now() };
  return rows;
}

/** The key that signs now: the newest one whose activation time has come. */
export async function getSigningKey(env: Env): Promise<{ kid: string; key: CryptoKey }> {
  const now = nowSeconds();
  const pick = (rows: KeyRow[]) => rows.filter((r) => r.activatesAt <= now).at(-1);
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
 * older keys stay published until the longest token lifetime after that. Idempotent per call,
 * not per hour: each call adds a generation. Used by the admin panel and `npm run keys:rotate`.
 */
export async function rotateSigningKey(db: DbLike, env: Env): Promise<{ kid: string; activatesAt: number }> {
  const d = asDb(db);
  await publishedKeyRows(env, { fresh: true }); // make sure generation 1 exists
  const last = await d.select({ generation: signingKeys.generation }).from(signingKeys).orderBy(desc(signingKeys.generation)).get();
  const activatesAt = nowSeconds() + JWKS_MAX_AGE_SECONDS;
  const row = await newKeyRow(env, (last?.generation ?? 0) + 1, activatesAt);
  await d.batch([
    d
      .update(signingKeys)
      .set({ supersededAt: activatesAt, retiresAt: activatesAt + KEY_RETIREMENT_GRACE_SECONDS })
      .where(isNull(signingKeys.retiresAt)),
    d.insert(signingKeys).values(row),
  ]);
  resetKeyCache();
  return { kid: row.kid, activatesAt };
}

/** Test and admin helper: the key rows with their schedule (no private parts). */
export async function listSigningKeys(db: DbLike) {
  return asDb(db)
    .select({ kid: signingKeys.kid, generation: signingKeys.generation, activatesAt: signingKeys.activatesAt, retiresAt: signingKeys.retiresAt, createdAt: signingKeys.createdAt })
    .from(signingKeys)
    .orderBy(signingKeys.generation)
    .all();
}

