// Platform test helpers: the demo tenants as scripts/seed/10-identity.mjs and 30-platform.mjs
// create them (tenant 1 "Demo" with demo-backend, tenant 2 "Demo 2" with demo2-backend), tokens
// through /connect/token, and `api()` that drives the Worker over its fetch handler as an HTTP
// client would.
import { env, exports } from 'cloudflare:workers';
import { RESOURCE_TYPES } from '../../src/identity/scopes';
import { seedDemoAssets } from './demo-assets';
import { DEMO, seedIdentity } from './identity-seed';

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
  const statements: Array<[string, ...unknown[]]> = [
    [`INSERT OR IGNORE INTO tenants (id, name) VALUES (?1, ?2)`, TENANT2.tenantId, TENANT2.name],
    [
      `INSERT OR IGNORE INTO apps (client_id, tenant_id, name, auth_type, secret_hash, token_lifetime, permissions, redirect_uris, post_logout_redirect_uris, cors_origins, require_client_secret, require_pkce)
       VALUES (?1, ?2, ?1, 'client_credentials', ?3, 3600, ?4, '[]', '[]', '[]', 1, 0)`,
      TENANT2.backend.clientId,
      TENANT2.tenantId,
      await secretHash(TENANT2.backend.secret),
      allFull,
    ],
    [`UPDATE apps SET permissions = json_set(permissions, '$.Products', 'full') WHERE client_id IN ('demo-backend', 'demo2-backend')`],
    [`INSERT OR IGNORE INTO storefronts (id, tenant_id, name, type, status) VALUES (1, 1, 'Demo storefront', 'Custom', 'Dev')`],
    [`INSERT OR IGNORE INTO storefronts (id, tenant_id, name, type, status) VALUES (2, 2, 'Demo 2 storefront', 'Custom', 'Dev')`],
    [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (1, 1, 'New', 1, 0)`],
    [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (1, 2, 'In production', 0, 0)`],
    [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (1, 3, 'Completed', 0, 1)`],
    [`INSERT OR IGNORE INTO project_transitions (tenant_id, name, display_name, start_status, result_status) VALUES (1, 'start-production', 'Start production', 1, 2)`],
    [`INSERT OR IGNORE INTO project_transitions (tenant_id, name, display_name, start_status, result_status) VALUES (1, 'complete', 'Complete', 2, 3)`],
    [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (2, 1, 'New', 1, 0)`],
    [`INSERT OR IGNORE INTO storefront_users (tenant_id, storefront_id, user_id, is_anonymous) VALUES (1, 1, 'demo-customer', 0)`],
    // --- Added by the area helpers, as in scripts/seed/30-platform.mjs: demo-card-design,
    // demo-mockup, pipeline 1, product 1, reference demo-card.
    // Back office (catalogue): pipeline 1, workflow 1, product 1 (version 1: option Paper = Matte,
    // variant 1 DEMO-CARD-MATTE, design demo-card-design in group "front" and demo-mockup on every
    // variant), reference demo-card (storefront 1 → product 1).
    [`INSERT OR IGNORE INTO processing_pipelines (id, tenant_id, name, raw_content) VALUES (1, 1, 'render-hires', ?1)`, DEMO_PIPELINE],
    [`INSERT OR IGNORE INTO personalization_workflows (id, tenant_id, name, content, workflow_type) VALUES (1, 1, 'Demo editor', ?1, 'WorkflowElements')`, DEMO_WORKFLOW],
    [`INSERT OR IGNORE INTO products (id, tenant_id, name, description, current_version_id, personalization_workflow_id, processing_pipeline_id) VALUES (1, 1, 'Demo card', 'A business card with three lines of text.', 1, 1, 1)`],
    [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (1, 1, 1)`],
    [`INSERT OR IGNORE INTO product_options (id, tenant_id, product_version_id, product_id, uid, type, title, sort_index, use_for_design_binding, use_for_mockup_binding) VALUES (1, 1, 1, 1, 'paper', 'Simple', 'Paper', 0, 1, 1)`],
    [`INSERT OR IGNORE INTO option_values (id, tenant_id, product_version_id, option_uid, uid, title, sort_index, is_default) VALUES (1, 1, 1, 'paper', 'matte', 'Matte', 0, 1)`],
    [`INSERT OR IGNORE INTO variants (id, tenant_id, product_version_id, product_id, uid, option_value_uids, is_available, sort_index, sku) VALUES (1, 1, 1, 1, 'demo-card-matte', '["matte"]', 1, 0, 'DEMO-CARD-MATTE')`],
    [`INSERT OR IGNORE INTO design_connections (id, tenant_id, product_version_id, design_id, design_group, options) VALUES (1, 1, 1, 'demo-card-design', 'front', '[]')`],
    [`INSERT OR IGNORE INTO mockup_connections (id, tenant_id, product_version_id, mockup_id, options) VALUES (1, 1, 1, 'demo-mockup', '[]')`],
    [`INSERT OR IGNORE INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_id) VALUES (1, 1, 'demo-card', 'Product', 'Demo card', 1)`],
  ];
  await env.DB.batch(statements.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
  // Asset storage: demo-card-design and demo-mockup with their blobs (test/helpers/demo-assets.ts).
  await seedDemoAssets();
}

/** Pipeline 1 "render-hires" (contract, Demo seed): extract → render-hires Pdf 300 dpi → finalize. */
export const DEMO_PIPELINE = JSON.stringify({
  tasks: [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf' } },
    { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
  ],
});
export const DEMO_WORKFLOW = JSON.stringify({ editor: 'WorkflowElements', designGroup: 'front' });

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(path.startsWith('http') ? path : BASE + path, { redirect: 'manual', ...init }));
}

const tokens = new Map<string, string>();

/**
 * A Client Credentials access token of tenant 1 (demo-backend) or tenant 2 (demo2-backend),
 * all scopes unless `scope` narrows them. Cached per test file.
 */
export async function tenantToken(tenant: 1 | 2 = 1, scope?: string): Promise<string> {
  const key = `${tenant} ${scope ?? ''}`;
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
