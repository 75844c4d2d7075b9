import { degrees, PDFDocument, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { InputsTooLarge, Unprocessable } from '../../../src/engine/errors';
import { env } from 'cloudflare:test';
import { pdfPageCount, pdfPageSizes, rasterisePdfPages, rasterisePdfPagesPng, type PdfSource, type RasterPage } from '../../../src/engine/pdf-raster';
import { engineError } from '../../../src/platform/assets/engine-error';
import { UnprocessableError } from '../../../src/platform/core/errors';
import { decodeImage } from '../../../src/engine/raster/codecs';

/**
 * Page 1: 200 × 100 pt, red on the left half, blue in the top-right quarter, the rest unpainted.
 * Page 2: 100 × 300 pt, green. Page 3: 200 × 100 pt with /Rotate 90 (displayed 100 × 200), a
 * black square at the media box's bottom-left corner.
 */
async function samplePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const p1 = doc.addPage([200, 100]);
  p1.drawRectangle({ x: 0, y: 0, width: 100, height: 100, color: rgb(1, 0, 0) });
  p1.drawRectangle({ x: 100, y: 50, width: 100, height: 50, color: rgb(0, 0, 1) });
  const p2 = doc.addPage([100, 300]);
  p2.drawRectangle({ x: 0, y: 0, width: 100, height: 300, color: rgb(0, 1, 0) });
  const p3 = doc.addPage([200, 100]);
  p3.drawRectangle({ x: 0, y: 0, width: 50, height: 50, color: rgb(0, 0, 0) });
  p3.setRotation(degrees(90));
  return doc.save();
}

async function pagesPdf(n: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < n; i++) doc.addPage([72, 72]);
  return doc.save();
}

/** `bytes` as a stream in uneven chunks (1 byte, then 7, 4,093, …), as a network body arrives. */
function chunked(bytes: Uint8Array, extra?: Uint8Array): ReadableStream<Uint8Array> {
  const sizes = [1, 7, 4093, 65_536];
  let at = 0;
  let i = 0;
  let sentExtra = false;
  return new ReadableStream({
    pull(c) {
      if (at < bytes.length) {
        const n = sizes[i++ % sizes.length]!;
        c.enqueue(bytes.slice(at, at + n));
        at += n;
      } else if (extra && !sentExtra) {
        sentExtra = true;
        c.enqueue(extra);
      } else c.close();
    },
  });
}

const px = (p: { width: number; rgba: Uint8ClampedArray }, x: number, y: number) => Array.from(p.rgba.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 4));

async function collect(bytes: PdfSource, options: Omit<Parameters<typeof rasterisePdfPages>[1], 'onPage'> = {}) {
  const pages: [number, RasterPage][] = [];
  const result = await rasterisePdfPages(bytes, { ...options, onPage: (i, page) => void pages.push([i, page]) });
  return { result, pages };
}

