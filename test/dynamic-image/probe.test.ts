/**
 * Every documented rendering route (as /api/docs/rendering.json lists it), probed with bad input:
 * malformed JSON, wrong types, missing fields, huge strings, bad path values and wrong content
 * types (issue 8, item 2.8). Each answer must be a JSON 4xx with `error` and `message`, leaking no
 * stack. The table is built from the document, so a new route is probed without editing this.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { API_KEY, call, form, PNG_1x1, uploadFixture } from './helpers';

type Operation = {
  parameters?: Array<{ name: string; in: 'query' | 'path'; schema?: { type?: string } }>;
  requestBody?: { content: Record<string, unknown> };
};
type Doc = { paths: Record<string, Record<string, Operation>> };

interface Probe {
  what: string;
  method: string;
  path: string;
  body?: BodyInit;
  type?: string;
}

const HUGE = 'a'.repeat(200_000);
/** Bad names as they appear in a path (percent-encoded forms included) and as query values (decoded). */
const BAD_PATHS = ['..', '../x', 'a/../../x', '%2e%2e%2fx', 'a%5Cb', '%00', '%2fabs', HUGE.slice(0, 5000)];
const BAD_VALUES = ['..', '../x', 'a/../../x', 'a\\b', 'a\u0000b', '/abs'];

let template: string;
beforeAll(async () => {
  template = await uploadFixture('psdtools-text.psd', 'probe');
});

/** JSON bodies that are wrong in every way we can think of, for an endpoint whose body names `template`. */
function jsonBodies(path: string): Array<[string, string]> {
  const renders = path.startsWith('/api/rendering/');
  const previews = renders && path.endsWith('/preview');
  const page = (extra: object) => JSON.stringify(path.includes('multipage') ? { pages: [{ template, ...extra }] } : { template, ...extra });
  return [
    ['malformed JSON', '{"template": '],
    ['malformed JSON (trailing garbage)', '{"template": "x"} x'],
    ['not an object: array', '[]'],
    ['not an object: null', 'null'],
    ['not an object: string', '"demo"'],
    ['not an object: number', '42'],
    ['missing fields', '{}'],
    ['wrong type: template number', path.includes('multipage') ? '{"pages":[{"template":5}]}' : '{"template":5}'],
    ['wrong type: template object', path.includes('multipage') ? '{"pages":[{"template":{}}]}' : '{"template":{}}'],
    ['wrong type: pages object', '{"pages":{"0":{}}, "template": {}}'],
    ['huge template name', page({ template: HUGE })],
    ['bad path value: ..', page({ template: '../secrets' })],
    ['bad path value: absolute', page({ template: '/etc/passwd' })],
    ['bad path value: backslash', page({ template: 'a\\b' })],
    ['bad path value: NUL', page({ template: 'a\u0000b' })],
    ...((renders ? [
    ['wrong type: data array', page({ data: [] })],
    ['wrong type: data string', page({ data: 'x' })],
    ['data with __proto__', `{"template":${JSON.stringify(template)},"data":{"__proto__":{"visible":false}}}`.replace(/^\{/, path.includes('multipage') ? '{"pages":[{' : '{').replace(/\}$/, path.includes('multipage') ? '}]}' : '}')],
    ['data with an unknown layer', page({ data: { Nope: { visible: false } } })],
    ['data command wrong type', page({ data: { Background: 5 } })],
    ['data huge text', page({ data: { Background: { type: 'image', image: HUGE } } })],
    ['data image bad URL', page({ data: { Background: { type: 'image', image: 'javascript:alert(1)' } } })],
    ] : []) as Array<[string, string]>),
    ...((previews ? [['wrong types: size, format, quality', page({ size: { width: -1, height: 'x' }, format: 'gif', jpegQuality: 1000, unsharpMask: [1] })]] : []) as Array<[string, string]>),
    ['wrong type: booleans', page({ preloadImages: 'maybe', fullInfo: 'maybe', combine: 'maybe', textOutputMode: 'both' })],
    ['deep nesting', `${'['.repeat(5000)}${']'.repeat(5000)}`],
  ];
}

