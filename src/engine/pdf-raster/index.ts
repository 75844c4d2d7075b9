/**
 * PDF pages as images: PDFium compiled to WebAssembly (`@embedpdf/pdfium`; PDFium is BSD-3 with
 * Apache-2.0 parts, the wrapper MIT). Pure: bytes in, page count / page sizes / RGBA or PNG pages
 * out; no storage. The platform's import stores the PNGs (`p/<t>/assets/images/<id>/pages/<n>.png`).
 *
 * ```ts
 * await rasterisePdfPagesPng(bytes, { onPage: (i, png) => bucket.put(pageKey(i), png) });
 * ```
 *
 * Memory (128 MB isolate): every call instantiates PDFium from the module compiled at deploy
 * time and drops the instance when it returns, so its heap (which never shrinks) is not kept
 * for the isolate's lifetime. The heap holds the file (see withDocument) and one page bitmap at
 * a time (≤ 2,048² × 4 = 16 MB) plus PDFium's parse state; the RGBA copy handed to `onPage` is
 * the other 16 MB. Decompression bombs are refused before PDFium opens the file (bounds.ts:
 * every stream's decoded size, images by their declared size). A `Uint8Array` source is a second full copy while pages are drawn (the
 * caller's), so callers that read the file from R2 or a request pass a `PdfStream` instead:
 * its chunks are written straight into the heap buffer and the heap's is the only full copy.
 */
import { init, type WrappedPdfiumModule } from '@embedpdf/pdfium';
import pdfiumWasm from '@embedpdf/pdfium/pdfium.wasm';
import { InputsTooLarge, Unprocessable } from '../errors';
import { encodePng } from '../raster/codecs';
import { checkPdfDecodedSizes } from './bounds';

export { loadCheckedPdf } from './checked-load';
export { checkPdfDecodedSizes, PDF_DECODE_LIMITS, PDF_LIB_DECODE_LIMITS, type PdfDecodeLimits, type PdfDecodeSummary } from './bounds';

/** A page's size in PDF points (1/72 in), as displayed: crop box, /Rotate applied. */
export interface PdfPageSize {
  width: number;
  height: number;
}

export interface RasterPage {
  /** Pixel size of the bitmap. */
  width: number;
  height: number;
  /** Straight RGBA8, `width × height × 4`. */
  rgba: Uint8ClampedArray;
  /** The page's size in pt and the pixels per pt it was drawn at (dpi = scale × 72). */
  page: PdfPageSize;
  scale: number;
}

export interface RasteriseOptions {
  /** The long side of every page bitmap, in px (pages are scaled to it, up or down). Default 2,048. */
  maxLongSide?: number;
  /** More pages than this → InputsTooLarge before anything is drawn. Default 100. */
  maxPages?: number;
  /** Draw only these pages (0-based), in this order; default all. */
  pages?: number[];
  /** `white` (paper, default) or `transparent` (what the page does not paint stays alpha 0). */
  background?: 'white' | 'transparent';
  /** Called once per page, in order; awaited before the next page is drawn. */
  onPage(index: number, page: RasterPage): void | Promise<void>;
}

export const PDF_RASTER_DEFAULTS = { maxLongSide: 2048, maxPages: 100 } as const;

/**
 * A file read as it arrives, with its length known up front (an R2 object body: `{ size, body }`
 * is an `R2ObjectBody`; a request body with its Content-Length). The length sizes PDFium's
 * buffer before the first byte arrives; a body that ends early or runs past it is refused (422).
 */
export interface PdfStream {
  size: number;
  body: ReadableStream<Uint8Array>;
}

/** The whole file in memory, or a stream of known length (see PdfStream). */
export type PdfSource = Uint8Array | PdfStream;

/** Files larger than this are refused before PDFium's buffer is allocated (the upload limit is 100 MB). */
export const PDF_RASTER_MAX_BYTES = 128 * 1024 * 1024;

// PDFium constants (fpdfview.h).
const FPDF_ERR = ['success', 'unknown error', 'file not found or could not be opened', 'not a PDF or corrupted', 'password-protected', 'unsupported security scheme', 'page not found or content error'];
const FPDF_ERR_PASSWORD = 4;
const FPDFBitmap_BGRA = 4;
const FPDF_ANNOT = 0x01;
/** Write R, G, B, A byte order instead of PDFium's native B, G, R, A: no swizzle pass. */
const FPDF_REVERSE_BYTE_ORDER = 0x10;

type Pdfium = WrappedPdfiumModule & {
  pdfium: WrappedPdfiumModule['pdfium'] & {
    wasmExports: { memory: WebAssembly.Memory; malloc(n: number): number; free(p: number): void };
  };
};

/** The number of pages of `bytes`. Unprocessable when PDFium cannot open it. */
export async function pdfPageCount(bytes: PdfSource): Promise<number> {
  return withDocument(bytes, (_lib, _doc, count) => count);
}

/** Every page's displayed size in pt (crop box, rotation applied). */
export async function pdfPageSizes(bytes: PdfSource): Promise<PdfPageSize[]> {
  return withDocument(bytes, (lib, doc, count) => Array.from({ length: count }, (_, i) => pageSize(lib, doc, i)));
}

