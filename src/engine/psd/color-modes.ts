import type { Layer, Psd } from 'ag-psd';
import { colourTransformSync, defaultProfile, readProfileInfo, type ColourTransform } from '../colour';
import { unprocessable } from '../errors';
import type { LayerNode } from '../types';
import { labRowToRgba } from './lab';

/**
 * Colour modes and bit depths other than 8-bit RGB. The compiled form stays 8-bit RGBA, so the
 * compositor never sees them: samples are narrowed to 8 bits and converted to RGB as each row
 * is decoded (at compile), one row at a time.
 *
 * - 16 bit: Photoshop's 16-bit mode stores 0..65535; converting a document to 8 bits gives
 *   round(v × 255 / 65535), which is what we do per sample (a and b of Lab: see below).
 * - 32 bit (RGB and Grayscale only, as in Photoshop): big-endian floats, every channel (colour,
 *   transparency, masks, spots) read as round(clamp(v, 0, 1) × 255), no tone curve: the value
 *   psd-tools' tests hold for Photoshop's 32-bit files (32bit5x5.psd reads as its 16-bit twin),
 *   as ImageMagick and ag-psd read them; the embedded profile is kept (docs/fidelity.md).
 * - Grayscale (1) and Duotone (8): one colour channel, expanded to R = G = B. Duotone's inks
 *   (its colour mode data) are not applied: it renders as its grey channel.
 * - CMYK (4): channels are stored inverted (255 = no ink). Converted to sRGB by LittleCMS
 *   through the document's embedded profile (image resource 1039), else the default CMYK profile
 *   (src/engine/colour), relative colorimetric with black-point compensation: Photoshop's default
 *   colour settings, so previews match what Photoshop shows. Layers are converted before they
 *   are blended, whereas Photoshop blends in CMYK: exact for Normal at full opacity,
 *   approximate for other modes and partial opacity.
 * - Lab (9): L 0..255 for 0..100, a and b 0..255 for −128..127 (at 16 bits L 0..65535, a and b
 *   32768 + 256·a, so to 8 bits round(v / 256)); D50 Lab to sRGB by ./lab.ts, the same maths
 *   every Lab colour of the engine takes. Blended after conversion, as CMYK is.
 * - Multichannel (7): no layers; every channel an ink (stored 255 = none) shown in its
 *   DisplayInfo colour over white paper, as spot channels are (./multichannel.ts).
 */
export const ColorMode = { Bitmap: 0, Grayscale: 1, Indexed: 2, RGB: 3, CMYK: 4, Multichannel: 7, Duotone: 8, Lab: 9 } as const;

const NAMES = ['Bitmap', 'Grayscale', 'Indexed', 'RGB', 'CMYK', '', '', 'Multichannel', 'Duotone', 'Lab'];
export const colorModeName = (mode: number) => NAMES[mode] || `mode ${mode}`;

/**
 * What we render: RGB, Grayscale, Duotone, CMYK and Lab at 8 or 16 bits a channel, RGB and
 * Grayscale at 32 too (Photoshop has no other 32-bit mode); and the flat modes, Indexed (8 bits),
 * Bitmap (1 bit) and Multichannel (8 or 16 bits), which hold no layers, only the merged image.
 */
export function refuseUnsupportedMode(mode: number, depth: number): void {
  if (!NAMES[mode]) {
    const name = colorModeName(mode);
    throw unprocessable(
      `Colour mode ${name} is not supported; templates can be RGB, Grayscale, Duotone, CMYK, Lab, Indexed, Bitmap or Multichannel.`,
      [{ path: 'colorMode', reason: name }],
    );
  }
  if (mode === ColorMode.Indexed && depth !== 8) throw unprocessable(`An Indexed document of ${depth} bits a channel is not valid.`, [{ path: 'bitsPerChannel', reason: String(depth) }]);
  if (mode === ColorMode.Bitmap && depth !== 1) throw unprocessable(`A Bitmap document of ${depth} bits a channel is not valid.`, [{ path: 'bitsPerChannel', reason: String(depth) }]);
  if (mode === ColorMode.Indexed || mode === ColorMode.Bitmap) return;
  const deep = mode === ColorMode.RGB || mode === ColorMode.Grayscale;
  if (depth !== 8 && depth !== 16 && !(depth === 32 && deep)) {
    const name = colorModeName(mode);
    throw unprocessable(
      depth === 32
        ? `A 32-bit ${name} document is not valid (Photoshop has 32 bits a channel only in RGB and Grayscale).`
        : `Bit depth ${depth} is not supported; templates can have 8 or 16 bits a channel, or 32 in RGB and Grayscale.`,
      [{ path: 'bitsPerChannel', reason: String(depth) }],
    );
  }
}

