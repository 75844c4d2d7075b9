import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { pageSizePt, writePdf, type PdfPage } from '../../../src/engine/pdf/document';
import { MemorySink, R2Sink } from '../../../src/engine/pdf/sink';
import { srgbProfile } from '../../../src/engine/raster/icc';
import type { RGBAImage } from '../../../src/engine/types';
import { runTool } from '../../helpers/fixtures';
import { overWhite, pdfInfo, psnr, rasterisePage } from './helpers';

type Pixel = (x: number, y: number) => [number, number, number, number];

/** A synthetic page whose rows are computed on demand, as the engine's strip renderer would. */
function page(width: number, height: number, resolution: number, pixel: Pixel, log?: Array<[number, number]>): PdfPage {
  return {
    width,
    height,
    resolution,
    icc: srgbProfile(),
    renderRows: async (top, bottom) => {
      log?.push([top, bottom]);
      const data = new Uint8ClampedArray(width * (bottom - top) * 4);
      for (let y = top; y < bottom; y++)
        for (let x = 0; x < width; x++) data.set(pixel(x, y), ((y - top) * width + x) * 4);
      return { width, height: bottom - top, data };
    },
  };
}

async function full(p: PdfPage): Promise<RGBAImage> {
  return p.renderRows(0, p.height);
}

async function pdfOf(pages: PdfPage[], stripBytes?: number) {
  const sink = new MemorySink();
  const summary = await writePdf(sink, pages.map((p) => async () => p), { stripBytes });
  return { bytes: sink.bytes(), summary };
}

// Flat artwork with a transparent hole and a soft edge: exercises Flate + SMask.
const artwork: Pixel = (x, y) => {
  const inHole = (x - 60) ** 2 + (y - 50) ** 2 < 30 ** 2;
  return inHole ? [255, 0, 0, x % 2 ? 0 : 128] : [x < 100 ? 20 : 200, 120, y < 40 ? 250 : 30, 255];
};
// Smooth "photographic" content: many distinct colours, opaque.
const photo: Pixel = (x, y) => [
  Math.round(127 + 100 * Math.sin(x / 7) * Math.cos(y / 11)),
  (x * 3 + y * 5) & 255,
  Math.round(127 + 120 * Math.sin((x + y) / 13)),
  255,
];