function probesFor(doc: Doc): Probe[] {
  const probes: Probe[] = [];
  for (const [template_, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const M = method.toUpperCase();
      const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      const fill = (value: string) => template_.replace(/\{(\w+)\}/g, () => encodeURIComponent(value));
      const base = fill('probe/x.png');
      // Bad path values.
      if (pathParams.length) for (const bad of BAD_PATHS) probes.push({ what: `path ${JSON.stringify(bad.slice(0, 20))}`, method: M, path: template_.replace(/\{(\w+)\}/g, bad) });
      // Query parameters: huge values, wrong types, bad names.
      for (const q of query) {
        probes.push({ what: `query ${q.name} huge`, method: M, path: `${base}?${q.name}=${HUGE.slice(0, 20_000)}` });
        if (q.schema?.type === 'integer' || q.schema?.type === 'boolean') probes.push({ what: `query ${q.name} wrong type`, method: M, path: `${base}?${q.name}=%7B%7D` });
        if (['file', 'subfolder', 'destination'].includes(q.name)) for (const bad of BAD_VALUES) probes.push({ what: `query ${q.name}=${bad}`, method: M, path: `${base}?${q.name}=${encodeURIComponent(bad)}` });
      }
      const content = Object.keys(op.requestBody?.content ?? {});
      if (content.includes('application/json')) {
        for (const [what, body] of jsonBodies(template_)) probes.push({ what, method: M, path: base, body, type: 'application/json' });
        probes.push({ what: 'wrong content type: text/plain', method: M, path: base, body: 'template=x', type: 'text/plain' });
        probes.push({ what: 'wrong content type: form', method: M, path: base, body: 'template=x', type: 'application/x-www-form-urlencoded' });
        probes.push({ what: 'no body', method: M, path: base });
      }
      if (content.includes('multipart/form-data')) {
        probes.push({ what: 'wrong content type: JSON', method: M, path: base, body: '{"file":"x"}', type: 'application/json' });
        probes.push({ what: 'malformed multipart', method: M, path: base, body: '--x\r\nnot a part', type: 'multipart/form-data; boundary=x' });
        probes.push({ what: 'multipart without boundary', method: M, path: base, body: 'x', type: 'multipart/form-data' });
        probes.push({ what: 'no file field', method: M, path: base, body: form([['a.png', PNG_1x1]], 'other') });
        probes.push({ what: 'not the kind of file', method: M, path: base, body: form([['x.png', 'this is text']]) });
        probes.push({ what: 'huge file name', method: M, path: base, body: form([[`${HUGE.slice(0, 2000)}.png`, PNG_1x1]]) });
        probes.push({ what: 'file name with control characters', method: M, path: base, body: form([['a\u0001.png', PNG_1x1]]) });
        probes.push({ what: 'no body', method: M, path: base });
      }
    }
  }
  return probes;
}

async function send(p: Probe, key = true): Promise<Response> {
  const headers: Record<string, string> = key ? { 'X-DynamicImageApiKey': API_KEY } : {};
  if (p.type) headers['content-type'] = p.type;
  return call(p.path, { method: p.method, headers, body: p.body });
}

function expectJson4xx(what: string, res: Response, text: string): void {
  expect(res.status, `${what} → ${res.status} ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${what} → ${res.status} ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error?: unknown; message?: unknown; stack?: unknown };
  expect(typeof body.error, what).toBe('string');
  expect(typeof body.message, what).toBe('string');
  expect(body.stack, what).toBeUndefined();
  expect(text, what).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|node_modules/);
}

describe('every documented rendering route answers bad input with a JSON 4xx and no stack', () => {
  it('probes the whole document', async () => {
    const doc = (await (await call('/api/docs/rendering.json')).json()) as Doc;
    const probes = probesFor(doc);
    expect(probes.length).toBeGreaterThan(300);
    const failures: string[] = [];
    for (const p of probes) {
      const res = await send(p);
      const text = await res.text();
      try {
        expectJson4xx(`${p.method} ${p.path.slice(0, 80)} (${p.what})`, res, text);
      } catch (e) {
        failures.push((e as Error).message.split('\n')[0]!);
      }
    }
    expect(failures).toEqual([]);
  });

  it('a __proto__ layer key is a 400 like any unknown layer name', async () => {
    for (const path of ['/api/rendering/preview', '/api/rendering/hires']) {
      const res = await call(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"template":${JSON.stringify(template)},"data":{"__proto__":{"visible":false}}}`,
      });
      const body = (await res.json()) as { details: Array<{ path: string }> };
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.details[0]!.path).toBe('data.__proto__');
    }
  });

  it('writes without the API key are a JSON 403, before the body is read', async () => {
    const doc = (await (await call('/api/docs/rendering.json')).json()) as Doc & { paths: Record<string, Record<string, { security?: unknown[] }>> };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!(op as { security?: unknown[] }).security?.length) continue;
        const res = await send({ what: 'no key', method: method.toUpperCase(), path: path.replace(/\{(\w+)\}/g, 'x'), body: '{', type: 'application/json' }, false);
        expect(res.status, `${method} ${path}`).toBe(403);
        expectJson4xx(`${method} ${path}`, res, await res.text());
      }
    }
  });
});
