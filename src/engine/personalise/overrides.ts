/**
 * A render request's `data` → per-layer overrides for the compositor. Everything is checked
 * against the template first (all problems reported at once, before anything is fetched); then
 * fonts and images are loaded concurrently; then text is re-rendered and pictures are placed,
 * at the render scale.
 */
import { EngineError, invalidInput, unprocessable, type ErrorDetail } from '../errors';
import { readFontInfo } from '../fonts/font-info';
import { fontMetrics } from '../fonts/metrics';
import { hasKnownSubstitute, resolveFont, type ResolvedFont } from '../fonts/substitution';
import type { Bounds, LayerNode, LayerOverride, LayerOverrides, LayerType, RGBAImage } from '../types';
import type { ReportProblem } from '../preflight/report';
import { layerMarkers, nameWithoutMarkers } from './markers';
import { DEFAULT_PPI_THRESHOLD, emptyFieldProblem, fontSubstitutionProblem, missingGlyphProblem, outsideTrimProblem, pictureProblems, textFitProblems } from './checks';
import { isColorError, parseColor, type RGBA } from './color';
import { DataCommandSchema, normaliseCommand, type BarcodeCommand, type DataCommand, type ImageCommand, type TextCommand } from './commands';
import { barcodeRects, encodeBarcode, rectsPathData, type BarcodeFormat } from '../barcode';
import { renderSvg } from './resvg';
import { unpremultiply } from '../raster/pixels';
import { applyHomography, homography, isUpright, pictureRect, placeImage, placementTaps, placementWindow, type PlacedPicture, type PlacementQuad } from './image';
import { placementCache } from '../cache';
import { lendPicture, releaseOnce, type ResampleThrough } from '../raster/bounded';
import { noTiming, type Timing } from '../timing';
import { drawText, missingFrom, setText, textVector, TextTooLargeError, type SetText } from './text';
import { fallbackFontNames } from '../fonts/fallback';
import { effectMargin } from '../composite/effects';
import { growRect } from '../composite/surface';

export interface PersonaliseContext {
  /** Output pixels per template pixel. */
  scale: number;
  /** Font bytes by PostScript name from the font store (bundled fonts included), or null. */
  loadFont(postscriptName: string): Promise<Uint8Array | null>;
  /**
   * A decoded picture by URL or stored image name, bounded by the contract's limits. `target` is
   * the size in output pixels the picture will cover, for loaders that decode smaller.
   * `deferResize`: the placement can take the picture before its resize to that size (a loader
   * may then return it so, with `standsFor`; issue 25 §3).
   * `window` (with `deferResize`): the pixels the placement reads of the picture, told the shape it
   * comes back in; a loader that lends the picture to this placement alone may make only those
   * (decodeBounded's `window`) and says so (`window` on the picture).
   * `through` (with `window`): the taps the placement resamples the picture of that shape through,
   * and where its pixels go; such a loader may resample it so as it decodes it (decodeBounded's
   * `through`) and say so (`placed` on the picture).
   * Throw an EngineError (src/engine/errors.ts) when it cannot be fetched or decoded.
   */
  loadImage(ref: string, target: { width: number; height: number }, how?: { deferResize?: boolean; window?: PictureWindow; through?: PictureTaps }): Promise<LoadedPicture>;
  /**
   * The pixel size of the picture `ref` names without decoding it, when the loader can tell
   * cheaply: preflight (`layoutOnly`) then measures pictures without loading them.
   */
  imageSize?(ref: string): Promise<{ width: number; height: number }>;
  /** A content key of the picture `ref` names (e.g. `image/<sha256>`), when known: placements are then kept per isolate. */
  imageKey?(ref: string): string | undefined;
  /** Where preflight problems go (issue 21); every render reports, not only a preflight. */
  report?: ReportProblem;
  /** Preflight: lay out text and measure pictures, draw nothing; the overrides come back empty. */
  layoutOnly?: boolean;
  /** The trim box in template pixels (the canvas inset by the declared bleed); absent: the canvas. */
  trim?: Bounds;
  /** The template's ppi, for the effective ppi of placed pictures (72 when unknown). */
  resolution?: number;
  /** The template's canvas (template pixels): point text's frame and the trim box when `trim` is absent. */
  canvas?: { width: number; height: number };
  /** Receives `place` (pictures put into their placements); the loaders time their own reads. */
  timing?: Timing;
  /**
   * Print PDFs: texts are not rasterised here. Each text's override holds its vector and
   * `drawLater`; drawDeferred draws those the raster still needs once the PDF has taken the
   * plain ones as vector outlines (pdf/prepare.ts), whose raster would be thrown away.
   */
  textsAsVector?: boolean;
  /**
   * Bytes the request's text rasters may hold beside its frame: REQUEST_MEMORY_BUDGET less the
   * frame's plan (preview.ts PreviewMemory.total, pdf/prepare.ts printPageMemory), less the texts
   * drawn before. A text that one render would draw past it, or over ~5.6 MP where it shows, is
   * drawn in bands where they fit (text.ts `memory`); absent, one render as before bands.
   */
  textMemory?: number;
}

/** The pixels a placement reads of a picture of this shape (placementWindow), undefined for all. */
export type PictureWindow = (picture: Pick<PlacedPicture, 'width' | 'height' | 'standsFor' | 'extent'>) => Bounds | undefined;

