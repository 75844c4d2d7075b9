/**
 * From a print request to a PDF page source, free of HTTP. The template, the inputs `data` names
 * and the personalisation overrides are resolved exactly as for previews (src/engine/preview.ts),
 * then the page is rendered at scale 1 in strips instead of being downscaled and encoded.
 *
 * `prepareHires` validates and fingerprints (so callers can consult the result cache and fail a
 * multipage request before anything is written); `load()` builds the overrides and the strip
 * renderer when the page's turn comes.
 */
import type { InputStore } from '../inputs';
import { sha256Hex } from '../hash';
import { dirtyBounds } from '../composite/dirty';
import { renderTemplate } from '../index';
import { commandFor, drawDeferred, parseColor, resvgReady, type PersonalisationData } from '../personalise';
import { canonicalJson } from '../hash';
import { personalise, requestFingerprint, resolveRequest, type RenderDeps, type ResolvedTemplate } from '../preview';
import type { PreflightProblem } from '../preflight/report';
import { srgbProfile } from '../raster/icc';
import type { CompiledTemplate, LayerOverrides } from '../types';
import { DEFAULT_STRIP_BYTES, type PdfPage, type PdfVectorLayer } from './document';
import { shapeLayer, svgOutlines, vectorCandidates } from './vector';
import { hiddenLayersKey, noBackdrops, persistedBackdrops, templateStrips } from './strip-cache';
import { PDF_WRITER_VERSION } from './version';
import { StripBuffers } from '../compiled/store';
import { printPageMemory, REQUEST_MEMORY_BUDGET } from '../memory/budget';
import { drop } from '../memory/drop';
import { makeRoomForFrame } from '../frame';
import { pdfOutput, requestedCmyk, resolvePrintColour, vectorPaint, type OutputColorSpace, type Paint, type PdfFormat, type ResolvedPrintColour } from './output';
import { defaultProfile, readProfileInfo, type RenderingIntent } from '../colour';
import { psdInk, rangedPsdInk, type PsdInk, type RangedPsdInk } from './psd-ink';
import { effectInkThrough, inkLayers, requestInks, type InkLayers } from './ink-composite';
import { ColorMode } from '../psd/color-modes';
import { imageResources, psdLayout } from '../psd/spots';
import { bleedPixels } from './bleed';
import { spotLayerIds, spotsOf } from '../compiled/spots';
import { separationsOf, type Separation } from './document';
import { psdSpots } from './spots';
import type { PdfOutput } from './document';
import { unprocessable } from '../errors';
import type { ColourOperands } from './vector';

export { PDF_WRITER_VERSION };

/**
 * `outlines` (the spec's PdfTextOutputMode default): vector text as glyph outlines;
 * `text`: embedded font subsets where the font's licence (OS/2 fsType) allows.
 */
export type TextOutputMode = 'outlines' | 'text';

export interface HiresOptions {
  template: string;
  data?: PersonalisationData;
  preloadImages?: boolean;
  textOutputMode?: TextOutputMode;
  /** Output colour space; absent: the template's own (CMYK for a CMYK template, else RGB). */
  colorSpace?: OutputColorSpace;
  /** Absent: PDF/X-4 for CMYK and grey output, a plain PDF for RGB. */
  pdfFormat?: PdfFormat;
  /** An output profile by name (RenderDeps.colourProfile); absent: the template's or the default. */
  colorProfile?: string;
  /** Output profile bytes (pipelines resolve asset names themselves); wins over `colorProfile`. */
  profile?: Uint8Array;
  renderingIntent?: RenderingIntent;
  /**
   * `cmyk(…)` colours and CMYK source data go into CMYK output unchanged (default true);
   * false converts them from the default CMYK profile when the output profile is another one.
   */
  keepOriginalColors?: boolean;
}

export interface PreparedPdfPage {
  /** SHA-256 of the canonical request, the inputs' content hashes and the engine/writer versions. */
  fingerprint: string;
  template: ResolvedTemplate;
  /** The writer's colour settings for this page (a combined document takes its first page's). */
  output: PdfOutput;
  /** The resolved output colour (format, profile description) for callers that report it. */
  colour: ResolvedPrintColour;
  load(): Promise<PdfPage>;
  /** What the layer checks found while `load()` built the overrides (issue 21); empty before. */
  problems(): PreflightProblem[];
  /**
   * The page's separations for one file each (PdfOptions.separation): the process plates, then
   * each spot channel of the template (docs/pdf.md "Spot channels"). One entry without spots.
   */
  separations: Separation[];
}

