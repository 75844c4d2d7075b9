import { describe, expect, it } from 'vitest';
import { PLATFORM_AREAS } from '../../../src/platform/core';
import { call } from '../../helpers/platform';

describe('GET/HEAD /api/<area>/v1/info (no token)', () => {
  for (const area of PLATFORM_AREAS) {
    it(`${area}: build info; atoms and processor add the design-atoms versions`, async () => {
      const res = await call(`/api/${area}/v1/info`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const info = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(info).sort()).toEqual(
        area === 'atoms' || area === 'processor'
          ? ['appName', 'buildDate', 'configuration', 'designAtomsModelVersion', 'designAtomsVersion', 'version']
          : ['appName', 'buildDate', 'configuration', 'version'],
      );
      if (area === 'atoms') expect(info.designAtomsModelVersion).toBe('1');
      const head = await call(`/api/${area}/v1/info`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect((await call(`/API/${area.toUpperCase()}/V1/INFO`)).status).toBe(200);
    });
  }

  it('OPTIONS on info answers 204 with Allow', async () => {
    const res = await call('/api/storage/v1/info', { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('unknown platform paths are problem 404s; identity and rendering errors keep their shape', async () => {
    const platform = await call('/api/storefront/v1/no-such-thing');
    expect(platform.status).toBe(404);
    expect(platform.headers.get('content-type')).toBe('application/problem+json');
    const identity = await call('/no-such-identity-page');
    expect(identity.status).toBe(404);
    expect(identity.headers.get('content-type')).not.toBe('application/problem+json');
  });
});

describe('/api/docs/platform.json', () => {
  it('lists every area\'s info route, tagged by area, with the bearer scheme', async () => {
    const doc = (await (await call('/api/docs/platform.json')).json()) as any;
    for (const area of PLATFORM_AREAS) {
      expect(doc.paths[`/api/${area}/v1/info`]?.get, area).toBeDefined();
      expect(doc.paths[`/api/${area}/v1/info`]?.head, area).toBeDefined();
    }
    expect(doc.paths['/api/storage/v1/info'].get.tags).toEqual(['Asset storage']);
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});