/** The taps a placement resamples a picture of this shape through (placementTaps) and where those pixels go, undefined when it does not. */
export type PictureTaps = (picture: Pick<PlacedPicture, 'width' | 'height' | 'standsFor' | 'extent'>) => ResampleThrough | undefined;

/**
 * A decoded picture; `source` is its own stored pixel size when the loader decoded it smaller
 * (the effective ppi of a placement counts the picture's own pixels), with its EXIF orientation
 * (5–8 swap width and height when displayed), as decodeBounded (src/engine/raster/bounded.ts) tells.
 */
export type LoadedPicture = PlacedPicture & {
  source?: { width: number; height: number; orientation?: number };
  /** The pixels are lent (decodeBounded's `lend`): given back once placed, and read no more. */
  release?: () => void;
};

/** The displayed pixel size of a picture's own pixels. */
function ownSize(picture: LoadedPicture): { width: number; height: number } {
  const own = picture.source;
  if (!own) return { width: picture.width, height: picture.height };
  return (own.orientation ?? 1) >= 5 ? { width: own.height, height: own.width } : { width: own.width, height: own.height };
}

type Placed = Awaited<ReturnType<typeof placeImage>>;

/**
 * The kept placement for `key`, else what `place` draws (then kept). A kept one drawn into a lent
 * array is read by this request until its releaseOverrides: `reads` gets what gives that read up.
 * placementCache counts a placement's whole buffer (a lent one may be a little longer).
 */
async function cachedPlacement(key: string, place: () => Promise<Placed>, reads: Array<() => void>): Promise<Placed> {
  const held = placementCache.get(key);
  if (held !== undefined) {
    const read = held && readKept(held.pixels.data.buffer);
    if (read) reads.push(read);
    return held;
  }
  const placed = await place();
  placementCache.set(key, placed, placed ? placed.pixels.data.buffer.byteLength : 64);
  return placed;
}

/** Whether placementCache keeps a value of `bytes` (ByteLru.set's rule). */
const cacheKeeps = (bytes: number) => bytes <= placementCache.maxEntryBytes && bytes <= placementCache.budget;

/**
 * Where a placement's pixels go (`arrayFor`, placeImage's): a lent array (raster/bounded.ts), given
 * back once neither this request's render (releaseOverrides) nor placementCache reads it; one kept
 * under `key` over a buffer near its size and within the cache's entries, so that it is kept as a
 * new array would be. `drawn`: the last array lent.
 */
function placementArrays(key: string | undefined): { arrayFor: (bytes: number) => Uint8ClampedArray | undefined; drawn: () => Uint8ClampedArray | undefined } {
  let drawn: Uint8ClampedArray | undefined;
  return {
    arrayFor: (bytes) => {
      // Asked again: the array lent before was not drawn into (a decode through the taps that
      // refused the file, raster/bounded.ts' `through`), so it goes back to the pool.
      if (drawn) releaseOnce(drawn)();
      return (drawn = lendPicture(bytes, key && cacheKeeps(bytes) ? Math.min(bytes + (bytes >> 3), placementCache.maxEntryBytes) : undefined));
    },
    drawn: () => drawn,
  };
}

/**
 * Placements drawn into lent arrays (raster/bounded.ts) and kept in placementCache, by buffer: the
 * requests reading each now (from buildOverrides to releaseOverrides) and whether the cache still
 * holds it. Given back, to be drawn into again, once neither does: a never-seen picture's placement
 * (2.2–2.6 MB at 800 px) was a new array every request, kept until three others pushed it out.
 * A request that never calls releaseOverrides (a PDF, the ink preview, a test) keeps its reads:
 * those arrays are left to the collector, as any array.
 */
const keptLent = new WeakMap<ArrayBufferLike, { readers: number; cached: boolean; give: () => void }>();
/** placementCache's onEvict, set when the first lent placement is kept (drawnInto), not at import. */
function placementLetGo(placed: { pixels: RGBAImage } | null): void {
  const buffer = placed?.pixels.data.buffer;
  const kept = buffer && keptLent.get(buffer);
  if (!kept) return;
  kept.cached = false;
  if (kept.readers === 0) {
    keptLent.delete(buffer);
    kept.give();
  }
}

/** A read of a kept lent placement's `buffer`, or undefined when it is not one: gives the read up, once. */
function readKept(buffer: ArrayBufferLike): (() => void) | undefined {
  const kept = keptLent.get(buffer);
  if (!kept) return undefined;
  kept.readers++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    kept.readers--;
    if (kept.readers === 0 && !kept.cached) {
      keptLent.delete(buffer);
      kept.give();
    }
  };
}

/** The drawing request's read of a placement drawn into the lent `array`, kept by placementCache or by nobody. */
function drawnInto(array: Uint8ClampedArray, cached: boolean): () => void {
  const give = releaseOnce(array);
  if (!cached) return give;
  placementCache.onEvict ??= placementLetGo;
  keptLent.set(array.buffer, { readers: 0, cached: true, give });
  return readKept(array.buffer)!;
}


