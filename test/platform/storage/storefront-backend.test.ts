// Black box, as a storefront back end drives the API over HTTP: a token from /connect/token,
// then upload → folders → custom fields → copy → import from a URL → delete, reading only what
// the responses say (ids, URLs), plus the demo design and mockup of the seed.
import { beforeAll, expect, it } from 'vitest';
import { fixtureServer, psdFixture } from '../../helpers/fixtures';
import { call, seedPlatform } from '../../helpers/platform';

beforeAll(seedPlatform);

async function http(token: string, method: string, path: string, body?: BodyInit | object, headers: Record<string, string> = {}) {
  const isRaw = body instanceof FormData || typeof body === 'string';
  const res = await call(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body && !isRaw ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : isRaw ? (body as BodyInit) : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text && /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined, text };
}

it('token → upload → folders → custom fields → copy → import from URL → delete', async () => {
  const tokenRes = await call('/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo-backend&client_secret=demo-backend-secret&scope=Assets_full%20Private_assets_full',
  });
  expect(tokenRes.status).toBe(200);
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const api = '/api/storage/v1';

  // Upload a private design for a customer, into a folder path that does not exist yet.
  const fd = new FormData();
  fd.append('file', new Blob([await psdFixture('psdtools-text.psd')]), 'Birthday card.psd');
  fd.append('ownerId', 'shopper-42');
  fd.append('path', 'Orders/2026/');
  fd.append('customFields', JSON.stringify({ orderLine: 'A-1', status: 'draft' }));
  const up = await http(token, 'POST', `${api}/private-designs`, fd);
  expect(up.status, up.text).toBe(201);
  const design = up.json;
  expect(design).toMatchObject({ name: 'Birthday card', ownerId: 'shopper-42', private: true, designType: 'Psd', customFields: { orderLine: 'A-1' } });

  // Folders: the path was created; its content lists the design.
  const folder = await http(token, 'GET', `${api}/private-designs/folders?fullPath=/orders/2026&ownerId=shopper-42`);
  expect(folder.status).toBe(200);
  expect(folder.json).toMatchObject({ name: '2026', path: '/Orders/', hasContent: true });
  const content = await http(token, 'GET', `${api}/private-designs/folders/content?folderId=${folder.json.id}&ownerId=shopper-42`);
  expect(content.json.entities.map((e: any) => e.id)).toEqual([design.id]);

  // Custom fields: discrete update, then find it by filter.
  const upd = await http(token, 'POST', `${api}/private-designs/batch-update-custom-fields/discrete`, { [design.id]: { fieldsToUpdate: { status: 'ordered' } } });
  expect(upd.status).toBe(204);
  const found = await http(token, 'GET', `${api}/private-designs?ownerId=shopper-42&customFields=${encodeURIComponent('{"status":"ordered"}')}`);
  expect(found.json.items.map((e: any) => e.id)).toEqual([design.id]);

  // Copy (Rename on a clash) and download the copy with a Range.
  const copy = await http(token, 'POST', `${api}/private-designs/${design.id}?strategy=Rename`);
  expect(copy.status).toBe(201);
  expect(copy.json.name).toBe('Birthday card (1)');
  const part = await call(copy.json.url, { headers: { authorization: `Bearer ${token}`, range: 'bytes=0-3' } });
  expect(part.status).toBe(206);
  expect(new TextDecoder().decode(await part.arrayBuffer())).toBe('8BPS');

  // Import an image from the local test server.
  const imp = await http(token, 'POST', '/api/processor/v1/private-images/import/from-url', {
    sourceUrl: `${fixtureServer()}/assets/marker-40x20.jpg`,
    requestHeaders: [{ name: 'Accept', value: 'image/*' }],
    ownerId: 'shopper-42',
    path: '/Orders/2026/',
  });
  expect(imp.status, imp.text).toBe(201);
  expect(imp.json).toMatchObject({ mimeType: 'image/jpeg', metadata: { width: 40, height: 20 } });

  // Delete everything again: the folder, recursively.
  const del = await http(token, 'DELETE', `${api}/private-designs/folders/${folder.json.id}?ownerId=shopper-42`);
  expect(del.status).toBe(409);
  expect((await http(token, 'DELETE', `${api}/private-designs/folders/${folder.json.id}?ownerId=shopper-42&recursive=true`)).status).toBe(204);
  expect((await http(token, 'GET', `${api}/private-designs/${design.id}`)).status).toBe(404);
  expect((await http(token, 'DELETE', `${api}/private-images/${imp.json.id}`)).status).toBe(204);
});

it('the seeded demo design and mockup are there', async () => {
  const res = await call('/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=demo-backend&client_secret=demo-backend-secret',
  });
  const token = ((await res.json()) as { access_token: string }).access_token;
  const d = await http(token, 'GET', '/api/storage/v1/designs/demo-card-design');
  expect(d.json).toMatchObject({ id: 'demo-card-design', designType: 'Psd', metadata: { surfaces: [{ width: 400, height: 400 }] } });
  const layers = await http(token, 'GET', '/api/processor/v1/mockups/demo-mockup/artwork-layers');
  expect(layers.status).toBe(200);
  expect(layers.json.length).toBeGreaterThan(0);
});
