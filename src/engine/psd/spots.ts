/**
 * Spot colour channels of a PSD (issue 20 §2, docs/pdf.md "Spot channels"). Photoshop keeps
 * them as extra channels of the merged image (after the colour channels and, in a transparent
 * document, the merged transparency), named by image resource 1045 (Unicode) or 1006 (Pascal),
 * described by DisplayInfo (1077, or the older 1007): the ink's colour, its solidity and the
 * channel kind (2 = spot; 0 and 1 are alpha channels, which we leave alone). Channel pixels are
 * stored as Photoshop shows them: black (0) is full ink, so a tint is 255 − the stored value.
 */
import { unprocessable } from '../errors';
import { colorChannels, ColorMode, sampleNarrowing } from './color-modes';
import { inflateRow, unpackBits, unpredict } from './composite';
import { Inflater } from './inflate';
import { labToSrgb } from './lab';
import { readImageResources } from './resources';

export { labToSrgb };

/** An ink's colour as Photoshop's colour picker recorded it. */
export type SpotInk =
  /** Ink fractions 0..1 (1 = full ink). */
  | { space: 'Cmyk'; values: [number, number, number, number] }
  /** L* 0..100, a* and b* −128..127 (D50). */
  | { space: 'Lab'; values: [number, number, number] }
  /** 0..1 in the document's RGB space. */
  | { space: 'Rgb'; values: [number, number, number] };

export interface SpotChannel {
  /** The channel's name in Photoshop's Channels panel: the ink's name for the printer. */
  name: string;
  /** Index of the channel among the merged image's planes. */
  plane: number;
  ink: SpotInk;
  /** 0..1: 0 a transparent ink (overprints what lies under it), 1 an opaque one (covers it). */
  solidity: number;
}

/** Where a PSD's sections lie (Adobe's layout: header, colour mode data, resources, layers, image data). */
export interface PsdLayout {
  large: boolean;
  channels: number;
  width: number;
  height: number;
  depth: number;
  mode: number;
  resources: Uint8Array;
  /** The image data section (merged image): compression word, then the planes. */
  image: Uint8Array;
}

/** The file's sections, or null when it is too short to hold a merged image. */
export function psdLayout(psd: Uint8Array): PsdLayout | null {
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  if (psd.length < 26 || v.getUint32(0) !== 0x38425053) return null; // '8BPS'
  const large = v.getUint16(4) === 2;
  let at = 26;
  const section = () => {
    const length = at + 4 <= psd.length ? v.getUint32(at) : Infinity;
    const start = at + 4;
    at = start + length;
    return psd.subarray(start, Math.min(psd.length, start + length));
  };
  section(); // colour mode data
  const resources = section();
  if (at + (large ? 8 : 4) > psd.length) return null;
  at += large ? Number(v.getBigUint64(at)) + 8 : v.getUint32(at) + 4;
  if (at + 2 >= psd.length) return null;
  return { large, channels: v.getUint16(12), height: v.getUint32(14), width: v.getUint32(18), depth: v.getUint16(22), mode: v.getUint16(24), resources, image: psd.subarray(at) };
}

/** Every image resource of the section by id (the first of each id). */
export function imageResources(resources: Uint8Array): Map<number, Uint8Array> {
  const v = new DataView(resources.buffer, resources.byteOffset, resources.byteLength);
  const out = new Map<number, Uint8Array>();
  let at = 0;
  while (at + 12 <= resources.length) {
    if (v.getUint32(at) !== 0x3842494d) break; // '8BIM'
    const id = v.getUint16(at + 4);
    at += 6 + ((resources[at + 6] + 2) & ~1); // Pascal name padded to an even length
    // A damaged name length can point past the section (a 500 from a CMYK preview before).
    if (at + 4 > resources.length) break;
    const size = v.getUint32(at);
    at += 4;
    if (at + size > resources.length) break;
    if (!out.has(id)) out.set(id, resources.subarray(at, at + size));
    at += (size + 1) & ~1;
  }
  return out;
}

/** The document's spot channels in channel order (none for a file without any, or unreadable). */
export function readSpotChannels(psd: Uint8Array): SpotChannel[] {
  const layout = psdLayout(psd);
  if (!layout) return [];
  const { mode, channels } = layout;
  // Multichannel documents' channels are all inks, drawn as the merged image (./multichannel.ts).
  if (mode === ColorMode.Multichannel || mode === ColorMode.Indexed || mode === ColorMode.Bitmap) return [];
  const first = colorChannels(mode) + (readImageResources(psd).mergedAlpha ? 1 : 0);
  if (channels <= first) return [];
  const resources = imageResources(layout.resources);
  const infos = displayInfo(resources);
  const names = channelNames(resources);
  const out: SpotChannel[] = [];
  for (let i = 0; i < infos.length && first + i < channels; i++) {
    const info = infos[i];
    if (info.kind !== 2 || !info.ink) continue;
    out.push({ name: names[i] || `Spot ${i + 1}`, plane: first + i, ink: info.ink, solidity: info.solidity });
  }
  return out;
}

export interface DisplayInfo {
  /** 0 and 1: alpha channels (selected or masked areas); 2: a spot channel. */
  kind: number;
  ink?: SpotInk;
  solidity: number;
}

