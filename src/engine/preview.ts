/**
 * From a render request to output bytes, free of HTTP and of storage (the preview and the print
 * PDF endpoints share the resolution of templates, fonts and images done here):
 *
 *   resolve the template name → its compiled form (compiled on first use)
 *   → gather what `data` names (stored images, URL images, fonts) and fingerprint all inputs
 *   → personalisation overrides → render at the nearest pyramid scale
 *   → resample + unsharp mask (only when shrinking) → encode → embed the ICC profile
 *
 * `preparePreview` does everything up to the fingerprint, so the caller can consult its result
 * cache before paying for `render()`. Inputs come from an InputStore and URL images through the
 * caller's UrlImages (src/engine/inputs.ts); failures are engine errors (src/engine/errors.ts).
 */
import { cached, imageCache, makeRoom } from './cache';
import { compileTemplate, ENGINE_VERSION, loadCompiledTemplateCached } from './index';
import { invalidInput, notFound, unprocessable } from './errors';
import { checkPreviewMemory, codedBytesLimit, previewRenderScale, REQUEST_MEMORY_BUDGET, type PreviewMemory } from './memory/budget';
import { checkEffectReach } from './memory/effect-reach';
import { mayShowHidden } from './memory/kernel-reach';
import { documentInks, inkDocument, inkFrame, inkPreviewMemory, isCmykHeader, keepInkOutput, keptInkFrame, keptInkOutput, INK_PREVIEW_MAX_PIXELS, INK_PREVIEW_MAX_PSD_BYTES } from './composite/cmyk-ink';
import { RENDER_VERSION } from './composite/version';
import { encodeFrameJpeg, makeRoomForFrame, renderFrame, renderFrameJpeg, renderFramePng, streamsJpeg, type FrameOptions } from './frame';
import { FontCatalog, fontLoader } from './fonts/catalog';
import { canonicalJson, sha256Hex } from './hash';
import type { InputStore, OpenedInput, StoredFont, StoredInput, UrlImages } from './inputs';
import { fileName } from './names';
import { buildOverrides, imageReferences, releaseOverrides, validateData, type PersonaliseContext, type PersonalisationData } from './personalise';
import { preflightReport, type PreflightProblem, type PreflightReport, type ReportProblem } from './preflight/report';
import { printGeometry } from './preflight/template';
import {
  decodeBounded,
  embedIcc,
  encodeJpeg,
  encodePng,
  flattenOverWhite,
  readIcc,
  srgbProfile,
  unsharpMask,
  type UnsharpMask,
} from './raster';
import { decodeStoredPicture } from './raster/renditions';
import { orientedSize, sniffImage, type SniffedImage } from './raster/sniff';
import { noTiming, type Timing } from './timing';
import type { CompiledTemplate, LayerOverrides, RGBAImage } from './types';

export type OutputFormat = 'jpg' | 'png';

export interface EncodedImage {
  bytes: Uint8Array;
  contentType: string;
  ext: OutputFormat;
}

// --- templates --------------------------------------------------------------------------------

export interface ResolvedTemplate {
  /** The stored name (with its extension). */
  name: string;
  file: StoredInput;
  compiled: CompiledTemplate;
}

/** Names to try for a requested template: as given, then with .psd, then with .psb. */
function candidates(name: string): string[] {
  return /\.ps[db]$/i.test(name) ? [name] : [name, `${name}.psd`, `${name}.psb`];
}

/** The template a request names, compiled (on first use when an upload predates compiling). */
export async function resolveTemplate(store: InputStore, requested: string): Promise<ResolvedTemplate> {
  const name = fileName(requested, 'template');
  // The candidates are looked up at once (one round trip, not up to three); the first wins.
  const heads = await Promise.all(candidates(name).map((candidate) => store.head('templates', candidate)));
  const file = heads.find((f): f is StoredInput => f !== null) ?? null;
  if (!file) throw notFound(`There is no template "${name}".`);
  const known = file.meta.engine === ENGINE_VERSION ? file.meta.compiled : undefined;
  const compiled = known ? await loadCompiledTemplateCached(store.bucket, known) : null;
  if (compiled) return seenTemplate(name, { name: file.name, file, compiled });

  // Compiled again (an older engine's form, or none): from the stored file by range where the store
  // can (never whole in memory: issue 25 §1), and its new name remembered without reading it whole
  // (unless the file was replaced meanwhile).
  const source = await store.source?.('templates', file);
  if (source && store.putMeta) {
    const fresh = await compileTemplate(store.bucket, source);
    await store.putMeta('templates', file.name, { ...file.meta, compiled: fresh.hash, engine: ENGINE_VERSION }, file.etag);
    return seenTemplate(name, { name: file.name, file, compiled: fresh });
  }
  const read = await store.read('templates', file.name);
  if (!read) throw notFound(`There is no template "${name}".`);
  const fresh = await compileTemplate(store.bucket, read.bytes);
  await store.put('templates', file.name, read.bytes, {
    contentType: read.info.contentType,
    meta: { ...read.info.meta, compiled: fresh.hash, engine: ENGINE_VERSION },
    ifEtag: read.info.etag,
  });
  return seenTemplate(name, { name: file.name, file: read.info, compiled: fresh });
}

// --- personalisation inputs -------------------------------------------------------------------

export interface RenderDeps {
  /** The request's images named by URL: one fetch per URL, a byte budget for the whole request. */
  urlImages: UrlImages;
  /** An ICC output profile by name (print PDFs' `colorProfile`); null when there is none. */
  colourProfile?(name: string): Promise<Uint8Array | null>;
}

