/**
 * Print PDFs from templates, written as they are rendered: each page is a stack of horizontal
 * strips (separate image XObjects), each strip rendered, encoded and written before the next is
 * rendered, so neither a full-page raster nor the whole file is ever held in memory.
 *
 * Page geometry (rendering contract, "Print PDF"): size = pixels ÷ ppi × 72 pt per axis;
 * MediaBox = BleedBox = the template bounds, TrimBox = the bounds inset by the template's bleed.
 * Colour (docs/pdf.md): RGB output keeps an ICCBased space from the template's profile (sRGB
 * when none); CMYK and grey output convert the strips through the output profile. PDF/X-4 and
 * PDF/X-1a add the output intent and the identification of pdfx.ts.
 */
import type { RGBAImage } from '../types';
import { freeNow } from '../compiled/free';
import { zlib } from './flate';
import { alphaSummary, encodeStrip, partDict, StripScratch, type StripColour } from './image';
import { channelsOf, deviceSpace, outputIntent, PDFX, pdfDate, pdfxInfo, writeIccStream, writeXmp, type OutputColorSpace, type PdfFormat } from './pdfx';
import type { ByteSink } from './sink';
import { spotGraphicsState, writeSpotStrips, type PdfSpot, type SpotContext } from './spots';
import type { StoredStrip, StripCache, StripGeometry } from './strip-cache';
import { PdfRaw, PdfRef, PdfWriter, name, num, str, type PdfValue } from './writer';
import { drop } from '../memory/drop';

/** What the PDF writer needs of one page; engine/pdf/prepare.ts adapts a compiled template to this. */
export interface PdfPage {
  /** Template size in pixels. */
  width: number;
  height: number;
  /** Pixels per inch; 72 when the template stores none. */
  resolution: number;
  /** ICC profile of the template's colour space (RGB). */
  icc: Uint8Array;
  /** Bleed: how far the trim lies inside the template bounds, in pixels per edge (TrimBox). */
  trim?: { left: number; top: number; right: number; bottom: number };
  /**
   * Full-resolution straight RGBA of template rows [top, bottom). `fresh`: draw every layer,
   * reusing no stored backdrop (tests compare against it), into a new array; otherwise the image
   * may be a buffer kept from strip to strip, good until the next call.
   */
  renderRows(top: number, bottom: number, fresh?: boolean): Promise<RGBAImage>;
  /**
   * CMYK output of a CMYK template: the ink of rows [top, bottom) given their rendered RGBA
   * (`convert` turns RGBA into output ink): the document's own CMYK where the request changed
   * nothing, converted pixels elsewhere (prepare.ts).
   */
  inks?(top: number, bottom: number, rgba: RGBAImage, convert: StripColour['convert']): Promise<Uint8Array>;
  /** Names how `inks` sources its values, for stored strips' keys. */
  inkSource?: string;
  /** Vector content (PDF content-stream operators in template pixels, y down) drawn above the raster. */
  vectors?: PdfVectorLayer[];
  /**
   * Encoded strips of the page drawn without the request's overrides: strips whose rows (seam
   * row included) are not dirty are taken from it, and clean strips rendered here are added.
   */
  strips?: StripCache;
  /**
   * The template's spot channels (docs/pdf.md "Spot channels"): Separation images drawn over
   * everything else with overprint, in channel order.
   */
  spots?: PdfSpot[];
  /**
   * Called once the page is written (or its writing failed): what the page kept for its strips
   * (buffers, cache holds) goes now, not when the collector next runs.
   */
  done?(): void;
}

/** A vector layer ready to be drawn: content-stream operators plus the resources they name. */
export interface PdfVectorLayer {
  /** Operators in a y-down pixel space (the page's base matrix maps it to points). */
  ops: string;
  /** Fonts the ops select with `/F<n> Tf`, keyed by resource name; written once per document. */
  fonts?: Record<string, PdfFontResource>;
  /** Constant fill alphas the ops select with `/<name> gs` (ExtGState `ca`), keyed by resource name. */
  opacities?: Record<string, number>;
}

export interface PdfFontResource {
  /** Identity of the font program (dedupes across pages). */
  key: string;
  /** Writes the font's objects; returns the font dictionary reference. */
  write(w: PdfWriter): Promise<PdfRef>;
}

