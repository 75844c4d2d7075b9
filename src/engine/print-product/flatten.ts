/**
 * Transparency flattening for PDF/X-1a (issue 20 §2; docs/design-atoms.md, "Print colour"), as a
 * RIP's or Acrobat's flattener does it, in its simplest correct form: one rectangle per surface,
 * where the translucent items (an opacity or a colour alpha below 1, anywhere inside a top-level
 * item) put ink, grown by a point, becomes one opaque image at 300 ppi in the output's ink
 * (DeviceCMYK or DeviceGray). pdf.ts draws the opaque items below the last translucent one as
 * vectors first (they show outside the rectangle), then the image, then the items above the last
 * translucent one as vectors over it, so topmost text stays vector; opaque items between
 * translucent ones are rasterised inside the rectangle.
 *
 * The image: each translucent top-level item up to the last one, and each run of opaque ones
 * between them, is drawn alone by the preview's renderer (resvg, svg.ts `regionRaster`), its
 * pixels converted through the output profile and composited in ink, bottom to top, over paper
 * (no ink): source-over per ink channel, as a PDF viewer composites the DeviceCMYK page group of
 * the PDF/X-4 file, so both print alike. A pixel of one of the drawn items' model colours (within
 * the rounding of its alpha) takes that colour's own ink (`InkWriter.samples`: a `cmyk()` colour
 * as given), so flat colours keep their exact ink where opaque and meet their vector parts
 * without a seam.
 */
import { PdfX1aTransparencyError, type InkWriter } from './colour';
import { resolveColor, type ItemModel, type PrintProductModel, type ResolvedColor } from './schema';
import { regionBandRows, regionRaster, type ImageLookup, type FontLookup, type RegionRaster, type SurfaceRect } from './svg';
import type { RGBAImage } from '../types';
import type { ReportProblem } from '../preflight/report';
import type { ResolutionThresholds } from './problems';

/** Resolution of flattened areas (the design has no resolution setting of its own). */
export const FLATTEN_PPI = 300;

/** A top-level item of a surface, by container and item index. */
export interface SurfaceEntry {
  container: number;
  index: number;
  item: ItemModel;
}

export interface FlattenedArea {
  /** Where the image goes, in surface points (y down). */
  region: SurfaceRect;
  width: number;
  height: number;
  /** Ink samples, `channels` per pixel, rows top to bottom, zlib-compressed (FlateDecode). */
  data: Uint8Array;
  channels: 1 | 3 | 4;
}

const seeThrough = (value: string | null | undefined) => (resolveColor(value)?.a ?? 1) < 1;

/** Whether a visible item draws anything translucent: its or a descendant's opacity, or a colour's alpha. */
export function translucent(item: ItemModel): boolean {
  if (!item.visible) return false;
  if (item.opacity < 1) return true;
  switch (item.type) {
    case 'Rectangle':
    case 'Ellipse':
      return seeThrough(item.fillColor) || seeThrough(item.borderColor);
    case 'Text':
      return seeThrough(item.color);
    case 'Image':
      return seeThrough(item.recolor);
    case 'Barcode':
      return seeThrough(item.color) || seeThrough(item.backgroundColor);
    case 'Group':
      return item.items.some(translucent);
  }
}

/** The model colours an item draws with (their alpha aside), for their own inks in the raster. */
function modelColours(item: ItemModel, out: ResolvedColor[] = []): ResolvedColor[] {
  if (!item.visible) return out;
  const values =
    item.type === 'Rectangle' || item.type === 'Ellipse'
      ? [item.fillColor, item.borderColor]
      : item.type === 'Text'
        ? [item.color]
        : item.type === 'Image'
          ? [item.recolor]
          : item.type === 'Barcode'
            ? [item.color, item.backgroundColor]
            : [];
  for (const v of values) {
    const c = resolveColor(v);
    if (c) out.push(c);
  }
  if (item.type === 'Group') for (const child of item.items) modelColours(child, out);
  return out;
}

