import type { LayerRawDataChannel } from 'ag-psd';
import { unprocessable } from '../errors';
import { LARGE_KEYS } from './layer-section';
import type { PsdSource } from './source';

/**
 * A PSD's structure without its pixels (issue 25 §1): read from a PsdSource by ranges, so an
 * upload near the contract's 100 MB is never held whole. The skeleton is a valid PSD/PSB of the
 * same header, colour mode data, image resources, layer records, global layer mask info and global
 * blocks, in which every channel's image data is cut to at most 3 bytes (a raw compression word
 * and one byte, so ag-psd's view of it says where it lay) and the merged image to 3 bytes; the
 * lengths around them are rewritten (the layer info's by a multiple of 4, so every reader's
 * rounding lands where it did). Linked files ('lnk2', 'lnkD', 'lnk3': the embedded files of smart
 * objects, up to the whole upload) are left out: nothing of ours reads them from ag-psd, and the
 * names psd/strings.ts counts in them are read here. Channels are read later, a layer at a time
 * (ChannelWindows); the merged image only where it is used (withMerged).
 *
 * A file whose structure does not add up (cut short, a length past its section or the file, a
 * channel of 1 byte, two layer infos) is read whole when it is small, so ag-psd and every reader
 * of ours meet it as they did, with the same 422s; past MAX_SKELETON_BYTES it is refused.
 */
export const MAX_SKELETON_BYTES = 32 * 1024 * 1024;

/** How much is read at a time while the structure is walked, and channels are read in. */
export const WINDOW_BYTES = 4 * 1024 * 1024;

/** Blocks left out of the skeleton (psd/strings.ts counts their names from `linked`). */
const LINKED = new Set(['lnk2', 'lnkD', 'lnk3']);
/** The window for reads among linked files, which lie megabytes apart. */
const LINKED_GAP_WINDOW = 64 * 1024;
const LAYER_INFO = new Set(['Lr16', 'Lr32', 'Layr']);

/** A channel in the source: its compression word and data. */
export interface ChannelRange {
  start: number;
  length: number;
}

/** A layer channel whose bytes are still in the source (ag-psd's `data` left undefined until read). */
export type StoredChannel = LayerRawDataChannel & { range?: ChannelRange };

/** The length of a channel's compressed data (after its compression word), read or not. */
export const channelDataLength = (c: StoredChannel): number => c.data?.length ?? (c.range ? c.range.length - 2 : 0);

export interface Skeleton {
  bytes: Uint8Array;
  /** The file read whole (its structure could not be cut): channels and merged image are in `bytes`. */
  whole: boolean;
  /** Channels by where ag-psd's 1-byte view of each lies in `bytes`. */
  channels: Map<number, ChannelRange>;
  /** The merged image (image data section) in the source, and where its 3 bytes start in `bytes`. */
  merged: { start: number; length: number; at: number };
  /** The names' lengths of each linked-file block left out, in file order (psd/strings.ts). */
  linked: Array<{ key: string; names: number[] }>;
  /**
   * The last window the walk read (`at` in the source): channels and the merged image read from
   * it need no get of their own (a file under WINDOW_BYTES is read once).
   */
  window?: { at: number; bytes: Uint8Array };
}

/** The structure does not add up: read whole if small, else refused. */
class Irregular extends Error {}

/** Reads a source through one window, so a walk of small fields costs one get per window. */
class Windowed {
  window: Uint8Array = new Uint8Array(0);
  at = 0;
  constructor(readonly source: PsdSource) {}

  /** `window`: how much to read when the bytes are not in the window (a smaller one where reads lie far apart). */
  async bytes(offset: number, length: number, window = WINDOW_BYTES): Promise<Uint8Array> {
    this.inFile(offset, length);
    if (offset >= this.at && offset + length <= this.at + this.window.length) return this.window.subarray(offset - this.at, offset - this.at + length);
    if (length >= window) return this.exactly(offset, length);
    this.window = await this.exactly(offset, Math.min(window, this.source.size - offset));
    this.at = offset;
    return this.window.subarray(0, length);
  }

