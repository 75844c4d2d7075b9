/**
 * What an uploaded file is, and its metadata, computed from the bytes (contract, "Asset
 * storage": the `metadata.*` a client sends is ignored). Designs and mockups: PSD/PSB compiled by
 * the rendering engine now (its 422 when it refuses), or print-product JSON; images: JPEG, PNG,
 * SVG, PDF (header and pdf-lib); fonts: the engine's name-table reader; resources: anything.
 * Free of HTTP: throws the core's typed errors.
 */
import { PDFDocument } from 'pdf-lib';
import { validateModel } from '../../engine/print-product';
import { compileTemplate, r2Source, readHeader, walkLayers, type PsdSource } from '../../engine';
import { readFontInfo } from '../../engine/fonts/font-info';
import { sniffImage } from '../../engine/raster';
import type { CompiledTemplate } from '../../engine/types';
import { PayloadTooLargeError, UnprocessableError } from '../core';
import { engineError } from './engine-error';
import { readStaged, type Staged } from './blobs';
import type { AssetType } from './model';
import { checkUserPdf } from './pdf-pages';

const MB = 1024 * 1024;

/**
 * Size limits (contract): PSD/PSB designs and mockups take the rendering upload limit (100 MB,
 * the engine's compile budget); images 50 MB; PDFs 100 MB and 100 pages; fonts 20 MB; resources
 * 100 MB. The stream limit is the largest a type can take; the exact one is checked on content.
 */
export const LIMITS = {
  psd: 100 * MB,
  printProduct: 2 * MB,
  glb: 100 * MB,
  image: 50 * MB,
  pdf: 100 * MB,
  pdfPages: 100,
  font: 20 * MB,
  resource: 100 * MB,
} as const;

export const STREAM_LIMIT: Record<AssetType, number> = {
  design: LIMITS.psd,
  mockup: Math.max(LIMITS.psd, LIMITS.glb),
  image: Math.max(LIMITS.image, LIMITS.pdf),
  font: LIMITS.font,
  resource: LIMITS.resource,
};

export const LIMIT_NAMES: Record<AssetType, string> = {
  design: 'A design file',
  mockup: 'A mockup file',
  image: 'An image file',
  font: 'A font file',
  resource: 'A resource file',
};

/** What the service stores about a file's content. */
export interface ContentInfo {
  format: string;
  mimeType: string;
  metadata: Record<string, unknown>;
  designType?: 'Psd' | 'PrintProduct';
  mockupType?: 'Mockup2D' | 'Mockup3D';
  postscriptName?: string;
  /** Text-layer fonts of a PSD design, to check against the font lookup. */
  fonts?: string[];
  /** The bytes, when they had to be read whole (saves a read when committing). */
  bytes?: Uint8Array;
  compiled?: CompiledTemplate;
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));
const tooLarge = (what: string, limit: number) => new PayloadTooLargeError(`${what} is larger than the limit of ${limit / MB} MB.`);


