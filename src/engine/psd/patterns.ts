import type { LayerRawDataChannel } from 'ag-psd';
import { EngineError } from '../errors';
import { channelRows } from './channels';
import { ColorMode, cmykToSrgb, colorModeName, toRgbaRow } from './color-modes';
import { taggedBlocks } from './layer-section';

/**
 * The document's patterns (what pattern overlays and pattern strokes tile), read from the PSD's
 * bytes with their transparency. Photoshop keeps them in the global additional layer information
 * ('Patt', 'Pat2', 'Pat3' blocks after the layer info and the global layer mask info; psd-tools'
 * `_get_pattern` searches the three keys, ag-psd aliases them), not in an image resource. Each
 * pattern is a virtual memory array list (VMAL): a rectangle, a channel count (24 in every file
 * Photoshop, ag-psd and Krita write) and that many slots plus two, each slot written or not; a
 * written slot holds one plane, raw, RLE (2-byte row counts, even in a PSB) or ZIP.
 *
 * ag-psd's reader fills alpha with 255 and copies the colour planes only, so a pattern with
 * transparent parts drew solid. Here the colours are the first written slots (as many as the
 * pattern's mode has), the transparency the next written slot: psd-tools' `get_pattern` stacks
 * every written slot and its paint.py takes the last as alpha when there are more than the
 * colours (the same slot when, as in every file seen, there is one more); ag-psd's writer puts
 * it in the last slot (index 25), after 22 empty ones. Colours convert to 8-bit sRGB as a layer's
 * do in the same mode (./color-modes.ts): grey to R = G = B, Indexed through the pattern's own
 * colour table, CMYK through the document's profile (the default CMYK profile in a document of
 * another mode), Lab by ./lab.ts; 16- and 32-bit planes narrow as a layer's samples do.
 */
export interface DocumentPattern {
  id: string;
  name: string;
  /** The pattern's own colour mode (ColorMode). */
  mode: number;
  width: number;
  height: number;
  /** Straight RGBA, width × height; absent when the pattern could not be read (see `unread`). */
  data?: Uint8Array;
  /** Why the pattern could not be read, when it could not. */
  unread?: string;
}

/** How many bytes the decoded patterns of one document may take (ag-psd's parse budget for them before). */
export const PATTERN_MEMORY = 64 * 1024 * 1024;

/**
 * What decoding one pattern may hold beside its RGBA (see workingSet: a row or two and a ZIP
 * inflater, ~0.3 MB, unless the pattern is a few hundred thousand pixels wide), past
 * PATTERN_MEMORY: a pattern whose RGBA fits, as every one that could be read before did, is not
 * refused for the rows it is decoded through.
 */
export const PATTERN_DECODE_MEMORY = 1024 * 1024;
/** The characters of a pattern's name kept (Photoshop's names, a layer's too, are at most 255). */
const PATTERN_NAME_CHARS = 255;

/** Every pattern of the document, in file order ('Patt' before 'Pat2' before 'Pat3' as they lie). */
export function readPatterns(psd: Uint8Array, icc?: Uint8Array): DocumentPattern[] {
  const out: DocumentPattern[] = [];
  let budget = PATTERN_MEMORY;
  for (const block of patternBlocks(psd)) {
    for (const entry of patternEntries(psd, block.at, block.end)) {
      const pattern = readPattern(psd, entry.at, entry.end, icc, budget);
      if (!pattern) break; // not a pattern record: the rest of the block cannot be found
      if (pattern.data) budget -= pattern.data.byteLength;
      out.push(pattern);
    }
  }
  return out;
}

/**
 * Where the keys of the document's pattern blocks lie ('Patt', 'Pat2', 'Pat3': 4 bytes each), so
 * a reader that would decode them again (ag-psd, opaque) can be shown other keys.
 */
export const patternBlockKeys = (psd: Uint8Array): number[] => patternBlocks(psd).map((b) => b.key);

