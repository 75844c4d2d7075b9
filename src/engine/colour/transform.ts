import { lcmsSync, type Lcms } from './lcms';
import { InvalidProfile } from './profile';
import { rgbLut } from './rgb-lut';
import { RENDERING_INTENTS, type ColourTransform, type PixelLayout, type TransformOptions } from './types';
import { fnv1a32 } from '../hash';

/**
 * ICC transforms built by LittleCMS, cached per isolate. LittleCMS precalculates each transform
 * into a device link (optimised lookup with interpolation) when it is built, so applying one is
 * a table lookup per pixel; building one costs milliseconds, hence the cache.
 */

// lcms2.h pixel format bit fields.
const COLORSPACE_SH = (s: number) => s << 16;
const FLAVOR_SH = (s: number) => s << 13;
const EXTRA_SH = (e: number) => e << 7;
const CHANNELS_SH = (c: number) => c << 3;
const PT_GRAY = 3;
const PT_RGB = 4;
const PT_CMYK = 6;
const cmsFLAGS_BLACKPOINTCOMPENSATION = 0x2000;
const cmsFLAGS_COPY_ALPHA = 0x04000000;

interface Layout {
  name: PixelLayout;
  format: number;
  /** Bytes a pixel. */
  size: number;
  alpha: boolean;
  wide: boolean;
  space: 'Rgb' | 'Cmyk' | 'Grayscale';
}

const layout = (name: PixelLayout, space: Layout['space'], pt: number, channels: number, bytes: 1 | 2, alpha = false, flavor = 0): Layout => ({
  name,
  format: COLORSPACE_SH(pt) | FLAVOR_SH(flavor) | EXTRA_SH(alpha ? 1 : 0) | CHANNELS_SH(channels) | bytes,
  size: (channels + (alpha ? 1 : 0)) * bytes,
  alpha,
  wide: bytes === 2,
  space,
});

const LAYOUTS: Record<PixelLayout, Layout> = {
  RGB: layout('RGB', 'Rgb', PT_RGB, 3, 1),
  RGBA: layout('RGBA', 'Rgb', PT_RGB, 3, 1, true),
  CMYK: layout('CMYK', 'Cmyk', PT_CMYK, 4, 1),
  // lcms2's "vanilla" flavour bit: 0 = max ink, as Photoshop stores CMYK.
  CMYK_INVERTED: layout('CMYK_INVERTED', 'Cmyk', PT_CMYK, 4, 1, false, 1),
  GRAY: layout('GRAY', 'Grayscale', PT_GRAY, 1, 1),
  RGB16: layout('RGB16', 'Rgb', PT_RGB, 3, 2),
  RGBA16: layout('RGBA16', 'Rgb', PT_RGB, 3, 2, true),
  CMYK16: layout('CMYK16', 'Cmyk', PT_CMYK, 4, 2),
  GRAY16: layout('GRAY16', 'Grayscale', PT_GRAY, 1, 2),
};

/** Transforms kept per isolate; each holds a device link of a few hundred KB at most. */
const CACHE_SIZE = 16;
const cache = new Map<string, Built>();

interface Built extends ColourTransform {
  free(): void;
}

/** The 16-bit layout of a target's colour channels (no alpha), for sampling it on a grid. */
const WIDE_COLOUR: Partial<Record<PixelLayout, PixelLayout>> = { RGB: 'RGB16', RGBA: 'RGB16', CMYK: 'CMYK16', CMYK_INVERTED: 'CMYK16', GRAY: 'GRAY16' };

/**
 * A transform from one profile and layout to another (see index.ts for the conventions).
 * Rejects with InvalidProfile when a profile cannot be read or does not match its layout.
 */
export async function colourTransform(opts: TransformOptions): Promise<ColourTransform> {
  return colourTransformSync(opts);
}

/**
 * The same, synchronously, for code that converts inside synchronous decoders (PSD rows):
 * LittleCMS starts synchronously on first use. Throws InvalidProfile like the async form.
 */
export function colourTransformSync(opts: TransformOptions): ColourTransform {
  const from = LAYOUTS[opts.fromLayout];
  const to = LAYOUTS[opts.toLayout];
  if (!from || !to) throw new TypeError(`Unknown pixel layout ${!from ? opts.fromLayout : opts.toLayout}`);
  const intent = RENDERING_INTENTS.indexOf(opts.intent ?? 'RelativeColorimetric');
  if (intent < 0) throw new TypeError(`Unknown rendering intent ${opts.intent}`);
  const bpc = opts.blackPointCompensation ?? true;
  const key = `${fingerprint(opts.from)}>${fingerprint(opts.to)}:${opts.fromLayout}>${opts.toLayout}:${intent}:${bpc ? 1 : 0}`;
  let entry = cache.get(key);
  if (entry) {
    cache.delete(key); // re-inserted last: most recently used
  } else {
    entry = build(lcmsSync(), opts.from, opts.to, from, to, intent, bpc);
    while (cache.size >= CACHE_SIZE) {
      const [oldest, evicted] = cache.entries().next().value!;
      cache.delete(oldest);
      evicted.free();
    }
  }
  cache.set(key, entry);
  return entry;
}