/** How many colour channels a mode stores (before any transparency or extra channels). */
export const colorChannels = (mode: number) => (mode === ColorMode.CMYK ? 4 : mode === ColorMode.RGB || mode === ColorMode.Lab ? 3 : 1);

/**
 * A flat document's colour table: an Indexed document's (768 bytes: 256 reds, greens, blues) and
 * transparent index, or a Multichannel document's inks (`colors` empty).
 */
export interface IndexedPalette {
  colors: Uint8Array;
  transparent?: number;
  /** Multichannel: each channel's ink, in channel order (null: an alpha channel, not drawn). */
  inks?: (ChannelInk | null)[];
}

/**
 * The colour table of an Indexed document (its colour mode data) and the transparent index
 * (image resource 1047), or undefined for other modes (a Multichannel document's inks come from
 * ./multichannel.ts `multichannelInks`, which reads its DisplayInfo).
 */
export function indexedPalette(bytes: Uint8Array): IndexedPalette | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint16(24) !== ColorMode.Indexed || view.getUint32(26) < 768) return undefined;
  const out: IndexedPalette = { colors: bytes.slice(30, 30 + 768) };
  let at = 30 + view.getUint32(26);
  const end = Math.min(at + 4 + view.getUint32(at), bytes.length);
  at += 4;
  while (at + 12 <= end && view.getUint32(at) === 0x3842494d) {
    const id = view.getUint16(at + 4);
    at += 6 + ((bytes[at + 6] + 2) & ~1);
    const size = view.getUint32(at);
    at += 4;
    if (id === 1047 && size >= 2 && at + 2 <= end) out.transparent = view.getUint16(at);
    at += (size + 1) & ~1;
  }
  return out;
}

/** 16-bit sample (0..65535) to 8 bits as Photoshop converts a document: round(v × 255 / 65535). */
export const narrow16 = (v: number) => ((v * 255 + 32767) / 65535) | 0;

let narrowTable: Uint8Array | undefined;
/** narrow16 for every value (64 KB, made once): a lookup per sample instead of a division. */
export function narrowing(): Uint8Array {
  if (!narrowTable) {
    narrowTable = new Uint8Array(65536);
    for (let v = 0; v < 65536; v++) narrowTable[v] = narrow16(v);
  }
  return narrowTable;
}

/** Narrows a row of `width` big-endian 16-bit samples (`wide`) into 8-bit `out`. */
export function narrowRow(wide: Uint8Array, out: Uint8Array, width: number, table = narrowing()): void {
  for (let x = 0; x < width; x++) out[x] = table[(wide[2 * x] << 8) | wide[2 * x + 1]];
}

let chromaTable: Uint8Array | undefined;
/** Lab's a and b at 16 bits (32768 + 256·a) to 8 bits (128 + a): round(v / 256), at most 255. */
function chromaNarrowing(): Uint8Array {
  if (!chromaTable) {
    chromaTable = new Uint8Array(65536);
    for (let v = 0; v < 65536; v++) chromaTable[v] = Math.min(255, Math.round(v / 256));
  }
  return chromaTable;
}

/** A row of decoded samples (`wide`, the file's bytes) into `width` 8-bit samples. */
export type Narrowing = (wide: Uint8Array, out: Uint8Array, width: number) => void;

/** 32-bit floats, any channel: round(clamp(v, 0, 1) × 255), NaN as 0 (see the top). */
const floatRow: Narrowing = (wide, out, width) => {
  const view = new DataView(wide.buffer, wide.byteOffset, width * 4);
  for (let x = 0; x < width; x++) {
    const v = view.getFloat32(4 * x);
    out[x] = v > 0 ? (v >= 1 ? 255 : Math.round(v * 255)) : 0;
  }
};

/**
 * How channel `channel` (a colour channel 0, 1, …; or negative: transparency, a mask, a spot or
 * an ink, which are coverage) of a `depth`-bit document in `mode` becomes 8 bits (see the top).
 */
export function sampleNarrowing(depth: number, mode: number, channel: number): Narrowing {
  if (depth === 16) {
    const table = mode === ColorMode.Lab && (channel === 1 || channel === 2) ? chromaNarrowing() : narrowing();
    return (wide, out, width) => narrowRow(wide, out, width, table);
  }
  if (depth === 32) return floatRow;
  return (wide, out, width) => out.set(wide.subarray(0, width));
}