/** PDF pages placed as pictures: resvg cannot draw them, so they cannot be flattened. */
async function refusePdfPages(item: ItemModel, images: ImageLookup): Promise<void> {
  if (!item.visible) return;
  if (item.type === 'Group') for (const child of item.items) await refusePdfPages(child, images);
  if (item.type !== 'Image' || !item.source) return;
  const img = await images(item.source, { item, pageIndex: item.pageIndex });
  if (img?.mime === 'application/pdf') {
    throw new PdfX1aTransparencyError('PDF/X-1a flattening cannot draw a PDF page placed under or in translucent content; ask for PdfX4.', [
      { path: 'hiResOutputPdfFormat', reason: 'PDF/X-1a flattening of a placed PDF page' },
    ]);
  }
}

const entryKey = (container: number, index: number) => `${container}:${index}`;

/**
 * The flattened area of `entries` (a surface's top-level items up to and including its last
 * translucent one, bottom to top) as compressed ink samples, or null when the translucent items
 * put no ink on the surface.
 */
export async function flattenArea(
  model: PrintProductModel,
  surfaceIndex: number,
  entries: SurfaceEntry[],
  lookups: { fonts: FontLookup; images: ImageLookup; report?: ReportProblem; resolution?: ResolutionThresholds },
  ink: InkWriter,
): Promise<FlattenedArea | null> {
  if (!ink.convert) throw new Error('flattening is for CMYK or grey output');
  const surface = model.surfaces[surfaceIndex]!;
  const seen = new Set(entries.filter((e) => translucent(e.item)).map((e) => entryKey(e.container, e.index)));
  for (const e of entries) await refusePdfPages(e.item, lookups.images);

  // 1. Where the translucent items put ink: their coarse raster's alpha (about 1000 px a side).
  const coarse = Math.min(2, 1000 / Math.max(surface.width, surface.height));
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  const whole = { x: 0, y: 0, width: surface.width, height: surface.height };
  const probe = await regionRaster(model, { ...lookups, report: undefined, surfaceIndex, only: (c, i) => seen.has(entryKey(c, i)) }, whole, coarse);
  const probeRows = regionBandRows(probe.width);
  for (let y0 = 0; y0 < probe.height; y0 += probeRows) {
    const px = await probe.draw(y0, Math.min(probeRows, probe.height - y0));
    for (let y = 0; y < px.height; y++) {
      for (let x = 0; x < px.width; x++) {
        if (!px.data[(y * px.width + x) * 4 + 3]) continue;
        left = Math.min(left, x);
        right = Math.max(right, x + 1);
        top = Math.min(top, y0 + y);
        bottom = Math.max(bottom, y0 + y + 1);
      }
    }
  }
  if (left > right) return null;
  // Grown by a coarse pixel and a point (antialiasing), within the surface (its form clips there).
  const grow = 1 / coarse + 1;
  const k = probe.width / surface.width;
  const x0 = Math.max(0, left / k - grow);
  const y0 = Math.max(0, top / k - grow);
  const area = { x: x0, y: y0, width: Math.min(surface.width, right / k + grow) - x0, height: Math.min(surface.height, bottom / k + grow) - y0 };

  // 2. Consecutive opaque items draw as one run (they differ from ink compositing only where
  // their antialiased edges meet); each translucent item alone.
  const runs: SurfaceEntry[][] = [];
  for (const e of entries) {
    const last = runs.at(-1);
    if (last && !translucent(e.item) && !translucent(last[0]!.item)) last.push(e);
    else runs.push([e]);
  }
  const scale = FLATTEN_PPI / 72;
  const layers: Array<{ raster: RegionRaster; flat: FlatInk[] }> = [];
  for (const run of runs) {
    const keys = new Set(run.map((e) => entryKey(e.container, e.index)));
    // The translucent items' preflight problems come from here (pdf.ts draws no vector of them).
    const report = translucent(run[0]!.item) ? lookups.report : undefined;
    const raster = await regionRaster(model, { ...lookups, report, surfaceIndex, only: (c, i) => keys.has(entryKey(c, i)) }, area, scale);
    layers.push({ raster, flat: run.flatMap((e) => modelColours(e.item)).map((c) => ({ r: c.r, g: c.g, b: c.b, ink: ink.samples(c) })) });
  }

  // 3. A band of rows at a time: the runs composited in ink over paper, then deflated, so only
  // the compressed image is kept.
  const { region, width, height } = layers[0]!.raster;
  const channels = ink.channels;
  const rowsPerBand = regionBandRows(width);
  const deflate = deflater();
  for (let y = 0; y < height; y += rowsPerBand) {
    const rows = Math.min(rowsPerBand, height - y);
    const band = new Uint8Array(width * rows * channels);
    // Paper: no ink (CMYK 0), white in grey (DeviceGray is additive).
    if (channels !== 4) band.fill(255);
    for (const layer of layers) compositeInk(band, await layer.raster.draw(y, rows), layer.flat, ink);
    await deflate.write(band);
  }
  return { region, width, height, data: await deflate.close(), channels };
}