/** Which layer types each command applies to. */
const ACCEPTS: Record<string, LayerType[]> = {
  text: ['Text'],
  image: ['Image', 'SmartObject'],
  shape: ['Shape'],
  switch: ['Group'],
  barcode: ['Text', 'Image', 'SmartObject'],
};

interface Target {
  name: string;
  command: DataCommand;
  nodes: LayerNode[];
}

/** Every image reference in `data`, once each, so the render request can fetch them all concurrently. */
export function imageReferences(data: unknown): string[] {
  const refs = new Set<string>();
  if (data && typeof data === 'object') {
    for (const command of Object.values(data as Record<string, unknown>)) {
      const c = normaliseCommand(command) as Partial<ImageCommand> | null;
      if (c && typeof c === 'object' && c.type === 'image' && typeof c.image === 'string' && c.image) refs.add(c.image);
    }
  }
  return [...refs];
}

/** Layers by name; a name with markers (`Name <REQ>`) also answers to the name without them. */
function layersByName(tree: LayerNode[]): Map<string, LayerNode[]> {
  const byName = new Map<string, LayerNode[]>();
  const add = (name: string, node: LayerNode) => {
    const list = byName.get(name) ?? [];
    list.push(node);
    byName.set(name, list);
  };
  const walk = (nodes: LayerNode[]) => {
    for (const node of nodes) {
      add(node.name, node);
      const bare = nameWithoutMarkers(node.name);
      if (bare !== node.name) add(bare, node);
      if (node.children) walk(node.children);
    }
  };
  walk(tree);
  return byName;
}

const answersTo = (node: LayerNode, name: string) => node.name === name || nameWithoutMarkers(node.name) === name;

/**
 * Data already checked against a tree: a request checks its `data` before fetching anything
 * (preview.ts checkRequest) and buildOverrides checks the same object again; the second time it
 * is read from here instead of being parsed again (issue 25 §3). Keyed by the data object, whose
 * lifetime is the request's; a passing check only (a failing one throws).
 */
const checked = new WeakMap<object, { tree: LayerNode[]; targets: Target[] }>();

/** Checks every key and command against the template; throws one 400 listing every problem. */
export function validateData(tree: LayerNode[], data: unknown): Target[] {
  if (data === undefined || data === null) return [];
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw invalidInput('`data` must be an object mapping layer names to commands.', [{ path: 'data', reason: 'not an object' }]);
  }
  const known = checked.get(data);
  if (known?.tree === tree) return known.targets;
  const targets = checkData(tree, data);
  checked.set(data, { tree, targets });
  return targets;
}

function checkData(tree: LayerNode[], data: object): Target[] {
  const byName = layersByName(tree);
  const details: ErrorDetail[] = [];
  const targets: Target[] = [];
  for (const [name, raw] of Object.entries(data)) {
    const path = `data.${name}`;
    const parsed = DataCommandSchema.safeParse(normaliseCommand(raw));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        details.push({ path: [path, ...issue.path.map(String)].join('.'), reason: issue.message });
      }
    }
    const nodes = byName.get(name);
    if (!nodes) {
      details.push({ path, reason: `the template has no layer named "${name}"` });
      continue;
    }
    if (!parsed.success) continue;
    const command = parsed.data;
    const accepts = command.type ? ACCEPTS[command.type] : undefined;
    let named = nodes;
    // A group named as a layer it holds (or as another layer: "Logo" holding "Logo") is not what a
    // text, picture, shape or barcode command means: the command goes to the layers that take it,
    // and is refused only when a layer of another kind than a group shares the name, or none takes it.
    if (accepts && !accepts.includes('Group') && nodes.some((n) => accepts.includes(n.type)) && nodes.every((n) => accepts.includes(n.type) || n.type === 'Group')) {
      named = nodes.filter((n) => accepts.includes(n.type));
    }
    if (accepts) {
      for (const node of named) {
        if (!accepts.includes(node.type)) {
          details.push({
            path: `${path}.type`,
            reason: `"${command.type}" applies to ${accepts.join(' or ')} layers; "${name}" is a ${node.type} layer`,
          });
        }
      }
    }
    if (command.type === 'switch') {
      for (const node of nodes) {
        if (node.type === 'Group' && !node.children?.some((c) => answersTo(c, command.select))) {
          details.push({ path: `${path}.select`, reason: `the group "${name}" has no child layer named "${command.select}"` });
        }
      }
    }
    if (command.type === 'barcode') {
      try {
        encodeBarcode(BARCODE_FORMAT[command.format], command.value, command.errorCorrection ?? 'M');
      } catch (err) {
        details.push({ path: `${path}.value`, reason: (err as Error).message });
      }
    }
    targets.push({ name, command, nodes: named });
  }
  if (details.length) throw invalidInput('The data does not fit the template.', unique(details));
  return targets;
}

const colorOf = (value: string | undefined): RGBA | undefined => {
  if (value === undefined) return undefined;
  const c = parseColor(value);
  return isColorError(c) ? undefined : c;
};

/** Layers sharing a name fail alike: one detail each. */
const unique = (details: ErrorDetail[]) => [...new Map(details.map((d) => [`${d.path}\n${d.reason}`, d])).values()];