/**
 * The transform a CMYK document's pixels take to sRGB: Photoshop's stored (inverted) CMYK in,
 * RGBA out, through `icc` when it is a readable CMYK profile, else the default CMYK profile (as
 * Photoshop falls back to its working space when a document's profile is missing or unusable).
 */
export function cmykToSrgb(icc?: Uint8Array): ColourTransform {
  return colourTransformSync({ from: usableCmykProfile(icc), to: defaultProfile('Rgb'), fromLayout: 'CMYK_INVERTED', toLayout: 'RGBA' });
}

export function usableCmykProfile(icc: Uint8Array | undefined): Uint8Array {
  if (!icc) return defaultProfile('Cmyk');
  try {
    if (readProfileInfo(icc).colorSpace === 'Cmyk') return icc;
  } catch {
    // an unreadable embedded profile: the default, like Photoshop's "discard the profile"
  }
  return defaultProfile('Cmyk');
}

/** The embedded profile a CMYK document's layers carry on their raw data (see normaliseColors). */
export const rawProfile = (raw: object): Uint8Array | undefined => (raw as { iccProfile?: Uint8Array }).iccProfile;

/** Four planes' bytes from..from + width − 1, one pixel of four bytes each (e.g. R, G, B, A or C, M, Y, K), into `out`. */
export function interleaveFour(planes: Uint8Array[], out: Uint8Array, from: number, width: number): void {
  const [p0, p1, p2, p3] = planes;
  for (let x = 0, o = 0; x < width; x++, o += 4) {
    out[o] = p0[from + x];
    out[o + 1] = p1[from + x];
    out[o + 2] = p2[from + x];
    out[o + 3] = p3[from + x];
  }
}

/**
 * Writes one RGBA row from the mode's colour planes (8-bit each) and an alpha row (or null:
 * opaque). `planes` has colorChannels(mode) rows. CMYK goes through `cmyk` (cmykToSrgb of the
 * document's profile; the default CMYK profile when not given), Lab through ./lab.ts.
 */
export function toRgbaRow(mode: number, planes: Uint8Array[], alpha: Uint8Array | null, out: Uint8Array, from = 0, width = out.length >> 2, cmyk?: ColourTransform): void {
  if (mode === ColorMode.RGB) {
    const [r, g, b] = planes;
    for (let x = 0, o = 0; x < width; x++, o += 4) {
      out[o] = r[from + x];
      out[o + 1] = g[from + x];
      out[o + 2] = b[from + x];
      out[o + 3] = alpha ? alpha[from + x] : 255;
    }
  } else if (mode === ColorMode.CMYK) {
    // Interleaved into `out` itself (4 bytes a pixel either way), converted in place.
    interleaveFour(planes, out, from, width);
    (cmyk ?? cmykToSrgb()).apply(out, out, width);
    if (alpha) for (let x = 0, o = 3; x < width; x++, o += 4) out[o] = alpha[from + x];
  } else if (mode === ColorMode.Lab) {
    labRowToRgba(planes, alpha, out, from, width);
  } else {
    const [v] = planes;
    for (let x = 0, o = 0; x < width; x++, o += 4) {
      out[o] = out[o + 1] = out[o + 2] = v[from + x];
      out[o + 3] = alpha ? alpha[from + x] : 255;
    }
  }
}

/**
 * Colours in a Grayscale, Duotone or CMYK document's layers (effects, fills, gradients, text)
 * come from ag-psd as grey `{ k }` or `{ c, m, y, k }`. In descriptors both are ink percentages
 * ('Gry ' is % black). In text engine data (ag-psd's fractions × 255) CMYK is ink, but grey
 * (Type 0: alpha, then one component) is a grey level, 0 black, as Krita and psd2svg read it
 * (the latter checked against a Photoshop-made file). The compositor reads RGB, so they are
 * converted in place: grey ink as 255 × (1 − k) (a grey level, as the pixels are shown);
 * CMYK through the document's profile `icc` (else the default), as its pixels are. Pixel data
 * (`rawData`) is left alone, but carries `icc` (as `iccProfile`) for the row decoders.
 */
