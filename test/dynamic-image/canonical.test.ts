import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { canonicalNames, canonicalQuery, canonicalRenderingPath } from '../../src/dynamic-image/canonical';
import { ImagePreviewQuery, PreviewModel } from '../../src/dynamic-image/schemas';
import { call, postJson, uploadFixture } from './helpers';

describe('canonical paths (case-insensitive after /api/, trailing slash optional)', () => {
  it('rewrites fixed segments and keeps parameters as sent', () => {
    expect(canonicalRenderingPath('/API/Results/Download/AbC.jpg/', 'GET')).toBe('/api/results/download/AbC.jpg');
    expect(canonicalRenderingPath('/api/INFO', 'GET')).toBe('/api/Info');
    expect(canonicalRenderingPath('/api/resources/IMAGES/Preview', 'GET')).toBe('/api/resources/images/preview');
    // POST .../images/Preview is an upload into the folder "Preview": not rewritten.
    expect(canonicalRenderingPath('/api/resources/images/Preview', 'POST')).toBe('/api/resources/images/Preview');
    expect(canonicalRenderingPath('/api/rendering/v1/jobs', 'GET')).toBe('/api/rendering/v1/jobs');
    expect(canonicalRenderingPath('/connect/token', 'POST')).toBe('/connect/token');
  });
});

describe('canonical names from the schemas', () => {
  it('renames query names case-insensitively, with or without the model. prefix', () => {
    const url = new URL('http://x/p?Model.File=a.jpg&JPEGQUALITY=5&unknown=1');
    expect([...canonicalQuery(ImagePreviewQuery as never, url)!.searchParams]).toEqual([
      ['file', 'a.jpg'],
      ['jpegQuality', '5'],
      ['unknown', '1'],
    ]);
  });

  it('renames JSON properties but never the layer names in data', () => {
    const body = { TEMPLATE: 't', Size: { WIDTH: 1, height: 2 }, data: { Title: { TYPE: 'text', Text: 'x' }, title: { Visible: false } } };
    expect(canonicalNames(PreviewModel as never, body)).toEqual({
      template: 't',
      size: { width: 1, height: 2 },
      data: { Title: { type: 'text', text: 'x' }, title: { visible: false } },
    });
  });

  it('gives enum and literal values their declared spelling (type "Text" is "text")', () => {
    const body = { template: 'T', format: 'PNG', data: { Title: { Type: 'TEXT', text: 'KEEP' }, Photo: { type: 'Image', image: 'A.png', ResizeMode: 'FILL' } } };
    expect(canonicalNames(PreviewModel as never, body)).toEqual({
      template: 'T',
      format: 'PNG',
      data: { Title: { type: 'text', text: 'KEEP' }, Photo: { type: 'image', image: 'A.png', resizeMode: 'fill' } },
    });
  });

  it('prefers the exact spelling when both are sent', () => {
    const schema = z.object({ file: z.string() });
    expect(canonicalNames(schema as never, { File: 'a', file: 'b' })).toEqual({ file: 'b' });
  });
});

describe('case-insensitive requests end to end', () => {
  it('answers mixed-case paths, query names, JSON names and booleans', async () => {
    await uploadFixture('psdtools-blend-multiply.psd', 'case');
    const list = await call('/API/Resources/Templates/?SubFolder=case&ShowSubfolders=TRUE');
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ total: 1, items: ['case/psdtools-blend-multiply.psd'] });

    const info = await postJson('/api/Information/Template/', { TEMPLATE: 'case/psdtools-blend-multiply', FullInfo: 'True' });
    expect(info.status).toBe(200);
    expect(((await info.json()) as { layers: Array<{ bounds?: unknown }> }).layers[0].bounds).toBeDefined();

    const preview = await postJson('/API/RENDERING/PREVIEW/?DisableCache=FALSE', { Template: 'case/psdtools-blend-multiply', Format: 'PNG' });
    expect(preview.status).toBe(200);
    expect(await preview.json()).toMatch(/\.png$/);
  });

  it('refuses booleans that are not true or false', async () => {
    const res = await call('/api/resources/templates?showSubfolders=yes');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request', details: [{ path: 'query.showSubfolders' }] });
  });
});