const isUrl = (ref: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(ref);

/**
 * Everything `data` refers to, loaded before rendering so that the fingerprint can carry its
 * content: images (stored or by URL; concurrently when `preload`), and the font store's index
 * when text is re-rendered. Returns the loaders buildOverrides uses and the content hashes.
 */
export async function gatherInputs(
  store: InputStore,
  data: PersonalisationData,
  preload: boolean,
  deps: RenderDeps,
  /** The font store's index, when the caller started reading it already. */
  fontsAhead?: Promise<StoredFont[]>,
  /** Receives image-read and image-decode when a picture is loaded (inside the render's overrides). */
  timing: Timing = noTiming,
  /** Heads of stored images by name, when the caller started them already (imageHeadsAhead). */
  imagesAhead?: ImagesAhead,
): Promise<{ context: Omit<PersonaliseContext, 'scale'>; hashes: Record<string, string> }> {
  // Error paths name the first layer that uses a reference.
  const refs = imageReferences(data);
  const layerOf = (ref: string) => Object.entries(data).find(([, c]) => c.type === 'image' && c.image === ref)?.[0];
  const pathOf = new Map(refs.map((ref) => [ref, `data.${layerOf(ref)}.image`]));
  const drawsText = drawsTextOf(data);

  // URL images are fetched now (their hash is of the bytes); stored images are hashed from their
  // metadata and read only when rendering, so a cache hit reads no image.
  const images = new Map<string, Uint8Array | string>();
  const storedImages = new Map<string, StoredInput>();
  const hashes: Record<string, string> = {};
  const load = async (ref: string) => {
    const path = pathOf.get(ref)!;
    if (isUrl(ref)) {
      const bytes = await deps.urlImages.get(ref, path);
      images.set(ref, bytes);
      hashes[`image:${ref}`] = await sha256Hex(bytes);
      return;
    }
    const name = fileName(ref, path);
    const file = await (imagesAhead?.heads.get(name) ?? store.head('images', name));
    if (!file) throw notFound(`There is no image "${ref}".`, [{ path, reason: 'unknown image' }]);
    seenImage(name, file.sha256);
    images.set(ref, name);
    storedImages.set(ref, file);
    hashes[`image:${ref}`] = file.sha256;
    // Uploads record the displayed size (src/dynamic-image/kinds.ts): preflight then reads nothing.
    const size = { width: Number(file.meta.width), height: Number(file.meta.height) };
    if (Number.isInteger(size.width) && Number.isInteger(size.height) && size.width > 0 && size.height > 0) rememberSize(file.sha256, size);
  };
  const bytesOf = async (ref: string): Promise<Uint8Array> => {
    const held = images.get(ref)!;
    if (typeof held !== 'string') return held;
    const read = await timing.time('image-read', async () => (await imagesAhead?.bytes(held)) ?? store.read('images', held));
    if (!read) throw notFound(`There is no image "${ref}".`, [{ path: pathOf.get(ref)!, reason: 'unknown image' }]);
    return read.bytes;
  };
  // The font index is read while the images are looked up.
  const fontsRead = drawsText ? (fontsAhead ?? store.fonts()) : null;
  fontsRead?.catch(() => {});
  if (preload) await Promise.all(refs.map(load));
  else for (const ref of refs) await load(ref);

  // Unmodified text is drawn from Photoshop's pixels: fonts matter only when text is re-rendered,
  // and then any font of the store may be picked (the layer's, the requested, a substitute).
  // Font bytes are read from R2 once per isolate: the cache key carries the file's content hash.
  let catalog = new FontCatalog();
  if (fontsRead) {
    const indexed = fontCatalogOf(await fontsRead);
    catalog = indexed.catalog;
    hashes.fonts = await indexed.hash;
  }
  return {
    hashes,
    context: {
      loadFont: fontLoader(catalog, async (key) => (await store.read('fonts', key.slice(0, key.lastIndexOf('#'))))?.bytes ?? null),
      imageKey: (ref) => (hashes[`image:${ref}`] ? `image/${hashes[`image:${ref}`]}` : undefined),
      async loadImage(ref, target, how) {
        // Decoded no larger than needed to cover the placement (never enlarged here); kept per
        // isolate by content hash and size, so a repeated picture is neither read nor decoded.
        const key = `image/${hashes[`image:${ref}`]}/${target.width}x${target.height}`;
        // A stored picture's rendition (its DCT-scaled decode, made at upload) stands for the decode.
        const decode = async (lend: boolean) => {
          let readWhole = false;
          const decoded = await decodeStoredPicture(store.bucket, storedImages.get(ref), () => ((readWhole = true), bytesOf(ref)), {
            path: pathOf.get(ref),
            deferResize: how?.deferResize,
            lend,
            // A lent decode is read by its one placement: only the pixels that placement reads are made.
            window: lend ? how?.window : undefined,
            // …and resampled through its taps as it is decoded, when the decoder can (the picture never made).
            through: lend ? how?.through : undefined,
            size: (src) => {
              makeRoom(src.width * src.height * DECODE_BYTES_PER_PIXEL);
              const k = Math.min(1, Math.max(target.width / src.width, target.height / src.height));
              return { width: src.width * k, height: src.height * k };
            },
          }, timing);
          if (storedImages.has(ref)) imagesAhead?.learn(layerOf(ref), readWhole);
          return decoded;
        };
        // Left to an upright placement, the picture is read by that placement alone, which is
        // kept (placementCache): its decode is lent (an array kept between requests, given back
        // once placed: raster/bounded.ts), not cached.
        const picture: RGBAImage & { source?: SniffedImage; standsFor?: { width: number; height: number }; release?: () => void } = how?.deferResize ? await decode(true) : await cached(imageCache, key, () => decode(false));
        // The picture's own pixels as displayed (EXIF orientation applied), for its effective ppi.
        // A JPEG has no alpha: its decode is opaque (an upright placement then copies it rather than blending).
        return { ...picture, source: picture.source ? orientedSize(picture.source) : { width: picture.width, height: picture.height }, opaque: picture.source?.format === 'jpeg' };
      },
      async imageSize(ref) {
        // Preflight: the size from the header alone, so no picture is decoded (sniffed as
        // decodeBounded sniffs, with its refusal); kept per isolate by content hash, so a shopper
        // typing into the same photo's card does not read the photo again.
        const hash = hashes[`image:${ref}`];
        const known = pictureSizes.get(hash);
        if (known) return known;
        const path = pathOf.get(ref);
        const sniffed = sniffImage(await bytesOf(ref));
        if (!sniffed || (sniffed.format !== 'jpeg' && sniffed.format !== 'png')) {
          throw unprocessable(`The image at ${path} cannot be used: not a JPEG or PNG image (or its header is corrupt).`, [{ path: path ?? 'image', reason: 'not a JPEG or PNG image' }]);
        }
        return rememberSize(hash, orientedSize(sniffed));
      },
    },
  };
}

/** Displayed pixel sizes of pictures by content hash (preflight's imageSize), bounded. */
const pictureSizes = new Map<string, { width: number; height: number }>();
function rememberSize(hash: string, size: { width: number; height: number }) {
  if (!pictureSizes.has(hash) && pictureSizes.size >= 1024) pictureSizes.delete(pictureSizes.keys().next().value!);
  pictureSizes.set(hash, size);
  return size;
}

/**
 * The catalog and content hash of a font index, made once per index array: the file store hands
 * out the same array while its index in R2 is unchanged (dynamic-image/store/font-index.ts), so a
 * text request no longer adds every font to a new catalog and hashes the list (issue 25 §3).
 */
const fontCatalogs = new WeakMap<StoredFont[], { catalog: FontCatalog; hash: Promise<string> }>();
function fontCatalogOf(fonts: StoredFont[]): { catalog: FontCatalog; hash: Promise<string> } {
  let known = fontCatalogs.get(fonts);
  if (!known) {
    const catalog = new FontCatalog();
    for (const f of fonts) catalog.add(`${f.file}#${f.sha256}`, f);
    const hash = sha256Hex(JSON.stringify(fonts.map((f) => [f.postscriptName, f.sha256]).sort()));
    hash.catch(() => fontCatalogs.delete(fonts));
    fontCatalogs.set(fonts, (known = { catalog, hash }));
  }
  return known;
}

const drawsTextOf = (data: PersonalisationData) => Object.values(data).some((command) => command?.type === 'text');

/** Decoding holds the pixels twice for a moment (decoder heap + the copy handed to JS). */
const DECODE_BYTES_PER_PIXEL = 8;

// --- preview ----------------------------------------------------------------------------------

export interface PreviewOptions {
  template: string;
  format: OutputFormat;
  size: { width: number; height: number };
  jpegQuality: number;
  optimizePreview?: boolean;
  /** null: off. */
  unsharpMask: UnsharpMask | null;
  data?: PersonalisationData;
  preloadImages?: boolean;
}

export interface PreparedRender {
  /** SHA-256 of the canonical request, the inputs' content hashes and the engine version. */
  fingerprint: string;
  template: ResolvedTemplate;
  /** Output size. */
  width: number;
  height: number;
  /** `timing`, when given, receives the phases (overrides, render, resample, sharpen, encode). */
  render(timing?: Timing): Promise<EncodedImage>;
  /** What the layer checks found while `render()` built the overrides (issue 21); empty before. */
  problems(): PreflightProblem[];
  /**
   * Gives up what was started for `render()` (a picture opened ahead, its bytes unread): call it
   * when `render()` will not be (a cached result answers), or the opened answer holds a storage
   * connection until the request ends.
   */
  giveUp(): void;
}

/** Largest preview we produce (pixels): 128 MB isolates hold the output a few times over. */
export const MAX_OUTPUT_PIXELS = 25_000_000;

/** s = min(w/W, h/H); output (round(W·s), round(H·s)), at least 1 px (rendering contract, Output). */
export function boxScale(width: number, height: number, box: { width: number; height: number }) {
  const s = Math.min(box.width / width, box.height / height);
  return { s, width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)) };
}