/** The global additional layer information blocks holding patterns: where their key and data lie. */
function patternBlocks(psd: Uint8Array): Array<{ key: number; at: number; end: number }> {
  const view = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  const large = view.getUint16(4) === 2;
  const size = large ? 8 : 4;
  const u = (at: number) => (large ? view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4) : view.getUint32(at));
  const blocks: Array<{ key: number; at: number; end: number }> = [];
  try {
    let at = 26;
    at += 4 + view.getUint32(at); // colour mode data
    at += 4 + view.getUint32(at); // image resources
    const sectionLength = u(at);
    at += size;
    const sectionEnd = Math.min(at + sectionLength, psd.length);
    const infoLength = u(at);
    at += size + infoLength + (infoLength % 2); // the layer info, rounded to even as ag-psd reads it
    if (at + 4 <= sectionEnd) at += 4 + view.getUint32(at); // global layer mask info
    for (const { key, keyAt, data, length } of taggedBlocks(psd, at, sectionEnd)) {
      if (key === 'Patt' || key === 'Pat2' || key === 'Pat3') blocks.push({ key: keyAt, at: data, end: Math.min(data + length, sectionEnd) });
    }
  } catch {
    // A section we cannot walk (cut short): the blocks found so far.
  }
  return blocks;
}

/** The pattern records of one block: each a 4-byte length, the record, padding to 4 bytes. */
function* patternEntries(psd: Uint8Array, start: number, end: number): Generator<{ at: number; end: number }> {
  const view = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  let at = start;
  while (at + 4 <= end) {
    const length = view.getUint32(at);
    if (length === 0) return;
    yield { at: at + 4, end: Math.min(at + 4 + length, end) };
    at += 4 + length + ((4 - (length % 4)) % 4);
  }
}

/** Colour planes each mode stores (the slots before the transparency). */
const PLANES: Partial<Record<number, number>> = {
  [ColorMode.Grayscale]: 1,
  [ColorMode.Duotone]: 1,
  [ColorMode.Indexed]: 1,
  [ColorMode.RGB]: 3,
  [ColorMode.Lab]: 3,
  [ColorMode.CMYK]: 4,
};

/** One written VMAL slot: its plane's rectangle, depth, compression and bytes. */
interface Slot {
  top: number;
  left: number;
  bottom: number;
  right: number;
  depth: number;
  compression: number;
  data: Uint8Array;
}

/**
 * One pattern record (`at`..`end`: version, mode, point, name, id, colour table, VMAL), decoded
 * to RGBA when it can be within `budget` bytes. Null when the bytes are no pattern record.
 */
function readPattern(psd: Uint8Array, start: number, end: number, icc: Uint8Array | undefined, budget: number): DocumentPattern | null {
  const view = new DataView(psd.buffer, psd.byteOffset, end);
  let at = start;
  let header: Omit<DocumentPattern, 'data' | 'unread'> | undefined;
  try {
    if (view.getUint32(at) !== 1) return null;
    const mode = view.getUint32(at + 4);
    at += 12; // version, mode, point (height, width: the VMAL's rectangle is what counts)
    const chars = view.getUint32(at);
    at += 4;
    if (2 * chars > end - at) return null;
    // At most PATTERN_NAME_CHARS of it, made in one go: a string grown a character at a time
    // costs ~32 bytes a character (a crafted name of 5 M characters held 160 MB; review27).
    const codes: number[] = [];
    for (let i = 0; i < Math.min(chars, PATTERN_NAME_CHARS); i++) {
      const c = view.getUint16(at + 2 * i);
      if (c || i < chars - 1) codes.push(c); // a trailing NUL dropped, as ag-psd reads it
    }
    const name = String.fromCharCode(...codes);
    at += 2 * chars;
    const idLength = psd[at];
    if (at + 1 + idLength > end) return null;
    const id = String.fromCharCode(...psd.subarray(at + 1, at + 1 + idLength));
    at += 1 + idLength;
    let table: Uint8Array | undefined;
    if (mode === ColorMode.Indexed) {
      // 256 RGB triples, then 4 bytes (Krita reads a count of valid colours and a transparent
      // index there; no source says Photoshop draws that index clear: not applied, as ag-psd).
      table = psd.subarray(at, at + 768);
      at += 768 + 4;
    }
    if (view.getUint32(at) !== 3) return null; // VMAL version
    const top = view.getUint32(at + 8);
    const left = view.getUint32(at + 12);
    const width = view.getUint32(at + 20) - left;
    const height = view.getUint32(at + 16) - top;
    const count = view.getUint32(at + 24);
    at += 28;
    header = { id, name, mode, width, height };
    const origin = { top, left };
    const slots: Slot[] = [];
    for (let i = 0; i < count + 2; i++) {
      const written = view.getUint32(at);
      at += 4;
      if (!written) continue;
      const length = view.getUint32(at);
      at += 4;
      if (length === 0) continue; // written, but empty (psd-tools reads it so)
      if (length < 23 || at + length > end) throw new RangeError('a pattern plane runs past its record');
      slots.push({
        depth: view.getUint32(at),
        top: view.getUint32(at + 4),
        left: view.getUint32(at + 8),
        bottom: view.getUint32(at + 12),
        right: view.getUint32(at + 16),
        compression: psd[at + 22],
        data: psd.subarray(at + 23, at + length),
      });
      at += length;
    }
    const why = unreadable(mode, { top, left, bottom: top + height, right: left + width }, slots, budget);
    if (why) return { ...header, unread: why };
    return { ...header, data: decode(header, origin, slots, table, icc) };
  } catch (e) {
    if (!header) return null;
    if (e instanceof RangeError || e instanceof TypeError || e instanceof EngineError) return { ...header, unread: `its pixel data could not be decoded (${e.message})` };
    throw e;
  }
}

