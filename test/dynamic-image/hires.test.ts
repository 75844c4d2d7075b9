import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveTemplate } from '../../src/engine/preview';
import { decodeImage } from '../../src/engine/raster/codecs';
import { FileStore } from '../../src/dynamic-image/store';
import { bundledFont, psdManifest, runTool } from '../helpers/fixtures';
import { contentStreams, overWhite, pdfInfo, psnr, rasterisePage } from '../engine/pdf/helpers';
import { call, form, keys, postJson, uploadFixture, withKey } from './helpers';

const PDF_URL = /^http:\/\/localhost\/api\/results\/download\/(\d{10}-[0-9a-f]{32}\.pdf)$/;

async function hires(body: Record<string, unknown>, query = ''): Promise<{ status: number; name?: string; body: any }> {
  const res = await postJson(`/api/rendering/hires${query}`, body);
  const json = await res.json();
  if (res.status !== 200) return { status: res.status, body: json };
  const m = PDF_URL.exec(json as string);
  expect(m, JSON.stringify(json)).not.toBeNull();
  return { status: 200, name: m![1], body: json };
}

export async function download(name: string): Promise<{ res: Response; bytes: Uint8Array }> {
  const res = await call(`/api/results/download/${name}`);
  expect(res.status).toBe(200);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** The preview of the same request at the template's own size (s = 1), over white. */
async function previewAtSize(body: Record<string, unknown>, width: number, height: number) {
  const res = await postJson('/api/rendering/preview?disableCache=true', { ...body, format: 'png', size: { width, height } });
  expect(res.status).toBe(200);
  const name = /[^/]+$/.exec((await res.json()) as string)![0];
  return overWhite(await decodeImage((await download(name)).bytes));
}

// Every shared fixture: flat artwork, photos, transparency, masks, groups, blend modes, text, effects.
const FIXTURES = (await psdManifest()).map((f) => f.name);
const TEXT = 'psdtools-text.psd';
const FLAT = 'psdtools-blend-multiply.psd';

describe('POST /api/rendering/hires', () => {
  const names = new Map<string, string>();
  beforeAll(async () => {
    for (const fixture of FIXTURES) names.set(fixture, await uploadFixture(fixture, 'pdf'));
  });

  for (const fixture of FIXTURES) {
    it(`${fixture}: valid PDF, one page of pixels ÷ ppi × 72 pt with Media = Trim = Bleed, showing the preview's picture`, async () => {
      const body = { template: names.get(fixture)! };
      const { width, height, resolution: ppi } = (await resolveTemplate(new FileStore(env.FILES), body.template)).compiled;
      const r = await hires(body, '?disableCache=true');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const { res, bytes } = await download(r.name!);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect((await runTool('qpdf-check', bytes)).code).toBe(0);

      const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
      expect(info.pages).toBe(1);
      const w = (width / ppi) * 72;
      const h = (height / ppi) * 72;
      expect(info.size[0]).toBeCloseTo(w, 1);
      expect(info.size[1]).toBeCloseTo(h, 1);
      for (const box of ['MediaBox', 'TrimBox', 'BleedBox']) {
        expect(info.boxes[box][2]).toBeCloseTo(w, 1);
        expect(info.boxes[box][3]).toBeCloseTo(h, 1);
      }

      const raster = await rasterisePage(bytes, 1, width, height);
      expect(psnr(raster, await previewAtSize(body, width, height))).toBeGreaterThanOrEqual(35);
    });
  }

  it('outlines mode (the default) embeds no fonts', async () => {
    const r = await hires({ template: names.get(TEXT)!, textOutputMode: 'outlines' });
    const fonts = await runTool('pdffonts', (await download(r.name!)).bytes);
    expect(fonts.code).toBe(0);
    expect(fonts.stdout.trim().split('\n').length).toBe(2); // header lines only
  });

  it('personalisation data applies exactly as in previews; re-rendered plain text is vector outlines', async () => {
    const font = await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));
    expect(font.status, await font.text()).toBe(201);
    const body = { template: names.get(TEXT)!, data: { 'Line 1 Line 2 Line 3 and text': { type: 'text', text: 'Hello PDF' } } };
    const r = await hires(body, '?disableCache=true');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const bytes = (await download(r.name!)).bytes;
    // The re-rendered text is drawn as outlines (filled paths with curves), not in the raster.
    const [content] = await contentStreams(bytes);
    expect(content).toMatch(/ c\n[\s\S]*\nf\*? Q/);
    expect((await runTool('pdffonts', bytes)).stdout.trim().split('\n')).toHaveLength(2);
    const personalised = await rasterisePage(bytes, 1, 400, 400);
    expect(psnr(personalised, await previewAtSize(body, 400, 400))).toBeGreaterThanOrEqual(35);
    const plain = await previewAtSize({ template: body.template }, 400, 400);
    expect(psnr(personalised, plain)).toBeLessThan(35);
  });

  it('text mode embeds a TrueType subset (selectable text) and looks the same', async () => {
    const body = { template: names.get(TEXT)!, textOutputMode: 'text', data: { 'Line 1 Line 2 Line 3 and text': { type: 'text', text: 'Hello PDF' } } };
    const r = await hires(body, '?disableCache=true');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const bytes = (await download(r.name!)).bytes;
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const fonts = (await runTool('pdffonts', bytes)).stdout.trim().split('\n').slice(2);
    expect(fonts).toHaveLength(1);
    // name, type, encoding, emb, sub, uni: "ABCDEF+LiberationSans CID TrueType Identity-H yes yes yes …"
    expect(fonts[0]).toMatch(/^[A-Z]{6}\+\S+\s+CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
    const raster = await rasterisePage(bytes, 1, 400, 400);
    expect(psnr(raster, await previewAtSize(body, 400, 400))).toBeGreaterThanOrEqual(35);
  });

  it('equal requests return the cached PDF; disableCache=true makes a new one', async () => {
    const body = { template: names.get(FLAT)! };
    const a = await hires(body);
    const b = await hires(body);
    expect(b.name).toBe(a.name);
    const c = await hires(body, '?disableCache=true');
    expect(c.name).not.toBe(a.name);
    // textOutputMode is part of the request: a different mode is a different result.
    expect((await hires({ ...body, textOutputMode: 'TEXT' })).name).not.toBe(c.name);
  });

  it('bad input is a 4xx naming the problem, and leaves nothing in R2', async () => {
    const before = await keys();
    expect((await hires({ template: 'pdf/nope' })).status).toBe(404);
    const mode = await hires({ template: names.get(TEXT)!, textOutputMode: 'glyphs' });
    expect(mode.status).toBe(400);
    expect(mode.body.details[0].path).toBe('textOutputMode');
    const data = await hires({ template: names.get(TEXT)!, data: { Missing: { type: 'text', text: 'x' } } });
    expect(data.status).toBe(400);
    expect(data.body.details.map((d: { path: string }) => d.path)).toContain('data.Missing');
    expect(await keys()).toEqual(before);
  });
});
