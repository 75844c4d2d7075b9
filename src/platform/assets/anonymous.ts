/**
 * Anonymous file URLs (contract): `<base>/api/storage/v1/anonymous/<token>`, a 128-bit capability
 * stored only as its SHA-256 (`anonymous_tokens`). The token is an HMAC of the target and the
 * row's creation time under a key derived from KEY_ENCRYPTION_SECRET, so the service can show the
 * same URL again on later reads without storing the token itself. Clearing `anonymousAccess`
 * deletes the row (the URL stops working); setting it again issues a new token (a new time).
 */
import { sha256Hex } from '../../engine/hash';
import type { TenantContext } from '../core';
import { deleteTokens, insertToken, newestTokenCreated, tokenTarget, type AnonymousKind } from './store/anonymous-tokens';

export type { AnonymousKind };

const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

async function tokenFor(secret: string, tenantId: number, kind: AnonymousKind, id: string, created: number): Promise<string> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(`anonymous-file-url|${secret}`), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, enc.encode(`${tenantId}|${kind}|${id}|${created}`));
  return b64url(new Uint8Array(mac).subarray(0, 16));
}

export const tokenHash = (token: string) => sha256Hex(token);

const secretOf = (env: { KEY_ENCRYPTION_SECRET?: string }) => {
  if (!env.KEY_ENCRYPTION_SECRET) throw new Error('KEY_ENCRYPTION_SECRET unset: anonymous URLs cannot be issued');
  return env.KEY_ENCRYPTION_SECRET;
};

export const anonymousUrl = (baseUrl: string, token: string) => `${baseUrl}/api/storage/v1/anonymous/${token}`;

/** Issues a new capability for the target (an older one is revoked). */
export async function issueAnonymous(t: TenantContext, kind: AnonymousKind, id: string): Promise<string> {
  await dropAnonymous(t, kind, [id]);
  const created = Date.now() * 1000 + Math.floor(Math.random() * 1000);
  const token = await tokenFor(secretOf(t.env), t.tenantId, kind, id, created);
  await insertToken(t.env.DB, await tokenHash(token), t.tenantId, kind, id, created);
  return anonymousUrl(t.baseUrl, token);
}

/** The current anonymous URL of a target, or undefined. */
export async function anonymousUrlOf(t: TenantContext, kind: AnonymousKind, id: string): Promise<string | undefined> {
  const created = await newestTokenCreated(t.env.DB, t.tenantId, kind, id);
  return created !== null ? anonymousUrl(t.baseUrl, await tokenFor(secretOf(t.env), t.tenantId, kind, id, created)) : undefined;
}

export async function dropAnonymous(t: TenantContext, kind: AnonymousKind, ids: string[]): Promise<void> {
  await deleteTokens(t.env.DB, t.tenantId, kind, ids);
}

/** What a token opens, or null (unknown, revoked, or its file deleted). */
export async function resolveAnonymous(db: D1Database, token: string): Promise<{ tenantId: number; kind: AnonymousKind; targetId: string } | null> {
  if (!/^[A-Za-z0-9_-]{22}$/.test(token)) return null;
  return tokenTarget(db, await tokenHash(token));
}