/** What every render starts from, preview or PDF: the template, its checked `data`, and the inputs `data` names. */
export interface ResolvedRequest {
  template: ResolvedTemplate;
  data?: PersonalisationData;
  gathered: Awaited<ReturnType<typeof gatherInputs>> | null;
  /** Gives up what was started ahead for the render and not used (resolveRequest's `openPictures`); call once rendered. */
  done?(): void;
}

/** A request's `data`, or undefined when it names no layer. */
const requestData = (options: { data?: PersonalisationData }) => (options.data && Object.keys(options.data).length ? options.data : undefined);

/**
 * Resolves the template and reports every problem with `data` at once (InvalidInput), fetching
 * nothing. `check` runs on the compiled template first, for refusals that must come before any
 * fetching (e.g. an output size limit). Multipage requests check every page this way before
 * rendering any.
 */
export async function checkRequest(
  store: InputStore,
  options: { template: string; data?: PersonalisationData },
  check?: (compiled: ResolvedTemplate['compiled']) => void,
  timing: Timing = noTiming,
): Promise<{ template: ResolvedTemplate; data?: PersonalisationData }> {
  const template = await timing.time('template', () => resolveTemplate(store, options.template));
  check?.(template.compiled);
  const data = requestData(options);
  if (data) await timing.time('validate', () => validateData(template.compiled.layers, data));
  return { template, data };
}