/** One error carrying every detail; the kind of the first failure. */
function combine(errors: Array<{ error: EngineError; detail: ErrorDetail }>): EngineError {
  const first = errors[0].error;
  const details = unique(errors.map((e) => e.detail));
  const Kind = first.constructor as new (message: string, details?: ErrorDetail[]) => EngineError;
  return new Kind(details.length === 1 ? first.message : 'Some data could not be used.', details);
}

/**
 * Builds the overrides for `data` on a compiled tree.
 *
 * @example
 *   const overrides = await buildOverrides(tree, { Title: { type: 'text', text: 'Hi' } }, { scale, loadFont, loadImage });
 */
export async function buildOverrides(tree: LayerNode[], data: unknown, ctx: PersonaliseContext): Promise<LayerOverrides> {
  const targets = validateData(tree, data);
  const overrides: LayerOverrides = new Map();
  const set = (id: number, patch: LayerOverride) => overrides.set(id, { ...overrides.get(id), ...patch });

  // Switches first, so that an explicit `visible` on a child wins over its group's switch.
  for (const { command, nodes } of targets) {
    if (command.type !== 'switch') continue;
    for (const group of nodes) for (const child of group.children ?? []) set(child.id, { visible: answersTo(child, command.select) });
  }
  for (const { command, nodes } of targets) {
    for (const node of nodes) {
      if (command.visible !== undefined) set(node.id, { visible: command.visible });
      if (command.type === 'shape') set(node.id, { color: colorOf(command.color) });
    }
  }

  const failures: Array<{ error: EngineError; detail: ErrorDetail }> = [];
  // What gives up this request's reads of lent placements (releaseOverrides).
  const lent: Array<() => void> = [];
  const fail = (path: string, err: unknown, fallback: string) => {
    const error = err instanceof EngineError ? err : unprocessable(fallback);
    const reason = err instanceof EngineError ? err.details?.[0]?.reason ?? err.message : `${fallback}: ${(err as Error)?.message ?? err}`;
    failures.push({ error, detail: { path, reason } });
  };

  // Load every font and picture concurrently.
  const fontJobs = new Map<string, Promise<ResolvedFont | null>>();
  const fontFor = (name: string) => {
    let job = fontJobs.get(name);
    if (!job) fontJobs.set(name, (job = resolveFont(name, ctx.loadFont)));
    return job;
  };
  const fallbackJobs = new Map<string, Promise<Uint8Array | null>>();
  const fallbacksFor = async (text: string) => {
    const names = fallbackFontNames(text);
    const loaded = await Promise.all(
      names.map((name) => {
        let job = fallbackJobs.get(name);
        if (!job) fallbackJobs.set(name, (job = ctx.loadFont(name)));
        return job;
      }),
    );
    return names.flatMap((postscriptName, i) => (loaded[i] ? [{ postscriptName, bytes: loaded[i]! }] : []));
  };
  const textJobs = targets
    .filter((t): t is Target & { command: TextCommand } => t.command.type === 'text')
    .flatMap(({ name, command, nodes }) =>
      nodes.map(async (node) => {
        const fontName = command.font ?? node.text?.font ?? 'ArialMT';
        try {
          const font = await fontFor(fontName);
          if (!font) {
            const path = command.font ? `data.${name}.font` : `data.${name}`;
            if (command.font) failures.push({ error: invalidInput('Unknown font.'), detail: { path, reason: `the font store has no font "${fontName}"` } });
            else failures.push({ error: unprocessable('No font to draw with.'), detail: { path, reason: `no font "${fontName}" nor a substitute is in the font store` } });
            return null;
          }
          if (command.font && font.substituted && !hasKnownSubstitute(command.font)) {
            failures.push({ error: invalidInput('Unknown font.'), detail: { path: `data.${name}.font`, reason: `the font store has no font "${command.font}"` } });
            return null;
          }
          readFontInfo(font.bytes); // a damaged font fails here, with its path, not while drawing
          // Characters the font lacks are drawn from the bundled fallback fonts for their scripts, when the store has them.
          const lacking = missingFrom(font.bytes, command.text);
          const fallbacks = lacking ? await fallbacksFor(lacking) : [];
          return { name, node, command, font, fallbacks };
        } catch (err) {
          fail(`data.${name}.font`, err, 'The font could not be read');
          return null;
        }
      }),
    );
  // What prints: the template's visibility with the switches and `visible` set above (nothing
  // below changes it). Known before the pictures load, so that a layer that does not show only
  // has its picture measured, not decoded (issue 25 §3: psd.rb's example names six "Matte"
  // layers, five in hidden variant groups, and each decoded the picture: ~430 ms a request).
  const shown = visibleLayers(tree, overrides);
  // A picture's own size, measured once per picture however many layers it goes into.
  const sizes = new Map<string, Promise<{ width: number; height: number }>>();
  const measure = (ref: string, target: { width: number; height: number }) => {
    let size = sizes.get(ref);
    if (!size) {
      size = (async () => {
        if (ctx.imageSize) return ctx.imageSize(ref);
        const small = await ctx.loadImage(ref, { width: 1, height: 1 });
        return ownSize(small.source ? small : await ctx.loadImage(ref, target));
      })();
      sizes.set(ref, size);
    }
    return size;
  };
  const canvas = ctx.canvas ? { left: 0, top: 0, right: ctx.canvas.width, bottom: ctx.canvas.height } : undefined;
  const styled = styledLayers(tree);
  // The canvas at this scale (a superset of the compositor's rounding): an upright placement
  // is drawn over it alone (a fill placement reaches past it), unless its own or an enclosing
  // group's effects may read its pixels beyond it (a shadow cast from off the canvas). The same pixels on it.
  const canvasAtScale = canvas && { left: 0, top: 0, right: Math.ceil(canvas.right * ctx.scale), bottom: Math.ceil(canvas.bottom * ctx.scale) };
  const withinOf = (node: LayerNode) => (styled.has(node.id) ? undefined : canvasAtScale);
  // A text too large to draw whole is drawn where it can change the canvas: the canvas grown by
  // how far its own and its groups' effects read and move pixels (a shadow cast from past the edge).
  // Asked only of such a text: most requests never walk the tree for it.
  let reaches: Map<number, number> | undefined;
  const textWithin = (node: LayerNode) => () => canvasAtScale && growRect(canvasAtScale, (reaches ??= effectReaches(tree, ctx.scale)).get(node.id) ?? 0);
  // Keyed by the picture's content and the exact placement (corners at this scale) and mode.
  const placementKey = (node: LayerNode, command: ImageCommand, quad: PlacementQuad) => {
    const key = ctx.imageKey?.(command.image);
    const within = withinOf(node);
    return key && `${key}/placed/${quad.width}x${quad.height}/${quad.corners.join(',')}/${command.resizeMode ?? 'fit'}${within ? `/within${within.right}x${within.bottom}` : ''}`;
  };
  const imageJobs = targets
    .filter((t): t is Target & { command: ImageCommand } => t.command.type === 'image')
    .flatMap(({ name, command, nodes }) =>
      nodes.map(async (node) => {
        const quad = placementQuad(node, ctx.scale);
        const target = {
          width: Math.max(1, Math.round(Math.hypot(quad.corners[2] - quad.corners[0], quad.corners[3] - quad.corners[1]))),
          height: Math.max(1, Math.round(Math.hypot(quad.corners[6] - quad.corners[0], quad.corners[7] - quad.corners[1]))),
        };
        try {
          // Preflight measures (and so does a layer that does not show: it is checked, not drawn):
          // by the loader's imageSize, else by the smallest decode that tells the picture's own
          // size (a JPEG decodes at 1/8 in the DCT domain), else a full decode.
          if (ctx.layoutOnly || !shown.has(node.id)) return { name, node, command, quad, picture: null, size: await measure(command.image, target) };
          // A placement kept from an earlier request needs the picture's size, not its pixels. Its
          // read is taken as it is found: a request that pushes it out of placementCache while
          // this one waits (on the size, another picture, a font) must not give its array back.
          const key = placementKey(node, command, quad);
          const placed = key ? placementCache.get(key) : undefined;
          if (placed !== undefined) {
            const read = placed && readKept(placed.pixels.data.buffer);
            if (read) lent.push(read);
            return { name, node, command, quad, picture: null, placed, size: await measure(command.image, target) };
          }
          // An upright placement resizes the picture in its own single pass (placeImage), and
          // reads the part of it its taps name (a 'fill' crops it): the loader may decode that alone.
          const upright = isUpright(quad.corners);
          const mode = command.resizeMode ?? 'fit';
          const within = withinOf(node);
          const window: PictureWindow | undefined = upright ? (shape) => placementWindow(shape, quad, mode, within) : undefined;
          // Its pixels go where the placement's would (placementArrays), also when the loader
          // resamples the picture through its taps as it decodes it.
          const arrays = placementArrays(key);
          const through: PictureTaps | undefined = upright ? (shape) => {
            const taps = placementTaps(shape, quad, mode, within);
            return taps && { ...taps, arrayFor: arrays.arrayFor };
          } : undefined;
          const picture = await ctx.loadImage(command.image, target, window ? { deferResize: upright, window, through } : { deferResize: upright });
          return { name, node, command, quad, picture, size: ownSize(picture), arrays };
        } catch (err) {
          fail(`data.${name}.image`, err, 'The image could not be fetched or decoded');
          return null;
        }
      }),
    );
  const [texts, images] = await Promise.all([Promise.all(textJobs), Promise.all(imageJobs)]);
  // What the request holds of its pictures, given back at once when it is refused (not when the
  // collector finds them): the reads of lent placements, and the decodes not placed yet (a lent
  // decode's array, or the picture kernels a never-seen picture's decode holds: raster/kernels.ts
  // holdPictureKernels; until then every other never-seen picture goes into a lent array).
  const giveBack = () => {
    for (const release of lent) release();
    for (const job of images) job?.picture?.release?.();
  };
  if (failures.length) {
    giveBack();
    throw combine(failures);
  }
  try {
    // Only what prints is checked: layers hidden (by the template, a switch or `visible`) report nothing.
    const reportAll = ctx.report ?? (() => {});
    const reportOn = (node: LayerNode): ReportProblem => (shown.has(node.id) ? reportAll : () => {});
    const trim = ctx.trim ?? canvas;
    const resolution = ctx.resolution && ctx.resolution > 0 ? ctx.resolution : 72;

    // Lay out, check and draw, one at a time to bound memory; each raster drawn is held until the
    // frame is, so it leaves the next text less (the deferred ones too: drawDeferred draws in turn).
    let textMemory = ctx.textMemory;
    const spend = <T extends { pixels?: { data: ArrayBufferView } } | null>(drawn: T): T => {
      if (textMemory !== undefined && drawn?.pixels) textMemory -= drawn.pixels.data.byteLength;
      return drawn;
    };
    for (const job of texts) {
      if (!job) continue;
      const { name, node, command, font, fallbacks } = job;
      const info = node.text;
      if (!info) continue;
      const unchanged = command.text === info.text && !command.font && command.size === undefined && command.color === undefined;
      if (unchanged) continue; // Photoshop's own pixels stay
      const label = nameWithoutMarkers(node.name);
      const markers = layerMarkers(node.name);
      const fallbackFonts = fallbacks.map((f) => f.bytes);
      const laid = setText({
        info,
        text: command.text,
        font: font.bytes,
        fallbackFonts,
        size: command.size,
        fit: command.fit ?? markers.fit,
        minSize: command.minSize ?? markers.minSize,
        maxWidth: markers.maxWidth,
        area: trim,
      });
      checkText({ name, label, node, text: command.text, laid, font, fallbacks, trim, resolution, report: reportOn(node) });
      // A layer that does not show is drawn by neither the raster nor the PDF's vector pass (which
      // visits visible groups only): its text is checked above, not drawn (issue 25 §3: a name shared
      // by the text of every hidden variant group of a template drew them all on every request).
      if (ctx.layoutOnly || !shown.has(node.id)) continue;
      const how = { font: font.bytes, fallbackFonts, color: colorOf(command.color), scale: ctx.scale };
      const draw = () => drawText(laid, { ...how, within: textWithin(node), memory: textMemory }).then(spend);
      const tooLargeError = (err: TextTooLargeError) => invalidInput(`The text is too large to draw: ${err.message}.`, [{ path: `data.${name}.text`, reason: err.message }]);
      if (ctx.textsAsVector) {
        const vector = textVector(laid, how);
        const drawLater = () =>
          draw().then(
            (drawn) => drawn ?? empty(),
            (err) => {
              throw err instanceof TextTooLargeError ? tooLargeError(err) : err;
            },
          );
        set(node.id, vector ? { ...vector, drawLater } : empty());
        continue;
      }
      try {
        set(node.id, (await draw()) ?? empty());
      } catch (err) {
        if (err instanceof TextTooLargeError) fail(`data.${name}.text`, tooLargeError(err), 'text too large');
        else throw err;
      }
    }
    for (const { command, nodes } of targets) {
      if (command.type !== 'barcode' || ctx.layoutOnly) continue;
      for (const node of nodes) set(node.id, await drawBarcode(command, node, ctx.scale));
    }
    for (const job of images) {
      if (!job) continue;
      const { name, node, command, quad, picture, size } = job;
      const mode = command.resizeMode ?? 'fit';
      checkPicture(node, name, size, mode, { resolution, trim, report: reportOn(node) });
      if ('placed' in job) {
        set(node.id, job.placed ?? empty()); // read since its job found it
        continue;
      }
      if (!picture || !shown.has(node.id)) continue;
      try {
        const within = withinOf(node);
        const key = placementKey(node, command, quad);
        const { arrayFor, drawn } = ('arrays' in job && job.arrays) || placementArrays(key);
        let drawnRead = false;
        const place = async () => {
          const placed = await (ctx.timing ?? noTiming).time('place', () => placeImage(picture, quad, mode, within ? { within, arrayFor } : { arrayFor }));
          // This request's read, taken before placementCache holds it for others to find.
          const array = drawn();
          if (array && placed?.pixels.data.buffer === array.buffer) {
            drawnRead = true;
            lent.push(drawnInto(array, !!key && cacheKeeps(array.buffer.byteLength)));
          }
          return placed;
        };
        const placed = key ? await cachedPlacement(key, place, lent) : await place();
        // A lent array nothing reads (the picture resampled as decoded, when placementCache already
        // held this placement or it draws nothing) goes back to the pool.
        const unread = drawn();
        if (unread && !drawnRead) releaseOnce(unread)();
        set(node.id, placed ?? empty());
      } catch (err) {
        if (err instanceof RangeError) fail(`data.${name}.image`, unprocessable('The image placement is too large.'), err.message);
        else throw err;
      } finally {
        // A lent decode (read by this placement alone) goes back to be decoded into again.
        picture.release?.();
      }
    }
    checkRequired(tree, targets, shown, reportAll);
  } catch (err) {
    giveBack();
    throw err;
  }
  if (failures.length) {
    giveBack();
    throw combine(failures);
  }
  if (lent.length) lentByOverrides.set(overrides, lent);
  return ctx.layoutOnly ? new Map() : overrides;
}