export async function prepareHires(store: InputStore, options: HiresOptions, deps: RenderDeps): Promise<PreparedPdfPage> {
  const request = await resolveRequest(store, options, deps);
  const { template, data } = request;
  const { compiled } = template;
  const ink = await templateInk(store, template);
  const bleed = template.file.meta.bleed;
  const colour = await outputColour(options, deps, ink);
  const keep = options.keepOriginalColors !== false;
  // A CMYK template into CMYK output keeps its own ink values where the request changes nothing
  // (a transparent one its ink over paper, laid on paper again through the strips' soft masks).
  const exact = !!ink && colour.colorSpace === 'Cmyk' && keep;
  const fingerprint = await requestFingerprint('hires', request, {
    pdf: PDF_WRITER_VERSION,
    textOutputMode: options.textOutputMode ?? 'outlines',
    // RGB plain PDFs keep their fingerprint (and cached results) from before output colour existed.
    ...(colour.colorSpace !== 'Rgb' || colour.format !== 'Default' ? { colour: colour.key, keep, exact } : {}),
    // Changed pixels of a CMYK template composited in ink (ink-composite.ts), not converted: PDFs
    // made before from the same request are not reused (2: layer effects drawn on the inks too).
    ...(exact ? { inkComposite: 2 } : {}),
    // The bleed lives with the file, not in its bytes: a re-upload with another bleed is another PDF.
    ...(bleed ? { bleed } : {}),
  });
  const trimPx = bleed ? bleedPixels(bleed, compiled.resolution) : 0;
  const problems: PreflightProblem[] = [];

  return {
    fingerprint,
    template,
    output: pdfOutput(colour),
    colour,
    problems: () => [...problems],
    separations: separationsOf(spotsOf(compiled).map((s) => s.name)),
    async load() {
      const scale = 1;
      // Caches and this page's strips together within the budget (a wide page evicts).
      const pageMemory = printPageMemory(compiled);
      makeRoomForFrame(pageMemory);
      problems.length = 0;
      // Texts are drawn after the split below: those it writes as vector are never rasterised.
      const overrides = await personalise(request, { scale, report: (p) => problems.push(p), textsAsVector: true, textMemory: REQUEST_MEMORY_BUDGET - pageMemory });
      const iccObject = compiled.iccKey ? await store.bucket.get(compiled.iccKey) : null;
      const icc = iccObject ? new Uint8Array(await iccObject.arrayBuffer()) : srgbProfile();
      const withCmyk = Object.values(data ?? {}).some((c) => requestedCmyk((c as { color?: unknown }).color));
      // Converting CMYK into another CMYK profile would turn a pure K into a rich black: only
      // when asked (keepOriginalColors false) and the output profile is not the default one.
      const exactCmyk = keep || sameBytes(colour.profile, defaultProfile('Cmyk'));
      const paint = await vectorPaint(colour, icc, withCmyk, exactCmyk);
      // Spot channels are separations of their own: their preview layers stay out of the strips.
      const spotsHidden = hiddenSpots(compiled);
      // Plain texts become paths through resvg even when no raster of theirs is drawn.
      await resvgReady();
      const { raster, vectors } = splitVectors(compiled, new Map([...(overrides ?? []), ...spotsHidden]), options.textOutputMode ?? 'outlines', {
        paint,
        data,
        // PDF/X-1a allows no transparency: translucent shapes stay in the (flattened) raster.
        opaqueOnly: colour?.format === 'PdfX1a',
        // Unchanged shapes of a CMYK template stay in the raster, in the document's own ink.
        changedShapesOnly: exact,
      });
      await drawDeferred(raster);
      // Stored strips are the template with its always-vector shapes hidden; the strips here are
      // rendered with `raster`: rows where the two cannot differ are taken from the store.
      const base = exact ? { hidden: spotsHidden, key: spotsHidden.size ? hiddenLayersKey([...spotsHidden.keys()]) : Promise.resolve('h-none') } : templateVectorBase(compiled);
      const dirty = dirtyBounds(compiled, raster, scale, base.hidden);
      const strips = templateStrips(store.bucket, compiled, dirty && { top: dirty.top, bottom: dirty.bottom }, await base.key);
      const backdrops = persistedBackdrops(store.bucket);
      // Kept from strip to strip: each strip's canvas, the band it reads and its first two layer
      // surfaces land in the same arrays (a 10,000² page draws 97 strips, which made new ones
      // each: issue 25 §1), and each layer's band the band cache could hold (up to 8 MB of them).
      const buffers = new StripBuffers(2 * (DEFAULT_STRIP_BYTES + 4 * compiled.width), LAYER_BAND_BYTES);
      return {
        width: compiled.width,
        height: compiled.height,
        resolution: compiled.resolution || 72,
        icc,
        ...(trimPx > 0 ? { trim: { left: trimPx, top: trimPx, right: trimPx, bottom: trimPx } } : {}),
        vectors,
        strips,
        ...(exact ? { inkSource: 'psd', inks: documentInks(store, template, raster, spotsHidden, (top, bottom) => strips.dirty(top, bottom), data) } : {}),
        ...(spotsHidden.size ? { spots: psdSpots(spotsOf(compiled), async () => (await store.read('templates', template.file.name))?.bytes ?? null) } : {}),
        // A clean strip is drawn as the template alone (its stored base), not with this request's
        // overrides: it is stored for every later PDF, so no request's data can ever reach it.
        renderRows: (top, bottom, fresh) =>
          renderTemplate(store.bucket, compiled, {
            scale,
            overrides: fresh || strips.dirty(top, bottom) ? raster : base.hidden,
            region: { top, bottom },
            background: 'transparent',
            backdrops: fresh || !strips.dirty(top, bottom) ? noBackdrops : backdrops,
            buffers: fresh ? undefined : buffers,
          }),
        // Written: its buffers go now, for the next request (they were left to the collector).
        done: () => buffers.release(),
      };
    },
  };
}

