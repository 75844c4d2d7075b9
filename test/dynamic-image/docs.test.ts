import { describe, expect, it } from 'vitest';
import { call } from './helpers';

type Doc = { paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; requestBody?: unknown; responses: Record<string, unknown>; security?: unknown }>>; components: { securitySchemes: Record<string, unknown> } };

describe('OpenAPI document of the rendering area', () => {
  it('lists every endpoint with its parameters, bodies, errors and the API key scheme', async () => {
    const doc = (await (await call('/api/docs/rendering.json')).json()) as Doc;
    const p = doc.paths;
    expect(Object.keys(p)).toEqual(
      expect.arrayContaining([
        '/api/Info',
        '/api/resources/fonts',
        '/api/resources/fonts/reload',
        '/api/resources/images',
        '/api/resources/images/{destination}',
        '/api/resources/images/preview',
        '/api/resources/templates',
        '/api/information/template',
        '/api/rendering/preview',
        '/api/results/download',
        '/api/results/download/{file}',
        '/api/results/delete/{file}',
      ]),
    );
    expect(Object.keys(p).some((k) => k.includes('{.+}'))).toBe(false);
    expect(p['/api/resources/images/preview'].get.parameters!.map((x) => x.name)).toEqual(
      expect.arrayContaining(['file', 'format', 'jpegQuality', 'width', 'height', 'disableCache', 'unsharpMask']),
    );
    expect(p['/api/rendering/preview'].post.requestBody).toBeDefined();
    expect(Object.keys(p['/api/rendering/preview'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '413', '422']));
    expect(p['/api/results/delete/{file}'].delete.security).toEqual([{ DynamicImageApiKey: [] }]);
    expect(doc.components.securitySchemes.DynamicImageApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-DynamicImageApiKey' });
  });
});