/**
 * Draws the texts buildOverrides left for later (`textsAsVector`) that still show in `overrides`,
 * in place; every text too large to draw is reported at once (400 naming each).
 */
export async function drawDeferred(overrides: LayerOverrides): Promise<void> {
  const failures: Array<{ error: EngineError; detail: ErrorDetail }> = [];
  for (const [id, { drawLater, ...override }] of overrides) {
    if (!drawLater) continue;
    try {
      overrides.set(id, override.visible === false ? override : { ...override, ...(await drawLater()) });
    } catch (err) {
      if (!(err instanceof EngineError) || !err.details?.[0]) throw err;
      failures.push({ error: err, detail: err.details[0] });
    }
  }
  if (failures.length) throw combine(failures);
}

/** What gives up each buildOverrides result's reads of lent placements. */
const lentByOverrides = new WeakMap<LayerOverrides, Array<() => void>>();

/**
 * Gives up the reads `overrides` (from buildOverrides) holds of placements in lent arrays: one no
 * cache keeps goes back at once, a kept one when placementCache lets it go too. Call it once nothing
 * reads them any more (the render and its encode done). Without it they are left to the collector.
 */
export function releaseOverrides(overrides: LayerOverrides | undefined): void {
  const lent = overrides && lentByOverrides.get(overrides);
  if (!lent) return;
  lentByOverrides.delete(overrides);
  for (const release of lent) release();
}