/** A model colour's preview RGB and its own ink. */
interface FlatInk {
  r: number;
  g: number;
  b: number;
  ink: number[];
}

/**
 * `px` (premultiplied RGBA from resvg) composited over `band` (ink samples) in ink: its pixels
 * converted through the output profile, or a model colour's own ink where the pixel shows one,
 * then source-over per ink channel.
 */
function compositeInk(band: Uint8Array, px: RGBAImage, flat: FlatInk[], ink: InkWriter): void {
  const n = px.width * px.height;
  const channels = ink.channels;
  const src = px.data;
  const straight = new Uint8Array(n * 4);
  let any = false;
  for (let p = 0; p < n * 4; p += 4) {
    const a = src[p + 3]!;
    if (!a) continue;
    any = true;
    for (let ch = 0; ch < 3; ch++) straight[p + ch] = Math.min(255, ((src[p + ch]! * 255 + (a >> 1)) / a) | 0);
    straight[p + 3] = 255;
  }
  if (!any) return;
  const converted = new Uint8Array(n * channels);
  ink.convert!(straight, converted, n);
  for (let p = 0; p < n; p++) {
    const a = src[p * 4 + 3]!;
    if (!a) continue;
    let top: ArrayLike<number> = converted;
    let at = p * channels;
    if (flat.length) {
      // A model colour (within the premultiplied pixel's rounding) keeps its own ink: exact where opaque.
      const tol = a === 255 ? 0 : Math.ceil(128 / a);
      const r = straight[p * 4]!;
      const g = straight[p * 4 + 1]!;
      const b = straight[p * 4 + 2]!;
      for (const c of flat) {
        if (Math.abs(c.r - r) <= tol && Math.abs(c.g - g) <= tol && Math.abs(c.b - b) <= tol) {
          top = c.ink;
          at = 0;
          break;
        }
      }
    }
    const o = p * channels;
    if (a === 255) for (let ch = 0; ch < channels; ch++) band[o + ch] = top[at + ch]!;
    else for (let ch = 0; ch < channels; ch++) band[o + ch] = ((top[at + ch]! * a + band[o + ch]! * (255 - a) + 127) / 255) | 0;
  }
}

/** zlib (FlateDecode) of bands written one after another; only the compressed bytes are kept. */
function deflater() {
  const cs = new CompressionStream('deflate');
  const writer = cs.writable.getWriter();
  const compressed = new Response(cs.readable).arrayBuffer();
  return {
    write: (bytes: Uint8Array) => writer.write(bytes),
    async close(): Promise<Uint8Array> {
      await writer.close();
      return new Uint8Array(await compressed);
    },
  };
}