/** The bands of a page's layers below the band cache's entry limit its strips keep, one a layer (StripBuffers.layerBand). */
const LAYER_BAND_BYTES = 8 * 1024 * 1024;

/**
 * Layers drawn as vector (docs/pdf.md) and the overrides for the raster strips, which then leave
 * those layers out. Outlines always; in `text` mode also selectable text in an embedded subset.
 */
function splitVectors(
  compiled: CompiledTemplate,
  overrides: LayerOverrides,
  mode: TextOutputMode,
  colour: { paint?: Paint; data?: PersonalisationData; opaqueOnly?: boolean; changedShapesOnly?: boolean } = {},
): { raster: LayerOverrides; vectors: PdfVectorLayer[] } {
  const raster = new Map(overrides);
  const vectors: PdfVectorLayer[] = [];
  for (const candidate of vectorCandidates(compiled.layers, overrides, canvasOf(compiled))) {
    if (colour.changedShapesOnly && candidate.kind === 'shape' && !overrides.has(candidate.node.id)) continue;
    const operands = colour.paint && layerOperands(colour.paint, commandFor(colour.data, candidate.node.name));
    const layer =
      candidate.kind === 'text' ? svgOutlines(candidate.override.vector, candidate.override.bounds!, mode, operands) : shapeLayer(candidate, operands);
    if (!layer) continue;
    if (colour.opaqueOnly && layer.opacities && Object.keys(layer.opacities).length) continue;
    vectors.push(layer);
    // A hidden shape draws nothing whatever its colour: hidden alone, it matches the stored
    // strips' base (a recoloured always-vector shape leaves its rows clean).
    raster.set(candidate.node.id, candidate.kind === 'shape' ? { visible: false } : { ...candidate.override, visible: false });
  }
  return { raster, vectors };
}

/**
 * A layer's colour operands: where the request gave the layer a `cmyk(…)` colour, fills of that
 * colour (as the engine drew it in RGB) are written with the exact CMYK.
 */
function layerOperands(paint: Paint, command: unknown): ColourOperands {
  const exact = requestedCmyk((command as { color?: unknown } | undefined)?.color);
  const drawn = exact && parseColor(`cmyk(${exact.join(',')})`);
  if (!exact || !drawn || 'error' in drawn) return (rgb) => paint(rgb);
  return (rgb) => paint(rgb, rgb.r === drawn.r && rgb.g === drawn.g && rgb.b === drawn.b ? exact : undefined);
}