/** textOverflow, textShrunk, missingGlyphs, fontSubstituted and outsideTrim of laid-out text. */
function checkText(job: {
  name: string;
  label: string;
  node: LayerNode;
  text: string;
  laid: SetText;
  font: ResolvedFont;
  fallbacks: Array<{ postscriptName: string; bytes: Uint8Array }>;
  trim?: Bounds;
  resolution: number;
  report: ReportProblem;
}) {
  const { name, label, node, text, laid, font, fallbacks, trim, resolution, report } = job;
  const fitProblems = textFitProblems(name, label, text, laid, resolution);
  fitProblems.forEach(report);
  const shown = node.text?.allCaps ? text.toUpperCase() : text;
  const missing = missingGlyphProblem(name, label, shown, laid.metrics.has);
  if (missing) report(missing);
  // Which characters the font lacks came from which fallback (the first that has each, as resvg picks).
  const has = (bytes: Uint8Array, ch: string) => fontMetrics(bytes).has(ch.codePointAt(0)!);
  const fromFallbacks = [...new Set([...shown].filter((ch) => !has(font.bytes, ch) && laid.metrics.has(ch.codePointAt(0)!)))];
  const used = fallbacks.filter((f) => fromFallbacks.some((ch) => fallbacks.find((g) => has(g.bytes, ch)) === f));
  const substitution = fontSubstitutionProblem(name, label, font, { names: used.map((f) => f.postscriptName), characters: fromFallbacks.join('') });
  if (substitution && shown.trim()) report(substitution); // blank text is set in no font
  if (trim && !fitProblems.some((p) => p.code === 'textOverflow')) {
    const outside = outsideTrimProblem(name, label, node.bounds, laid.inkBounds, trim, 'text');
    if (outside) report(outside);
  }
}