/** checkRequest, then gathers what `data` names (URL images are fetched now). */
export async function resolveRequest(
  store: InputStore,
  options: { template: string; data?: PersonalisationData; preloadImages?: boolean },
  deps: RenderDeps,
  check?: (compiled: ResolvedTemplate['compiled']) => void,
  timing: Timing = noTiming,
  /** Open never-seen pictures ahead (imageHeadsAhead): for a render that follows at once, as a preview's does. */
  openPictures = false,
): Promise<ResolvedRequest> {
  // Re-rendered text needs the font index whatever the template, and stored pictures their heads:
  // read them while the template is resolved (one storage round trip, not two).
  const fontsAhead = options.data && drawsTextOf(options.data) ? store.fonts() : undefined;
  fontsAhead?.catch(() => {}); // a refused request never awaits it
  const imagesAhead = imageHeadsAhead(store, options.data, openPictures, options.template);
  try {
    const { template, data } = await checkRequest(store, options, check, timing);
    const gathered = data ? await timing.time('inputs', () => gatherInputs(store, data, !!options.preloadImages, deps, fontsAhead, timing, imagesAhead)) : null;
    return { template, data, gathered, ...(imagesAhead?.opened.size ? { done: () => imagesAhead.cancel() } : {}) };
  } catch (err) {
    imagesAhead?.cancel(); // refused: no picture is read
    throw err;
  }
}

/** At most this many stored pictures' heads are started ahead of the template's (a template has one to three). */
const IMAGE_HEADS_AHEAD = 4;
/**
 * Of those, at most this many never-seen pictures are opened (InputStore.open) rather than
 * headed: an opened answer's unread bytes hold one of the few storage connections a Worker's
 * request may have open at once.
 */
const IMAGE_OPENS_AHEAD = 2;

/** What imageHeadsAhead started: heads by name, and the bytes of the pictures it opened. */
interface ImagesAhead {
  heads: Map<string, Promise<StoredInput | null>>;
  opened: Map<string, Promise<OpenedInput | null>>;
  /** The picture's file read from its opened answer (once; later asks read it again), or undefined. */
  bytes(name: string): Promise<{ bytes: Uint8Array; info: StoredInput } | undefined>;
  /** Gives up the opened answers whose bytes were not asked for. */
  cancel(): void;
  /** Tells whether the picture of `layer` was read whole (decoded) or stood for by its rendition (layerReadsWhole). */
  learn(layer: string | undefined, readWhole: boolean): void;
}

/**
 * By template (as requested) and layer, whether the last stored picture decoded for it was read
 * whole rather than stood for by a rendition (bounded, per isolate). A never-seen picture is opened
 * only for a layer whose last picture was read whole, or of which nothing is known: an opened answer
 * comes a little after a head would (`inputs` waits for it), which pays only when its bytes are used
 * (a placement the size of the orion rows' decodes the file; a mockup's small card reads a rendition).
 */
const layerReadsWhole = new Map<string, boolean>();

/**
 * The heads of the stored pictures `data` names, started now, by name: gatherInputs awaits them
 * in its own order, so its errors (and which comes first) are the same; a name it would refuse, a
 * URL, or a picture past IMAGE_HEADS_AHEAD is left to it. A name this isolate has not seen is
 * opened instead, when the store can (issue 25 §3): its head and its bytes come in one answer that
 * starts beside the template's, so a never-seen picture's render finds its bytes there rather than
 * waiting a storage round trip for them; they are read only if the render asks (a rendition may
 * stand for the picture), and given up (cancel) when the request is done or refused.
 */
function imageHeadsAhead(store: InputStore, data: PersonalisationData | undefined, openPictures: boolean, template: string): ImagesAhead | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const heads = new Map<string, Promise<StoredInput | null>>();
  const opened = new Map<string, Promise<OpenedInput | null>>();
  let refs: string[];
  try {
    refs = imageReferences(data); // data not validated yet
  } catch {
    return undefined;
  }
  for (const ref of refs) {
    const name = isUrl(ref) ? null : validName(ref);
    if (name === null || heads.has(name)) continue;
    if (heads.size >= IMAGE_HEADS_AHEAD) break;
    const layer = Object.entries(data).find(([, c]) => c?.type === 'image' && c.image === ref)?.[0];
    const readsWhole = layer === undefined || layerReadsWhole.get(`${template}\n${layer}`) !== false;
    const open = openPictures && store.open && !seenImages.has(name) && opened.size < IMAGE_OPENS_AHEAD && readsWhole ? store.open('images', name) : undefined;
    const head = open ? open.then((o) => o?.info ?? null) : store.head('images', name);
    head.catch(() => {}); // a refused request never awaits it
    heads.set(name, head);
    if (open) opened.set(name, open);
  }
  if (!heads.size) return undefined;
  const cancel = (open: Promise<OpenedInput | null>) => void open.then((o) => o?.cancel(), () => {});
  return {
    heads,
    opened,
    async bytes(name) {
      const open = opened.get(name);
      if (!open) return undefined;
      opened.delete(name);
      const o = await open.catch(() => null);
      // A failed read of the answer (its connection given up by the runtime) is read again by the caller.
      return o ? o.bytes().then((bytes) => ({ bytes, info: o.info }), () => undefined) : undefined;
    },
    cancel() {
      for (const open of opened.values()) cancel(open);
      opened.clear();
    },
    learn(layer, readWhole) {
      if (layer !== undefined) remember(layerReadsWhole, `${template}\n${layer}`, readWhole);
    },
  };
}

const validName = (value: string): string | null => {
  try {
    return fileName(value);
  } catch {
    return null;
  }
};

// --- looking ahead ----------------------------------------------------------------------------