export const isPsd = (h: Uint8Array) => ascii(h, 0, 4) === '8BPS';
export const PSD_MIME = 'image/vnd.adobe.photoshop';
const isPdf = (h: Uint8Array) => ascii(h, 0, 5) === '%PDF-';
const isGlb = (h: Uint8Array) => ascii(h, 0, 4) === 'glTF';
function isSvg(h: Uint8Array): boolean {
  const text = new TextDecoder().decode(h.subarray(0, 4096)).replace(/^\uFEFF/, '').trimStart();
  return /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(text);
}
const isJson = (h: Uint8Array) => /^\s*\{/.test(new TextDecoder().decode(h.subarray(0, 64)).replace(/^\uFEFF/, ''));

/**
 * Compiles a PSD/PSB with the engine (bytes in memory, or a staged R2 object read by range with the
 * hash taken as it streamed in); DesignMetadata-like facts (px → pt at the PSD's ppi).
 */
export async function analysePsd(
  bucket: R2Bucket,
  input: Uint8Array | PsdSource,
  options: { head?: Uint8Array; hash?: string } = {},
): Promise<{ compiled: CompiledTemplate; fonts: string[]; surface: { width: number; height: number }; format: string }> {
  let compiled: CompiledTemplate;
  let version: number;
  try {
    version = readHeader(options.head ?? (input instanceof Uint8Array ? input : await input.read(0, 64))).version;
    compiled = await compileTemplate(bucket, input, { hash: options.hash });
  } catch (e) {
    throw engineError(e);
  }
  const fonts = new Set<string>();
  for (const layer of walkLayers(compiled.layers)) {
    if (!layer.text) continue;
    if (layer.text.font) fonts.add(layer.text.font);
    for (const run of layer.text.runs ?? []) if (run.font) fonts.add(run.font);
  }
  const ppi = compiled.resolution || 72;
  const pt = (px: number) => Math.round((px / ppi) * 72 * 1000) / 1000;
  return { compiled, fonts: [...fonts], surface: { width: pt(compiled.width), height: pt(compiled.height) }, format: version === 2 ? 'psb' : 'psd' };
}

/**
 * A PSD/PSB design or mockup compiled from where it is staged: by range from its R2 staging object
 * (never whole in memory: issue 25 §1), or from the bytes when it was kept in memory (derived files);
 * `located` is the metadata that finds its compiled form.
 */
async function psdContent(bucket: R2Bucket, staged: Staged) {
  const input = staged.bytes ?? r2Source(bucket, staged.key, staged.size);
  const psd = await analysePsd(bucket, input, { head: staged.head, hash: staged.psdHash });
  const { compiled } = psd;
  const located = { _compiled: compiled.hash, _ppi: compiled.resolution, _px: { width: compiled.width, height: compiled.height } };
  return { psd, located, info: { format: psd.format, mimeType: PSD_MIME, compiled } };
}

async function designContent(bucket: R2Bucket, staged: Staged): Promise<ContentInfo> {
  if (isPsd(staged.head)) {
    const { psd, located, info } = await psdContent(bucket, staged);
    return { ...info, designType: 'Psd', fonts: psd.fonts, metadata: { surfaces: [psd.surface], printAreas: [psd.surface], hasDataSchema: false, ...located } };
  }
  if (isJson(staged.head)) {
    if (staged.size > LIMITS.printProduct) throw tooLarge('A print-product design', LIMITS.printProduct);
    const bytes = await readStaged(bucket, staged);
    const model = parseJson(bytes);
    const checked = await validateModel(model);
    if (!checked.ok) throw new UnprocessableError('The print-product design is not valid.', checked.errors);
    return {
      format: 'json',
      mimeType: 'application/json',
      designType: 'PrintProduct',
      metadata: { ...printProductMetadata(model), _sources: printProductSources(model) },
      fonts: printProductFonts(model),
      bytes,
    };
  }
  throw new UnprocessableError('A design must be a PSD/PSB file or a print-product JSON document (IDML is not supported).', { file: ['unsupported design format'] });
}

function parseJson(bytes: Uint8Array): Record<string, unknown> {
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes));
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new UnprocessableError('The print-product design is not a JSON object.', { file: ['not a JSON object'] });
}

type Surface = { width?: number; height?: number; printAreas?: Array<{ bounds?: { width?: number; height?: number }; width?: number; height?: number }> };

/** Surfaces and print areas of a print-product document (sizes in pt). */
export function printProductMetadata(model: Record<string, unknown>): Record<string, unknown> {
  const surfaces = (Array.isArray(model.surfaces) ? model.surfaces : []) as Surface[];
  return {
    surfaces: surfaces.map((s) => ({ width: Number(s.width) || 0, height: Number(s.height) || 0 })),
    printAreas: surfaces.flatMap((s) =>
      (s.printAreas ?? []).map((p) => ({ width: Number(p.bounds?.width ?? p.width) || 0, height: Number(p.bounds?.height ?? p.height) || 0 })),
    ),
    hasDataSchema: Boolean(model.dataSchema),
  };
}

/**
 * Asset ids a print-product document names as Storage sources (images, mockups, preview mockups):
 * kept in the design's metadata so retention and deletes can follow them without the file.
 */
export function printProductSources(model: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number) => {
    if (depth > 64 || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    const o = v as Record<string, unknown>;
    if (o.type === 'Storage' && typeof o.id === 'string') out.add(o.id);
    for (const x of Object.values(o)) walk(x, depth + 1);
  };
  walk(model, 0);
  return [...out];
}

