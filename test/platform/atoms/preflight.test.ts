// POST /api/atoms/v1/designs/{id}/preflight (issue 21): the preflight report of a print-product
// design (and of a PSD design through the rendering engine), scopes and ownership as the design
// routes, and the problems a design render collects while drawing (RenderedFile.problems).
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TenantContext } from '../../../src/platform/core';
import { renderDesign } from '../../../src/platform/designs/outputs';
import { preflightDesign } from '../../../src/platform/designs/preflight';
import { bundledFont, psdFixture, testAsset } from '../../helpers/fixtures';
import { seedPlatform, tenantToken, type ApiOptions } from '../../helpers/platform';
import { api, apiJson, upload, uploadJson } from '../storage/helpers';

const A = '/api/atoms/v1';
const S = '/api/storage/v1';
const LONG = 'Jonathan Livingstone-Smith';

let photoId: string;
let designId: string;

/** A business card: a required Name (fit as given), a photo variable, a barcode crossing the trim. */
function card(fit = 'None') {
  return {
    surfaces: [
      {
        width: 252,
        height: 144,
        printAreas: [{ name: 'Front', bounds: { x: 9, y: 9, width: 234, height: 126 } }],
        containers: [
          {
            items: [
              { type: 'Rectangle', name: 'Background', x: 0, y: 0, width: 252, height: 144, fillColor: '#eeeeee' },
              { type: 'Text', name: 'Name', isVariable: true, x: 20, y: 20, width: 120, height: 26, font: { postscriptName: 'LiberationSans', size: 18 }, fit, constraints: { required: true } },
              { type: 'Image', name: 'Photo', isVariable: true, x: 150, y: 20, width: 80, height: 60, fitMode: 'Fill' },
            ],
          },
        ],
      },
    ],
  };
}

const preflight = (id: string, body?: unknown, query = '', token: ApiOptions['token'] = 1) =>
  api('POST', `${A}/designs/${id}/preflight${query}`, body, { token });

beforeAll(async () => {
  await seedPlatform();
  const res = await upload(`${S}/fonts`, await bundledFont('LiberationSans-Regular.ttf'), 'LiberationSans-Regular.ttf');
  expect([201, 409]).toContain(res.status);
  photoId = (await uploadJson(`${S}/images`, await testAsset('marker-40x20.jpg'), 'preflight-photo.jpg', { path: '/photos/' })).id;
  designId = (await apiJson('POST', `${A}/designs`, { product: card(), name: 'Preflight card', path: '/preflight/' }, { token: 1 }, 201)).id;
});

describe('POST /designs/{id}/preflight', () => {
  it('without a body: the required Name is empty (an error), nothing else', async () => {
    const res = await preflight(designId);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: false, problems: [{ layer: 'Name', code: 'emptyField', severity: 'error', message: 'Please fill in Name: it is required.' }] });
  });

  it('with variableData: an overflowing name and a photo too small for its frame', async () => {
    const res = await preflight(designId, { variableData: [{ name: 'Name', value: LONG }, { name: 'Photo', value: photoId, type: 'Image' }] });
    expect(res.status).toBe(200);
    const report = (await res.json()) as any;
    expect(report.ok).toBe(false);
    expect(report.problems.map((p: any) => `${p.layer}:${p.code}:${p.severity}`)).toEqual(['Name:textOverflow:error', 'Photo:lowResolution:error', 'Photo:imageUpscaled:warning']);
    expect(report.problems[0].message).toMatch(/^"Jonathan Livingstone-Smith" is too long for Name: \d+ characters? do(es)? not fit\.$/);
    // 40 × 20 px filling 80 × 60 pt (cropped): 60 pt tall = 0.83 in for 20 px → 24 ppi.
    expect(report.problems[1].details).toEqual({ ppi: 24, threshold: 100 });
  });

  it('a design whose Name shrinks to fit answers ok with a textShrunk warning', async () => {
    const id = (await apiJson('POST', `${A}/designs`, { product: card('Shrink'), name: 'Preflight shrink', path: '/preflight/' }, { token: 1 }, 201)).id;
    const report = (await (await preflight(id, { variableData: [{ name: 'Name', value: LONG }] })).json()) as any;
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([expect.objectContaining({ layer: 'Name', code: 'textShrunk', severity: 'warning', message: expect.stringMatching(/^Name was shrunk to [\d.]+ pt to fit\.$/) })]);
  });

  it('malformed variableData is a 400 as for renders; an unknown design 404; ownership and scopes as the design routes', async () => {
    const bad = await preflight(designId, { variableData: [{ name: 'Nope', value: 'x' }] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).errors).toHaveProperty(['variableData[0].name']);
    expect((await preflight(designId, { variableData: 'x' })).status).toBe(400);
    expect((await preflight('0123456789abcdef01234567')).status).toBe(404);
    const mine = (await apiJson('POST', `${A}/designs?privateStorageOwner=alice`, { product: card(), name: 'Preflight private' }, { token: 1 }, 201)).id;
    expect((await preflight(mine, undefined, '?ownerId=alice')).status).toBe(200);
    expect((await preflight(mine)).status).toBe(404);
    expect((await preflight(designId, undefined, '', await tenantToken(1, 'Assets_read'))).status).toBe(200);
    expect((await preflight(designId, undefined, '', await tenantToken(1, 'Projects_full'))).status).toBe(403);
    expect((await preflight(designId, undefined, '', 2)).status).toBe(404); // another tenant's design
  });

  it('a PSD design: the rendering engine\'s preflight of the template', async () => {
    const psd = (await uploadJson(`${S}/designs`, await psdFixture('psdtools-text.psd'), 'preflight-psd.psd')).id;
    const res = await preflight(psd);
    expect(res.status, await res.clone().text()).toBe(200);
    const report = (await res.json()) as any;
    expect(report).toEqual({ ok: expect.any(Boolean), problems: expect.any(Array) });
  });
});

describe('design renders collect the problems they find while drawing', () => {
  it('render-preview and render-proof answer the verdict in X-Preflight', async () => {
    const variableData = [{ name: 'Name', value: LONG }, { name: 'Photo', value: photoId }];
    const preview = await api('POST', `${A}/designs/render-preview`, { designId, variableData }, { token: 1 });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('x-preflight')).toBe('errors=2; warnings=1');
    const proof = await api('POST', `${A}/designs/render-proof`, { designId, variableData: [{ name: 'Name', value: 'Ada' }], renderingConfig: { fileFormat: 'Pdf' } }, { token: 1 });
    expect(proof.headers.get('x-preflight')).toBe('ok');
  });

  const t = { tenantId: 1, env, baseUrl: 'http://localhost' } as unknown as TenantContext;

  it('preview and proof PDF carry the same problems as the preflight', async () => {
    const variableData = [{ name: 'Name', value: LONG }, { name: 'Photo', value: photoId }];
    const report = await preflightDesign(t, { designId, variableData });
    const preview = await renderDesign(t, { designId, variableData }, false);
    const pdf = await renderDesign(t, { designId, variableData, renderingConfig: { fileFormat: 'Pdf' } }, true);
    expect(pdf.mime).toBe('application/pdf');
    expect(preview.problems).toEqual(report.problems);
    expect(pdf.problems).toEqual(report.problems);
  });
});