  /** Whether [offset, offset + length) is in the window (then `field` reads it without a get). */
  covers(offset: number, length: number): boolean {
    return offset >= this.at && offset + length <= this.at + this.window.length;
  }
  /** The window read so that [offset, offset + length) is in it, when it is not. */
  async need(offset: number, length: number, window = WINDOW_BYTES): Promise<void> {
    if (this.covers(offset, length)) return;
    // Not through `bytes`: a read of a whole window there is not kept as the window.
    this.inFile(offset, length);
    this.window = await this.exactly(offset, Math.max(length, Math.min(window, this.source.size - offset)));
    this.at = offset;
  }
  /** A big-endian field of 2 or 4 bytes in the window (`need` first). */
  field(at: number, bytes: 2 | 4): number {
    const w = this.window;
    const i = at - this.at;
    return bytes === 2 ? (w[i] << 8) | w[i + 1] : ((w[i] << 24) | (w[i + 1] << 16) | (w[i + 2] << 8) | w[i + 3]) >>> 0;
  }

  private inFile(offset: number, length: number): void {
    if (!(offset >= 0 && length >= 0 && offset + length <= this.source.size)) throw new Irregular(`${length} bytes at ${offset} past the file's ${this.source.size}`);
  }
  private async exactly(offset: number, length: number): Promise<Uint8Array> {
    const got = await this.source.read(offset, length);
    if (got.length !== length) throw new Irregular(`a read of ${length} bytes at ${offset} gave ${got.length}`);
    return got;
  }

  async u16(at: number): Promise<number> {
    const b = await this.bytes(at, 2);
    return (b[0] << 8) | b[1];
  }
  async u32(at: number): Promise<number> {
    const b = await this.bytes(at, 4);
    return ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  }
  /** A PSB length: ag-psd refuses one of 4 GB or more. */
  async u64(at: number): Promise<number> {
    if ((await this.u32(at)) !== 0) throw new Irregular(`a length of 4 GB or more at ${at}`);
    return this.u32(at + 4);
  }
  async sig(at: number): Promise<string> {
    const b = await this.bytes(at, 4);
    return String.fromCharCode(b[0], b[1], b[2], b[3]);
  }
}

const be32 = (n: number) => Uint8Array.of(n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255);
const length = (n: number, large: boolean) => (large ? Uint8Array.of(0, 0, 0, 0, ...be32(n)) : be32(n));

/** The skeleton's pieces as they are gathered, bounded before anything is copied. */
class Pieces {
  readonly parts: Uint8Array[] = [];
  size = 0;
  /** Makes room for `n` more bytes (refused past the bound), before they are read. */
  room(n: number): void {
    if (this.size + n > MAX_SKELETON_BYTES) {
      throw unprocessable(
        `The PSD's structure (image resources, layer records and document blocks, without pixels) takes more than ${MAX_SKELETON_BYTES / 1024 / 1024} MB; a template may hold no more.`,
        [{ path: 'psd', reason: 'structure too large' }],
      );
    }
  }
  add(bytes: Uint8Array): void {
    this.room(bytes.length);
    // A small view into a window is copied out, so that it does not keep the window's 4 MB until
    // the join (small blocks between linked files each had a window of their own: review29).
    this.parts.push(bytes.length * 2 < bytes.buffer.byteLength ? bytes.slice() : bytes);
    this.size += bytes.length;
  }
  async copy(r: Windowed, from: number, to: number): Promise<void> {
    if (to <= from) return;
    this.room(to - from);
    // Large pieces (a big resource or pattern block) a window at a time.
    for (let at = from; at < to; at += WINDOW_BYTES) this.add(await r.bytes(at, Math.min(WINDOW_BYTES, to - at)));
  }
  join(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    this.parts.length = 0;
    return out;
  }
}

/**
 * The skeleton of the PSD in `source` (see above). `whole`: read the file whole as before (the
 * tests compare the two readings).
 */