/** lowResolution, imageUpscaled and outsideTrim of a picture of `size` pixels placed on `node`. */
function checkPicture(
  node: LayerNode,
  name: string,
  size: { width: number; height: number },
  mode: 'fit' | 'fill',
  { resolution, trim, report }: { resolution: number; trim?: Bounds; report: ReportProblem },
) {
  const label = nameWithoutMarkers(node.name);
  const quad = placementQuad(node, 1); // template pixels
  const c = quad.corners;
  const rect = pictureRect(size.width, size.height, quad.width, quad.height, mode);
  // Template pixels per picture pixel, along the placement's wider-stretched side.
  const pixelsPerUnit = Math.max(Math.hypot(c[2] - c[0], c[3] - c[1]) / quad.width, Math.hypot(c[6] - c[0], c[7] - c[1]) / quad.height);
  const magnification = ((rect.right - rect.left) / size.width) * pixelsPerUnit;
  const ppi = resolution / magnification;
  pictureProblems(name, label, ppi, layerMarkers(node.name).ppi ?? DEFAULT_PPI_THRESHOLD, resolution).forEach(report);
  if (!trim) return;
  // The picture's content: its rectangle inside the placement (cropped to it), mapped to the corners.
  const h = homography([0, 0, quad.width, 0, quad.width, quad.height, 0, quad.height], c);
  if (!h) return;
  const [l, t, r, b] = [Math.max(0, rect.left), Math.max(0, rect.top), Math.min(quad.width, rect.right), Math.min(quad.height, rect.bottom)];
  const points = [applyHomography(h, l, t), applyHomography(h, r, t), applyHomography(h, r, b), applyHomography(h, l, b)];
  const drawn = { left: Math.min(...points.map((p) => p[0])), top: Math.min(...points.map((p) => p[1])), right: Math.max(...points.map((p) => p[0])), bottom: Math.max(...points.map((p) => p[1])) };
  const outside = outsideTrimProblem(name, label, node.bounds, drawn, trim, 'picture');
  if (outside) report(outside);
}

/** Ids of the layers that show: visible themselves and every group above them, after the overrides. */
function visibleLayers(tree: LayerNode[], overrides: LayerOverrides): Set<number> {
  const ids = new Set<number>();
  const walk = (nodes: LayerNode[]) => {
    for (const node of nodes) {
      if (!(overrides.get(node.id)?.visible ?? node.visible)) continue;
      ids.add(node.id);
      if (node.children) walk(node.children);
    }
  };
  walk(tree);
  return ids;
}