export function normaliseColors(layers: Layer[], icc?: Uint8Array): void {
  const cmyk: CmykColour[] = [];
  const tag = (list: Layer[]) => {
    for (const layer of list) {
      if (icc && layer.rawData) Object.assign(layer.rawData, { iccProfile: icc });
      if (layer.children) tag(layer.children);
    }
  };
  tag(layers);
  for (const layer of layers) walk(layer, 100, 0, cmyk);
  if (!cmyk.length) return;
  // One batch through LittleCMS: ink 0–255 in, sRGB out, written into the objects found.
  const transform = colourTransformSync({ from: usableCmykProfile(icc), to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' });
  const src = new Uint8Array(cmyk.length * 4);
  cmyk.forEach((c, i) => src.set(c.ink, i * 4));
  const dst = new Uint8Array(cmyk.length * 3);
  transform.apply(src, dst, cmyk.length);
  cmyk.forEach((c, i) => Object.assign(c.target, { r: dst[i * 3], g: dst[i * 3 + 1], b: dst[i * 3 + 2] }));
}

interface CmykColour {
  /** Ink 0–255 for C, M, Y, K. */
  ink: number[];
  /** The object that replaced the colour, to receive r, g, b. */
  target: { r: number; g: number; b: number };
}

function walk(value: unknown, scale: number, depth: number, cmyk: CmykColour[]): unknown {
  if (depth > 64 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = walk(value[i], scale, depth + 1, cmyk);
    return value;
  }
  const o = value as Record<string, unknown>;
  const rgb = asRgb(o, scale, cmyk);
  if (rgb) return rgb;
  for (const key of Object.keys(o)) {
    if (key === 'rawData' || key === 'imageData' || key === 'canvas') continue;
    o[key] = walk(o[key], key === 'text' ? 255 : scale, depth + 1, cmyk);
  }
  return o;
}

function asRgb(o: Record<string, unknown>, scale: number, cmyk: CmykColour[]): { r: number; g: number; b: number } | undefined {
  const keys = Object.keys(o).sort().join();
  const ink = (k: string) => Math.max(0, Math.min(1, (o[k] as number) / scale));
  if (keys === 'k' && typeof o.k === 'number') {
    const v = scale === 255 ? Math.max(0, Math.min(255, o.k)) : 255 * (1 - ink('k'));
    return { r: v, g: v, b: v };
  }
  if (keys === 'c,k,m,y' && typeof o.c === 'number') {
    const target = { r: 0, g: 0, b: 0 };
    const inks = ['c', 'm', 'y', 'k'].map((k) => Math.round(255 * ink(k)));
    // The colour's own inks stay on it (not enumerable: the compiled tree holds RGB), for what
    // composites the document in ink (pdf/ink-composite.ts: layer effects' colours).
    Object.defineProperty(target, 'ink', { value: inks });
    cmyk.push({ ink: inks, target });
    return target;
  }
  return undefined;
}

/**
 * What acts on the document's own channels, fitted to RGB:
 * - Grayscale/Duotone: adjustments and Blend If act on the one grey channel, which R = G = B
 *   reproduces (the grey range is read as red's, equal on a grey pixel); leaving out channel 0
 *   ("Advanced Blending: Channels") leaves out the grey, so all of R, G, B.
 * - CMYK: adjustments work on C, M, Y, K (compile.ts gives them their CMYK table,
 *   composite/cmyk-adjust.ts). Blend If's C, M, Y ranges and channel restrictions of C, M, Y are
 *   read on R, G, B, the channels that carry those inks' complements (the K range and a K
 *   restriction are not read: psd/tree.ts keeps three channels); the Gray range is the RGB
 *   luminosity, as for RGB. Nothing is refused.
 */
export function fitModeFeatures(mode: number, layers: LayerNode[]): void {
  if (mode !== ColorMode.Grayscale && mode !== ColorMode.Duotone) return;
  const fit = (nodes: LayerNode[]) => {
    for (const n of nodes) {
      if (n.excludedChannels) n.excludedChannels = n.excludedChannels.includes(0) ? [0, 1, 2] : undefined;
      if (!n.excludedChannels) delete n.excludedChannels;
      if (n.children) fit(n.children);
    }
  };
  fit(layers);
}

/** The real mode and depth, which parsePsd keeps on the document (ag-psd may have read another). */
export function documentMode(doc: Psd): { mode: number; depth: number } {
  return { mode: doc.colorMode ?? ColorMode.RGB, depth: doc.bitsPerChannel ?? 8 };
}

/**
 * A layer effect (pattern overlay, pattern stroke) whose pattern we cannot tile is refused,
 * naming the layer: one the document holds but ./patterns.ts could not read (`unread`, by id:
 * a Bitmap or Multichannel pattern, planes of another depth, bytes that do not decode), in any
 * mode; and one the document does not hold (not in `patternIds`), in any document but 8-bit RGB,
 * as when ag-psd read the patterns and dropped those of other modes and depths (8-bit RGB
 * documents compiled then draw such an effect without its tile, and still do). A pattern fill
 * layer, or a shape filled or stroked with a pattern, is not refused: it is drawn from the pixels
 * Photoshop stored (the compositor draws a shape from its path only in a plain colour), so its
 * tile is never needed.
 */
export function refuseUnreadPatterns(layers: Layer[], patternIds: Set<string>, mode: number, depth: number, unread = new Map<string, string>()): void {
  const absentAllowed = depth === 8 && mode === ColorMode.RGB;
  if (absentAllowed && unread.size === 0) return;
  const uses = (value: unknown, key: string, depth: number): { id: string; name: string } | undefined => {
    if (depth > 32 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return undefined;
    if (Array.isArray(value)) {
      for (const v of value) {
        const found = uses(v, key, depth + 1);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    const o = value as Record<string, unknown>;
    // What draws nothing tiles no pattern (composite/pattern.ts effectOn; psd/tree.ts reads no effects when they are all off).
    if (o.enabled === false || o.present === false || (key === 'effects' && o.disabled === true)) return undefined;
    if ((key === 'pattern' || o.type === 'pattern') && typeof o.id === 'string' && !patternIds.has(o.id) && (unread.has(o.id) || !absentAllowed)) return { id: o.id, name: String(o.name ?? o.id) };
    for (const [k, v] of Object.entries(o)) {
      if (k === 'rawData' || k === 'children') continue;
      if (depth === 0 && (k === 'vectorFill' || k === 'vectorStroke')) continue; // stored pixels, see above
      const found = uses(v, k, depth + 1);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const walk = (list: Layer[], parent: string) => {
    for (const layer of list) {
      const path = parent ? `${parent}/${layer.name ?? ''}` : (layer.name ?? '');
      const pattern = uses(layer, '', 0);
      if (pattern !== undefined) {
        const { name } = pattern;
        const why = unread.get(pattern.id);
        if (why) {
          throw unprocessable(`Layer "${path}" uses the pattern "${name}", which cannot be read: ${why}.`, [{ path: `layers.${path}`, reason: `pattern not readable: ${why}` }]);
        }
        const what = depth === 8 ? colorModeName(mode) : `${depth}-bit`;
        throw unprocessable(
          `Layer "${path}" uses the pattern "${name}", which this ${what} document does not hold; save it with the pattern defined in the document.`,
          [{ path: `layers.${path}`, reason: `pattern missing from a ${what} document` }],
        );
      }
      if (layer.children) walk(layer.children, path);
    }
  };
  walk(layers, '');
}

/** A Multichannel document's ink (./multichannel.ts reads them from its DisplayInfo). */
export interface ChannelInk {
  /** The ink's sRGB colour, 0..1. */
  rgb: [number, number, number];
  /** 0..1: 0 overprints (multiplies), 1 covers. */
  solidity: number;
}

/** One RGBA row (opaque) from the channels' stored rows (255 = no ink) and their inks. */
export function inksToRgba(rows: Uint8Array[], inks: (ChannelInk | null)[], out: Uint8Array, width: number): void {
  for (let x = 0, o = 0; x < width; x++, o += 4) {
    let r = 1;
    let g = 1;
    let b = 1;
    for (let c = 0; c < rows.length; c++) {
      const k = 1 - rows[c][x] / 255;
      const ink = inks[c] === undefined ? BLACK : inks[c];
      if (k === 0 || !ink) continue;
      const { rgb, solidity: s } = ink;
      r = (1 - k) * r + k * ((1 - s) * r * rgb[0] + s * rgb[0]);
      g = (1 - k) * g + k * ((1 - s) * g * rgb[1] + s * rgb[1]);
      b = (1 - k) * b + k * ((1 - s) * b * rgb[2] + s * rgb[2]);
    }
    out[o] = Math.round(r * 255);
    out[o + 1] = Math.round(g * 255);
    out[o + 2] = Math.round(b * 255);
    out[o + 3] = 255;
  }
}

const BLACK: ChannelInk = { rgb: [0, 0, 0], solidity: 0 };