export async function readSkeleton(source: PsdSource, options: { whole?: boolean } = {}): Promise<Skeleton> {
  if (!options.whole) {
    try {
      return await cut(new Windowed(source));
    } catch (e) {
      if (!(e instanceof Irregular)) throw e;
      if (source.size > MAX_SKELETON_BYTES) {
        throw unprocessable(`The PSD could not be read: its structure does not add up (${e.message}).`, [{ path: 'psd', reason: 'structure' }]);
      }
    }
  }
  const bytes = await source.read(0, source.size);
  return { bytes, whole: true, channels: new Map(), merged: { start: 0, length: 0, at: 0 }, linked: [] };
}

async function cut(r: Windowed): Promise<Skeleton> {
  const size = r.source.size;
  const out = new Pieces();
  const channels = new Map<number, ChannelRange>();
  const linked: Skeleton['linked'] = [];
  if (size < 26 || (await r.sig(0)) !== '8BPS') throw new Irregular('no PSD header');
  const version = await r.u16(4);
  if (version !== 1 && version !== 2) throw new Irregular('no PSD header');
  const large = version === 2;
  const width = large ? 8 : 4;
  const len = (at: number) => (large ? r.u64(at) : r.u32(at));
  let at = 26;
  at += 4 + (await r.u32(at)); // colour mode data
  at += 4 + (await r.u32(at)); // image resources
  await out.copy(r, 0, at);
  const sectionLength = await len(at);
  const sectionStart = at + width;
  const sectionEnd = sectionStart + sectionLength;
  if (sectionEnd > size) throw new Irregular('the layer and mask section past the end');
  const section = new Pieces();
  if (sectionLength > 0) {
    const infoLength = await len(sectionStart);
    const infoStart = sectionStart + width;
    const infoEnd = infoStart + infoLength;
    if (infoEnd > sectionEnd) throw new Irregular('the layer info past its section');
    let layerInfos = 0;
    if (infoLength > 0) {
      layerInfos++;
      const info = await layerInfo(r, infoStart, infoEnd, large, channels, out.size + width + width, (n) => out.room(n + 2 * width));
      section.add(length(info.size, large));
      for (const p of info.parts) section.add(p);
    } else {
      section.add(length(0, large));
    }
    out.room(section.size);
    let p = infoEnd;
    if (p + 4 <= sectionEnd) {
      p += 4 + (await r.u32(p)); // global layer mask info (copied as it is, below)
    }
    let copied = infoEnd;
    // After a linked file a small window: what follows is often the next linked file, megabytes not read.
    let afterLinked = false;
    // The global blocks, as psd/layer-section.ts taggedBlocks walks them (padding stepped over);
    // all but the layer infos and linked files copied as they are.
    while (p + 12 <= sectionEnd) {
      // Stepped over within the window without an await (a crafted file may pad for megabytes):
      // to the next '8' a signature could start with, found by the native search.
      if (!r.covers(p, 12)) await r.need(p, 12, afterLinked ? LINKED_GAP_WINDOW : WINDOW_BYTES);
      afterLinked = false;
      const s = r.field(p, 4);
      if (s !== 0x3842494d && s !== 0x38423634) {
        // '8BIM', '8B64'
        const next = r.window.indexOf(0x38, p - r.at + 1);
        p = r.at + (next < 0 ? r.window.length : next);
        continue;
      }
      const key = await r.sig(p + 4);
      const wide = s === 0x38423634 || (large && LARGE_KEYS.has(key));
      const blockLength = wide ? await r.u64(p + 8) : await r.u32(p + 8);
      const data = p + (wide ? 16 : 12);
      const end = data + blockLength;
      if (LINKED.has(key) || (LAYER_INFO.has(key) && blockLength >= 2)) {
        if (end > sectionEnd) throw new Irregular(`a '${key}' block past its section`);
        await section.copy(r, copied, p);
        if (LINKED.has(key)) {
          linked.push({ key, names: await linkedNames(r, data, end) });
          afterLinked = true;
        } else {
          if (++layerInfos > 1) throw new Irregular('more than one layer info');
          const info = await layerInfo(r, data, end, large, channels, out.size + width + section.size + (wide ? 16 : 12), (n) => out.room(section.size + n + 16));
          section.add(await r.bytes(p, 8));
          section.add(wide ? length(info.size, true) : be32(info.size));
          for (const part of info.parts) section.add(part);
        }
        copied = end;
      }
      p = end;
    }
    await section.copy(r, copied, sectionEnd);
  }
  out.add(length(section.size, large));
  for (const part of section.parts) out.add(part);
  // The merged image: 3 bytes stand for it (readers ask whether it holds more than its compression word).
  const merged = { start: sectionEnd, length: size - sectionEnd, at: out.size };
  out.add(new Uint8Array(Math.min(3, merged.length)));
  return { bytes: out.join(), whole: false, channels, merged, linked, window: { at: r.at, bytes: r.window } };
}