/**
 * What this isolate last found for a requested template name and for an image name (bounded):
 * preparePreview's `lookahead` makes the request's fingerprint from them while the heads that
 * confirm them are in flight, so that the caller's result lookup runs beside those heads rather
 * than after them (one storage round trip instead of two). A guess is never trusted: its lookup is
 * used only when the fingerprint made from the heads is the same (dynamic-image/outputs.ts).
 */
const seenTemplates = new Map<string, { name: string; sha256: string; width: number; height: number }>();
const seenImages = new Map<string, string>();
const MAX_SEEN = 1024;
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= MAX_SEEN) map.delete(map.keys().next().value!);
  map.set(key, value);
}
function seenTemplate(requested: string, template: ResolvedTemplate): ResolvedTemplate {
  const { name, file, compiled } = template;
  remember(seenTemplates, requested, { name, sha256: file.sha256, width: compiled.width, height: compiled.height });
  return template;
}
const seenImage = (name: string, sha256: string) => remember(seenImages, name, sha256);

/** A fingerprint told ahead, with what it was made from. */
interface Guess {
  fingerprint: string;
  template: [name: string, sha256: string];
  inputs: Record<string, string> | undefined;
  box: { s: number; width: number; height: number };
}

/**
 * The preview's fingerprint if the template, the images and the font index are what this isolate
 * last saw; null when it has not seen one of them, or the request names an image by URL.
 */
async function guessedFingerprint(store: InputStore, options: PreviewOptions): Promise<Guess | null> {
  const requested = validName(options.template);
  const template = requested === null ? undefined : seenTemplates.get(requested);
  if (!template) return null;
  const box = boxScale(template.width, template.height, options.size);
  if (box.width * box.height > MAX_OUTPUT_PIXELS) return null;
  const data = requestData(options);
  let inputs: Record<string, string> | undefined;
  if (data) {
    // As gatherInputs hashes them.
    inputs = {};
    for (const ref of imageReferences(data)) {
      const name = isUrl(ref) ? null : validName(ref);
      const sha256 = name === null ? undefined : seenImages.get(name);
      if (!sha256) return null;
      inputs[`image:${ref}`] = sha256;
    }
    if (drawsTextOf(data)) {
      const fonts = store.heldFonts?.();
      if (!fonts) return null;
      inputs.fonts = await fontCatalogOf(fonts).hash;
    }
  }
  const named: Guess['template'] = [template.name, template.sha256];
  return { fingerprint: await fingerprintOf('preview', named, data, inputs, previewSettings(options, box)), template: named, inputs, box };
}

/**
 * Whether the resolved request is what `guess` was made from (the same options, so the same data
 * and settings when the box is the same): its fingerprint is then the guess's, not hashed again.
 */
function guessHolds(guess: Guess, request: ResolvedRequest, box: { s: number; width: number; height: number }): boolean {
  const [name, sha256] = guess.template;
  if (request.template.name !== name || request.template.file.sha256 !== sha256) return false;
  if (box.s !== guess.box.s || box.width !== guess.box.width || box.height !== guess.box.height) return false;
  const hashes = request.gathered?.hashes;
  if (!hashes || !guess.inputs) return hashes === guess.inputs;
  const keys = Object.keys(hashes);
  return keys.length === Object.keys(guess.inputs).length && keys.every((key) => hashes[key] === guess.inputs![key]);
}

/**
 * The result-cache key: SHA-256 of the canonical request (the output kind's own settings) with
 * the content hashes of the template and of every input, and the engine and render versions (a
 * deploy that changes pixels without recompiling templates must not answer with results made before).
 */
export function requestFingerprint(kind: string, request: ResolvedRequest, settings: Record<string, unknown>): Promise<string> {
  return fingerprintOf(kind, [request.template.name, request.template.file.sha256], request.data, request.gathered?.hashes, settings);
}

function fingerprintOf(
  kind: string,
  template: [name: string, sha256: string],
  data: PersonalisationData | undefined,
  inputs: Record<string, string> | undefined,
  settings: Record<string, unknown>,
): Promise<string> {
  return sha256Hex(canonicalJson({ ...settings, kind, engine: ENGINE_VERSION, render: RENDER_VERSION, template, data, inputs }));
}

/** A context for a request without `data`: nothing to load, only the template's own checks run. */
const NO_INPUTS: Omit<PersonaliseContext, 'scale'> = {
  loadFont: async () => null,
  loadImage: async (ref) => {
    throw notFound(`There is no image "${ref}".`);
  },
};

/**
 * The request's overrides at `scale`, its problems handed to `report`: the layer checks get the
 * template's trim box and resolution (src/engine/preflight/template.ts). Without `data` the checks
 * still run (a required layer is then empty) and there is nothing to override: undefined.
 */
export async function personalise(
  request: ResolvedRequest,
  options: Pick<PersonaliseContext, 'scale' | 'report' | 'layoutOnly' | 'timing' | 'textsAsVector' | 'textMemory'> & { report: ReportProblem },
): Promise<LayerOverrides | undefined> {
  const { template, data, gathered } = request;
  const { compiled } = template;
  const geometry = { ...printGeometry(compiled, template.file.meta.bleed), canvas: { width: compiled.width, height: compiled.height } };
  const overrides = await buildOverrides(compiled.layers, data ?? {}, { ...(gathered?.context ?? NO_INPUTS), ...geometry, ...options });
  return data ? overrides : undefined;
}

/**
 * The preview's output box, the scale it renders at and its memory plan; InvalidInput beyond
 * MAX_OUTPUT_PIXELS, Unprocessable beyond the memory budget or the effects' reach.
 */