/** Why a pattern's planes cannot be drawn, or undefined when they can. */
function unreadable(mode: number, rect: { top: number; left: number; bottom: number; right: number }, slots: Slot[], budget: number): string | undefined {
  const width = rect.right - rect.left;
  const height = rect.bottom - rect.top;
  const planes = PLANES[mode];
  if (planes === undefined) return `a ${colorModeName(mode)} pattern is not supported`;
  if (!(width > 0 && height > 0)) return 'it has no pixels';
  // Checked before anything is allocated: the RGBA it keeps, and that with what decoding it holds beside.
  const keep = width * height * 4;
  const need = keep + workingSet(mode, width, slots.slice(0, planes + 1));
  if (keep > budget || need > budget + PATTERN_DECODE_MEMORY) {
    const mb = (n: number) => `${Math.ceil((n / 1024 / 1024) * 10) / 10} MB`;
    const others = budget < PATTERN_MEMORY ? `, ${mb(PATTERN_MEMORY - budget)} of it taken by its other patterns` : '';
    if (keep > budget) return `it needs ${mb(keep)} once decoded: more than ${mb(PATTERN_MEMORY)}, the most a document's patterns may take together${others}`;
    return `it needs ${mb(keep)} once decoded and ${mb(need - keep)} more while decoding: more than ${mb(PATTERN_MEMORY)}, the most a document's patterns may take together${others}, and ${mb(PATTERN_DECODE_MEMORY)} to decode one`;
  }
  if (slots.length < planes) return `it stores ${slots.length} of its ${planes} colour planes`;
  for (const s of slots.slice(0, planes + 1)) {
    if (s.depth !== 8 && s.depth !== 16 && s.depth !== 32) return `its planes are ${s.depth}-bit`;
    if (s.compression > 3) return `its planes use compression ${s.compression}`;
    // Within the pattern's rectangle: a plane's rows are all read, so its own rectangle must not be larger.
    if (s.bottom < s.top || s.right < s.left || s.top < rect.top || s.left < rect.left || s.bottom > rect.bottom || s.right > rect.right) {
      return "a plane's rectangle lies outside the pattern's";
    }
  }
  return undefined;
}

/** What inflating one ZIP plane holds at most: its 64 KB window and two Huffman tables of up to 2^15 entries (./inflate.ts). */
const INFLATER_BYTES = (1 << 16) + 2 * (1 << 15) * 4 + 1024;

/**
 * The bytes decode() holds beside the RGBA output, at most: one plane's row reader at a time
 * (its row, 8-bit, and at 16 or 32 bits the wider row it is decoded in; a ZIP plane's inflater;
 * at 32 bits with prediction the byte-planar copy of its row),
 * and for Lab the three rows a row's colours are copied into to convert it in place, for CMYK the
 * WASM heap's copies of a row in and out of LittleCMS.
 */
function workingSet(mode: number, width: number, slots: Slot[]): number {
  let most = 0;
  for (const s of slots) {
    const w = Math.min(Math.max(s.right - s.left, 0), width); // one wider is refused (unreadable), never decoded
    // 32-bit ZIP with prediction: each row is also copied into a byte-planar scratch (psd/composite.ts unpredict).
    const reader = w + (s.depth === 16 || s.depth === 32 ? (w * s.depth) / 8 : 0) + (s.compression >= 2 ? INFLATER_BYTES : 0) + (s.depth === 32 && s.compression === 3 ? 4 * w : 0);
    most = Math.max(most, reader);
  }
  // Lab: three rows to convert in; CMYK: the transform's two strips of a row on LittleCMS's heap (4 bytes a pixel each, kept by the heap).
  return most + (mode === ColorMode.Lab ? 3 * width : mode === ColorMode.CMYK ? 8 * width : 0);
}