/** DisplayInfo: 1077 (version word, then 13 bytes a channel) or the obsolete 1007 (14 bytes a channel). */
export function displayInfo(resources: Map<number, Uint8Array>): DisplayInfo[] {
  const current = resources.get(1077);
  const data = current ?? resources.get(1007);
  if (!data) return [];
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const start = current ? 4 : 0;
  const size = current ? 13 : 14;
  const out: DisplayInfo[] = [];
  for (let at = start; at + 13 <= data.length; at += size) {
    const space = v.getUint16(at);
    const c = [0, 1, 2, 3].map((k) => v.getUint16(at + 2 + 2 * k));
    out.push({ kind: data[at + 12], ink: inkOf(space, c, v, at + 2), solidity: Math.max(0, Math.min(100, v.getUint16(at + 10))) / 100 });
  }
  return out;
}

/** Photoshop's colour structure (space word and four 16-bit components) as an ink colour. */
function inkOf(space: number, c: number[], v: DataView, at: number): SpotInk | undefined {
  // CMYK components are stored as if additive: 65535 = no ink.
  if (space === 2) return { space: 'Cmyk', values: [0, 1, 2, 3].map((k) => 1 - c[k] / 65535) as [number, number, number, number] };
  // Lab: L 0..10000, a and b signed −12800..12700, in hundredths.
  if (space === 7) return { space: 'Lab', values: [c[0] / 100, v.getInt16(at + 2) / 100, v.getInt16(at + 4) / 100] };
  if (space === 0) return { space: 'Rgb', values: [c[0] / 65535, c[1] / 65535, c[2] / 65535] };
  // Grey: 0..10000, 10000 = black.
  if (space === 8) return { space: 'Cmyk', values: [0, 0, 0, c[0] / 10000] };
  return undefined; // HSB, Pantone and other books without an alternate: not drawn
}

/** The extra channels' names: Unicode (1045) when present, else Pascal strings (1006). */
function channelNames(resources: Map<number, Uint8Array>): string[] {
  const unicode = resources.get(1045);
  const names: string[] = [];
  if (unicode) {
    const v = new DataView(unicode.buffer, unicode.byteOffset, unicode.byteLength);
    for (let at = 0; at + 4 <= unicode.length; ) {
      const count = v.getUint32(at);
      at += 4;
      let s = '';
      for (let k = 0; k < count && at + 2 <= unicode.length; k++, at += 2) s += String.fromCharCode(v.getUint16(at));
      names.push(s.replace(/\0+$/, ''));
    }
    if (names.length) return names;
  }
  const pascal = resources.get(1006);
  for (let at = 0; pascal && at < pascal.length; ) {
    const length = pascal[at];
    names.push(String.fromCharCode(...pascal.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
  return names;
}

/**
 * One plane of the merged image, row by row, as tints (0 = no ink, 255 = full ink; the same
 * buffer each call). 16- and 32-bit planes are narrowed to 8 bits (coverage: see sampleNarrowing).
 */
export function spotRows(layout: PsdLayout, plane: number): { next(): Uint8Array } {
  const { image, width, height, channels, large, depth } = layout;
  if (depth !== 8 && depth !== 16 && depth !== 32) throw unprocessable(`Spot channels at ${depth} bits are not supported.`);
  const v = new DataView(image.buffer, image.byteOffset, image.byteLength);
  const compression = v.getUint16(0);
  if (compression > 3) throw unprocessable(`Composite compression ${compression} is not supported.`);
  const bytes = width * (depth / 8);
  const countSize = large ? 4 : 2;
  const rowLength = (c: number, y: number) => (large ? v.getUint32(2 + (c * height + y) * 4) : v.getUint16(2 + (c * height + y) * 2));
  let at = 0;
  if (compression === 0) at = 2 + plane * bytes * height;
  if (compression === 1) {
    at = 2 + channels * height * countSize;
    for (let c = 0; c < plane; c++) for (let y = 0; y < height; y++) at += rowLength(c, y);
  }
  const wide = new Uint8Array(bytes);
  let inflater: Inflater | undefined;
  if (compression >= 2) {
    inflater = new Inflater(image.subarray(2));
    for (let r = 0; r < plane * height; r++) inflateRow(inflater, wide, SPOT_ZIP);
  }
  const row = new Uint8Array(width);
  const narrow = sampleNarrowing(depth, layout.mode, -1);
  let y = 0;
  return {
    next() {
      if (compression === 0) {
        // A row cut short by the file's end has no ink there: 255 a byte, 1.0 a float at 32 bits.
        if (depth === 32) for (let i = 0; i < bytes; i += 4) wide.set(NO_INK_FLOAT, i);
        else wide.fill(255);
        wide.set(image.subarray(at, Math.min(image.length, at + bytes)));
        at += bytes;
      } else if (compression === 1) {
        const length = rowLength(plane, y);
        unpackBits(image, at, length, wide);
        at += length;
      } else {
        inflateRow(inflater!, wide, SPOT_ZIP);
        if (compression === 3) unpredict(wide, width, depth);
      }
      narrow(wide, row, width);
      for (let x = 0; x < width; x++) row[x] = 255 - row[x];
      y++;
      return row;
    },
  };
}

const SPOT_ZIP = "A spot channel's ZIP data";
/** 1.0 as a big-endian float: a 32-bit channel's "no ink". */
const NO_INK_FLOAT = Uint8Array.of(0x3f, 0x80, 0, 0);

/**
 * An ink's look on screen, sRGB 0..255: CMYK through `cmykToRgb` (the document's profile),
 * Lab by the CIE formulas (./lab.ts), RGB as given.
 */
export function inkDisplayRgb(ink: SpotInk, cmykToRgb: (cmykPercent: number[]) => [number, number, number]): [number, number, number] {
  if (ink.space === 'Cmyk') return cmykToRgb(ink.values.map((v) => v * 100));
  if (ink.space === 'Rgb') return ink.values.map((v) => Math.round(v * 255)) as [number, number, number];
  return labToSrgb(ink.values);
}