function previewBox(compiled: CompiledTemplate, options: Pick<PreviewOptions, 'size' | 'format' | 'optimizePreview' | 'data'>) {
  const box = boxScale(compiled.width, compiled.height, options.size);
  if (box.width * box.height > MAX_OUTPUT_PIXELS) {
    throw invalidInput(`The output would be ${box.width}×${box.height} px; previews are limited to ${MAX_OUTPUT_PIXELS / 1e6} MP.`, [
      { path: 'size', reason: 'too large' },
    ]);
  }
  // A hidden layer's kernels count only where the request could show it.
  const showsHidden = mayShowHidden(options.data);
  const memory = checkPreviewMemory(compiled, box, { ...options, showsHidden });
  const scale = previewRenderScale(compiled, box.s, options.optimizePreview, showsHidden);
  checkEffectReach(compiled.layers, scale, showsHidden);
  return { ...box, scale, memory };
}

/** Everything preparePreview refuses before fetching, without fetching; the template it names. */
export async function checkPreview(store: InputStore, options: PreviewOptions): Promise<ResolvedTemplate> {
  return (await checkRequest(store, options, (compiled) => previewBox(compiled, options))).template;
}

/** What a preview's fingerprint carries besides the template and the inputs: its output's own settings. */
function previewSettings(options: PreviewOptions, box: { s: number; width: number; height: number }): Record<string, unknown> {
  const shrinking = box.s < 1;
  return {
    format: options.format,
    width: box.width,
    height: box.height,
    jpegQuality: options.format === 'jpg' ? options.jpegQuality : undefined,
    optimizePreview: shrinking ? !!options.optimizePreview : undefined,
    unsharpMask: shrinking ? options.unsharpMask : undefined,
  };
}

/**
 * `timing`, when given, receives template, validate, inputs and fingerprint. `lookahead`, when
 * given, receives the fingerprint this request will likely have (from what this isolate saw of
 * its template, images and fonts) while the template is being resolved: a caller may start its
 * result lookup with it, and must use that lookup only if `fingerprint` turns out the same.
 */
export async function preparePreview(
  store: InputStore,
  options: PreviewOptions,
  deps: RenderDeps,
  timing: Timing = noTiming,
  lookahead?: (fingerprint: string) => void,
): Promise<PreparedRender> {
  let box: ReturnType<typeof previewBox> | undefined;
  const resolving = resolveRequest(
    store,
    options,
    deps,
    (compiled) => {
      box = previewBox(compiled, options);
    },
    timing,
    true,
  );
  let guess: Guess | null = null;
  if (lookahead) {
    resolving.catch(() => {}); // awaited below
    guess = await guessedFingerprint(store, options).catch(() => null);
    if (guess) lookahead(guess.fingerprint);
  }
  const request = await resolving;
  const { template } = request;
  const { compiled } = template;
  const { s, width, height, scale, memory } = box!;
  const shrinking = s < 1;
  const fingerprint = await timing.time('fingerprint', () =>
    guess && guessHolds(guess, request, box!) ? guess.fingerprint : requestFingerprint('preview', request, previewSettings(options, box!)),
  );

  const problems: PreflightProblem[] = [];
  return {
    fingerprint,
    template,
    width,
    height,
    problems: () => [...problems],
    giveUp: () => request.done?.(),
    async render(timing: Timing = noTiming) {
      // Caches and this request's planned peak together within the budget (a large preview evicts).
      makeRoomForFrame(memory.total);
      // Shrinking: render at the pyramid level at or above s (exact stored pixels, no per-layer
      // resampling) when that stays small enough, then one high-quality downscale. With
      // optimizePreview, straight onto the output grid (each layer resampled from its level; every
      // layer, mask and effect still drawn): no final resample, a smaller canvas to composite,
      // 0.6–34 dB lower PSNR between pyramid levels (docs/performance.md, Output stage).
      const iccOf = () => (compiled.iccKey ? timing.time('icc', () => templateIcc(store.bucket, compiled.iccKey!)) : srgbProfile());
      // A CMYK document is composited in ink where the ink compositor models it (composite/cmyk-ink.ts).
      problems.length = 0;
      const coded = (image: RGBAImage) => timing.time('encode', async () => encode(image, options.format, options.jpegQuality, await iccOf()));
      const inked = await inkPreview(store, request, { s, width, height, memory, options, report: (p) => problems.push(p), timing, coded }).catch((err) => {
        request.done?.(); // failed: no picture is read
        throw err;
      });
      if (inked) {
        request.done?.();
        return inked;
      }
      problems.length = 0;
      // Once the overrides are built no picture is read: one opened ahead and not read is given up.
      const overrides = await timing
        .time('overrides', () => personalise(request, { scale, report: (p) => problems.push(p), timing, textMemory: REQUEST_MEMORY_BUDGET - memory.total }))
        .finally(() => request.done?.());
      try {
        const frameOptions: FrameOptions = {
          scale,
          width,
          height,
          quality: options.optimizePreview ? 'fast' : 'high',
          sharpen: shrinking ? options.unsharpMask : null,
          background: options.format === 'png' ? 'transparent' : undefined,
          overrides,
        };
        // A big JPEG is coded as its strips are drawn: its frame is never held (issue 25 §1).
        if (options.format === 'jpg' && streamsJpeg(frameOptions)) {
          const jpeg = await renderFrameJpeg(store.bucket, compiled, frameOptions, options.jpegQuality, timing);
          return jpegImage(jpeg, await iccOf());
        }
        if (options.format === 'png' && memory.streamed) {
          return { bytes: await renderFramePng(store.bucket, compiled, frameOptions, await iccOf(), codedBytesLimit(memory), timing), contentType: 'image/png', ext: 'png' };
        }
        const frame = await renderFrame(store.bucket, compiled, frameOptions, timing);
        const profile = await iccOf();
        // A JPEG of a kept template frame re-codes only the MCU rows the request changed (and never
        // reads `frame.image`, which would copy the kept frame).
        try {
          if (options.format === 'jpg') return await timing.time('encode', async () => jpegImage(await encodeFrameJpeg(frame, options.jpegQuality), profile));
          return await timing.time('encode', () => encode(frame.image, options.format, options.jpegQuality, profile));
        } finally {
          frame.release?.(); // its drawn canvas serves the next request (frame.ts takeCanvas)
        }
      } finally {
        releaseOverrides(overrides); // placements no cache keeps, drawn into lent arrays (personalise/overrides.ts)
      }
    },
  };
}

