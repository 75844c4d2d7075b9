import { beforeAll, describe, expect, it } from 'vitest';
import { PDFName } from 'pdf-lib';
import { bundledFont, runTool, madeFixture } from '../helpers/fixtures';
import { gsCmyk, pdfGraph, type Tiff } from '../engine/pdf/print';
import { call, form, postJson, upload, uploadFixture, withKey } from './helpers';
import { fixtureServer } from '../helpers/fixtures';
import { psdInk } from '../../src/engine/pdf/psd-ink';

const LAYER = 'Line 1 Line 2 Line 3 and text';
let template: string;

async function download(name: string): Promise<{ bytes: Uint8Array }> {
  const res = await call(`/api/results/download/${name}`);
  expect(res.status).toBe(200);
  return { bytes: new Uint8Array(await res.arrayBuffer()) };
}

async function hires(body: Record<string, unknown>, path = '/api/rendering/hires'): Promise<{ status: number; body: any; bytes?: Uint8Array }> {
  const res = await postJson(`${path}?disableCache=true`, body);
  const json = (await res.json()) as any;
  if (res.status !== 200) return { status: res.status, body: json };
  const url = typeof json === 'string' ? json : json.results[0].url;
  return { status: 200, body: json, bytes: (await download(/[^/]+$/.exec(url)![0])).bytes };
}

/**
 * A hires answer that must be a PDF/X-4 (200, qpdf-valid, PDF 1.6, one output intent), as
 * Ghostscript's CMYK separations at 72 dpi.
 */
async function pdfX4Ink(r: { status: number; body: unknown; bytes?: Uint8Array }): Promise<Tiff> {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect((await runTool('qpdf-check', r.bytes!)).code).toBe(0);
  const g = await pdfGraph(r.bytes!);
  expect(g.header).toBe('%PDF-1.6');
  expect(g.array(g.catalog, 'OutputIntents')!.size()).toBe(1);
  return gsCmyk(r.bytes!, 72);
}

beforeAll(async () => {
  template = await uploadFixture('psdtools-text.psd', 'pdf-colour');
  const font = await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));
  expect(font.status).toBe(201);
});


describe('POST /api/rendering/hires: CMYK templates', () => {
  let cmyk: string;
  let stored: Uint8Array;
  beforeAll(async () => {
    const bytes = await madeFixture('made-cmyk8.psd');
    const res = await upload('templates', [['cmyk8.psd', bytes]], '?destination=pdf-colour&overwrite=true');
    expect(res.status, await res.clone().text()).toBe(201);
    cmyk = ((await res.json()) as string[])[0];
    const ink = psdInk(bytes)!;
    stored = ink.rows(0, ink.height);
  });

  it('with no colour options: CMYK PDF/X-4 whose ink values equal the PSD\'s merged image, pixel for pixel (Ghostscript)', async () => {
    const r = await hires({ template: cmyk });
    const tiff = await pdfX4Ink(r);
    expect([tiff.width, tiff.height]).toEqual([16, 12]);
    expect([...tiff.data]).toEqual([...stored]);
  });

  it('personalised: unchanged pixels keep the PSD\'s ink exactly; changed ones are converted', async () => {
    const r = await hires({ template: cmyk, data: { half: { visible: false } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const tiff = await gsCmyk(r.bytes!, 72);
    const at = (x: number, y: number) => [...tiff.data.subarray((y * 16 + x) * 4, (y * 16 + x + 1) * 4)];
    const own = (x: number, y: number) => [...stored.subarray((y * 16 + x) * 4, (y * 16 + x + 1) * 4)];
    // Rows the hidden layer never covered, and columns left of it, are the document's own ink.
    for (const [x, y] of [[0, 0], [7, 1], [15, 0], [2, 5], [3, 8]]) expect(at(x, y), `${x},${y}`).toEqual(own(x, y));
    // Under the hidden half-transparent layer the ink changed.
    expect(at(5, 3)).not.toEqual(own(5, 3));
  });

  it('keepOriginalColors false converts the template (no longer the stored ink everywhere)', async () => {
    const r = await hires({ template: cmyk, keepOriginalColors: false });
    const tiff = await gsCmyk(r.bytes!, 72);
    expect([...tiff.data]).not.toEqual([...stored]);
  });
});

describe('POST /api/rendering/hires: output colour', () => {
  it('an RGB template with no colour options is the plain RGB PDF of before (no output intent)', async () => {
    const r = await hires({ template });
    const g = await pdfGraph(r.bytes!);
    expect(g.header).toBe('%PDF-1.7');
    expect(g.catalog.get(PDFName.of('OutputIntents'))).toBeUndefined();
  });

  it('colorSpace cmyk: PDF/X-4 with the default CMYK output intent; a cmyk(0,0,0,100) text is K only (Ghostscript separations)', async () => {
    const r = await hires({ template, colorSpace: 'CMYK', data: { [LAYER]: { type: 'text', text: 'Pure black', color: 'cmyk(0,0,0,100)' } } });
    const tiff = await pdfX4Ink(r);
    let inked = 0;
    for (let i = 0; i < tiff.data.length; i += 4) {
      if (tiff.data[i + 3] < 250) continue;
      inked++;
      expect([tiff.data[i], tiff.data[i + 1], tiff.data[i + 2]]).toEqual([0, 0, 0]);
    }
    expect(inked).toBeGreaterThan(20);
  });

  it('bad colour options are 4xx naming the field', async () => {
    const space = await hires({ template, colorSpace: 'lab' });
    expect(space.status).toBe(400);
    expect(space.body.details[0].path).toBe('colorSpace');
    const format = await hires({ template, pdfFormat: 'pdfx3' });
    expect(format.status).toBe(400);
    expect(format.body.details[0].path).toBe('pdfFormat');
    const unknown = await hires({ template, colorSpace: 'cmyk', colorProfile: 'No such profile' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.details[0].path).toBe('colorProfile');
    const wrong = await hires({ template, colorSpace: 'cmyk', colorProfile: 'sRGB' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.details[0].path).toBe('colorProfile');
    const x1a = await hires({ template, colorSpace: 'rgb', pdfFormat: 'PdfX1a' });
    expect(x1a.status).toBe(422);
    expect(x1a.body.details[0].path).toBe('pdfFormat');
  });

  it('a combined multipage PDF refuses pages asking for different output colour', async () => {
    const r = await hires({ pages: [{ template, colorSpace: 'cmyk' }, { template }] }, '/api/rendering/multipage/hires');
    expect(r.status).toBe(400);
    expect(r.body.details[0].path).toBe('pages[1]');
    const ok = await hires({ pages: [{ template, colorSpace: 'grayscale' }, { template, colorSpace: 'gray' }] }, '/api/rendering/multipage/hires');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const g = await pdfGraph(ok.bytes!);
    expect(g.doc.getPageCount()).toBe(2);
    expect(g.array(g.catalog, 'OutputIntents')!.size()).toBe(1);
  });
});
