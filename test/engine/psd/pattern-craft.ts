/**
 * Hand-built pattern records ('Patt'/'Pat2'/'Pat3' blocks) in minimal PSD bytes, laid out as
 * Adobe's "Photoshop File Formats Specification" ("Patterns", "Virtual Memory Array List") and
 * psd-tools' psd/patterns.py read them: any mode, depth, compression and slot layout, which
 * ag-psd's writer (RGB 8-bit, RLE, alpha in slot 25) cannot make.
 */

export interface CraftPlane {
  /** The VMAL slot (0..count + 1) the plane is written in. */
  slot: number;
  /** Samples, width × height, at `depth` bits (16: two bytes each, big-endian; 32: floats, big-endian). */
  samples: Uint8Array;
  /** 0 raw, 1 RLE, 2 ZIP, 3 ZIP with prediction (8-bit only here). */
  compression?: number;
  depth?: number;
  /** The plane's own rectangle, when not the pattern's. */
  rect?: { top: number; left: number; bottom: number; right: number };
}

export interface CraftPattern {
  mode: number;
  name: string;
  id: string;
  width: number;
  height: number;
  planes: CraftPlane[];
  /** Indexed: 256 RGB triples. */
  table?: Uint8Array;
  /** The VMAL's channel count (24 as Photoshop writes it). */
  count?: number;
}

const u16 = (v: number) => [(v >>> 8) & 255, v & 255];
const u32 = (v: number) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];

/** PackBits of one row: literal runs only (what a reader must take as well as repeats). */
function packRow(row: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < row.length; i += 128) {
    const n = Math.min(128, row.length - i);
    out.push(n - 1, ...row.subarray(i, i + n));
  }
  return out;
}

/** A zlib stream of stored (uncompressed) deflate blocks: valid ZIP data any inflater reads. */
export function zlibStored(data: Uint8Array): number[] {
  const out = [0x78, 0x01];
  for (let i = 0; i === 0 || i < data.length; i += 65535) {
    const n = Math.min(65535, data.length - i);
    out.push(i + n >= data.length ? 1 : 0, n & 255, n >>> 8, ~n & 255, (~n >>> 8) & 255, ...data.subarray(i, i + n));
  }
  let a = 1;
  let b = 0;
  for (const v of data) {
    a = (a + v) % 65521;
    b = (b + a) % 65521;
  }
  return [...out, ...u32(((b << 16) | a) >>> 0)];
}

function encode(p: CraftPlane, width: number, height: number): number[] {
  const depth = p.depth ?? 8;
  const bytesPerRow = (width * depth) / 8;
  switch (p.compression ?? 0) {
    case 0:
      return [...p.samples];
    case 1: {
      const rows = Array.from({ length: height }, (_, y) => packRow(p.samples.subarray(y * bytesPerRow, (y + 1) * bytesPerRow)));
      return [...rows.flatMap((r) => u16(r.length)), ...rows.flat()];
    }
    case 2:
      return zlibStored(p.samples);
    case 3: {
      // 8-bit prediction: each sample stored as the difference from the one before in its row.
      const d = new Uint8Array(p.samples.length);
      for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) d[y * width + x] = (p.samples[y * width + x] - (x ? p.samples[y * width + x - 1] : 0)) & 255;
      return zlibStored(d);
    }
    default:
      throw new Error(`compression ${p.compression}`);
  }
}

/** One pattern record, without its 4-byte length. */
export function patternRecord(p: CraftPattern): number[] {
  const name = [...u32(p.name.length + 1), ...[...p.name].flatMap((c) => u16(c.charCodeAt(0))), 0, 0];
  const id = [p.id.length, ...[...p.id].map((c) => c.charCodeAt(0))];
  const table = p.table ? [...p.table, 0, 0, 0, 0] : [];
  const count = p.count ?? 24;
  const slots: number[] = [];
  for (let i = 0; i < count + 2; i++) {
    const plane = p.planes.find((q) => q.slot === i);
    if (!plane) {
      slots.push(...u32(0));
      continue;
    }
    const r = plane.rect ?? { top: 0, left: 0, bottom: p.height, right: p.width };
    const data = encode(plane, r.right - r.left, r.bottom - r.top);
    const depth = plane.depth ?? 8;
    slots.push(...u32(1), ...u32(23 + data.length), ...u32(depth), ...u32(r.top), ...u32(r.left), ...u32(r.bottom), ...u32(r.right), ...u16(depth), plane.compression ?? 0, ...data);
  }
  const body = [...u32(0), ...u32(0), ...u32(p.height), ...u32(p.width), ...u32(count), ...slots];
  const vmal = [...u32(3), ...u32(body.length), ...body];
  return [...u32(1), ...u32(p.mode), ...u16(p.height), ...u16(p.width), ...name, ...id, ...table, ...vmal];
}

/** The data of a 'Patt' block holding `patterns`: each a 4-byte length, the record, padding to 4. */
export function patternBlock(patterns: CraftPattern[]): number[] {
  return patterns.flatMap((p) => {
    const record = patternRecord(p);
    return [...u32(record.length), ...record, ...new Array((4 - (record.length % 4)) % 4).fill(0)];
  });
}

/**
 * A 1 × 1 document (no layers, no merged pixels worth reading) whose global layer information
 * holds `blocks` in order (key and patterns); `large` makes it a PSB (8-byte section lengths).
 */
export function patternPsd(blocks: Array<{ key: string; patterns: CraftPattern[] }>, { mode = 3, large = false } = {}): Uint8Array {
  const len = (n: number) => (large ? [...u32(0), ...u32(n)] : u32(n));
  const tagged = blocks.flatMap(({ key, patterns }) => {
    const data = patternBlock(patterns);
    return [...[...`8BIM${key}`].map((c) => c.charCodeAt(0)), ...u32(data.length), ...data];
  });
  const section = [...len(0), ...u32(0), ...tagged];
  const header = [...[...'8BPS'].map((c) => c.charCodeAt(0)), ...u16(large ? 2 : 1), 0, 0, 0, 0, 0, 0, ...u16(3), ...u32(1), ...u32(1), ...u16(8), ...u16(mode)];
  return new Uint8Array([...header, ...u32(0), ...u32(0), ...len(section.length), ...section, ...u16(0), 0, 0, 0]);
}
