import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../src/auth';

const app = new Hono();
app.get('/', (c) => c.json({ token: bearerToken(c) ?? null }));
const parse = async (authorization?: string) =>
  ((await (await app.request('/', { headers: authorization === undefined ? {} : { authorization } })).json()) as { token: string | null }).token;

describe('bearerToken (RFC 6750 §2.1)', () => {
  it('reads the credentials of the Bearer scheme, case-insensitively', async () => {
    expect(await parse('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(await parse('bearer abc')).toBe('abc');
  });

  it('sees no token without a header or with another scheme', async () => {
    expect(await parse()).toBeNull();
    expect(await parse('Basic Zm9vOmJhcg==')).toBeNull();
  });

  it('sees an empty token for a bare "Bearer"', async () => {
    expect(await parse('Bearer')).toBe('');
  });
});