describe('pdf-raster (PDFium)', () => {
  it('counts pages and reads each page size in pt (rotation applied)', async () => {
    const bytes = await samplePdf();
    expect(await pdfPageCount(bytes)).toBe(3);
    expect(await pdfPageSizes(bytes)).toEqual([
      { width: 200, height: 100 },
      { width: 100, height: 300 },
      { width: 100, height: 200 },
    ]);
  });

  it('draws every page with its long side at 2,048 px and the right colours at known points', async () => {
    const { result, pages } = await collect(await samplePdf());
    expect(result.pageCount).toBe(3);
    expect(pages.map(([i, p]) => [i, p.width, p.height])).toEqual([
      [0, 2048, 1024],
      [1, 683, 2048],
      [2, 1024, 2048],
    ]);
    const [, p1] = pages[0]!;
    expect(p1.scale).toBeCloseTo(2048 / 200);
    expect(px(p1, 10, 10)).toEqual([255, 0, 0, 255]); // red, top-left
    expect(px(p1, 500, 1000)).toEqual([255, 0, 0, 255]); // red, bottom of the left half
    expect(px(p1, 1500, 200)).toEqual([0, 0, 255, 255]); // blue, top-right quarter
    expect(px(p1, 1500, 800)).toEqual([255, 255, 255, 255]); // unpainted → white paper
    expect(px(p1, 1010, 300)).toEqual([255, 0, 0, 255]); // edges land where the geometry says
    expect(px(p1, 1040, 300)).toEqual([0, 0, 255, 255]);
    expect(px(p1, 1500, 500)).toEqual([0, 0, 255, 255]);
    expect(px(p1, 1500, 525)).toEqual([255, 255, 255, 255]);
    const [, p2] = pages[1]!;
    expect(px(p2, 340, 1024)).toEqual([0, 255, 0, 255]);
    // /Rotate 90 turns the page clockwise: the media box's bottom-left corner ends up top-left.
    const [, p3] = pages[2]!;
    expect(px(p3, 100, 100)).toEqual([0, 0, 0, 255]);
    expect(px(p3, 900, 1900)).toEqual([255, 255, 255, 255]);
  });

  it('maxLongSide scales pages down; a transparent background leaves unpainted areas at alpha 0', async () => {
    const { pages } = await collect(await samplePdf(), { maxLongSide: 400, pages: [0], background: 'transparent' });
    expect(pages).toHaveLength(1);
    const [, p1] = pages[0]!;
    expect([p1.width, p1.height]).toEqual([400, 200]);
    expect(px(p1, 50, 100)).toEqual([255, 0, 0, 255]);
    expect(px(p1, 300, 150)[3]).toBe(0);
  });

  it('draws one page at a time: the next page waits until onPage has finished', async () => {
    const events: string[] = [];
    await rasterisePdfPages(await samplePdf(), {
      maxLongSide: 64,
      onPage: async (i) => {
        events.push(`start ${i}`);
        await new Promise((r) => setTimeout(r, 5));
        events.push(`end ${i}`);
      },
    });
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('PNG pages decode to the same pixels', async () => {
    const pngs: { index: number; png: Uint8Array; width: number; height: number }[] = [];
    await rasterisePdfPagesPng(await samplePdf(), { maxLongSide: 512, pages: [0, 1], onPage: (index, png, p) => void pngs.push({ index, png, width: p.width, height: p.height }) });
    expect(pngs.map((p) => [p.index, p.width, p.height])).toEqual([
      [0, 512, 256],
      [1, 171, 512],
    ]);
    const img = await decodeImage(pngs[0]!.png);
    expect([img.width, img.height]).toEqual([512, 256]);
    const at = (x: number, y: number) => Array.from(img.data.subarray((y * 512 + x) * 4, (y * 512 + x) * 4 + 4));
    expect(at(100, 128)).toEqual([255, 0, 0, 255]);
    expect(at(400, 50)).toEqual([0, 0, 255, 255]);
    expect(at(400, 200)).toEqual([255, 255, 255, 255]);
  });

  it('more than 100 pages → InputsTooLarge before any page is drawn; 100 pages are fine', async () => {
    const big = await pagesPdf(101);
    expect(await pdfPageCount(big)).toBe(101);
    let drawn = 0;
    const err = await rasterisePdfPages(big, { maxLongSide: 8, onPage: () => void drawn++ }).catch((e) => e);
    expect(err).toBeInstanceOf(InputsTooLarge);
    expect(err.message).toMatch(/101 pages/);
    expect(drawn).toBe(0);
    const { result, pages } = await collect(await pagesPdf(100), { maxLongSide: 8 });
    expect(result.pageCount).toBe(100);
    expect(pages).toHaveLength(100);
    expect(pages[99]![1]).toMatchObject({ width: 8, height: 8 });
  });

  it('corrupt, truncated or empty PDFs → Unprocessable', async () => {
    const good = await samplePdf();
    const bad = [
      new TextEncoder().encode('this is not a pdf at all'),
      new TextEncoder().encode('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\n%%EOF'),
      good.subarray(0, 40),
      new Uint8Array(0),
    ];
    for (const bytes of bad) {
      const err = await pdfPageCount(bytes).catch((e) => e);
      expect(err, new TextDecoder().decode(bytes.subarray(0, 20))).toBeInstanceOf(Unprocessable);
      expect(err.code).toBe('ERR_UNPROCESSABLE');
      const err2 = await rasterisePdfPages(bytes, { onPage: () => {} }).catch((e) => e);
      expect(err2).toBeInstanceOf(Unprocessable);
    }
  });

  it('a stream of known length draws the same pages as the bytes (chunks written straight into the heap)', async () => {
    const bytes = await samplePdf();
    const fromBytes = await collect(bytes);
    const fromStream = await collect({ size: bytes.length, body: chunked(bytes) });
    expect(fromStream.result).toEqual(fromBytes.result);
    expect(fromStream.pages.map(([i, p]) => [i, p.width, p.height, p.scale])).toEqual(fromBytes.pages.map(([i, p]) => [i, p.width, p.height, p.scale]));
    const same = (a: Uint8ClampedArray, b: Uint8ClampedArray) => a.length === b.length && a.every((v, i) => v === b[i]);
    for (let k = 0; k < fromBytes.pages.length; k++) expect(same(fromStream.pages[k]![1].rgba, fromBytes.pages[k]![1].rgba), `page ${k}`).toBe(true);
    expect(await pdfPageCount({ size: bytes.length, body: chunked(bytes) })).toBe(3);
    expect(await pdfPageSizes({ size: bytes.length, body: chunked(bytes) })).toEqual(await pdfPageSizes(bytes));
  });

  it('an R2 object body is a stream source as it is ({ size, body })', async () => {
    const bytes = await samplePdf();
    const key = `test/pdf-raster/${crypto.randomUUID()}.pdf`;
    await env.FILES.put(key, bytes);
    const obj = (await env.FILES.get(key))!;
    const pngs: number[] = [];
    const result = await rasterisePdfPagesPng(obj, { maxLongSide: 256, onPage: (i, png) => void pngs.push(i, png.length > 0 ? 1 : 0) });
    expect(result.pageCount).toBe(3);
    expect(pngs).toEqual([0, 1, 1, 1, 2, 1]);
    expect(obj.bodyUsed).toBe(true);
    await env.FILES.delete(key);
  });

  it('a stream shorter or longer than its declared size → Unprocessable (a 422 on the platform), nothing drawn', async () => {
    const bytes = await samplePdf();
    const cases: [string, PdfSource, RegExp][] = [
      ['short', { size: bytes.length + 10, body: chunked(bytes) }, /ended after \d+ of its declared/],
      ['long', { size: bytes.length, body: chunked(bytes, new Uint8Array([10])) }, /longer than its declared/],
      ['long by a whole chunk', { size: 100, body: chunked(bytes) }, /longer than its declared/],
      ['empty', { size: 0, body: chunked(new Uint8Array(0)) }, /empty/],
      ['no length', { size: -1, body: chunked(bytes) }, /no valid length/],
    ];
    for (const [name, source, message] of cases) {
      let drawn = 0;
      const err = await rasterisePdfPages(source, { maxLongSide: 16, onPage: () => void drawn++ }).catch((e) => e);
      expect(err, name).toBeInstanceOf(Unprocessable);
      expect(err.message, name).toMatch(message);
      expect(drawn, name).toBe(0);
      const mapped = engineError(err);
      expect(mapped, name).toBeInstanceOf(UnprocessableError);
      expect((mapped as UnprocessableError).status, name).toBe(422);
    }
  });

  it('a stream source is cancelled when it is refused before it is read', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({ pull: () => {}, cancel: () => void (cancelled = true) });
    const err = await pdfPageCount({ size: 200 * 1024 * 1024, body }).catch((e) => e);
    expect(err).toBeInstanceOf(InputsTooLarge);
    expect(cancelled).toBe(true);
  });

  it('repeated calls each get a fresh instance and stay correct', async () => {
    const bytes = await samplePdf();
    for (let i = 0; i < 5; i++) expect(await pdfPageCount(bytes)).toBe(3);
  });

  it('times a 2,048 px page (figure for docs/platform.md)', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont('Helvetica');
    for (let n = 0; n < 4; n++) {
      const page = doc.addPage([595, 842]); // A4
      for (let i = 0; i < 40; i++) page.drawRectangle({ x: (i * 13) % 500, y: (i * 19) % 780, width: 60, height: 40, color: rgb((i % 5) / 5, (i % 3) / 3, 0.5), opacity: 0.7 });
      for (let l = 0; l < 40; l++) page.drawText(`Line ${l}: The quick brown fox jumps over the lazy dog 0123456789`, { x: 30, y: 800 - l * 19, size: 11, font });
      page.drawCircle({ x: 300, y: 400, size: 150, borderColor: rgb(0, 0, 0), borderWidth: 4 });
    }
    const bytes = await doc.save();
    const t0 = performance.now();
    const times: number[] = [];
    let last = t0;
    await rasterisePdfPages(bytes, {
      onPage: () => {
        const now = performance.now();
        times.push(now - last);
        last = now;
      },
    });
    const pngTimes: number[] = [];
    last = performance.now();
    await rasterisePdfPagesPng(bytes, {
      onPage: () => {
        const now = performance.now();
        pngTimes.push(now - last);
        last = now;
      },
    });
    console.log(`pdf-raster: A4 at 1448×2048, raster ms per page ${times.map((t) => t.toFixed(0)).join(', ')}; with PNG ${pngTimes.map((t) => t.toFixed(0)).join(', ')}`);
    expect(times).toHaveLength(4);
  });
});