function build(m: Lcms, fromIcc: Uint8Array, toIcc: Uint8Array, from: Layout, to: Layout, intent: number, bpc: boolean): Built {
  const create = () => {
    const input = open(m, fromIcc, from, 'source');
    let output = 0;
    let made = 0;
    try {
      output = open(m, toIcc, to, 'destination');
      const flags = (bpc ? cmsFLAGS_BLACKPOINTCOMPENSATION : 0) | (from.alpha && to.alpha ? cmsFLAGS_COPY_ALPHA : 0);
      made = m._cmsCreateTransform(input, from.format, output, to.format, intent, flags);
    } finally {
      m._cmsCloseProfile(input);
      if (output) m._cmsCloseProfile(output);
    }
    if (!made) throw new InvalidProfile(`LittleCMS cannot build a ${RENDERING_INTENTS[intent]} transform between these profiles.`, [{ path: 'profile', reason: 'no transform' }]);
    return made;
  };
  let transform = create();
  // 8-bit RGB input: LittleCMS's transform sampled on a grid, evaluated in JS (see rgb-lut.ts for
  // why), made on first use; every call takes it, so a pixel converts alike in any strip.
  const wideTarget = from.space === 'Rgb' && !from.wide ? WIDE_COLOUR[to.name] : undefined;
  let lut: ((source: Uint8Array, target: Uint8Array, pixelCount: number) => void) | undefined;
  const makeLut = () => {
    const channels = to.space === 'Cmyk' ? 4 : to.space === 'Rgb' ? 3 : 1;
    const sampler = build(m, fromIcc, toIcc, LAYOUTS.RGB16, LAYOUTS[wideTarget!], intent, bpc);
    try {
      return rgbLut({ sourceSize: from.alpha ? 4 : 3, channels, targetSize: to.size, targetAlpha: to.alpha }, (grid, out, count) => {
        sampler.apply(new Uint8Array(grid.buffer), new Uint8Array(out.buffer), count);
        if (to.name === 'CMYK_INVERTED') for (let i = 0; i < out.length; i++) out[i] = 65535 - out[i]!;
      });
    } finally {
      sampler.free();
    }
  };

  // Scratch buffers on the WASM heap, grown to the largest strip seen (never shrunk).
  let capacity = 0;
  let src = 0;
  let dst = 0;
  const fillAlpha = to.alpha && !from.alpha;
  return {
    apply(source: Uint8Array, target: Uint8Array, pixelCount: number) {
      if (pixelCount <= 0) return;
      if (source.length < pixelCount * from.size || target.length < pixelCount * to.size) throw new RangeError(`colourTransform: buffers hold fewer than ${pixelCount} pixels`);
      if (wideTarget) return (lut ??= makeLut())(source, target, pixelCount);
      // Evicted from the cache while a caller still held it: made again (the profiles are kept).
      if (!transform) transform = create();
      if (pixelCount > capacity) {
        if (src) m._free(src);
        if (dst) m._free(dst);
        capacity = pixelCount;
        src = m._malloc(capacity * from.size);
        dst = m._malloc(capacity * to.size);
        if (!src || !dst) {
          if (src) m._free(src);
          if (dst) m._free(dst);
          const failed = capacity;
          capacity = src = dst = 0;
          throw new RangeError(`LittleCMS: no memory for a strip of ${failed} pixels`);
        }
      }
      m.HEAPU8.set(source.subarray(0, pixelCount * from.size), src);
      m._cmsDoTransform(transform, src, dst, pixelCount);
      // HEAPU8 is read after the call: memory may have grown (a new buffer) during it.
      target.set(m.HEAPU8.subarray(dst, dst + pixelCount * to.size));
      if (fillAlpha) {
        if (to.wide) {
          for (let i = to.size - 2; i < pixelCount * to.size; i += to.size) target[i] = target[i + 1] = 255;
        } else {
          for (let i = to.size - 1; i < pixelCount * to.size; i += to.size) target[i] = 255;
        }
      }
    },
    free() {
      if (transform) m._cmsDeleteTransform(transform);
      if (src) m._free(src);
      if (dst) m._free(dst);
      transform = capacity = src = dst = 0;
    },
  };
}

function open(m: Lcms, icc: Uint8Array, layout: Layout, which: string): number {
  const at = m._malloc(icc.length);
  if (!at) throw new RangeError('LittleCMS: no memory for a colour profile');
  m.HEAPU8.set(icc, at);
  const profile = m._cmsOpenProfileFromMem(at, icc.length);
  m._free(at); // LittleCMS keeps its own copy of what it read
  if (!profile) throw new InvalidProfile(`The ${which} colour profile is not a valid ICC profile.`, [{ path: 'profile', reason: `${which} unreadable` }]);
  const space = m._cmsGetColorSpace(profile);
  const expected = { Rgb: 0x52474220, Cmyk: 0x434d594b, Grayscale: 0x47524159 }[layout.space];
  if (space !== expected) {
    m._cmsCloseProfile(profile);
    throw new InvalidProfile(`The ${which} colour profile is not a ${layout.space} profile.`, [{ path: 'profile', reason: `${which} not ${layout.space}` }]);
  }
  return profile;
}

const prints = new WeakMap<Uint8Array, string>();

/** A content key for a profile's bytes (FNV-1a, two seeds, and the length), memoised per array. */
function fingerprint(bytes: Uint8Array): string {
  let known = prints.get(bytes);
  if (known) return known;
  const a = fnv1a32(bytes);
  const b = fnv1a32(bytes, 0x01000193 ^ bytes.length, 0x5bd1e995);
  known = `${a.toString(36)}${b.toString(36)}${bytes.length.toString(36)}`;
  prints.set(bytes, known);
  return known;
}
