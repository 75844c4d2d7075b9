// Platform test helpers: the demo tenants as scripts/seed/10-identity.mjs and 30-platform.mjs
// create them (tenant 1 "Demo" with demo-backend, tenant 2 "Demo 2" with demo2-backend), tokens
// through /connect/token, and `api()` that drives the Worker over its fetch handler as an HTTP
// client would.
import { env, exports } from 'cloudflare:workers';
import { RESOURCE_TYPES } from '../../src/auth/scopes';
import { seedDemoAssets } from './demo-assets';
import { DEMO, seedIdentity } from './identity-seed';
import { testFile } from './per-file';
import { DEMO_PIPELINE, DEMO_WORKFLOW, platformSeedStatements } from '../../scripts/lib/platform-seed-data.mjs';

export const BASE = 'http://localhost';

export const TENANT2 = {
  tenantId: 2,
  name: 'Demo 2',
  backend: { clientId: 'demo2-backend', secret: 'demo2-backend-secret' },
} as const;

const b64url = (bytes: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const secretHash = async (secret: string) => b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret)));

/**
 * The demo seed of scripts/seed/10-identity.mjs and 30-platform.mjs, inside workerd: tenant 1
 * (seedIdentity) and tenant 2 "Demo 2" with demo2-backend (all Full), Products Full for both
 * backends, storefronts 1 and 2, the project statuses and transitions, and demo-customer.
 * Idempotent. Area helpers add their demo rows (designs, product 1, pipeline 1…) in the marked place.
 */
export async function seedPlatform(): Promise<void> {
  await seedIdentity();
  const allFull = JSON.stringify(Object.fromEntries(RESOURCE_TYPES.map((t) => [t, 'full'])));
  // The rows scripts/seed/30-platform.mjs writes (one list: scripts/lib/platform-seed-data.mjs).
  const statements = platformSeedStatements({ demo2SecretHash: await secretHash(TENANT2.backend.secret), allFull });
  await env.DB.batch(statements.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
  // Asset storage: demo-card-design and demo-mockup with their blobs (test/helpers/demo-assets.ts).
  await seedDemoAssets();
}

export { DEMO_PIPELINE, DEMO_WORKFLOW };

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(path.startsWith('http') ? path : BASE + path, { redirect: 'manual', ...init }));
}

/** One operation of the platform's OpenAPI document: `op` is its operation object as the document has it. */
export interface DocumentedOperation {
  method: string;
  path: string;
  op: Record<string, any>;
}

/**
 * Every operation /api/docs/platform.json lists, in the document's order, for the tests that walk
 * every route (so a route an area adds is covered without naming it). `methods`: which, in lower
 * case as the document keys them.
 */
export async function documentedOperations(methods = ['get', 'post', 'put', 'patch', 'delete']): Promise<DocumentedOperation[]> {
  const doc = (await (await call('/api/docs/platform.json')).json()) as { paths: Record<string, Record<string, any>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => methods.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

const tokens = new Map<string, string>();

/**
 * A Client Credentials access token of tenant 1 (demo-backend) or tenant 2 (demo2-backend),
 * all scopes unless `scope` narrows them. Cached per test file (also where files share a runtime:
 * the key holds the file's number, test/helpers/per-file.ts).
 */
export async function tenantToken(tenant: 1 | 2 = 1, scope?: string): Promise<string> {
  const key = `${testFile()} ${tenant} ${scope ?? ''}`;
  const cached = tokens.get(key);
  if (cached) return cached;
  const app = tenant === 1 ? DEMO.backend : TENANT2.backend;
  const res = await call('/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.secret, ...(scope ? { scope } : {}) }),
  });
  if (res.status !== 200) throw new Error(`token for tenant ${tenant}: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  tokens.set(key, token);
  return token;
}

export interface ApiOptions {
  /** A token, or 1 / 2 for that tenant's backend token; omit for no Authorization header. */
  token?: string | 1 | 2;
  headers?: Record<string, string>;
  /** Raw body (FormData, bytes, string) instead of JSON. */
  raw?: BodyInit;
}

/**
 * One HTTP call to the Worker: `body` is sent as JSON unless `options.raw` is given.
 *
 * @example const res = await api('GET', '/api/storage/v1/designs', undefined, { token: 1 });
 */
export async function api(method: string, path: string, body?: unknown, options: ApiOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  const token = typeof options.token === 'number' ? await tenantToken(options.token) : options.token;
  if (token) headers.set('authorization', `Bearer ${token}`);
  let payload: BodyInit | undefined = options.raw;
  if (payload === undefined && body !== undefined) {
    payload = JSON.stringify(body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  return call(path, { method, headers, body: payload });
}

/** `api()` then the JSON body, failing with the body's text when the status is not `expected`. */
export async function apiJson<T = any>(method: string, path: string, body: unknown, options: ApiOptions, expected = 200): Promise<T> {
  const res = await api(method, path, body, options);
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