/**
 * The planes as straight RGBA over the pattern's rectangle (the VMAL's, at `origin`). A plane's
 * own rectangle (within it: see unreadable) is placed in it as ag-psd places it (every file seen
 * has them equal); outside it colours are 0 and, where a transparency plane is written,
 * transparent (a layer's channels read so).
 *
 * Each plane is decoded row by row straight into a byte of each RGBA pixel (the colours into the
 * first ones, as many as the mode has: CMYK's four fill the pixel), the colours then converted in
 * place row by row, the transparency last into the fourth byte. Besides the RGBA output the
 * decode holds one plane's row reader at a time (see workingSet): never a whole plane.
 */
function decode(
  p: { mode: number; width: number; height: number },
  origin: { top: number; left: number },
  slots: Slot[],
  table: Uint8Array | undefined,
  icc: Uint8Array | undefined,
): Uint8Array {
  const { mode, width, height } = p;
  const colors = PLANES[mode]!;
  const used = slots.slice(0, colors + 1);
  const alphaSlot = used.length > colors ? colors : -1;
  const rgba = new Uint8Array(width * height * 4);
  const place = (i: number, byte: number) => {
    const s = used[i];
    const w = s.right - s.left;
    const h = s.bottom - s.top;
    if (w === 0 || h === 0) return;
    const channel = { id: i === alphaSlot ? -1 : i, compression: s.compression, data: s.data } as LayerRawDataChannel;
    const rows = channelRows(channel, w, h, false, 0, 0, s.depth, mode === ColorMode.Indexed ? ColorMode.Grayscale : mode);
    const dx = s.left - origin.left;
    const dy = s.top - origin.top;
    // Within the pattern's rectangle (unreadable checks it).
    for (let y = 0; y < h; y++) {
      const row = rows.next();
      for (let x = 0, o = ((y + dy) * width + dx) * 4 + byte; x < w; x++, o += 4) rgba[o] = row[x];
    }
    rows.finish();
  };
  for (let i = 0; i < colors; i++) place(i, i);
  const cmyk = mode === ColorMode.CMYK ? cmykToSrgb(icc) : undefined;
  // Transparent outside the transparency plane's rectangle, where one is written.
  const opaque = alphaSlot >= 0 ? 0 : 255;
  // Lab's three planes, copied out of a row to convert it in place.
  const lab = mode === ColorMode.Lab ? [new Uint8Array(width), new Uint8Array(width), new Uint8Array(width)] : [];
  for (let y = 0; y < height; y++) {
    const row = rgba.subarray(y * width * 4, (y + 1) * width * 4);
    if (table) {
      for (let o = 0; o < row.length; o += 4) {
        const i = row[o] * 3;
        row[o] = table[i];
        row[o + 1] = table[i + 1];
        row[o + 2] = table[i + 2];
        row[o + 3] = opaque;
      }
    } else if (mode === ColorMode.RGB) {
      if (opaque) for (let o = 3; o < row.length; o += 4) row[o] = opaque;
    } else if (mode === ColorMode.CMYK) {
      cmyk!.apply(row, row, width); // interleaved already: as toRgbaRow converts a CMYK row
    } else if (mode === ColorMode.Lab) {
      for (let x = 0, o = 0; x < width; x++, o += 4) {
        lab[0][x] = row[o];
        lab[1][x] = row[o + 1];
        lab[2][x] = row[o + 2];
      }
      toRgbaRow(mode, lab, null, row, 0, width);
    } else {
      for (let o = 0; o < row.length; o += 4) {
        row[o + 1] = row[o + 2] = row[o];
        row[o + 3] = opaque;
      }
    }
  }
  if (alphaSlot >= 0) {
    if (mode === ColorMode.CMYK || mode === ColorMode.Lab) for (let o = 3; o < rgba.length; o += 4) rgba[o] = 0; // their conversion wrote it
    place(alphaSlot, 3);
  }
  return rgba;
}
