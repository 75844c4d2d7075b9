import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { enabledAreas, serviceAreaOf } from '../../src/app';

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

import { psdFixture } from '../helpers/fixtures';

describe('test fixture server', () => {
  it('serves the in-repo PSD fixtures (test/fixtures/psd) into workerd', async () => {
    const bytes = await psdFixture('psdtools-blend-multiply.psd');
    expect(new TextDecoder().decode(bytes.slice(0, 4))).toBe('8BPS');
  });
});