const canvasOf = (c: CompiledTemplate) => ({ left: 0, top: 0, right: c.width, bottom: c.height });

/**
 * The shapes a PDF of the template draws as vector when the request changes nothing: hidden in
 * the stored strips (a request that draws one of them in the raster after all, e.g. because a
 * layer it shows now covers it, finds those rows dirty). Per compiled template.
 */
const vectorBases = new Map<string, { hidden: LayerOverrides; key: Promise<string> }>();
function templateVectorBase(compiled: CompiledTemplate): { hidden: LayerOverrides; key: Promise<string> } {
  let base = vectorBases.get(compiled.hash);
  if (!base) {
    // Spot channels' preview layers are hidden too (they are separations in the PDF).
    const spots = hiddenSpots(compiled);
    const ids = [...vectorCandidates(compiled.layers, spots, canvasOf(compiled)).map((c) => c.node.id), ...spots.keys()];
    base = { hidden: new Map(ids.map((id) => [id, { visible: false }])), key: hiddenLayersKey(ids) };
    if (vectorBases.size >= 64) vectorBases.delete(vectorBases.keys().next().value!);
    vectorBases.set(compiled.hash, base);
  }
  return base;
}

/**
 * The request's output colour, checked (422 for a profile of the wrong kind, or an unknown name).
 * A CMYK template defaults to CMYK output with its own profile (else the default CMYK profile).
 */
async function outputColour(options: HiresOptions, deps: RenderDeps, ink: TemplateInk | null): Promise<ResolvedPrintColour> {
  const colorSpace = options.colorSpace ?? (ink ? 'Cmyk' : 'Rgb');
  let profile = options.profile ?? (ink && colorSpace === 'Cmyk' && options.colorProfile === undefined ? ink.icc : undefined);
  if (!profile && options.colorProfile !== undefined) {
    profile = (await deps.colourProfile?.(options.colorProfile)) ?? undefined;
    if (!profile) throw unprocessable(`There is no colour profile "${options.colorProfile}".`, [{ path: 'colorProfile', reason: 'no such colour profile' }]);
  }
  return resolvePrintColour({ colorSpace, format: options.pdfFormat, profile, intent: options.renderingIntent });
}

interface TemplateInk {
  /** The document's embedded profile when it is a readable CMYK profile. */
  icc?: Uint8Array;
}

/** Per compiled template: null for documents that are not CMYK. */
const templateInks = new Map<string, TemplateInk | null>();

/**
 * Whether the template is a CMYK document (and its profile). The compiled form keeps an ICC key
 * for RGB documents only, so templates with one are RGB without reading the file; others are read
 * once per isolate.
 */
async function templateInk(store: InputStore, template: ResolvedTemplate): Promise<TemplateInk | null> {
  const { compiled } = template;
  if (compiled.iccKey) return null;
  let known = templateInks.get(compiled.hash);
  if (known === undefined) {
    // The header names the colour mode (bytes 24-25): only a CMYK document is read whole (a
    // 10,000² RGB template's 10.8 MB read was ~6 MB of a print PDF's growth, issue 25 §1).
    const head = await store.readStart('templates', template.file.name, 26);
    const cmyk = head !== null && head.length >= 26 && new DataView(head.buffer, head.byteOffset, head.byteLength).getUint16(24) === ColorMode.CMYK;
    // A CMYK document's profile is in its first sections: those are read, not the whole file (an
    // 8,000² CMYK template's 11 MB read was left to the collector beside its first PDF's strips,
    // issue 25 §1). Whole only where the file's size is not known.
    const start = cmyk ? await cmykStart(store, template.file) : null;
    const read = cmyk && start === undefined ? await store.read('templates', template.file.name) : null;
    const document = start ?? (read ? cmykDocument(read.bytes) : null);
    known = document ? { icc: document.icc && usableCmyk(document.icc) ? document.icc : undefined } : null;
    if (templateInks.size >= 256) templateInks.delete(templateInks.keys().next().value!);
    templateInks.set(compiled.hash, known);
  }
  return known;
}

/**
 * What cmykDocument says of a CMYK file (by its header), read from its first sections only: the
 * header, the colour mode data's and image resources' lengths, the resources (its profile, 1039)
 * and the layer section's length, which with the file's size tells whether a merged image follows
 * (psdLayout's test). Undefined when the size is not known: the caller reads the file whole.
 */
