// Barcode items (QR with its error-correction levels, Code 128, EAN-13, UPC-A, DataMatrix):
// drawn as vectors in previews (SVG → resvg) and PDFs (pdftoppm), decoded back by a real reader
// (zbarimg from zbar-tools; dmtxread from dmtx-utils for DataMatrix, on the fixture server); values from the model, item data and a VDP
// column (variableData); values a format cannot encode are model errors naming the item.
import { describe, expect, it } from 'vitest';
import { encodePng } from '../../../src/engine/raster/codecs';
import type { RGBAImage } from '../../../src/engine/types';
import { encodeBarcode } from '../../../src/engine/print-product/barcode';
import { renderPdf } from '../../../src/engine/print-product/pdf';
import { renderPreviewPixels } from '../../../src/engine/print-product/svg';
import { applyItemsData, applyVariableData, listVariables } from '../../../src/engine/print-product/variables';
import { fixtureServer } from '../../helpers/fixtures';
import { fonts, imageStore, oneSurface } from '../../engine/print-product/helpers';

/** Decodes with zbarimg, or dmtxread for DataMatrix (zbar does not read it). */
async function zbar(png: Uint8Array, tool = 'zbarimg'): Promise<string[]> {
  const res = await fetch(`${fixtureServer()}/tools/${tool}`, { method: 'POST', body: png });
  const r = (await res.json()) as { code: number; stdout: string; stderr: string };
  return r.stdout.split('\n').filter(Boolean);
}

const overWhite = (img: RGBAImage): RGBAImage => {
  const data = new Uint8ClampedArray(img.data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = img.data[i + 3]! / 255;
    for (let c = 0; c < 3; c++) data[i + c] = img.data[i + c]! * a + 255 * (1 - a);
    data[i + 3] = 255;
  }
  return { width: img.width, height: img.height, data };
};

const CASES = [
  { format: 'QrCode', value: 'https://example.com/t/42?seat=A7', width: 120, height: 120 },
  { format: 'Code128', value: 'TICKET-0042', width: 220, height: 60 },
  { format: 'Ean13', value: '5901234123457', width: 200, height: 80 },
  { format: 'UpcA', value: '036000291452', width: 200, height: 80 },
  { format: 'DataMatrix', value: 'BADGE 0042', width: 100, height: 100 },
] as const;

const item = (c: (typeof CASES)[number], extra: Record<string, unknown> = {}) => ({ id: `b-${c.format}`, name: c.format, type: 'Barcode', x: 20, y: 20, width: c.width, height: c.height, format: c.format, value: c.value, ...extra });

describe('barcode items', () => {
  it.each(CASES)('$format decodes back from the preview', async (c) => {
    const m = await oneSurface(c.width + 40, c.height + 40, [item(c)]);
    const px = await renderPreviewPixels(m, { fonts, images: imageStore({}), width: (c.width + 40) * 3, height: (c.height + 40) * 3, fileFormat: 'Png' });
    const decoded = await zbar(await encodePng(overWhite(px)), c.format === 'DataMatrix' ? 'dmtxread' : 'zbarimg');
    // zbar reports UPC-A as EAN-13 with a leading 0 unless told otherwise.
    expect(decoded.map((d) => (c.format === 'UpcA' && d.length === 13 ? d.slice(1) : d))).toEqual([c.value]);
  });

  it.each(CASES)('$format decodes back from the PDF, drawn as vector paths', async (c) => {
    const m = await oneSurface(c.width + 40, c.height + 40, [item(c)]);
    const { bytes } = await renderPdf(m, { fonts, images: imageStore({}) });
    const res = await fetch(`${fixtureServer()}/tools/pdftoppm?r=216`, { method: 'POST', body: bytes });
    const [page] = ((await res.json()) as { pages: string[] }).pages;
    const decoded = await zbar(Uint8Array.from(atob(page!), (ch) => ch.charCodeAt(0)), c.format === 'DataMatrix' ? 'dmtxread' : 'zbarimg');
    expect(decoded.map((d) => (c.format === 'UpcA' && d.length === 13 ? d.slice(1) : d))).toEqual([c.value]);
    // Vectors: no image XObject in the page.
    expect(new TextDecoder('latin1').decode(bytes)).not.toMatch(/\/Subtype\s*\/Image/);
  });

  it('QR error correction levels make bigger symbols for the same value', () => {
    const size = (ec: "L" | "H") => encodeBarcode("QrCode", "https://example.com/t/42?seat=A7", ec).columns;
    expect(size('H')).toBeGreaterThan(size('L'));
  });

  it('a value the format cannot encode is a model error on the item', async () => {
    await expect(oneSurface(200, 100, [item(CASES[2], { value: '5901234123458' })])).rejects.toThrow(/check digit/i);
    await expect(oneSurface(200, 100, [item(CASES[2], { value: 'ABC' })])).rejects.toThrow(/Ean13/);
  });

  it('takes its value from a VDP column (variableData) and from item data', async () => {
    const m = await oneSurface(260, 240, [item(CASES[0], { value: '', isVariable: true, name: 'ticket' }), item(CASES[1], { name: 'code', y: 160 })]);
    expect(listVariables(m)).toEqual([{ name: 'ticket', value: '', type: 'Barcode', constraints: { required: false } }]);
    const applied = applyVariableData(m, [{ name: 'ticket', value: 'ROW-17' }]);
    expect(applied.errors).toBeNull();
    const px = await renderPreviewPixels(applied.model, { fonts, images: imageStore({}), width: 780, height: 720, fileFormat: 'Png' });
    expect(await zbar(await encodePng(overWhite(px)))).toEqual(expect.arrayContaining(['ROW-17', 'TICKET-0042']));
    const bad = applyVariableData(m, [{ name: 'ticket', value: 'x'.repeat(3000) }]);
    expect(bad.errors).not.toBeNull();
    const data = applyItemsData(m, { code: { value: 'NEW-1' } });
    expect(data.errors).toBeNull();
    const code = data.model.surfaces[0]!.containers[0]!.items[1] as { value: string };
    expect(code.value).toBe('NEW-1');
  });
});