/**
 * What a preview knows of a template, by compiled hash, per isolate: 'rgb' (not CMYK: its header,
 * 26 bytes, read once; a template whose compiled form keeps an ICC key is RGB and never read),
 * 'cmyk', or 'unmodelled' (a CMYK document whose own stack the ink compositor does not model:
 * not read again).
 */
type InkKind = 'rgb' | 'cmyk' | 'unmodelled';
const inkKinds = new Map<string, InkKind>();
function rememberInkKind(hash: string, kind: InkKind): void {
  inkKinds.delete(hash);
  if (inkKinds.size >= 1024) inkKinds.delete(inkKinds.keys().next().value!);
  inkKinds.set(hash, kind);
}
async function inkKind(store: InputStore, template: ResolvedTemplate): Promise<InkKind> {
  const { compiled } = template;
  if (compiled.iccKey) return 'rgb';
  let known = inkKinds.get(compiled.hash);
  if (known === undefined) {
    known = isCmykHeader(await store.readStart('templates', template.file.name, 26)) ? 'cmyk' : 'rgb';
    rememberInkKind(compiled.hash, known);
  }
  return known;
}

/**
 * The frame of a CMYK template composited in ink and converted to sRGB as its merged image is
 * (docs/colour.md, "CMYK previews composited in ink"), or null for today's path: not CMYK, an
 * enlarged or streamed output, a document above INK_PREVIEW_MAX_PIXELS (composited at full size
 * whatever the output; not read then), a PSD above INK_PREVIEW_MAX_PSD_BYTES, the PSD and the
 * ink strips beyond the memory budget, or a
 * stack (the template's own, or with the request's overrides) the ink compositor does not model
 * everywhere.
 */
async function inkPreview(
  store: InputStore,
  request: ResolvedRequest,
  o: { s: number; width: number; height: number; memory: PreviewMemory; options: PreviewOptions; report: ReportProblem; timing: Timing; coded(image: RGBAImage): Promise<EncodedImage> },
): Promise<EncodedImage | null> {
  const { template } = request;
  const { compiled } = template;
  const { timing } = o;
  if (o.s > 1 || o.memory.streamed || compiled.width * compiled.height > INK_PREVIEW_MAX_PIXELS) return null;
  if ((await inkKind(store, template)) !== 'cmyk') return null;
  const sharpen = o.s < 1 ? o.options.unsharpMask : null;
  const shape = { width: o.width, height: o.height, quality: o.options.optimizePreview ? ('fast' as const) : ('high' as const), sharpen, background: o.options.format === 'png' ? ('transparent' as const) : undefined };
  // A repeated request without data: the kept output's bytes (else the kept ink frame, coded), the
  // PSD not read (its layer checks still run).
  const coding = o.options.format === 'png' ? 'png' : `jpg/${o.options.jpegQuality}`;
  const output = (bytes: Uint8Array): EncodedImage => (o.options.format === 'png' ? { bytes, contentType: 'image/png', ext: 'png' } : { bytes, contentType: 'image/jpeg', ext: 'jpg' });
  const keptBytes = request.data ? null : keptInkOutput(compiled, shape, coding);
  const kept = request.data || keptBytes ? null : keptInkFrame(compiled, shape);
  if (keptBytes || kept) {
    await personalise(request, { scale: 1, report: o.report, timing });
    if (keptBytes) return output(keptBytes);
    const image = await o.coded(kept!);
    keepInkOutput(compiled, shape, coding, image.bytes);
    return image;
  }
  const plan = inkPreviewMemory(compiled, o, !!sharpen);
  const size = template.file.size ?? 0;
  if (size > INK_PREVIEW_MAX_PSD_BYTES || plan + size > REQUEST_MEMORY_BUDGET) return null;
  makeRoomForFrame(plan + size);
  const read = await timing.time('template-read', () => store.read('templates', template.file.name));
  if (!read || read.bytes.length > INK_PREVIEW_MAX_PSD_BYTES || plan + read.bytes.length > REQUEST_MEMORY_BUDGET) return null;
  const doc = inkDocument(read.bytes, compiled);
  // The template's own stack first, so that a request that would fall back builds no overrides twice.
  if (!doc || !doc.layers.models(new Map(), documentInks(doc, undefined))) {
    rememberInkKind(compiled.hash, 'unmodelled');
    return null;
  }
  // Overrides at full size: the ink is composited there.
  const overrides = (await timing.time('overrides', () => personalise(request, { scale: 1, report: o.report, timing }))) ?? new Map();
  const content = documentInks(doc, request.data);
  if (!doc.layers.models(overrides, content)) return null;
  const image = await o.coded(await timing.time('render', () => inkFrame(doc, compiled, { ...shape, overrides, content })));
  // The template's own output (no data): kept for the requests that repeat it.
  if (!request.data) keepInkOutput(compiled, shape, coding, image.bytes);
  return image;
}