async function cmykStart(store: InputStore, file: { name: string; size?: number }): Promise<{ icc?: Uint8Array } | null | undefined> {
  const size = file.size;
  if (size === undefined) return undefined;
  const read = (length: number) => (length <= size ? store.readStart('templates', file.name, length) : Promise.resolve(null));
  const u32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(at);
  const header = await read(30);
  if (!header || header.length < 30 || u32(header, 0) !== 0x38425053) return null; // '8BPS'
  const large = new DataView(header.buffer, header.byteOffset).getUint16(4) === 2;
  const resourcesAt = 30 + u32(header, 26);
  const lengths = await read(resourcesAt + 4);
  if (!lengths || lengths.length < resourcesAt + 4) return null;
  const layersAt = resourcesAt + 4 + u32(lengths, resourcesAt);
  const start = await read(layersAt + (large ? 8 : 4));
  if (!start || start.length < layersAt + (large ? 8 : 4)) return null;
  const v = new DataView(start.buffer, start.byteOffset, start.byteLength);
  const imageAt = layersAt + (large ? Number(v.getBigUint64(layersAt)) + 8 : v.getUint32(layersAt) + 4);
  if (imageAt + 2 >= size) return null;
  const icc = imageResources(start.subarray(resourcesAt + 4, layersAt)).get(1039);
  return { icc: icc?.length ? icc.slice() : undefined };
}

/** Whether `psd` is a CMYK document, and its embedded profile. */
function cmykDocument(psd: Uint8Array): { icc?: Uint8Array } | null {
  const ink = psdInk(psd);
  if (ink) return { icc: ink.icc };
  const layout = psdLayout(psd);
  if (!layout || layout.mode !== ColorMode.CMYK) return null;
  const icc = imageResources(layout.resources).get(1039);
  return { icc: icc?.length ? icc.slice() : undefined };
}

function usableCmyk(icc: Uint8Array): boolean {
  try {
    return readProfileInfo(icc).colorSpace === 'Cmyk';
  } catch {
    return false; // an unreadable embedded profile: the default, as for previews
  }
}

/**
 * PdfPage.inks for a CMYK template: clean rows are the merged image's ink as stored; in dirty
 * rows a pixel keeps the stored ink when the request's render equals the template's own render
 * there. Where it does not, the layer stack is composited in ink as Photoshop composites a CMYK
 * document (./ink-composite.ts), when the compositor models everything reaching the pixel and its
 * composite of the template's own stack there is the merged ink (±2); else the converted RGB.
 * The PSD is read when a strip first needs it.
 */