/**
 * The layer info from `start` (its signed layer count) to `end`, each channel's data cut to a
 * raw compression word and one byte (`channels` gets where each lay, by where that byte lands:
 * `offset` is where this layer info starts in the skeleton). The cut is made a multiple of 4.
 * `room`: refuses a layer info past the skeleton's bound before it is read.
 */
async function layerInfo(
  r: Windowed,
  start: number,
  end: number,
  large: boolean,
  channels: Map<number, ChannelRange>,
  offset: number,
  room: (n: number) => void,
): Promise<{ parts: Uint8Array[]; size: number }> {
  const count = Math.abs(((await r.u16(start)) << 16) >> 16);
  let at = start + 2;
  const entry = large ? 10 : 6;
  const lengths: Array<{ at: number; length: number }> = [];
  // Read from the window as it is (a get only where a record crosses its end).
  for (let i = 0; i < count; i++) {
    at += 16; // the rectangle
    if (at + 2 > end) throw new Irregular('a layer record past its layer info');
    await r.need(at, 2);
    const n = r.field(at, 2);
    at += 2;
    if (at + n * entry + 16 > end) throw new Irregular('a layer record past its layer info');
    await r.need(at, n * entry + 16);
    for (let c = 0; c < n; c++, at += entry) {
      if (large && r.field(at + 2, 4) !== 0) throw new Irregular(`a length of 4 GB or more at ${at + 2}`);
      lengths.push({ at: at + 2, length: r.field(at + (large ? 6 : 2), 4) });
    }
    at += 12; // '8BIM', blend key, opacity, clipping, flags, filler
    at += 4 + r.field(at, 4); // extra data
    if (at > end) throw new Irregular('a layer record past its layer info');
  }
  const recordsEnd = at;
  let kept = 0;
  let cut = 0;
  for (const l of lengths) {
    if (l.length === 1) throw new Irregular('a channel of 1 byte');
    kept += Math.min(l.length, 3);
    cut += l.length - Math.min(l.length, 3);
  }
  const dataEnd = recordsEnd + kept + cut;
  if (dataEnd > end) throw new Irregular("a channel's data past its layer info");
  // The records as they are, each channel length rewritten; each channel's compression word (raw)
  // and one byte; as many zeros as keep the cut a multiple of 4; what follows the channels (padding).
  const size = recordsEnd - start + kept + (cut % 4) + (end - dataEnd);
  room(size);
  const out = new Uint8Array(size);
  out.set(await r.bytes(start, recordsEnd - start));
  const view = new DataView(out.buffer);
  for (const l of lengths) view.setUint32(l.at - start + (large ? 4 : 0), Math.min(l.length, 3)); // a PSB's high word is 0 (Windowed.u64)
  let p = recordsEnd - start;
  let source = recordsEnd;
  for (const l of lengths) {
    if (l.length >= 3) channels.set(offset + p + 2, { start: source, length: l.length });
    p += Math.min(l.length, 3);
    source += l.length;
  }
  p += cut % 4;
  if (end > dataEnd) out.set(await r.bytes(dataEnd, end - dataEnd), p);
  return { parts: [out], size };
}

