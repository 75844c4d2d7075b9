import UPNG from '@pdf-lib/upng';
import { env } from 'cloudflare:workers';
import { runTool } from '../../helpers/fixtures';
import { writePdf, type PdfPage, type PdfSummary } from '../../../src/engine/pdf/document';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { MemorySink } from '../../../src/engine/pdf/sink';
import type { RGBAImage } from '../../../src/engine/types';
import { UrlImages } from '../../../src/engine/inputs';
import type { RenderDeps } from '../../../src/engine/preview';
import { imageFetcher } from '../../../src/dynamic-image/context';
import { FileStore } from '../../../src/dynamic-image/store';

/** The engine's dependencies as the Worker gives them to one request. */
export const renderDeps = (): RenderDeps => ({ urlImages: new UrlImages(imageFetcher(env)) });

export interface MadePdf {
  bytes: Uint8Array;
  summary: PdfSummary;
  /** Row ranges the page rendered (strips not taken from the store). */
  rendered: Array<[number, number]>;
  page: PdfPage;
}

/** One PDF page for `options`, in strips of `rows` rows; `reuse: false` draws every strip and every layer anew. */
export async function makePdf(options: HiresOptions, rows: number, reuse = true): Promise<MadePdf> {
  const page = await (await prepareHires(new FileStore(env.FILES), options, renderDeps())).load();
  const rendered: Array<[number, number]> = [];
  const logged: PdfPage = {
    ...page,
    strips: reuse ? page.strips : undefined,
    renderRows: (top, bottom) => {
      rendered.push([top, bottom]);
      return page.renderRows(top, bottom, !reuse);
    },
  };
  const sink = new MemorySink();
  const summary = await writePdf(sink, [async () => logged], { stripBytes: page.width * 4 * rows });
  return { bytes: sink.bytes(), summary, rendered, page };
}

/** Decodes a base64 PNG page from pdftoppm into RGBA. */
export function decodePng(base64: string): RGBAImage {
  const bin = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const img = UPNG.decode(bin.buffer);
  return { width: img.width, height: img.height, data: new Uint8ClampedArray(UPNG.toRGBA8(img)[0]) };
}

/** Pages of a PDF rasterised by pdftoppm at `r` dpi. */
export async function rasterise(pdf: Uint8Array, query: Record<string, string | number>): Promise<RGBAImage[]> {
  const out = await runTool('pdftoppm', pdf, query);
  if (out.code !== 0) throw new Error(`pdftoppm failed: ${out.stderr}`);
  return out.pages.map(decodePng);
}

/**
 * Page `page` of a PDF as a raster of exactly width × height. Poppler interpolates images drawn
 * at less than 4× their pixel size (bilinear with corners aligned: a 1:1 render is resampled by
 * (n−1)/n), so small pages are rendered at 4× and box-filtered back down.
 */
export async function rasterisePage(pdf: Uint8Array, page: number, width: number, height: number): Promise<RGBAImage> {
  const k = Math.max(width, height) <= 1024 ? 4 : 1;
  const [big] = await rasterise(pdf, { page, scaleTo: k * Math.max(width, height) });
  // pdftoppm may round a side up by one pixel; that column or row is ignored.
  const fits = (got: number, want: number) => got === want || got === want + 1;
  if (!fits(big.width, k * width) || !fits(big.height, k * height)) throw new Error(`pdftoppm gave ${big.width}x${big.height}, wanted ${k * width}x${k * height}`);
  if (k === 1 && big.width === width && big.height === height) return big;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      for (let c = 0; c < 4; c++) {
        let sum = 0;
        for (let dy = 0; dy < k; dy++) for (let dx = 0; dx < k; dx++) sum += big.data[((y * k + dy) * big.width + x * k + dx) * 4 + c];
        data[(y * width + x) * 4 + c] = Math.round(sum / (k * k));
      }
  return { width, height, data };
}