/**
 * Draws the pages of `bytes` one at a time, each scaled so its long side is `maxLongSide` px,
 * and hands each bitmap to `onPage` before drawing the next (never all pages in memory).
 * Returns the document's page count and page sizes in pt.
 */
export async function rasterisePdfPages(bytes: PdfSource, options: RasteriseOptions): Promise<{ pageCount: number; pages: PdfPageSize[] }> {
  const maxLongSide = options.maxLongSide ?? PDF_RASTER_DEFAULTS.maxLongSide;
  const maxPages = options.maxPages ?? PDF_RASTER_DEFAULTS.maxPages;
  if (!Number.isInteger(maxLongSide) || maxLongSide < 1 || maxLongSide > 10_000) {
    if (!(bytes instanceof Uint8Array)) await bytes.body.cancel().catch(() => {});
    throw new RangeError(`maxLongSide ${maxLongSide} is not an integer in 1–10000`);
  }
  return withDocument(bytes, async (lib, doc, count) => {
    if (count > maxPages)
      throw new InputsTooLarge(`The PDF has ${count} pages; at most ${maxPages} pages are drawn.`, [{ path: 'pages', reason: `more than ${maxPages} pages` }]);
    const sizes = Array.from({ length: count }, (_, i) => pageSize(lib, doc, i));
    const wanted = options.pages ?? sizes.map((_, i) => i);
    for (const index of wanted) {
      if (!Number.isInteger(index) || index < 0 || index >= count) throw new RangeError(`page ${index} is not in 0–${count - 1}`);
      const page = renderPage(lib, doc, index, sizes[index]!, maxLongSide, options.background ?? 'white');
      await options.onPage(index, page);
    }
    return { pageCount: count, pages: sizes };
  });
}

/** rasterisePdfPages with each page encoded as PNG (the engine's encoder) before `onPage`. */
export async function rasterisePdfPagesPng(
  bytes: PdfSource,
  options: Omit<RasteriseOptions, 'onPage'> & { onPage(index: number, png: Uint8Array, page: Omit<RasterPage, 'rgba'>): void | Promise<void> },
): Promise<{ pageCount: number; pages: PdfPageSize[] }> {
  return rasterisePdfPages(bytes, {
    ...options,
    onPage: async (index, { rgba, ...rest }) => {
      const png = await encodePng({ width: rest.width, height: rest.height, data: rgba });
      await options.onPage(index, png, rest);
    },
  });
}

function pageSize(lib: Pdfium, doc: number, index: number): PdfPageSize {
  const page = lib.FPDF_LoadPage(doc, index);
  if (!page) throw new Unprocessable(`PDF page ${index + 1} cannot be read.`, [{ path: `pages[${index}]`, reason: 'unreadable page' }]);
  try {
    return { width: lib.FPDF_GetPageWidthF(page), height: lib.FPDF_GetPageHeightF(page) };
  } finally {
    lib.FPDF_ClosePage(page);
  }
}

function renderPage(lib: Pdfium, doc: number, index: number, size: PdfPageSize, maxLongSide: number, background: 'white' | 'transparent'): RasterPage {
  if (!(size.width > 0 && size.height > 0)) throw new Unprocessable(`PDF page ${index + 1} has no area.`, [{ path: `pages[${index}]`, reason: 'empty page box' }]);
  const scale = maxLongSide / Math.max(size.width, size.height);
  const width = Math.max(1, Math.round(size.width * scale));
  const height = Math.max(1, Math.round(size.height * scale));
  const page = lib.FPDF_LoadPage(doc, index);
  if (!page) throw new Unprocessable(`PDF page ${index + 1} cannot be read.`, [{ path: `pages[${index}]`, reason: 'unreadable page' }]);
  // PDFium allocates the buffer itself (stride = width × 4 for BGRA), so it is freed with the bitmap.
  const bitmap = lib.FPDFBitmap_CreateEx(width, height, FPDFBitmap_BGRA, 0, 0);
  try {
    if (!bitmap) throw new Unprocessable(`PDF page ${index + 1} is too large to draw.`, [{ path: `pages[${index}]`, reason: 'bitmap allocation failed' }]);
    lib.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, background === 'white' ? 0xffffffff : 0);
    lib.FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0, FPDF_ANNOT | FPDF_REVERSE_BYTE_ORDER);
    const stride = lib.FPDFBitmap_GetStride(bitmap);
    const ptr = lib.FPDFBitmap_GetBuffer(bitmap);
    // Read the memory after rendering: the heap may have grown (a new ArrayBuffer) meanwhile.
    const heap = new Uint8Array(lib.pdfium.wasmExports.memory.buffer);
    const rgba = new Uint8ClampedArray(width * height * 4);
    if (stride === width * 4) rgba.set(heap.subarray(ptr, ptr + rgba.length));
    else for (let y = 0; y < height; y++) rgba.set(heap.subarray(ptr + y * stride, ptr + y * stride + width * 4), y * width * 4);
    return { width, height, rgba, page: size, scale };
  } finally {
    if (bitmap) lib.FPDFBitmap_Destroy(bitmap);
    lib.FPDF_ClosePage(page);
  }
}