export interface PdfOptions {
  /** Target size of one strip's RGBA in bytes; bounds the raster memory per strip. */
  stripBytes?: number;
  title?: string;
  producer?: string;
  /** Print output colour and PDF/X flavour; absent: RGB, plain PDF (as `{ colorSpace: 'Rgb', format: 'Default' }`). */
  output?: PdfOutput;
  /**
   * One separation per file (the reference product's `hiResOutputChannelContainersToSeparateFiles`):
   * `process` writes the pages without their spot channels, `spot` only the named spot channel's
   * images (on pages of the same size and boxes). Absent: everything.
   */
  separation?: Separation;
}

/** One file of a separated print job: the process plates, or one spot channel. */
export type Separation = { process: true } | { spot: string };

/** The separations a page's files are split into: the process plates, then each spot channel. */
export function separationsOf(spotNames: readonly string[]): Separation[] {
  return [{ process: true }, ...spotNames.map((spot) => ({ spot }))];
}

/**
 * The file name of one separation of `base` (`card.pdf`): the process file keeps it, a spot
 * file adds the ink's name in letters, digits, `-` and `_` (`card-PANTONE_185_C.pdf`).
 */
export function separationFileName(base: string, separation: Separation): string {
  if ('process' in separation) return base;
  const ink = separation.spot.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'spot';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? `${base.slice(0, dot)}-${ink}${base.slice(dot)}` : `${base}-${ink}`;
}

/**
 * What the printer gets: `Rgb` keeps the template's RGB (ICCBased); `Cmyk` and `Grayscale`
 * convert it to ink values of `profile` (DeviceCMYK / DeviceGray beside the output intent in
 * PDF/X, ICCBased on the profile in a plain PDF). Vector colours are converted by whoever
 * builds the page's vector layers (prepare.ts), in the same space.
 */
export interface PdfOutput {
  colorSpace: OutputColorSpace;
  format: PdfFormat;
  /** The output condition: required for PDF/X and for CMYK or grey output. */
  profile?: { bytes: Uint8Array; description: string };
  /** Page pixels (straight RGBA in the page's profile) → ink values; required for CMYK and grey. */
  inks?(pageIcc: Uint8Array): Promise<StripColour['convert']>;
  /** Names the conversion (profile, intent) in stored strips' keys. */
  key?: string;
}

export interface PdfSummary {
  pages: number;
  bytes: number;
  /** Strips by encoding (reused ones included), and how many were reused from the strip cache. */
  strips: { jpeg: number; flate: number; empty: number; reused: number };
  /**
   * Wall time loading pages (personalisation overrides, profile), in the compositor, in image
   * encoding and in reading cached strips (ms; coarse where the runtime freezes clocks).
   */
  timing: { loadMs: number; renderMs: number; encodeMs: number; reuseMs: number; totalMs: number };
}

export const DEFAULT_STRIP_BYTES = 4 * 1024 * 1024;

/** Page size in points: pixels ÷ ppi × 72 per axis. */
export function pageSizePt(width: number, height: number, resolution: number): [number, number] {
  const ppi = resolution > 0 ? resolution : 72;
  return [(width / ppi) * 72, (height / ppi) * 72];
}

/** Rows per strip for a page `width` pixels wide: at least 16, at most the page. */
export function stripRows(width: number, height: number, stripBytes = DEFAULT_STRIP_BYTES): number {
  return Math.max(1, Math.min(height, Math.max(16, Math.floor(stripBytes / (width * 4)))));
}

const rowsOf = (img: RGBAImage, rows: number): RGBAImage =>
  rows === img.height ? img : { width: img.width, height: rows, data: img.data.subarray(0, img.width * rows * 4) };

function lastRowOpaque(img: RGBAImage): boolean {
  const d = img.data;
  for (let i = (img.height - 1) * img.width * 4 + 3; i < d.length; i += 4) if (d[i] !== 255) return false;
  return true;
}

