/**
 * From a render request to output bytes, free of HTTP (the preview endpoint and later the PDF
 * endpoints share the resolution of templates, fonts and images done here):
 *
 *   resolve the template name → its compiled form (compiled on first use)
 *   → gather what `data` names (stored images, URL images, fonts) and fingerprint all inputs
 *   → personalisation overrides → render at the nearest pyramid scale
 *   → resample + unsharp mask (only when shrinking) → encode → embed the ICC profile
 *
 * `preparePreview` does everything up to the fingerprint, so the caller can consult its result
 * cache before paying for `render()`.
 */
import { ApiError, badRequest, notFound } from '../errors';
import type { FileStore, StoredFile } from '../storage/files';
import { sha256Hex } from '../storage/files';
import { readFontIndex } from '../storage/font-index';
import { fileName } from '../storage/names';
import { cached, imageCache, makeRoom } from './cache';
import { compileTemplate, ENGINE_VERSION, loadCompiledTemplateCached } from './index';
import { encodeFrameJpeg, renderFrame } from './frame';
import { FontCatalog, fontLoader } from './fonts/catalog';
import { buildOverrides, imageReferences, validateData, type PersonaliseContext, type PersonalisationData } from './personalise';
import {
  decodeBounded,
  embedIcc,
  encodeJpeg,
  encodePng,
  fetchImage,
  flattenOverWhite,
  readIcc,
  srgbProfile,
  unsharpMask,
  type UnsharpMask,
} from './raster';
import type { CompiledTemplate, RGBAImage } from './types';
import { ServerTiming } from '../http/server-timing';

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
  file: StoredFile;
  compiled: CompiledTemplate;
}

/** Names to try for a requested template: as given, then with .psd, then with .psb. */
function candidates(name: string): string[] {
  return /\.ps[db]$/i.test(name) ? [name] : [name, `${name}.psd`, `${name}.psb`];
}

/** The template a request names, compiled (on first use when an upload predates compiling). */
export async function resolveTemplate(store: FileStore, requested: string): Promise<ResolvedTemplate> {
  const name = fileName(requested, 'template');
  let file: StoredFile | null = null;
  for (const candidate of candidates(name)) {
    file = await store.head('templates', candidate);
    if (file) break;
  }
  if (!file) throw notFound(`There is no template "${name}".`);
  const known = file.meta.engine === ENGINE_VERSION ? file.meta.compiled : undefined;
  const compiled = known ? await loadCompiledTemplateCached(store.bucket, known) : null;
  if (compiled) return { name: file.name, file, compiled };

  const read = await store.read('templates', file.name);
  if (!read) throw notFound(`There is no template "${name}".`);
  const fresh = await compileTemplate(store.bucket, read.bytes);
  // Remember the compiled form (unless the file was replaced meanwhile).
  await store.put('templates', file.name, read.bytes, {
    contentType: read.info.contentType,
    meta: { ...read.info.meta, compiled: fresh.hash, engine: ENGINE_VERSION },
    ifEtag: read.info.etag,
  });
  return { name: file.name, file: read.info, compiled: fresh };
}

// --- personalisation inputs -------------------------------------------------------------------

export interface PipelineDeps {
  /** Plain http image URLs are fetched only in local development (rendering contract). */
  allowHttp: boolean;
}

