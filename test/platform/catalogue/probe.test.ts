// Bad input on every catalogue route answers a 4xx problem, never a 500 (contract, Reliability):
// the routes are read from the OpenAPI document, so new catalogue routes are probed too.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, documentedOperations, seedPlatform } from '../../helpers/platform';
import { keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(1); // vitest.shared.config.ts: later files find the tenant's settings as this one did

const CATALOGUE = /^\/api\/(backoffice\/v1\/(products|product-|personalization-|processing-|storefronts|tenant-)|storefront\/v1\/(products|product-|processing-))/;

interface Route {
  method: string;
  path: string;
  bodyTypes: string[];
}
let routes: Route[] = [];

beforeAll(async () => {
  await seedPlatform();
  routes = (await documentedOperations(['get', 'post', 'put', 'delete']))
    .filter(({ path }) => CATALOGUE.test(path))
    .map(({ method, path, op }) => ({ method, path, bodyTypes: Object.keys(op.requestBody?.content ?? {}) }));
});

const PATH_VALUES = ['999999999', 'abc', '%00', 'x'.repeat(300)];
const BODIES: Array<[string, BodyInit | undefined, string | undefined]> = [
  ['no body', undefined, undefined],
  ['empty object', '{}', 'application/json'],
  ['array', '[]', 'application/json'],
  ['null', 'null', 'application/json'],
  ['string', '"x"', 'application/json'],
  ['not JSON', '{"name":', 'application/json'],
  ['wrong types', JSON.stringify({ name: 5, options: 'x', connections: [{ designId: 7, options: [{}] }], tags: {}, customFields: [], items: [{ productId: 'a' }], productReferenceType: 'Nope', rawContent: 5, value: 1 }), 'application/json'],
  ['wrong entries', JSON.stringify([{ productVariantId: 'x', value: {} }, null]), 'application/json'],
  ['text', 'hello', 'text/plain'],
  ['deep', '['.repeat(5000) + ']'.repeat(5000), 'application/json'],
];
const QUERY = '?storefrontId=abc&productVersionId=x&take=-1&skip=x&sorting=colour%20UP&customFields=%7Bbad&tags=&sku=' + 'x'.repeat(300) + '&takeAvailableOnly=maybe&options=%5B1%5D&mockupValidationType=Nope&designCustomFields=1';

describe('catalogue routes under bad input', () => {
  it('finds the catalogue routes in the OpenAPI document', () => {
    expect(routes.length).toBeGreaterThan(60);
  });

  it('malformed path ids, queries and bodies answer 4xx problems, never 5xx', async () => {
    const bad: string[] = [];
    for (const r of routes) {
      for (const value of PATH_VALUES) {
        const path = r.path.replace(/\{[^}]+\}/g, value);
        const bodies = ['POST', 'PUT', 'DELETE'].includes(r.method) ? BODIES : [BODIES[0]!];
        for (const [what, body, type] of bodies) {
          for (const query of ['', QUERY]) {
            const res = await api(r.method, path + query, undefined, { token: 1, raw: body, headers: type ? { 'content-type': type } : {} });
            if (res.status >= 500 || res.status < 400 && !(r.method === 'GET' || r.path.endsWith('tenant-settings'))) {
              bad.push(`${r.method} ${path}${query ? ' +query' : ''} (${what}): ${res.status} ${(await res.text()).slice(0, 200)}`);
            } else if (res.status >= 400 && res.status !== 409 && !/problem\+json/.test(res.headers.get('content-type') ?? '')) {
              bad.push(`${r.method} ${path} (${what}): ${res.status} is not a problem`);
            } else await res.body?.cancel();
          }
        }
      }
    }
    expect(bad, `\n  ${bad.slice(0, 40).join('\n  ')}`).toEqual([]);
  }, 300_000);
});