/**
 * The length of each name in a linked-file block (psd/strings.ts linkedFileNames): each file is
 * an 8-byte length, type and version (8 bytes), an id (a Pascal string), then the name (a
 * 4-byte count of UTF-16 characters); only those few bytes are read.
 */
async function linkedNames(r: Windowed, at: number, end: number): Promise<number[]> {
  const size = r.source.size;
  const names: number[] = [];
  // Each file's first bytes only (a small read each: the files lie megabytes apart).
  const field = async (at: number, n: number) => {
    const b = await r.bytes(at, n, LINKED_GAP_WINDOW);
    return n === 1 ? b[0] : ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0;
  };
  while (at + 8 < end) {
    const length = (await field(at, 4)) * 2 ** 32 + (await field(at + 4, 4));
    const start = at + 8;
    if (start + 9 > size) break;
    const name = start + 8 + 1 + (await field(start + 8, 1));
    if (name + 4 > size) break;
    names.push(Math.min(await field(name, 4), (size - name - 4) >> 1));
    at = start + Math.ceil(length / 4) * 4;
  }
  return names;
}

/**
 * Gives each layer channel of ag-psd's reading of a skeleton its range in the source in place of
 * ag-psd's 1-byte view (read in by ChannelWindows before the layer is decoded).
 */
export function attachRanges(layers: Array<{ rawData?: { channels: StoredChannel[] }; children?: unknown[] }>, skeleton: Uint8Array, ranges: Map<number, ChannelRange>): void {
  if (!ranges.size) return;
  for (const layer of layers) {
    for (const channel of layer.rawData?.channels ?? []) {
      if (!channel.data) continue;
      const range = ranges.get(channel.data.byteOffset - skeleton.byteOffset);
      if (!range) continue;
      channel.range = range;
      delete channel.data;
    }
    if (layer.children) attachRanges(layer.children as typeof layers, skeleton, ranges);
  }
}

/**
 * The skeleton with the merged image in place of its 3 bytes: a valid PSD/PSB again, without
 * layer pixels (flat documents, the stored composite, spot channels read it).
 */
export async function withMerged(skeleton: Skeleton, source: PsdSource, window = skeleton.window): Promise<Uint8Array> {
  if (skeleton.whole) return skeleton.bytes;
  const { start, at } = skeleton.merged;
  const length = await mergedLength(skeleton, source);
  const out = new Uint8Array(at + length);
  out.set(skeleton.bytes.subarray(0, at));
  const w = window;
  if (w && start >= w.at && start + length <= w.at + w.bytes.length) {
    out.set(w.bytes.subarray(start - w.at, start - w.at + length), at);
    return out;
  }
  for (let p = 0; p < length; p += 8 * 1024 * 1024) {
    const n = Math.min(8 * 1024 * 1024, length - p);
    const got = await source.read(start + p, n);
    if (got.length !== n) throw unprocessable('The PSD could not be read: its merged image is cut short.');
    out.set(got, at + p);
  }
  return out;
}

/**
 * How much of the image data section a decode of the merged image can read: raw planes or RLE
 * rows of the header's channels, and no further (what a crafted file puts after them, up to the
 * whole upload, is not read: review29); a ZIP or unknown compression, or counts past the section,
 * all of it as before.
 */
async function mergedLength(skeleton: Skeleton, source: PsdSource): Promise<number> {
  const { start, length } = skeleton.merged;
  if (length < 2) return length;
  const header = new DataView(skeleton.bytes.buffer, skeleton.bytes.byteOffset, 26);
  const large = header.getUint16(4) === 2;
  const [channels, height, width, depth] = [header.getUint16(12), header.getUint32(14), header.getUint32(18), header.getUint16(22)];
  const word = await source.read(start, 2);
  if (word.length !== 2 || word[0] !== 0) return length;
  if (word[1] === 0) return Math.min(length, 2 + channels * height * Math.ceil((width * depth) / 8));
  if (word[1] !== 1) return length;
  const countSize = large ? 4 : 2;
  const table = 2 + channels * height * countSize;
  if (table > length) return length;
  const counts = await source.read(start + 2, table - 2);
  if (counts.length !== table - 2) return length;
  const view = new DataView(counts.buffer, counts.byteOffset, counts.byteLength);
  let rows = 0;
  for (let i = 0; i < channels * height; i++) rows += large ? view.getUint32(i * 4) : view.getUint16(i * 2);
  return Math.min(length, table + rows);
}