const isUrl = (ref: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(ref);

/**
 * Everything `data` refers to, loaded before rendering so that the fingerprint can carry its
 * content: images (stored or by URL; concurrently when `preload`), and the font store's index
 * when text is re-rendered. Returns the loaders buildOverrides uses and the content hashes.
 */
export async function gatherInputs(
  store: FileStore,
  data: PersonalisationData,
  preload: boolean,
  deps: PipelineDeps,
): Promise<{ context: Omit<PersonaliseContext, 'scale'>; hashes: Record<string, string> }> {
  // Error paths name the first layer that uses a reference.
  const refs = imageReferences(data);
  const layerOf = (ref: string) => Object.entries(data).find(([, c]) => c.type === 'image' && c.image === ref)?.[0];
  const pathOf = new Map(refs.map((ref) => [ref, `data.${layerOf(ref)}.image`]));
  const drawsText = Object.values(data).some((command) => command.type === 'text');

  // URL images are fetched now (their hash is of the bytes); stored images are hashed from their
  // metadata and read only when rendering, so a cache hit reads no image.
  const images = new Map<string, Uint8Array | string>();
  const hashes: Record<string, string> = {};
  const load = async (ref: string) => {
    const path = pathOf.get(ref)!;
    if (isUrl(ref)) {
      const { bytes } = await fetchImage(ref, { allowHttp: deps.allowHttp, path });
      images.set(ref, bytes);
      hashes[`image:${ref}`] = await sha256Hex(bytes);
      return;
    }
    const name = fileName(ref, path);
    const file = await store.head('images', name);
    if (!file) throw new ApiError(404, 'not_found', `There is no image "${ref}".`, [{ path, reason: 'unknown image' }]);
    images.set(ref, name);
    hashes[`image:${ref}`] = file.sha256;
  };
  const bytesOf = async (ref: string): Promise<Uint8Array> => {
    const held = images.get(ref)!;
    if (typeof held !== 'string') return held;
    const read = await store.read('images', held);
    if (!read) throw new ApiError(404, 'not_found', `There is no image "${ref}".`, [{ path: pathOf.get(ref)!, reason: 'unknown image' }]);
    return read.bytes;
  };
  if (preload) await Promise.all(refs.map(load));
  else for (const ref of refs) await load(ref);

  // Unmodified text is drawn from Photoshop's pixels: fonts matter only when text is re-rendered,
  // and then any font of the store may be picked (the layer's, the requested, a substitute).
  // Font bytes are read from R2 once per isolate: the cache key carries the file's content hash.
  const catalog = new FontCatalog();
  if (drawsText) {
    const fonts = await readFontIndex(store);
    for (const f of fonts) catalog.add(`${f.file}#${f.sha256}`, f);
    hashes.fonts = await sha256Hex(JSON.stringify(fonts.map((f) => [f.postscriptName, f.sha256]).sort()));
  }
  return {
    hashes,
    context: {
      loadFont: fontLoader(catalog, async (key) => (await store.read('fonts', key.slice(0, key.lastIndexOf('#'))))?.bytes ?? null),
      imageKey: (ref) => (hashes[`image:${ref}`] ? `image/${hashes[`image:${ref}`]}` : undefined),
      async loadImage(ref, target) {
        // Decoded no larger than needed to cover the placement (never enlarged here); kept per
        // isolate by content hash and size, so a repeated picture is neither read nor decoded.
        const key = `image/${hashes[`image:${ref}`]}/${target.width}x${target.height}`;
        return cached(imageCache, key, async () =>
          decodeBounded(await bytesOf(ref), {
            path: pathOf.get(ref),
            size: (src) => {
              makeRoom(src.width * src.height * DECODE_BYTES_PER_PIXEL);
              const k = Math.min(1, Math.max(target.width / src.width, target.height / src.height));
              return { width: src.width * k, height: src.height * k };
            },
          }),
        );
      },
    },
  };
}

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
  render(timing?: ServerTiming): Promise<EncodedImage>;
}

/** Largest preview we produce (pixels): 128 MB isolates hold the output a few times over. */
export const MAX_OUTPUT_PIXELS = 25_000_000;
/** Largest intermediate render when shrinking via a pyramid level. */
const MAX_INTERMEDIATE_PIXELS = 16_000_000;

/** s = min(w/W, h/H); output (round(W·s), round(H·s)), at least 1 px (rendering contract, Output). */
export function boxScale(width: number, height: number, box: { width: number; height: number }) {
  const s = Math.min(box.width / width, box.height / height);
  return { s, width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)) };
}

/** JSON with sorted keys: equal requests give equal fingerprints whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What every render starts from, preview or PDF: the template, its checked `data`, and the inputs `data` names. */
export interface ResolvedRequest {
  template: ResolvedTemplate;
  data?: PersonalisationData;
  gathered: Awaited<ReturnType<typeof gatherInputs>> | null;
}

/**
 * Resolves the template, reports every problem with `data` at once (400) before anything is
 * fetched, then gathers what `data` names. `check` runs on the compiled template first, for
 * refusals that must come before any fetching (e.g. an output size limit).
 */
export async function resolveRequest(
  store: FileStore,
  options: { template: string; data?: PersonalisationData; preloadImages?: boolean },
  deps: PipelineDeps,
  check?: (compiled: ResolvedTemplate['compiled']) => void,
): Promise<ResolvedRequest> {
  const template = await resolveTemplate(store, options.template);
  check?.(template.compiled);
  const data = options.data && Object.keys(options.data).length ? options.data : undefined;
  if (data) validateData(template.compiled.layers, data);
  const gathered = data ? await gatherInputs(store, data, !!options.preloadImages, deps) : null;
  return { template, data, gathered };
}

/**
 * The result-cache key: SHA-256 of the canonical request (the output kind's own settings) with
 * the content hashes of the template and of every input, and the engine version.
 */
export function requestFingerprint(kind: string, request: ResolvedRequest, settings: Record<string, unknown>): Promise<string> {
  return sha256Hex(
    canonicalJson({
      ...settings,
      kind,
      engine: ENGINE_VERSION,
      template: [request.template.name, request.template.file.sha256],
      data: request.data,
      inputs: request.gathered?.hashes,
    }),
  );
}

