// Tenant isolation, route by route: the route list is read from /api/docs/platform.json, so every
// route an area adds is covered without touching this file (contract, "Auth & tenancy": another
// tenant's id answers 404, never data). Tenant 1's data: tenancy-fixtures.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, call, documentedOperations, seedPlatform, tenantToken } from '../helpers/platform';
import { LEAK_MARKER, removeTenant1Fixtures, seedTenant1Fixtures, T1_IDS, TENANT1_BODIES, tenant1HasSettings, tenant1Snapshot, tenant1ValuesFor } from './tenancy-fixtures';

interface Route {
  method: string;
  path: string;
  isPublic: boolean;
  pathParams: string[];
  query: Array<{ name: string; required: boolean }>;
  bodyTypes: string[];
}

let routes: Route[] = [];
let hadSettings = false;

beforeAll(async () => {
  await seedPlatform();
  hadSettings = await tenant1HasSettings();
  await seedTenant1Fixtures();
  routes = (await documentedOperations()).map(({ method, path, op }) => ({
    method,
    path,
    isPublic: Array.isArray(op.security) && op.security.length === 0,
    pathParams: (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name as string),
    query: (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => ({ name: p.name as string, required: Boolean(p.required) })),
    bodyTypes: Object.keys(op.requestBody?.content ?? {}),
  }));
});

// Files sharing this runtime (vitest.shared.config.ts) after this one find tenant 1 as the seed left it.
afterAll(() => removeTenant1Fixtures(hadSettings));

const fill = (route: Route, pick: (param: string) => string | number) =>
  route.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pick(name))));

/** Parameters that name a tenant's entity by id (a 2xx with another tenant's id is a leak). */
const ID_PARAMS = /id$/i;

function failures(list: string[]) {
  return list.length ? `\n  ${list.join('\n  ')}` : '';
}

describe('tenant isolation over every platform route', () => {
  it('the route list is read from the OpenAPI document (info of every area at least)', () => {
    expect(routes.filter((r) => r.path.endsWith('/v1/info')).length).toBe(6);
  });

  it('without a token every route answers 401, except info and anonymous URLs', async () => {
    const bad: string[] = [];
    for (const r of routes) {
      const res = await api(r.method, fill(r, (p) => tenant1ValuesFor(p)[0]!));
      if (r.isPublic) {
        // Anonymous file URLs answer 404 for an unknown token; only info must answer 200.
        if (r.path.endsWith('/info') && res.status !== 200) bad.push(`${r.method} ${r.path}: info answered ${res.status}`);
      } else if (res.status !== 401) bad.push(`${r.method} ${r.path}: ${res.status}`);
    }
    expect(bad, failures(bad)).toEqual([]);
  });

  it('OPTIONS answers 204 with Allow on every route path', async () => {
    const bad: string[] = [];
    for (const path of new Set(routes.map((r) => r.path))) {
      const res = await call(fill({ path } as Route, (p) => tenant1ValuesFor(p)[0]!), { method: 'OPTIONS' });
      if (res.status !== 204 || !res.headers.get('allow')) bad.push(`OPTIONS ${path}: ${res.status}`);
    }
    expect(bad, failures(bad)).toEqual([]);
  });

  it("tenant 2's token with ?tenantId=1 answers 403 on every route that takes a token", async () => {
    const bad: string[] = [];
    for (const r of routes.filter((x) => !x.isPublic)) {
      const path = fill(r, (p) => tenant1ValuesFor(p)[0]!);
      const res = await api(r.method, `${path}?tenantId=${T1_IDS.storefront}`, undefined, { token: 2 });
      if (res.status !== 403) bad.push(`${r.method} ${r.path}: ${res.status}`);
    }
    expect(bad, failures(bad)).toEqual([]);
  });

  it("tenant 2 given tenant 1's ids gets 404 (or 400/403), never tenant 1's data, and changes none of it", async () => {
    const before = await tenant1Snapshot();
    const bad: string[] = [];
    const t1Ids = (Object.values(T1_IDS) as Array<string | number>).filter((v): v is string => typeof v === 'string' && v.length >= 12);
    for (const r of routes.filter((x) => !x.isPublic)) {
      const rounds = Math.max(1, ...r.pathParams.map((p) => tenant1ValuesFor(p).length));
      for (let i = 0; i < rounds; i++) {
        const path = fill(r, (p) => {
          const values = tenant1ValuesFor(p);
          return values[i % values.length]!;
        });
        const query = new URLSearchParams();
        for (const q of r.query) {
          if (q.name === 'tenantId') continue;
          if (q.required || /^(storefrontId|ownerId)$/i.test(q.name)) query.set(q.name, String(tenant1ValuesFor(q.name)[0]));
        }
        const key = `${r.method} ${r.path}`;
        const body = ['POST', 'PUT', 'PATCH'].includes(r.method) && r.bodyTypes.some((t) => /json/.test(t)) ? (TENANT1_BODIES[key] ?? {}) : undefined;
        const res = await api(r.method, query.size ? `${path}?${query}` : path, body, { token: 2 });
        const text = await res.text();
        const where = `${key} (${path}): ${res.status}`;
        // The caller's own path values may be echoed back (problem `instance`, "no reference X"): not a leak.
        const echoed = r.pathParams.map((p) => String(tenant1ValuesFor(p)[i % tenant1ValuesFor(p).length]));
        const shown = echoed.reduce((s, v) => s.split(v).join(''), text);
        if (shown.includes(LEAK_MARKER)) bad.push(`${where} shows tenant 1's data`);
        if (res.ok && t1Ids.some((id) => text.includes(id))) bad.push(`${where} names a tenant 1 id`);
        if (res.ok && r.pathParams.some((p) => ID_PARAMS.test(p))) bad.push(`${where} succeeded with tenant 1's id`);
        if (res.status >= 500) bad.push(`${where} server error`);
      }
    }
    expect(bad, failures(bad)).toEqual([]);
    expect(await tenant1Snapshot()).toBe(before);
  }, 300_000);

  it('the backend tokens of both tenants are usable (tenant 2 has all scopes, Products included)', async () => {
    const t2 = await tenantToken(2);
    const payload = JSON.parse(atob(t2.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { tenantId: number; scope: string };
    expect(payload.tenantId).toBe(2);
    expect(payload.scope.split(' ')).toContain('Products_full');
    const t1 = JSON.parse(atob((await tenantToken(1)).split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { scope: string };
    expect(t1.scope.split(' ')).toContain('Products_full');
  });
});