function documentInks(
  store: InputStore,
  template: ResolvedTemplate,
  raster: LayerOverrides,
  /** The template's own render's overrides: its spot channels' preview layers hidden. */
  own: LayerOverrides,
  dirty: (top: number, bottom: number) => boolean,
  data: PersonalisationData | undefined,
): NonNullable<PdfPage['inks']> {
  let read: Promise<Uint8Array | null> | undefined;
  const whole = () => (read ??= store.read('templates', template.file.name).then((r) => r?.bytes ?? null));
  let ink: Promise<PsdInk | RangedPsdInk | null> | undefined;
  let layers: InkLayers | null | undefined;
  // The merged ink's rows read by range as the strips ask for them where the store can (an
  // 8,000² CMYK template's 11 MB were held from the first strip to the last, issue 25 §1), else
  // the file read whole once.
  const inkOf = async (): Promise<PsdInk | RangedPsdInk | null> => {
    const source = await store.source?.('templates', template.file);
    const ranged = source ? await rangedPsdInk(source) : null;
    if (ranged) return ranged;
    const bytes = await whole();
    return bytes ? psdInk(bytes) : null;
  };
  return async (top, bottom, rgba, convert) => {
    ink ??= inkOf();
    const psd = await ink;
    const n = rgba.width * (bottom - top);
    const converted = new Uint8Array(n * 4);
    convert(rgba.data, converted, n);
    if (!psd || psd.width !== rgba.width) return converted;
    const out = await psd.rows(top, bottom);
    const alpha = await psd.alpha?.(top, bottom);
    // Pixels whose ink is the converted render's (straight colour, as the strip's alpha expects).
    const fromRgb = new Uint8Array(n);
    // The strip's own arrays other than the ink it returns go now, not at V8's next collection: an
    // 8,000² CMYK template's print PDF made 5 MB of them for each of its 61 strips, and workerd
    // was killed under 128 MB (probe27, issue 25 §1).
    const finish = () => {
      const ink = alpha ? unmatte(out, rgba.data, fromRgb) : out;
      drop(converted, fromRgb, alpha);
      return ink;
    };
    // `raster` holds the template's own overrides and whatever the request changes.
    if (!dirty(top, bottom) || raster.size === own.size) return finish();
    const ownRender = await renderTemplate(store.bucket, template.compiled, { scale: 1, overrides: own, region: { top, bottom }, background: 'transparent', backdrops: noBackdrops });
    const a = rgba.data;
    const b = ownRender.data;
    const changed: number[] = [];
    let left = rgba.width;
    let right = 0;
    for (let p = 0; p < n * 4; p += 4) {
      if (a[p] !== b[p] || a[p + 1] !== b[p + 1] || a[p + 2] !== b[p + 2] || a[p + 3] !== b[p + 3]) {
        changed.push(p);
        const x = (p >> 2) % rgba.width;
        if (x < left) left = x;
        if (x >= right) right = x + 1;
      }
    }
    if (!changed.length) return finish();
    if (layers === undefined) {
      const bytes = await whole();
      // Effects drawn on the inks too (a K-only shadow stays K): a colour the parse kept in CMYK is
      // its own ink, any other through `convert`, as the request's own content and every
      // converted pixel of the page (the check below holds the result to the merged ink).
      layers = bytes && inkLayers(bytes, template.compiled, { effectInk: effectInkThrough(convert) });
    }
    // Composited over the columns that changed only; the template's own stack too, as the check.
    const area = { left, top, right, bottom };
    const content = requestInks(convert, data);
    const mine = layers?.composite(area, raster, content, 0);
    const theirs = mine && layers!.composite(area, own, content, 1);
    const w = right - left;
    for (const p of changed) {
      const pixel = p >> 2;
      const q = Math.floor(pixel / rgba.width) * w + (pixel % rgba.width) - left;
      const checked = theirs && !theirs.unmodelled[q] && near(theirs.ink, q * 4, out, p) && (!alpha || Math.abs(theirs.alpha[q] - alpha[pixel]) <= 2);
      if (checked && !mine.unmodelled[q]) out.set(mine.ink.subarray(q * 4, q * 4 + 4), p);
      else {
        out.set(converted.subarray(p, p + 4), p);
        fromRgb[pixel] = 1;
      }
    }
    return finish();
  };
}

/**
 * A transparent document's ink over paper (matted, as Photoshop stores its merged image) as the
 * straight ink the strip's alpha (its soft mask) lays on paper again: ink · 255 / alpha, none
 * where the strip is transparent. Pixels converted from the render are straight already.
 */
function unmatte(ink: Uint8Array, rgba: Uint8ClampedArray, fromRgb: Uint8Array): Uint8Array {
  for (let pixel = 0, p = 0; pixel < fromRgb.length; pixel++, p += 4) {
    const a = rgba[p + 3];
    if (fromRgb[pixel] || a === 255) continue;
    for (let c = 0; c < 4; c++) ink[p + c] = a ? Math.min(255, Math.round((ink[p + c] * 255) / a)) : 0;
  }
  return ink;
}

/** Whether ink pixels x[i] and y[j] are within 2 of each other in every channel. */
const near = (x: Uint8Array, i: number, y: Uint8Array, j: number) =>
  Math.abs(x[i] - y[j]) <= 2 && Math.abs(x[i + 1] - y[j + 1]) <= 2 && Math.abs(x[i + 2] - y[j + 2]) <= 2 && Math.abs(x[i + 3] - y[j + 3]) <= 2;

/** The template's spot channels' preview layers, hidden (empty for templates without spots). */
const hiddenSpots = (compiled: CompiledTemplate): LayerOverrides => new Map([...spotLayerIds(compiled)].map((id) => [id, { visible: false }]));

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Fingerprint of a document made of several pages (combined multipage PDF). */
export async function documentFingerprint(pages: PreparedPdfPage[]): Promise<string> {
  return sha256Hex(canonicalJson({ kind: 'hires-document', pages: pages.map((p) => p.fingerprint) }));
}