/** Ids of the layers with effects, their own or an enclosing group's: what those effects draw may come from past the canvas. */
function styledLayers(tree: LayerNode[]): Set<number> {
  const ids = new Set<number>();
  const walk = (nodes: LayerNode[], underEffects: boolean) => {
    for (const node of nodes) {
      const styled = underEffects || !!node.effects;
      if (styled) ids.add(node.id);
      if (node.children) walk(node.children, styled);
    }
  };
  walk(tree, false);
  return ids;
}

/** For each layer under effects (its own or a group's), how far they reach at `scale` (effectMargin, the largest along its chain). */
function effectReaches(tree: LayerNode[], scale: number): Map<number, number> {
  const reaches = new Map<number, number>();
  const walk = (nodes: LayerNode[], above: number) => {
    for (const node of nodes) {
      const reach = Math.max(above, node.effects ? effectMargin(node, scale) : 0);
      if (reach) reaches.set(node.id, reach);
      if (node.children) walk(node.children, reach);
    }
  };
  walk(tree, 0);
  return reaches;
}

/** emptyField: every visible `<REQ>` text layer must end up with text, every `<REQ>` picture layer must get a picture. */
function checkRequired(tree: LayerNode[], targets: Target[], shown: Set<number>, report: ReportProblem) {
  const commandOf = new Map<number, { name: string; command: DataCommand }>();
  for (const { name, command, nodes } of targets) for (const node of nodes) if (command.type) commandOf.set(node.id, { name, command });
  const requireContent = (node: LayerNode) => {
    const given = commandOf.get(node.id);
    const label = nameWithoutMarkers(node.name);
    const layer = given?.name ?? label;
    if (node.type === 'Text') {
      const text = given?.command.type === 'text' ? given.command.text : given ? 'filled' : node.text?.text ?? '';
      if (!text.trim()) report(emptyFieldProblem(layer, label, 'text'));
    } else if ((node.type === 'Image' || node.type === 'SmartObject') && !given) {
      report(emptyFieldProblem(layer, label, 'picture'));
    }
  };
  const walk = (nodes: LayerNode[]) => {
    for (const node of nodes) {
      if (shown.has(node.id) && layerMarkers(node.name).required) requireContent(node);
      if (node.children) walk(node.children);
    }
  };
  walk(tree);
}

/** Replacement content that draws nothing (empty text, a placement off every pixel). */
const empty = (): LayerOverride => ({ pixels: { width: 1, height: 1, data: new Uint8ClampedArray(4) }, bounds: { left: 0, top: 0, right: 1, bottom: 1 } });

/** Where a picture goes, in output pixels: the smart object's corners, else the layer's bounds. */
export function placementQuad(node: LayerNode, scale: number): { corners: number[]; width: number; height: number } {
  if (node.smartObject) {
    const { corners, width, height } = node.smartObject;
    return { corners: corners.map((v) => v * scale), width, height };
  }
  const { left, top, right, bottom } = node.bounds;
  const w = Math.max(1, right - left);
  const h = Math.max(1, bottom - top);
  const [l, t, r, b] = [left * scale, top * scale, (left + w) * scale, (top + h) * scale];
  return { corners: [l, t, r, t, r, b, l, b], width: w, height: h };
}

const BARCODE_FORMAT: Record<BarcodeCommand['format'], BarcodeFormat> = { qr: 'QrCode', code128: 'Code128', ean13: 'Ean13', upca: 'UpcA', datamatrix: 'DataMatrix' };

/**
 * A barcode in the layer's bounds, at the output scale: pixels for the composite, and the SVG
 * they were drawn from, which print PDFs draw as vectors on a text layer (as re-rendered text).
 */
async function drawBarcode(command: BarcodeCommand, node: LayerNode, scale: number): Promise<LayerOverride> {
  const left = Math.floor(node.bounds.left * scale);
  const top = Math.floor(node.bounds.top * scale);
  const width = Math.max(1, Math.ceil(node.bounds.right * scale) - left);
  const height = Math.max(1, Math.ceil(node.bounds.bottom * scale) - top);
  if (width * height > 64_000_000) throw unprocessable('The barcode would be too large to draw.');
  const rects = barcodeRects(BARCODE_FORMAT[command.format], command.value, command.errorCorrection ?? 'M', { x: 0, y: 0, width, height });
  const paint = (c: RGBA) => `fill="rgb(${c.r},${c.g},${c.b})"${c.a < 1 ? ` fill-opacity="${c.a}"` : ''}`;
  const background = command.backgroundColor === undefined ? { r: 255, g: 255, b: 255, a: 1 } : colorOf(command.backgroundColor);
  const color = colorOf(command.color) ?? { r: 0, g: 0, b: 0, a: 1 };
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    (background && background.a > 0 ? `<rect x="0" y="0" width="${width}" height="${height}" ${paint(background)}/>` : '') +
    `<path d="${rectsPathData(rects)}" ${paint(color)}/></svg>`;
  const pixels = await renderSvg(svg, []);
  await unpremultiply(pixels.data);
  return { pixels, bounds: { left, top, right: left + width, bottom: top + height }, vector: { svg, fonts: [] } };
}