export async function preparePreview(store: FileStore, options: PreviewOptions, deps: PipelineDeps): Promise<PreparedRender> {
  let box = { s: 1, width: 0, height: 0 };
  const request = await resolveRequest(store, options, deps, (compiled) => {
    box = boxScale(compiled.width, compiled.height, options.size);
    if (box.width * box.height > MAX_OUTPUT_PIXELS) {
      throw badRequest(`The output would be ${box.width}×${box.height} px; previews are limited to ${MAX_OUTPUT_PIXELS / 1e6} MP.`, [
        { path: 'size', reason: 'too large' },
      ]);
    }
  });
  const { template, data, gathered } = request;
  const { compiled } = template;
  const { s, width, height } = box;
  const shrinking = s < 1;
  const fingerprint = await requestFingerprint('preview', request, {
    format: options.format,
    width,
    height,
    jpegQuality: options.format === 'jpg' ? options.jpegQuality : undefined,
    optimizePreview: shrinking ? !!options.optimizePreview : undefined,
    unsharpMask: shrinking ? options.unsharpMask : undefined,
  });

  return {
    fingerprint,
    template,
    width,
    height,
    async render(timing = new ServerTiming()) {
      // Shrinking: render at the pyramid level at or above s (exact stored pixels, no per-layer
      // resampling) when that stays small enough, then one high-quality downscale. With
      // optimizePreview, straight onto the output grid (each layer resampled from its level; every
      // layer, mask and effect still drawn): no final resample, a smaller canvas to composite,
      // 0.6–34 dB lower PSNR between pyramid levels (docs/performance.md, Output stage).
      let scale = s;
      if (shrinking && !options.optimizePreview) {
        const level = 2 ** -Math.floor(Math.log2(1 / s));
        if (compiled.width * compiled.height * level * level <= MAX_INTERMEDIATE_PIXELS) scale = level;
      }
      const overrides =
        data && gathered ? await timing.time('overrides', () => buildOverrides(compiled.layers, data, { ...gathered.context, scale })) : undefined;
      const frame = await renderFrame(store.bucket, compiled, {
        scale,
        width,
        height,
        quality: options.optimizePreview ? 'fast' : 'high',
        sharpen: shrinking ? options.unsharpMask : null,
        background: options.format === 'png' ? 'transparent' : undefined,
        overrides,
      }, timing);
      const icc = compiled.iccKey ? await store.bucket.get(compiled.iccKey) : null;
      const profile = icc ? new Uint8Array(await icc.arrayBuffer()) : srgbProfile();
      // A JPEG of a kept template frame re-codes only the MCU rows the request changed.
      const jpeg = (_: RGBAImage, quality: number) => encodeFrameJpeg(frame, quality);
      return timing.time('encode', () => encode(frame.image, options.format, options.jpegQuality, profile, jpeg));
    },
  };
}

const plainJpeg = async (img: RGBAImage, quality: number) => encodeJpeg(await flattenOverWhite(img), quality);

/** JPEG (flattened over white) or PNG (alpha kept), with `icc` embedded when given. */
export async function encode(
  img: RGBAImage,
  format: OutputFormat,
  jpegQuality: number,
  icc: Uint8Array | null,
  encodeJpegOf: (img: RGBAImage, quality: number) => Promise<Uint8Array> = plainJpeg,
): Promise<EncodedImage> {
  if (format === 'png') {
    const png = await encodePng(img);
    return { bytes: icc ? await embedIcc(png, 'png', icc) : png, contentType: 'image/png', ext: 'png' };
  }
  const jpeg = await encodeJpegOf(img, jpegQuality);
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
 * A stored image fitted into width×height (never enlarged), EXIF orientation applied, keeping the
 * image's own ICC profile. Undecodable bytes → 422.
 */
export async function thumbnail(bytes: Uint8Array, options: ThumbnailOptions): Promise<EncodedImage> {
  let shrunk = false;
  let img: RGBAImage = await decodeBounded(bytes, {
    path: 'file',
    size: (src) => {
      makeRoom(src.width * src.height * DECODE_BYTES_PER_PIXEL);
      const box = boxScale(src.width, src.height, options);
      shrunk = box.s < 1;
      return shrunk ? box : src;
    },
  });
  if (shrunk && options.unsharpMask) img = await unsharpMask(img, options.unsharpMask);
  const icc = await readIcc(bytes, bytes[0] === 0xff ? 'jpeg' : 'png').catch(() => null);
  return encode(img, options.format, options.jpegQuality, icc);
}
