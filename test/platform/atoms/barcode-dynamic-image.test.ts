// The Dynamic Image `barcode` data command: drawn into a layer's bounds, decoded back by zbarimg
// from the preview and from the print PDF (where, on a text layer, it is vector paths, no image);
// a value the format cannot encode is a 400 naming data.<layer>.value.
import { describe, expect, it } from 'vitest';
import { fixtureServer, runTool } from '../../helpers/fixtures';
import { contentStreams } from '../../engine/pdf/helpers';
import { call, postJson, uploadFixture } from '../../dynamic-image/helpers';

const LAYER = 'Line 1 Line 2 Line 3 and text';

async function zbar(png: Uint8Array): Promise<string[]> {
  const res = await fetch(`${fixtureServer()}/tools/zbarimg`, { method: 'POST', body: png });
  return ((await res.json()) as { stdout: string }).stdout.split('\n').filter(Boolean);
}

async function fetchResult(url: string): Promise<Uint8Array> {
  const name = /[^/]+$/.exec(url)![0];
  const res = await call(`/api/results/download/${name}`);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe('Dynamic Image: barcode command', () => {
  it.each([
    ['qr', 'HELLO-42'],
    ['code128', 'T-0042'],
  ])('%s on a text layer decodes from the preview and, as vectors, from the PDF', async (format, value) => {
    const template = await uploadFixture('psdtools-text.psd', 'barcodes');
    const data = { [LAYER]: { type: 'barcode', format, value } };
    const preview = await postJson('/api/rendering/preview?disableCache=true', { template, data, format: 'png', size: { width: 1600, height: 1600 } });
    expect(preview.status, await preview.clone().text()).toBe(200);
    expect(await zbar(await fetchResult((await preview.json()) as string))).toEqual([value]);

    const hires = await postJson('/api/rendering/hires?disableCache=true', { template, data });
    expect(hires.status, await hires.clone().text()).toBe(200);
    const pdf = await fetchResult((await hires.json()) as string);
    const [page] = (await runTool('pdftoppm', pdf, { r: 600 })).pages;
    expect(await zbar(Uint8Array.from(atob(page!), (c) => c.charCodeAt(0)))).toEqual([value]);
    // The modules and bars are closed filled paths in the page content, drawn over the raster.
    const [content] = await contentStreams(pdf);
    expect(content!.match(/ l\nh\n/g)?.length ?? 0).toBeGreaterThan(10);
    expect(content).toMatch(/q 0 0 0 sc\n/);
  });

  it('a value the format cannot encode is a 400 naming the layer', async () => {
    const template = await uploadFixture('psdtools-text.psd', 'barcodes');
    const res = await postJson('/api/rendering/preview', { template, data: { [LAYER]: { Type: 'Barcode', Format: 'EAN13', Value: '5901234123458' } }, format: 'png', size: { width: 100, height: 100 } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(new RegExp(`data\\.${LAYER.replace(/ /g, ' ')}\\.value.*check digit`, 'i'));
  });
});