/**
 * Opens `source` in a fresh PDFium instance, runs `fn`, closes everything and drops the instance.
 * The file is put in PDFium's heap (FPDF_LoadMemDocument64 reads it in place there): a stream's
 * chunks are written straight into the malloc'd buffer, bytes are copied in whole.
 * FPDF_LoadCustomDocument would read it from JS on demand, but its callback needs `addFunction`,
 * which compiles a WASM stub at run time, and Workers refuse that.
 */
async function withDocument<T>(source: PdfSource, fn: (lib: Pdfium, doc: number, pageCount: number) => T | Promise<T>): Promise<T> {
  const size = source instanceof Uint8Array ? source.length : source.size;
  const stream = source instanceof Uint8Array ? null : source.body;
  let file = 0;
  let doc = 0;
  let lib: Pdfium | undefined;
  try {
    if (stream && !(Number.isSafeInteger(size) && size >= 0)) throw new Unprocessable('The PDF has no valid length.', [{ path: 'file', reason: `declared length ${size} is not a byte count` }]);
    if (size === 0) throw new Unprocessable('The PDF is empty.', [{ path: 'file', reason: 'empty file' }]);
    if (size > PDF_RASTER_MAX_BYTES) throw new InputsTooLarge(`The PDF is ${size} bytes; at most ${PDF_RASTER_MAX_BYTES} bytes are drawn.`, [{ path: 'file', reason: 'file too large' }]);
    lib = (await instantiate()) as Pdfium;
    const m = lib.pdfium;
    lib.PDFiumExt_Init();
    file = m.wasmExports.malloc(size);
    if (!file) throw new Unprocessable('The PDF is too large to draw here.', [{ path: 'file', reason: `no memory for ${size} bytes` }]);
    if (stream) await readInto(stream, size, (chunk, at) => new Uint8Array(m.wasmExports.memory.buffer, file + at, chunk.length).set(chunk));
    else new Uint8Array(m.wasmExports.memory.buffer, file, size).set(source as Uint8Array);
    // PDFium decodes each stream whole: a small file can inflate to GBs (bounds.ts). Checked on
    // the heap's copy, before PDFium parses anything (it runs nothing meanwhile, so no heap growth).
    checkPdfDecodedSizes(new Uint8Array(m.wasmExports.memory.buffer, file, size));
    doc = lib.FPDF_LoadMemDocument64(file, size, '');
    if (!doc) {
      const code = lib.FPDF_GetLastError();
      const reason = FPDF_ERR[code] ?? `PDFium error ${code}`;
      throw new Unprocessable(code === FPDF_ERR_PASSWORD ? 'The PDF is password-protected.' : `The PDF cannot be read: ${reason}.`, [{ path: 'file', reason }]);
    }
    const count = lib.FPDF_GetPageCount(doc);
    if (count < 1) throw new Unprocessable('The PDF has no pages.', [{ path: 'file', reason: 'no pages' }]);
    return await fn(lib, doc, count);
  } finally {
    // A stream refused before (or while) it was read is cancelled, so its source stops sending.
    if (stream) await stream.cancel().catch(() => {});
    if (lib) {
      if (doc) lib.FPDF_CloseDocument(doc);
      if (file) lib.pdfium.wasmExports.free(file);
      lib.FPDF_DestroyLibrary();
    }
  }
}

/**
 * Reads exactly `size` bytes of `stream`, handing each chunk and its offset to `write`. A stream
 * that ends before `size` or has bytes past it is Unprocessable: the declared length is wrong
 * (a truncated object, a lying Content-Length), and nothing of it is drawn.
 */
async function readInto(stream: ReadableStream<Uint8Array>, size: number, write: (chunk: Uint8Array, at: number) => void): Promise<void> {
  const reader = stream.getReader();
  let at = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!value.byteLength) continue;
      if (value.byteLength > size - at)
        throw new Unprocessable(`The PDF is longer than its declared ${size} bytes.`, [{ path: 'file', reason: `more than the declared ${size} bytes` }]);
      write(value, at);
      at += value.byteLength;
    }
  } finally {
    reader.releaseLock();
  }
  if (at !== size) throw new Unprocessable(`The PDF ended after ${at} of its declared ${size} bytes.`, [{ path: 'file', reason: `${at} of the declared ${size} bytes` }]);
}

/** A PDFium instance from the deploy-time compiled module (Workers cannot compile WASM bytes at run time). */
function instantiate(): Promise<WrappedPdfiumModule> {
  let failed!: (e: unknown) => void;
  const failure = new Promise<never>((_, reject) => (failed = reject));
  const ready = init({
    instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      WebAssembly.instantiate(pdfiumWasm, imports).then((instance) => receive(instance, pdfiumWasm), failed);
      return {};
    },
    // Emscripten's defaults log to the console; PDFium reports nothing we act on.
    print: () => {},
    printErr: () => {},
  } as Parameters<typeof init>[0]);
  return Promise.race([ready, failure]);
}