describe('print PDF document', () => {
  it('page size is pixels ÷ ppi × 72 per axis (72 ppi when unknown)', () => {
    const [w, h] = pageSizePt(2480, 3508, 300);
    // 2480 px is A4's 8.268 in rounded to whole pixels, so the page is 595.2 × 841.92 pt.
    expect(w).toBeCloseTo(595.2, 4);
    expect(h).toBeCloseTo(841.92, 4);
    expect(pageSizePt(100, 50, 0)).toEqual([100, 50]);
  });

  it('passes qpdf --check and has MediaBox = TrimBox = BleedBox = template bounds', async () => {
    const { bytes } = await pdfOf([page(300, 200, 150, artwork)]);
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const info = pdfInfo((await runTool('pdfinfo', bytes)).stdout);
    expect(info.pages).toBe(1);
    expect(info.size).toEqual([144, 96]);
    for (const box of ['MediaBox', 'TrimBox', 'BleedBox']) expect(info.boxes[box]).toEqual([0, 0, 144, 96]);
  });

  it('is built from strips that each render only their rows, and the raster matches the source', async () => {
    const log: Array<[number, number]> = [];
    const src = page(300, 200, 150, artwork, log);
    const { bytes, summary } = await pdfOf([src], 300 * 4 * 32);
    expect(log.length).toBe(7);
    expect(Math.max(...log.map(([t, b]) => b - t))).toBeLessThanOrEqual(33);
    expect(summary.strips.flate).toBe(7);
    const raster = await rasterisePage(bytes, 1, 300, 200);
    expect(psnr(raster, overWhite(await full(src)))).toBeGreaterThanOrEqual(35);
  });

  it('embeds opaque photographic strips as 4:4:4 JPEG at quality ≥ 92', async () => {
    const src = page(256, 128, 72, photo);
    const { bytes, summary } = await pdfOf([src]);
    expect(summary.strips.jpeg).toBe(1);
    const text = new TextDecoder('latin1').decode(bytes);
    expect(text).toContain('/DCTDecode');
    // SOF0 component sampling factors: all 0x11 means no chroma subsampling.
    const sof = bytes.findIndex((b, i) => b === 0xff && bytes[i + 1] === 0xc0);
    expect([bytes[sof + 11], bytes[sof + 14], bytes[sof + 17]]).toEqual([0x11, 0x11, 0x11]);
    const raster = await rasterisePage(bytes, 1, 256, 128);
    expect(psnr(raster, await full(src))).toBeGreaterThanOrEqual(35);
  });

  it('writes images in an ICCBased colour space and claims no PDF/X output intent', async () => {
    const { bytes } = await pdfOf([page(64, 64, 72, artwork)]);
    const text = new TextDecoder('latin1').decode(bytes);
    expect(text).toMatch(/\/ColorSpace \[\/ICCBased \d+ 0 R\]/);
    expect(text).not.toContain('/OutputIntents');
    expect(text).not.toContain('GTS_PDFX');
  });

  it('one page per template, in order, each at its own size', async () => {
    const { bytes } = await pdfOf([page(72, 144, 72, artwork), page(300, 300, 300, photo), page(50, 20, 72, artwork)]);
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const sizes = [];
    for (const p of [1, 2, 3]) {
      const out = await runTool('pdftoppm', bytes, { r: 72, page: p });
      const png = out.pages[0];
      const bin = atob(png);
      const view = new DataView(Uint8Array.from(bin, (c) => c.charCodeAt(0)).buffer);
      sizes.push([view.getUint32(16), view.getUint32(20)]);
    }
    expect(sizes).toEqual([[72, 144], [72, 72], [50, 20]]);
  });

  it('streams into R2 as a multipart upload, one part in memory at a time', async () => {
    const key = 'results/test/multipart.pdf';
    // Noise does not compress: a 1600×1200 page is > 5 MiB, so it needs two parts.
    const noise: Pixel = (x, y) => {
      let h = Math.imul(x + 1, 0x9e3779b1) ^ Math.imul(y + 7, 0x85ebca77);
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
      h = Math.imul(h ^ (h >>> 12), 0x297a2d39) ^ (h >>> 15);
      return [h & 255, (h >> 8) & 255, (h >> 16) & 255, x % 3 ? 255 : 100];
    };
    const sink = new R2Sink(env.FILES, key, { httpMetadata: { contentType: 'application/pdf' } });
    const summary = await writePdf(sink, [async () => page(1600, 1200, 72, noise)], {});
    const obj = await env.FILES.get(key);
    expect(obj).not.toBeNull();
    const stored = new Uint8Array(await obj!.arrayBuffer());
    expect(stored.length).toBe(summary.bytes);
    expect(stored.length).toBeGreaterThan(5 * 1024 * 1024);
    expect((await runTool('qpdf-check', stored)).code).toBe(0);
  });

  it('a failure while rendering leaves nothing in R2', async () => {
    const key = 'results/test/failed.pdf';
    const sink = new R2Sink(env.FILES, key, {}, 5 * 1024 * 1024);
    const failing: PdfPage = {
      ...page(2000, 2000, 72, photo),
      renderRows: async (top) => {
        if (top > 0) throw new Error('boom');
        return page(2000, 2000, 72, (x, y) => [(x * y) & 255, x & 255, y & 255, 255]).renderRows(0, 1049);
      },
    };
    await expect(writePdf(sink, [async () => failing], {})).rejects.toThrow('boom');
    expect(await env.FILES.head(key)).toBeNull();
  });
});