/** Font PostScript names anywhere in a print-product document (`postScriptName` / `postscriptName`). */
export function printProductFonts(model: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown, depth: number) => {
    if (depth > 64 || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    for (const [k, x] of Object.entries(v)) {
      if (/^post[sS]cript[nN]ame$/.test(k) && typeof x === 'string' && x) out.add(x);
      else walk(x, depth + 1);
    }
  };
  walk(model, 0);
  return [...out];
}

// --- images ---------------------------------------------------------------------------------------

function jpegDpi(b: Uint8Array): [number, number] | null {
  // JFIF APP0: "JFIF\0", version(2), units(1), Xdensity(2), Ydensity(2).
  for (let i = 2; i + 4 < b.length && b[i] === 0xff; ) {
    const marker = b[i + 1]!;
    const len = (b[i + 2]! << 8) | b[i + 3]!;
    if (marker === 0xe0 && ascii(b, i + 4, 5) === 'JFIF\0') {
      const units = b[i + 11]!;
      const x = (b[i + 12]! << 8) | b[i + 13]!;
      const y = (b[i + 14]! << 8) | b[i + 15]!;
      if (units === 1 && x && y) return [x, y];
      if (units === 2 && x && y) return [Math.round(x * 2.54), Math.round(y * 2.54)];
      return null;
    }
    if (marker === 0xda) break;
    i += 2 + len;
  }
  return null;
}

function pngDpi(b: Uint8Array): [number, number] | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 8; i + 8 <= b.length; ) {
    const len = v.getUint32(i);
    const type = ascii(b, i + 4, 4);
    if (type === 'pHYs' && i + 17 <= b.length) {
      const x = v.getUint32(i + 8);
      const y = v.getUint32(i + 12);
      if (b[i + 16] === 1) return [Math.round(x * 0.0254), Math.round(y * 0.0254)];
      return null;
    }
    if (type === 'IDAT' || type === 'IEND') break;
    i += 12 + len;
  }
  return null;
}

const UNIT_PX: Record<string, number> = { '': 1, px: 1, pt: 96 / 72, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };
function svgLength(v: string | undefined): number | null {
  const m = v ? /^\s*([0-9.]+)\s*(px|pt|pc|in|cm|mm)?\s*$/i.exec(v) : null;
  return m ? Number(m[1]) * UNIT_PX[(m[2] ?? '').toLowerCase()]! : null;
}

function svgSize(text: string): { width: number; height: number } {
  const tag = /<svg\b[^>]*>/i.exec(text)?.[0] ?? '';
  const attr = (n: string) => new RegExp(`\\s${n}\\s*=\\s*["']([^"']*)["']`, 'i').exec(tag)?.[1];
  const box = attr('viewBox')?.trim().split(/[\s,]+/).map(Number);
  const w = svgLength(attr('width')) ?? (box && box.length === 4 ? box[2]! : 0);
  const h = svgLength(attr('height')) ?? (box && box.length === 4 ? box[3]! : 0);
  return { width: Math.round(w), height: Math.round(h) };
}

/** Page count and first page size of a PDF (pdf-lib), ≤ 100 pages. */
export async function pdfFacts(bytes: Uint8Array): Promise<{ pages: number; width: number; height: number }> {
  let doc: PDFDocument;
  let pages: number;
  checkUserPdf(bytes); // decompression bombs: 422 naming the limit (issue 18 item 3)
  try {
    doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false });
    pages = doc.getPageCount(); // throws on a file without a page tree
  } catch {
    throw new UnprocessableError('The PDF cannot be read.', { file: ['not a readable PDF'] });
  }
  if (pages < 1) throw new UnprocessableError('The PDF has no pages.', { file: ['no pages'] });
  if (pages > LIMITS.pdfPages) throw new PayloadTooLargeError(`The PDF has ${pages} pages; the limit is ${LIMITS.pdfPages} pages.`);
  const { width, height } = doc.getPage(0).getSize();
  return { pages, width: Math.round(width * 1000) / 1000, height: Math.round(height * 1000) / 1000 };
}