/** Straight RGBA composited over white, as paper shows it. */
export function overWhite(img: RGBAImage): RGBAImage {
  const d = new Uint8ClampedArray(img.data.length);
  for (let i = 0; i < d.length; i += 4) {
    const a = img.data[i + 3] / 255;
    for (let c = 0; c < 3; c++) d[i + c] = Math.round(img.data[i + c] * a + 255 * (1 - a));
    d[i + 3] = 255;
  }
  return { width: img.width, height: img.height, data: d };
}

/** PSNR of the colour channels in dB (Infinity when identical). */
export function psnr(a: RGBAImage, b: RGBAImage): number {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`size ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  let se = 0;
  for (let i = 0; i < a.data.length; i += 4) for (let c = 0; c < 3; c++) se += (a.data[i + c] - b.data[i + c]) ** 2;
  const mse = se / (a.width * a.height * 3);
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** pdfinfo -box output → page count and per-page boxes (pdfinfo prints page 1 unless -f/-l). */
export function pdfInfo(stdout: string): { pages: number; size: [number, number]; boxes: Record<string, number[]> } {
  const pages = Number(/Pages:\s+(\d+)/.exec(stdout)?.[1]);
  const m = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(stdout);
  const boxes: Record<string, number[]> = {};
  for (const b of ['MediaBox', 'CropBox', 'BleedBox', 'TrimBox', 'ArtBox']) {
    const r = new RegExp(`${b}:\\s+([-\\d.]+)\\s+([-\\d.]+)\\s+([-\\d.]+)\\s+([-\\d.]+)`).exec(stdout);
    if (r) boxes[b] = r.slice(1).map(Number);
  }
  return { pages, size: [Number(m?.[1]), Number(m?.[2])], boxes };
}

/** The inflated page content streams of a PDF written by our writer (dicts with only Filter and Length). */
export async function contentStreams(pdf: Uint8Array): Promise<string[]> {
  const text = new TextDecoder('latin1').decode(pdf);
  const out: string[] = [];
  for (const m of text.matchAll(/<< \/Filter \/FlateDecode \/Length (\d+) >>\nstream\n/g)) {
    const start = m.index! + m[0].length;
    const body = pdf.subarray(start, start + Number(m[1]));
    const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream('deflate'));
    out.push(await new Response(stream).text());
  }
  return out;
}

/**
 * A raw 8-bit CMYK PSD as our fixture makers write it (test/fixtures/psd-made/make-ink.mjs,
 * make-ae.mjs), read back without the engine's reader: each layer's planes C, M, Y, K as ink
 * (0..255) and its transparency (0..1), bottom first, and the merged image as ink.
 */
export function readInkPsd(psd: Uint8Array) {
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  const height = v.getUint32(14);
  const width = v.getUint32(18);
  let at = 26;
  at += 4 + v.getUint32(at); // colour mode data
  at += 4 + v.getUint32(at); // image resources
  const sectionEnd = at + 4 + v.getUint32(at);
  const count = Math.abs(v.getInt16(at + 8)); // negative: the merged image has a transparency
  let rec = at + 10;
  const sizes: number[][] = [];
  for (let l = 0; l < count; l++) {
    const n = v.getUint16(rec + 16);
    sizes.push(Array.from({ length: n }, (_, c) => v.getUint32(rec + 18 + c * 6 + 2)));
    rec += 18 + n * 6 + 12;
    rec += 4 + v.getUint32(rec); // extra data
  }
  let data = rec;
  const layers = sizes.map((s) => {
    const planes = s.map((size) => {
      const plane = psd.subarray(data + 2, data + size);
      data += size;
      return plane;
    });
    return { ink: (c: number, i: number) => 255 - planes[c][i], alpha: (i: number) => planes[4][i] / 255 };
  });
  const merged = sectionEnd + 2;
  return { layers, merged: (x: number, y: number) => [0, 1, 2, 3].map((c) => 255 - psd[merged + c * width * height + y * width + x]) };
}