/**
 * The preflight of a preview request (issue 21): the same template, `data` and refusals as
 * preparePreview, and the problems its render would report, found without drawing: text is laid
 * out at print size (scale 1) and pictures are measured, nothing is composited or encoded.
 * `timing` receives template, validate, inputs and preflight.
 */
export async function preflightPreview(store: InputStore, options: PreviewOptions, deps: RenderDeps, timing: Timing = noTiming): Promise<PreflightReport> {
  const request = await resolveRequest(store, options, deps, (compiled) => previewBox(compiled, options), timing);
  const problems: PreflightProblem[] = [];
  await timing.time('preflight', () => personalise(request, { scale: 1, report: (p) => problems.push(p), layoutOnly: true }));
  return preflightReport(problems);
}

/**
 * A compiled template's ICC profile, kept per isolate (its key carries the template's content
 * hash, so an entry never goes stale): one R2 read per template, not per preview. The bytes are
 * kept, not the read's promise: a promise whose I/O belongs to one request must not be awaited by
 * another (the Workers runtime cancels it with its request, and the other would hang).
 */
const iccProfiles = new Map<string, Uint8Array>();
async function templateIcc(bucket: R2Bucket, key: string): Promise<Uint8Array> {
  const held = iccProfiles.get(key);
  if (held) return held;
  const obj = await bucket.get(key);
  const icc = obj ? new Uint8Array(await obj.arrayBuffer()) : srgbProfile();
  if (iccProfiles.size >= 64) iccProfiles.delete(iccProfiles.keys().next().value!);
  iccProfiles.set(key, icc);
  return icc;
}

/** JPEG (flattened over white) or PNG (alpha kept), with `icc` embedded when given. */
export async function encode(
  img: RGBAImage,
  format: OutputFormat,
  jpegQuality: number,
  icc: Uint8Array | null,
): Promise<EncodedImage> {
  if (format === 'png') {
    const png = await encodePng(img);
    return { bytes: icc ? await embedIcc(png, 'png', icc) : png, contentType: 'image/png', ext: 'png' };
  }
  await flattenOverWhite(img.data);
  return jpegImage(await encodeJpeg(img, jpegQuality), icc);
}

/** JPEG bytes as an EncodedImage, with `icc` embedded when given. */
async function jpegImage(jpeg: Uint8Array, icc: Uint8Array | null): Promise<EncodedImage> {
  return { bytes: icc ? await embedIcc(jpeg, 'jpeg', icc) : jpeg, contentType: 'image/jpeg', ext: 'jpg' };
}

// --- image thumbnails -------------------------------------------------------------------------

export interface ThumbnailOptions {
  format: OutputFormat;
  jpegQuality: number;
  width: number;
  height: number;
  unsharpMask: UnsharpMask | null;
}

/**
 * Thumbnails are cached per size bucket, not per request: the image fitted into a bucket×bucket
 * box (longest side rounded up to one of these), from which each request's exact size is made
 * cheaply. An image thus has at most this many cached thumbnails, whatever the queries.
 */
export const THUMBNAIL_BUCKETS = [128, 256, 512, 1024, 2048] as const;

/** What a thumbnail request gives for an image of `source` size: fitted into the box, never enlarged. */
export function thumbnailSize(source: { width: number; height: number }, box: { width: number; height: number }) {
  const fit = boxScale(source.width, source.height, box);
  return fit.s < 1 ? { width: fit.width, height: fit.height, shrunk: true } : { width: source.width, height: source.height, shrunk: false };
}

/** The bucket that serves an output of `size`; null beyond the largest (made from the original, not cached). */
export function thumbnailBucket(size: { width: number; height: number }): number | null {
  return THUMBNAIL_BUCKETS.find((b) => b >= Math.max(size.width, size.height)) ?? null;
}

/**
 * The cached form of a bucket: the image fitted into bucket×bucket (never enlarged), EXIF
 * orientation applied, as PNG (lossless: the exact size is made from it) with the image's ICC
 * profile. Undecodable bytes → Unprocessable.
 */
export async function thumbnailSource(bytes: Uint8Array, bucket: number): Promise<Uint8Array> {
  const img = await decodeBounded(bytes, {
    path: 'file',
    size: (src) => {
      makeRoom(src.width * src.height * DECODE_BYTES_PER_PIXEL);
      return thumbnailSize(src, { width: bucket, height: bucket });
    },
  });
  const icc = await readIcc(bytes, bytes[0] === 0xff ? 'jpeg' : 'png').catch(() => null);
  return (await encode(img, 'png', 0, icc)).bytes;
}

/**
 * A stored image fitted into width×height, never enlarged, EXIF orientation applied, keeping the
 * image's own ICC profile. From a bucket's thumbnailSource, `of` gives the size and whether it
 * shrinks, as thumbnailSize computed them from the original image (the unsharp mask acts only
 * then). Undecodable bytes → Unprocessable.
 */
export async function thumbnail(
  bytes: Uint8Array,
  options: ThumbnailOptions & { of?: { width: number; height: number; shrunk: boolean } },
): Promise<EncodedImage> {
  let shrunk = false;
  let img: RGBAImage = await decodeBounded(bytes, {
    path: 'file',
    size: (src) => {
      makeRoom(src.width * src.height * DECODE_BYTES_PER_PIXEL);
      const size = options.of ?? thumbnailSize(src, options);
      shrunk = size.shrunk;
      return size;
    },
  });
  if (shrunk && options.unsharpMask) img = await unsharpMask(img, options.unsharpMask);
  const icc = await readIcc(bytes, bytes[0] === 0xff ? 'jpeg' : 'png').catch(() => null);
  return encode(img, options.format, options.jpegQuality, icc);
}
