import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { call, clientCredentialsToken } from './flow';

beforeAll(seedIdentity);

const allowed = DEMO.server.origin;
const stranger = 'https://stranger.example';

describe('CORS (identity contract)', () => {
  it('discovery and JWKS answer any origin with *', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/openid-configuration/jwks']) {
      const res = await call(path, { headers: { origin: stranger } });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  for (const path of ['/connect/token', '/connect/userinfo', '/connect/revocation']) {
    it(`${path} echoes an origin allowed by any app, with Vary: Origin`, async () => {
      const res = await call(path, { method: 'POST', headers: { origin: allowed, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
      expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(res.headers.get('vary')).toContain('Origin');
    });

    it(`${path} answers a preflight from an allowed origin`, async () => {
      const res = await call(path, {
        method: 'OPTIONS',
        headers: { origin: allowed, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(res.headers.get('vary')).toContain('Origin');
    });

    it(`${path} sends no CORS grant to an origin no app allows`, async () => {
      const pre = await call(path, { method: 'OPTIONS', headers: { origin: stranger, 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      const res = await call(path, { method: 'POST', headers: { origin: stranger }, body: '' });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.headers.get('vary')).toContain('Origin');
    });
  }

  it('a successful token response carries the CORS grant too', async () => {
    const res = await call('/connect/token', {
      method: 'POST',
      headers: { origin: allowed, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: DEMO.backend.clientId, client_secret: DEMO.backend.secret }).toString(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(allowed);
  });

  it('sends no CORS headers anywhere else', async () => {
    const token = await clientCredentialsToken();
    for (const [path, init] of [
      ['/connect/authorize?client_id=demo-spa', {}],
      ['/connect/endsession', {}],
      ['/account/login?pending=x', {}],
      ['/connect/introspect', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${token}` }],
    ] as const) {
      const res = await call(path, { ...init, headers: { ...(('headers' in init && init.headers) || {}), origin: allowed } });
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});
