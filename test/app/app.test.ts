import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp, enabledAreas, serviceAreaOf } from '../../src/app';

describe('routing by service area', () => {
  it('classifies paths into identity, rendering and platform areas', () => {
    expect(serviceAreaOf('/.well-known/openid-configuration')).toBe('identity');
    expect(serviceAreaOf('/connect/token')).toBe('identity');
    expect(serviceAreaOf('/api/Info')).toBe('rendering');
    expect(serviceAreaOf('/api/results/download/x.jpg')).toBe('rendering');
    expect(serviceAreaOf('/api/rendering/preview')).toBe('rendering');
    expect(serviceAreaOf('/api/rendering/v1/jobs/update-project-owner')).toBe('platform');
    expect(serviceAreaOf('/api/storefront/v1/projects')).toBe('platform');
  });

  it('defaults to every area when SERVICES is empty', () => {
    expect([...enabledAreas('')]).toEqual(['identity', 'rendering', 'platform']);
    expect([...enabledAreas('identity, Platform')]).toEqual(['identity', 'platform']);
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await exports.default.fetch('http://localhost/no/such/path');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('serves an OpenAPI 3.1 document per service area and a Swagger UI page', async () => {
    for (const name of ['identity', 'rendering', 'platform']) {
      const res = await exports.default.fetch(`http://localhost/api/docs/${name}.json`);
      expect(res.status).toBe(200);
      expect((await res.json()) as object).toMatchObject({ openapi: '3.1.0' });
    }
    const ui = await exports.default.fetch('http://localhost/api/docs');
    expect(ui.headers.get('content-type')).toContain('text/html');
  });
});

describe('areas built on their first request (createApp)', () => {
  const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  const get = (app: ReturnType<typeof createApp>, path: string, vars: Partial<typeof env> = {}) =>
    app.fetch(new Request(`http://localhost${path}`), { ...env, ...vars }, ctx);

  it('matches paths ignoring case when that request is the one that builds the area', async () => {
    expect((await get(createApp(), '/API/STOREFRONT/V1/INFO')).status).toBe(200);
    expect((await get(createApp(), '/API/info/')).status).toBe(200);
    const options = await createApp().fetch(new Request('http://localhost/Api/Storage/V1/Info', { method: 'OPTIONS' }), env, ctx);
    expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('generates the OpenAPI documents on their first request, before any area served one', async () => {
    const doc = (await (await get(createApp(), '/api/docs/platform.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/api/atoms/v1/info');
    expect((await get(createApp(), '/api/docs/rendering.json')).status).toBe(200);
  });

  it('answers 404 for an area SERVICES leaves out, without building it', async () => {
    const res = await get(createApp(), '/api/storefront/v1/info', { SERVICES: 'identity' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});

import { psdFixture } from '../helpers/fixtures';

describe('test fixture server', () => {
  it('serves the in-repo PSD fixtures (test/fixtures/psd) into workerd', async () => {
    const bytes = await psdFixture('psdtools-blend-multiply.psd');
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe('8BPS');
  });
});
