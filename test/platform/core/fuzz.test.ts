/**
 * The shapes an OpenAPI-driven fuzzer found answering 5xx (issue 18, item 10), sent to EVERY
 * platform operation the OpenAPI document lists, with a full-scope token of tenant 1:
 * - a very long value in every query parameter (`search` first: a LIKE pattern SQLite refuses);
 * - NUL (`%00`) in every query value (ownerId reached D1 and R2 keys);
 * - a chunked body over the JSON limit on every POST/PUT, which must be answered 4xx after the
 *   body was read to its end (wrangler's local proxy turns a request body left unread or
 *   cancelled into its own 500 "Network connection lost").
 * Every answer must be below 500.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, documentedOperations, seedPlatform, tenantToken } from '../../helpers/platform';

type Operation = { method: string; path: string; query: string[]; body: string[] };

let token: string;
let operations: Operation[];

beforeAll(async () => {
  await seedPlatform();
  token = await tenantToken(1);
  operations = (await documentedOperations()).map(({ method, path, op }) => ({
    method,
    path,
    query: ((op.parameters ?? []) as Array<{ in: string; name: string }>).filter((p) => p.in === 'query' && p.name !== 'tenantId').map((p) => p.name),
    body: Object.keys(op.requestBody?.content ?? {}),
  }));
});

// Path parameters get a well-formed id of some asset of the demo tenant where one fits.
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, (name) => (name === '{pageIndex}' ? '0' : '65a1b2c3d4e5f60718293a4b'));

/** Runs `check` on every operation, a few at a time, collecting every failure before asserting. */
async function everyOperation(pick: (op: Operation) => boolean, check: (op: Operation) => Promise<string | undefined>): Promise<number> {
  const chosen = operations.filter(pick);
  const failures: string[] = [];
  for (let i = 0; i < chosen.length; i += 6) {
    const results = await Promise.all(chosen.slice(i, i + 6).map(check));
    failures.push(...results.filter((r): r is string => r !== undefined));
  }
  expect(failures).toEqual([]);
  return chosen.length;
}

async function answer(op: Operation, query: string, init: RequestInit = {}): Promise<string | undefined> {
  const res = await call(`${concrete(op.path)}?${query}`, { method: op.method, ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
  const text = await res.text();
  return res.status >= 500 ? `${op.method} ${op.path}?${query.slice(0, 40)}: ${res.status} ${text.slice(0, 200)}` : undefined;
}

const jsonInit = (op: Operation): RequestInit => (op.body.includes('application/json') ? { body: '{}', headers: { 'content-type': 'application/json' } } : {});

describe('fuzz shapes on every platform operation (issue 18, item 10)', () => {
  it('a very long search on every list answers 4xx or a correct list, never 5xx', async () => {
    const long = 'a%25_'.repeat(20_000);
    const n = await everyOperation((op) => op.query.includes('search'), (op) => answer(op, `search=${long}`));
    expect(n).toBeGreaterThanOrEqual(30);
  });

  it('a very long value in every other query parameter never answers 5xx', async () => {
    const long = 'x'.repeat(60_000);
    await everyOperation((op) => op.query.length > 0, (op) => answer(op, op.query.map((q) => `${q}=${long}`).join('&'), jsonInit(op)));
  });

  it('NUL in every query value never answers 5xx', async () => {
    await everyOperation((op) => op.query.length > 0, async (op) => {
      for (const q of op.query) {
        const failed = await answer(op, `${q}=%00`, jsonInit(op));
        if (failed) return failed;
      }
      return undefined;
    });
  });

  it('ownerId=%00 on private-*/batch-delete is a 400 naming ownerId', async () => {
    for (const kind of ['private-designs', 'private-images', 'private-mockups', 'private-resources']) {
      const res = await call(`/api/storage/v1/${kind}/batch-delete?ownerId=%00`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: ['65a1b2c3d4e5f60718293a4b'] }),
      });
      expect(res.status, kind).toBe(400);
      expect(Object.keys(((await res.json()) as any).errors), kind).toContain('ownerId');
    }
  });

  it('a chunked body over the limit on every POST/PUT answers 4xx after reading the body to its end', { timeout: 600_000 }, async () => {
    const size = 5 * 1024 * 1024;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const n = await everyOperation((op) => op.method === 'POST' || op.method === 'PUT', async (op) => {
      let sent = 0;
      let ended = false;
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            if (sent >= size) {
              ended = true;
              return controller.close();
            }
            sent += chunk.byteLength;
            controller.enqueue(chunk);
          },
        },
        { highWaterMark: 0 },
      );
      // No Content-Length: the body arrives chunked. JSON where the route takes it, else its own type.
      const type = op.body.includes('application/json') || op.body.length === 0 ? 'application/json' : op.body[0]!;
      const res = await call(`${concrete(op.path)}?ownerId=fuzz-owner`, {
        method: op.method,
        headers: { authorization: `Bearer ${token}`, 'content-type': type === 'multipart/form-data' ? `${type}; boundary=x` : type },
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      if (res.status >= 500 || res.status < 400) return `${op.method} ${op.path}: ${res.status} ${text.slice(0, 200)}`;
      if (!ended) return `${op.method} ${op.path}: answered ${res.status} after reading ${sent} of ${size} bytes`;
      return undefined;
    });
    expect(n).toBeGreaterThanOrEqual(200);
  });
});
