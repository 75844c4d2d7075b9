import { beforeAll, describe, expect, it } from 'vitest';
import { seedPlatform, tenantToken } from '../../helpers/platform';
import { testCall } from './test-area';

let token: string;
beforeAll(async () => {
  await seedPlatform();
  token = await tenantToken(1);
});

const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('problem details (contract, Conventions: Errors)', () => {
  it('a schema failure is a 400 problem naming every field by JSON path at once', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', { token, ...json({ name: '', quantity: 'x', items: [{ designIds: [1] }] }) });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const p = (await res.json()) as any;
    expect(p).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, instance: '/api/storage/v1/things', code: 'invalid_request' });
    expect(typeof p.detail).toBe('string');
    expect(Object.keys(p.errors).sort()).toEqual(['items[0].designIds[0]', 'name', 'quantity']);
  });

  it('query and body problems are reported together', async () => {
    const res = await testCall('GET', '/api/storage/v1/things?skip=-1&take=1001&sorting=size%20ASC&customFields=%5B1%5D', { token });
    expect(res.status).toBe(400);
    const p = (await res.json()) as any;
    expect(Object.keys(p.errors).sort()).toEqual(['customFields', 'skip', 'sorting', 'take']);
  });

  it('malformed JSON is a 400 at the root "$"', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', { token, body: '{"name": ', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(Object.keys(((await res.json()) as any).errors)).toEqual(['$']);
  });

  it('a required body that is missing is a 400 at "$"', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', { token });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors.$).toBeDefined();
  });

  it('409 is application/json {type, description, ...extras}', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', { token, ...json({ name: 'taken', quantity: 1 }) });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ type: 'NameConflict', description: 'A thing named "taken" already exists.', existing: 1 });
  });

  it('an unknown platform path is a 404 problem; a malformed id is a 404, not a 400', async () => {
    for (const path of ['/api/storage/v1/nothing-here', '/api/storage/v1/things/not-an-id', '/api/storage/v1/things/65a1b2c3d4e5f60718293a4b']) {
      const res = await testCall('GET', path, { token });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(((await res.json()) as any).instance).toBe(path);
    }
  });

  it('401 without a token and 403 for a missing scope are problems that keep WWW-Authenticate', async () => {
    const none = await testCall('GET', '/api/storage/v1/things');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect(((await none.json()) as any)).toMatchObject({ status: 401, title: 'Unauthorized', code: 'unauthorized' });

    const readOnly = await tenantToken(1, 'Assets_read');
    const denied = await testCall('POST', '/api/storage/v1/things', { token: readOnly, ...json({ name: 'a', quantity: 1 }) });
    expect(denied.status).toBe(403);
    expect(denied.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(((await denied.json()) as any)).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });
});

describe('case-insensitive names and enums on input', () => {
  it('declared property names and enum values match ignoring case; record keys stay verbatim', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', {
      token,
      ...json({ NAME: 'a', Quantity: 2, designtype: 'printproduct', CustomFields: { MixedCase: 1, name: 'x' } }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: 'a', quantity: 2, designType: 'PrintProduct', customFields: { MixedCase: 1, name: 'x' } });
  });

  it('two spellings of one declared name are a 400', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', { token, ...json({ name: 'a', Name: 'b', quantity: 1 }) });
    expect(res.status).toBe(400);
    expect(Object.keys(((await res.json()) as any).errors)).toEqual(['name']);
    const q = await testCall('GET', '/api/storage/v1/things?take=1&TAKE=2', { token });
    expect(q.status).toBe(400);
  });

  it('query names and enum values match ignoring case; repeated names are arrays', async () => {
    const res = await testCall('GET', '/api/storage/v1/things?SKIP=5&Take=7&SORTING=LASTMODIFIED%20desc,name&Kind=psd&tags=a&tags=b&Search=x', { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.query).toMatchObject({
      skip: 5,
      take: 7,
      kind: 'Psd',
      tags: ['a', 'b'],
      search: 'x',
      sorting: [{ field: 'lastModified', direction: 'DESC' }, { field: 'name', direction: 'ASC' }],
    });
    expect(body).toMatchObject({ total: 0, items: [] });
  });

  it('paging defaults: skip 0, take 100, no sorting', async () => {
    const body = (await (await testCall('GET', '/api/storage/v1/things', { token })).json()) as any;
    expect(body.query).toMatchObject({ skip: 0, take: 100, sorting: [] });
  });

  it('literal path segments match ignoring case; parameters keep their spelling', async () => {
    const folders = await testCall('GET', '/API/Storage/V1/Things/FOLDERS', { token });
    expect(folders.status).toBe(200);
    expect(await folders.json()).toEqual({ route: 'folders' });
    const id = await testCall('GET', '/api/STORAGE/v1/things/ABCDEF', { token });
    expect(id.status).toBe(404);
    expect(((await id.json()) as any).detail).toContain('ABCDEF');
  });
});

describe('bodies', () => {
  it('a JSON body over 2 MB is a 413 problem', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024 + 10), quantity: 1 });
    const res = await testCall('POST', '/api/storage/v1/things', { token, body: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any)).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('a streamed body (no Content-Length) over 2 MB is a 413 problem too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(256 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ >= 12) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await testCall('POST', '/api/storage/v1/things', { token, body: stream, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
  });

  it('a bodyless POST accepts any content type, an empty form included', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/json']) {
      const res = await testCall('POST', '/api/storage/v1/things/65a1b2c3d4e5f60718293a4b/start', { token, body: '', headers: { 'content-type': type } });
      expect(res.status, type).toBe(204);
    }
    const optional = await testCall('POST', '/api/storage/v1/things/optional-body', { token, body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(optional.status).toBe(200);
  });

  it('a non-JSON body on a JSON route is a 415 problem', async () => {
    const res = await testCall('POST', '/api/storage/v1/things', { token, body: 'name=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('CORS and OPTIONS', () => {
  it('every platform response carries Access-Control-Allow-Origin: * and the exposed headers', async () => {
    for (const res of [await testCall('GET', '/api/storage/v1/things', { token }), await testCall('GET', '/api/storage/v1/things'), await testCall('GET', '/api/storage/v1/nope')]) {
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-expose-headers')).toBe('Content-Disposition, Content-Range, WWW-Authenticate, X-Preflight');
    }
  });

  it('OPTIONS answers 204 with Allow; as a preflight with methods, headers and max-age', async () => {
    const plain = await testCall('OPTIONS', '/api/storage/v1/things');
    expect(plain.status).toBe(204);
    expect(plain.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    const pre = await testCall('OPTIONS', '/api/storage/v1/things/abc', { headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    expect(pre.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Range');
    expect(pre.headers.get('access-control-max-age')).toBe('3600');
    expect((await testCall('OPTIONS', '/api/storage/v1/nope/nope/nope')).status).toBe(404);
  });
});