/**
 * Reads layers' channels from the source just before they are decoded: one get for as many
 * consecutive layers (in the order they are asked for) as lie within WINDOW_BYTES, one for a
 * layer larger than that alone.
 */
export class ChannelWindows {
  private window: Uint8Array = new Uint8Array(0);
  private at = 0;
  /** Reads made (for measuring). */
  reads = 0;

  /** `layers`: each layer's channels in the order `load` will be called; `window`: bytes read already. */
  constructor(
    private readonly source: PsdSource,
    private readonly layers: StoredChannel[][],
    window?: { at: number; bytes: Uint8Array },
  ) {
    if (window) [this.at, this.window] = [window.at, window.bytes];
  }

  /** The span of a layer's stored channels (one byte more: a shifted compression word reads it). */
  private span(channels: StoredChannel[]): [number, number] | undefined {
    let from = Infinity;
    let to = -Infinity;
    for (const c of channels) {
      if (!c.range) continue;
      from = Math.min(from, c.range.start);
      to = Math.max(to, c.range.start + c.range.length);
    }
    return from < to ? [from, Math.min(this.source.size, to + 1)] : undefined;
  }

  /** Fills `data` and `compression` of the channels (the layer at index `i` of the constructor's list). */
  async load(i: number, channels: StoredChannel[]): Promise<void> {
    const span = this.span(channels);
    if (!span) return;
    if (span[0] < this.at || span[1] > this.at + this.window.length) {
      let [from, to] = span;
      for (let k = i + 1; k < this.layers.length; k++) {
        const s = this.span(this.layers[k]);
        if (!s) continue;
        if (Math.max(to, s[1]) - Math.min(from, s[0]) > WINDOW_BYTES) break;
        [from, to] = [Math.min(from, s[0]), Math.max(to, s[1])];
      }
      this.window = new Uint8Array(0); // let go before the next is read
      this.window = await this.source.read(from, to - from);
      this.at = from;
      this.reads++;
    }
    for (const c of channels) {
      if (!c.range) continue;
      const { start, length } = c.range;
      const bytes = this.window.subarray(start - this.at, start - this.at + length + 1);
      if (bytes.length < length) throw unprocessable("The PSD's pixel data could not be decoded: a channel is cut short.");
      // As ag-psd reads it: a compression word past 3 is looked for one byte on (broken files).
      let compression = (bytes[0] << 8) | bytes[1];
      let from = 2;
      if (compression > 3 && length >= 3) {
        compression = (bytes[1] << 8) | bytes[2];
        from = 3;
      }
      if (compression > 3) throw unprocessable(`The PSD could not be read: Invalid compression: ${(bytes[0] << 8) | bytes[1]}`);
      let data: Uint8Array = bytes.subarray(from, from + length - 2);
      if (data.length < length - 2) {
        // The shifted data's last byte past the file's end: ag-psd reads it as 0.
        const padded = new Uint8Array(length - 2);
        padded.set(data);
        data = padded;
      }
      c.compression = compression;
      c.data = data;
    }
  }

  /**
   * Lets the window go; returns it when it holds all of `range` (the merged image, read from it
   * then instead of by a get of its own).
   */
  release(range?: { start: number; length: number }): { at: number; bytes: Uint8Array } | undefined {
    const { at, window } = this;
    this.window = new Uint8Array(0);
    return range && range.start >= at && range.start + range.length <= at + window.length ? { at, bytes: window } : undefined;
  }
}