async function imageContent(bucket: R2Bucket, staged: Staged): Promise<ContentInfo> {
  const h = staged.head;
  if (isPdf(h)) {
    if (staged.size > LIMITS.pdf) throw tooLarge('A PDF image', LIMITS.pdf);
    const bytes = await readStaged(bucket, staged);
    const pdf = await pdfFacts(bytes);
    // The pages are drawn (PDFium) by createAsset/replaceContent once the asset id is known: pdf-pages.ts.
    return {
      format: 'pdf',
      mimeType: 'application/pdf',
      metadata: { isVector: true, width: pdf.width, height: pdf.height, format: 'pdf', dpiX: 72, dpiY: 72, pages: pdf.pages },
      bytes,
    };
  }
  if (staged.size > LIMITS.image) throw tooLarge('An image', LIMITS.image);
  const sniffed = sniffImage(h);
  if (sniffed && (sniffed.format === 'jpeg' || sniffed.format === 'png')) {
    const dpi = sniffed.format === 'jpeg' ? jpegDpi(h) : pngDpi(h);
    const size = sniffed.orientation >= 5 ? { width: sniffed.height, height: sniffed.width } : { width: sniffed.width, height: sniffed.height };
    return {
      format: sniffed.format,
      mimeType: `image/${sniffed.format}`,
      metadata: { isVector: false, ...size, format: sniffed.format, dpiX: dpi?.[0] ?? null, dpiY: dpi?.[1] ?? null, pages: 1 },
    };
  }
  if (isSvg(h)) {
    const text = new TextDecoder().decode(staged.size <= h.length ? h : await readStaged(bucket, staged));
    return { format: 'svg', mimeType: 'image/svg+xml', metadata: { isVector: true, ...svgSize(text), format: 'svg', dpiX: 96, dpiY: 96, pages: 1 } };
  }
  throw new UnprocessableError('An image must be a JPEG, PNG, SVG or PDF file.', { file: ['unsupported image format'] });
}

async function mockupContent(bucket: R2Bucket, staged: Staged): Promise<ContentInfo> {
  if (isPsd(staged.head)) {
    const { located, info } = await psdContent(bucket, staged);
    return { ...info, mockupType: 'Mockup2D', metadata: located };
  }
  if (isGlb(staged.head)) return { format: 'glb', mimeType: 'model/gltf-binary', mockupType: 'Mockup3D', metadata: {} };
  throw new UnprocessableError('A mockup must be a PSD/PSB file (2D) or a GLB file (3D).', { file: ['unsupported mockup format'] });
}

async function fontContent(bucket: R2Bucket, staged: Staged): Promise<ContentInfo> {
  const bytes = await readStaged(bucket, staged);
  let info;
  try {
    info = readFontInfo(bytes);
  } catch (e) {
    throw engineError(e);
  }
  const tag = ascii(bytes, 0, 4);
  const format = tag === 'OTTO' ? 'otf' : tag === 'ttcf' ? 'ttc' : 'ttf';
  return {
    format,
    mimeType: format === 'otf' ? 'font/otf' : format === 'ttc' ? 'font/collection' : 'font/ttf',
    postscriptName: info.postscriptName,
    metadata: { postscriptName: info.postscriptName, family: info.family, style: info.style, _fullName: info.fullName },
    bytes,
  };
}

function resourceContent(staged: Staged, declared?: string): ContentInfo {
  const h = staged.head;
  const sniffed = sniffImage(h);
  const [format, mimeType] = sniffed
    ? [sniffed.format, `image/${sniffed.format}`]
    : isPdf(h)
      ? ['pdf', 'application/pdf']
      : isPsd(h)
        ? ['psd', 'image/vnd.adobe.photoshop']
        : isSvg(h)
          ? ['svg', 'image/svg+xml']
          : isJson(h)
            ? ['json', 'application/json']
            : [null, declared && /^[\w.+-]+\/[\w.+-]+$/.test(declared) ? declared : 'application/octet-stream'];
  return { format: format ?? (declared?.split('/')[1] ?? 'bin'), mimeType, metadata: {} };
}

/** The content of a staged upload for an asset of `type`, or 413/422. */
export function analyseContent(bucket: R2Bucket, type: AssetType, staged: Staged, declaredType?: string): Promise<ContentInfo> {
  switch (type) {
    case 'design':
      return designContent(bucket, staged);
    case 'image':
      return imageContent(bucket, staged);
    case 'mockup':
      return mockupContent(bucket, staged);
    case 'font':
      return fontContent(bucket, staged);
    case 'resource':
      return Promise.resolve(resourceContent(staged, declaredType));
  }
}