async function sha1(bytes: Uint8Array): Promise<string> {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-1', bytes));
  return [...h].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Writes a whole PDF into `sink`, one page per entry of `pages` (pages are produced lazily, so
 * a multipage document loads one template at a time). On failure the sink is aborted and the
 * error rethrown: nothing half-written stays behind.
 */
export async function writePdf(
  sink: ByteSink,
  pages: Iterable<() => Promise<PdfPage>> | AsyncIterable<() => Promise<PdfPage>>,
  options: PdfOptions,
): Promise<PdfSummary> {
  const w = new PdfWriter(sink);
  const started = Date.now();
  const output: PdfOutput = options.output ?? { colorSpace: 'Rgb', format: 'Default' };
  const ink = output.colorSpace !== 'Rgb';
  if ((ink || output.format !== 'Default') && !output.profile) throw new Error(`${output.colorSpace} ${output.format} output needs an output profile`);
  if (ink && !output.inks) throw new Error(`${output.colorSpace} output needs an ink conversion`);
  if (output.format === 'PdfX1a' && output.colorSpace === 'Rgb') throw new Error('PDF/X-1a allows no RGB');
  const summary: PdfSummary = { pages: 0, bytes: 0, strips: { jpeg: 0, flate: 0, empty: 0, reused: 0 }, timing: { loadMs: 0, renderMs: 0, encodeMs: 0, reuseMs: 0, totalMs: 0 } };
  try {
    await w.header(output.format === 'Default' ? '1.7' : PDFX[output.format].pdf);
    const catalog = w.alloc();
    const pagesRef = w.alloc();
    const kids: PdfRef[] = [];
    const iccSpaces = new Map<string, PdfValue>();
    const fonts = new Map<string, PdfRef>();
    const separationSpaces = new Map<string, PdfRef>();
    // The output profile: the output intent of PDF/X, the ink space of plain CMYK / grey PDFs.
    const outputProfile = output.profile && (output.format !== 'Default' || ink) ? await writeIccStream(w, output.profile.bytes, output.colorSpace) : undefined;
    const inkSpace: PdfValue | undefined = !ink ? undefined : output.format === 'Default' ? [name('ICCBased'), outputProfile!] : name(deviceSpace(output.colorSpace));
    const inkKey = ink ? `${output.colorSpace.toLowerCase()}-${output.format === 'PdfX1a' ? 'flat-' : ''}${output.key ?? (await sha1(output.profile!.bytes)).slice(0, 16)}` : undefined;

    for await (const load of pages) {
      const loadStarted = Date.now();
      const page = await load();
      summary.timing.loadMs += Date.now() - loadStarted;
      const lift = page.strips?.hold?.();
      try {
        let colorSpace: PdfValue | undefined = inkSpace;
        let colour: StripColour | undefined;
        if (ink) {
          colour = { channels: channelsOf(output.colorSpace) as 1 | 4, convert: await output.inks!(page.icc), flatten: output.format === 'PdfX1a' };
        } else {
          const digest = await sha1(page.icc);
          colorSpace = iccSpaces.get(digest);
          if (!colorSpace) {
            colorSpace = [name('ICCBased'), await writeIccStream(w, page.icc, 'Rgb')];
            iccSpaces.set(digest, colorSpace);
          }
        }
        const spots: SpotContext = {
          processSpace: colorSpace!,
          colour,
          x1a: output.format === 'PdfX1a',
          cmykAlternate: output.colorSpace === 'Cmyk' || output.format === 'Default',
          spaces: separationSpaces,
        };
        kids.push(await writePage(w, page, pagesRef, colorSpace!, fonts, options, summary, spots, colour && { colour, key: inkKey! }));
        summary.pages++;
      } finally {
        lift?.();
        page.done?.();
      }
    }

    await w.object(pagesRef, { Type: name('Pages'), Kids: kids, Count: kids.length });
    const producer = options.producer ?? 'Dynamic Image API';
    const info = w.alloc();
    if (output.format === 'Default') {
      await w.object(catalog, { Type: name('Catalog'), Pages: pagesRef });
      await w.object(info, {
        Producer: str(producer),
        Title: options.title === undefined ? undefined : str(options.title),
        CreationDate: str(pdfDate(new Date())),
      });
    } else {
      // PDF/X: the same facts in the information dictionary and the XMP packet.
      const meta = { format: output.format, title: options.title ?? 'Untitled', producer, created: new Date(), documentId: crypto.randomUUID() };
      const metadata = await writeXmp(w, meta);
      await w.object(catalog, {
        Type: name('Catalog'),
        Pages: pagesRef,
        Metadata: metadata,
        OutputIntents: [outputIntent(outputProfile!, output.profile!.description)],
      });
      await w.object(info, pdfxInfo(meta));
    }
    await w.finish(catalog, info);
    await sink.close();
    summary.bytes = w.size;
    summary.timing.totalMs = Date.now() - started;
    return summary;
  } catch (err) {
    await sink.abort();
    throw err;
  }
}

/**
 * Frees each array now (compiled/free.ts) when it is its buffer whole: an encoded strip's parts,
 * which the writer's sink copies (sink.ts). A view into a larger buffer (a stored strip's parts
 * share one) is left to the collector.
 */
function freeWhole(...arrays: (Uint8Array | undefined)[]): void {
  freeNow(arrays.filter((a): a is Uint8Array => !!a && a.byteOffset === 0 && a.byteLength === a.buffer.byteLength));
}

/** Cached strips read ahead of the one being written. */
const READ_AHEAD = 3;

/**
 * Renders and encodes rows [top, bottom) of a page. One row more is rendered: when it is opaque
 * the strip is drawn one pixel taller and the next strip covers it, so viewers that anti-alias
 * image edges show no hairline seam.
 */
async function renderStrip(page: PdfPage, top: number, bottom: number, scratch: StripScratch, summary: PdfSummary, colour?: StripColour): Promise<StoredStrip> {
  let t = Date.now();
  const img = await page.renderRows(top, Math.min(page.height, bottom + 1));
  summary.timing.renderMs += Date.now() - t;
  const extra = img.height > bottom - top && lastRowOpaque(img) ? 1 : 0;
  const strip = rowsOf(img, bottom - top + extra);
  const alpha = alphaSummary(strip);
  if (alpha.empty) return { rows: strip.height, encoded: null };
  t = Date.now();
  let ink: Uint8Array | undefined;
  if (colour && page.inks) {
    const inks = await page.inks(top, top + strip.height, strip, colour.convert);
    ink = inks;
    colour = { ...colour, convert: (_src, dst, pixels) => dst.set(inks.subarray(0, pixels * 4)) };
  }
  const encoded = await encodeStrip(strip, alpha, scratch, colour);
  // The strip's ink (PdfPage.inks makes it for this strip alone) is read no more: freed now (probe27).
  drop(ink);
  summary.timing.encodeMs += Date.now() - t;
  return { rows: strip.height, encoded };
}

async function writePage(
  w: PdfWriter,
  page: PdfPage,
  parent: PdfRef,
  colorSpace: PdfValue,
  fonts: Map<string, PdfRef>,
  options: PdfOptions,
  summary: PdfSummary,
  spotContext: SpotContext,
  ink?: { colour: StripColour; key: string },
): Promise<PdfRef> {
  const { width, height } = page;
  const [wPt, hPt] = pageSizePt(width, height, page.resolution);
  const sx = wPt / width;
  const sy = hPt / height;
  const rows = stripRows(width, height, options.stripBytes);
  const xobjects: Record<string, PdfRef> = {};
  const content: string[] = [];
  const scratch = new StripScratch();
  let transparent = false;

  const separation = options.separation;
  const spots = (page.spots ?? []).filter((s) => !separation || ('spot' in separation && separation.spot === s.name));
  // A spot channel's own file leaves the process plates (raster and vectors) out.
  const processPlates = !separation || 'process' in separation;
  const tops: number[] = [];
  for (let top = 0; processPlates && top < height; top += rows) tops.push(top);
  const geometry = (top: number): StripGeometry => ({ width, height, rowsPerStrip: rows, top, ink: ink && (page.inkSource ? `${ink.key}-${page.inkSource}` : ink.key) });
  // One row more than each strip is rendered (the seam row, below): a strip is clean when none
  // of those rows is dirty.
  const renderBottom = (top: number) => Math.min(height, top + rows + 1);
  const cache = page.strips;
  const clean = tops.map((top) => !!cache && !cache.dirty(top, renderBottom(top)));
  // Cached strips are read a few ahead (R2 latency overlaps the work on the strips before them).
  const reads = new Map<number, Promise<StoredStrip | null>>();
  const readAhead = (from: number) => {
    for (let i = from; i < Math.min(tops.length, from + READ_AHEAD); i++) {
      if (clean[i] && !reads.has(i)) reads.set(i, cache!.get(geometry(tops[i])).catch(() => null));
    }
  };
  const puts: Promise<void>[] = [];

  for (const [i, top] of tops.entries()) {
    readAhead(i);
    let t = Date.now();
    let strip = clean[i] ? await reads.get(i)! : null;
    reads.delete(i);
    summary.timing.reuseMs += Date.now() - t;
    // Whether anyone but this page may read the strip's arrays: one reused (the isolate's cache
    // or R2 gave it), or one the isolate's cache took when it was put. Asked at the put, not
    // after the await below: an entry evicted meanwhile may still be read by a request at once
    // that got it from the cache in between, and freeing it then empties that request's strip.
    let shared = !!strip;
    if (strip) summary.strips.reused++;
    else {
      strip = await renderStrip(page, top, Math.min(height, top + rows), scratch, summary, ink?.colour);
      // Any clean strip equals the template's own: worth keeping for every later request.
      if (clean[i]) {
        puts.push(cache!.put(geometry(top), strip).catch(() => undefined));
        shared = cache!.held?.(geometry(top), strip) ?? true;
      }
      // Bounded: a photographic page's JPEG strips are large.
      if (puts.length > 2) await puts.shift();
    }
    const encoded = strip.encoded;
    if (!encoded) {
      summary.strips.empty++;
      continue;
    }
    // Drawn here and kept by nobody once written (and put, which copies it): freed then.
    const own = !shared;
    summary.strips[encoded.kind]++;
    t = Date.now();
    const ref = w.alloc();
    let smaskRef: PdfRef | undefined;
    if (encoded.smask) {
      smaskRef = w.alloc();
      await w.stream(smaskRef, partDict(encoded, encoded.smask, name('DeviceGray')), encoded.smask.data);
      transparent = true;
    }
    await w.stream(ref, { ...partDict(encoded, encoded.image, colorSpace), SMask: smaskRef }, encoded.image.data);
    const key = `I${Object.keys(xobjects).length}`;
    xobjects[key] = ref;
    content.push(`q ${num(wPt)} 0 0 ${num(strip.rows * sy)} 0 ${num(hPt - (top + strip.rows) * sy)} cm /${key} Do Q`);
    if (own) freeWhole(encoded.image.data, encoded.smask?.data);
  }
  await Promise.all(puts);

  const fontResources: Record<string, PdfRef> = {};
  const extGStates: Record<string, PdfValue> = {};
  if (processPlates && page.vectors?.length) {
    // Vector layers are authored in template pixels with y down; one matrix maps them to points.
    content.push(`q ${num(sx)} 0 0 ${num(-sy)} 0 ${num(hPt)} cm /CS0 cs /CS0 CS`);
    for (const layer of page.vectors) {
      for (const [res, font] of Object.entries(layer.fonts ?? {})) {
        let ref = fonts.get(font.key);
        if (!ref) {
          ref = await font.write(w);
          fonts.set(font.key, ref);
        }
        fontResources[res] = ref;
      }
      for (const [res, ca] of Object.entries(layer.opacities ?? {})) {
        extGStates[res] = { Type: name('ExtGState'), ca };
        // Translucent paint blends in the template's colour space (the page group below).
        transparent = true;
      }
      content.push(`q\n${layer.ops}\nQ`);
    }
    content.push('Q');
  }
  if (spots.length) {
    // Over everything: personalised content does not knock the spot plates out.
    extGStates.GSpot = spotGraphicsState(spotContext.x1a);
    if (!spotContext.x1a) transparent = true; // Multiply
    const place = (ref: PdfRef, top: number, n: number) => {
      const key = `I${Object.keys(xobjects).length}`;
      xobjects[key] = ref;
      return `q /GSpot gs ${num(wPt)} 0 0 ${num(n * sy)} 0 ${num(hPt - (top + n) * sy)} cm /${key} Do Q`;
    };
    content.push(...(await writeSpotStrips(w, spots, { width, height, rowsPerStrip: rows }, spotContext, scratch, place)));
  }

  const contentRef = w.alloc();
  await w.stream(contentRef, { Filter: name('FlateDecode') }, await zlib(new TextEncoder().encode(content.join('\n'))));
  const pt = (v: number) => new PdfRaw(num(v));
  const box = [0, 0, pt(wPt), pt(hPt)];
  const t = page.trim;
  // PDF y runs up: the top inset is taken from the page height.
  const trim = t ? [pt(t.left * sx), pt(t.bottom * sy), pt(wPt - t.right * sx), pt(hPt - t.top * sy)] : box;
  const pageRef = w.alloc();
  await w.object(pageRef, {
    Type: name('Page'),
    Parent: parent,
    MediaBox: box,
    TrimBox: trim,
    BleedBox: box,
    CropBox: box,
    Resources: {
      ColorSpace: { CS0: colorSpace },
      XObject: Object.keys(xobjects).length ? xobjects : undefined,
      Font: Object.keys(fontResources).length ? fontResources : undefined,
      ExtGState: Object.keys(extGStates).length ? extGStates : undefined,
    },
    // Soft masks composite in the template's colour space, not the viewer's default RGB.
    Group: transparent ? { Type: name('Group'), S: name('Transparency'), CS: colorSpace } : undefined,
    Contents: contentRef,
  });
  return pageRef;
}
