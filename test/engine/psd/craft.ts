/**
 * Hand-built PSD bytes for intake tests: exact control over layer rectangles and channel data,
 * which no well-behaved writer (ag-psd included) will produce. Layout per Adobe's "Photoshop File
 * Formats Specification" (header, colour mode data, image resources, layer and mask information,
 * image data); 8-bit RGB, version 1 only.
 */

export interface CraftChannel {
  /** 0 R, 1 G, 2 B, -1 transparency, -2 user mask. */
  id: number;
  /** 0 raw, 1 RLE, 2 ZIP, 3 ZIP with prediction. */
  compression: number;
  data: Uint8Array;
}

export interface CraftLayer {
  name?: string;
  top: number;
  left: number;
  bottom: number;
  right: number;
  channels: CraftChannel[];
  /** A user mask rectangle (channel -2 carries its pixels). */
  mask?: { top: number; left: number; bottom: number; right: number; defaultColor?: number };
}

class Writer {
  private bytes = new Uint8Array(1024);
  length = 0;
  private ensure(n: number) {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }
  u8(v: number) {
    this.ensure(1);
    this.bytes[this.length++] = v & 255;
  }
  u16(v: number) {
    this.u8(v >>> 8);
    this.u8(v);
  }
  u32(v: number) {
    this.u16(v >>> 16);
    this.u16(v & 0xffff);
  }
  i32(v: number) {
    this.u32(v >>> 0);
  }
  ascii(s: string) {
    for (const c of s) this.u8(c.charCodeAt(0));
  }
  raw(b: Uint8Array) {
    this.ensure(b.length);
    this.bytes.set(b, this.length);
    this.length += b.length;
  }
  /** Reserves a 32-bit length; call the returned function when the section is written. */
  lengthMark(): () => void {
    const at = this.length;
    this.u32(0);
    return () => new DataView(this.bytes.buffer).setUint32(at, this.length - at - 4);
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/**
 * A PSD (or with `large` a PSB, whose section and channel lengths are 64-bit) with the given
 * layers over a white merged image of `width` × `height`.
 */
export function craftPsd(width: number, height: number, layers: CraftLayer[], large = false): Uint8Array {
  const w = new Writer();
  const length64 = () => {
    if (large) w.u32(0);
    return w.lengthMark();
  };
  w.ascii('8BPS');
  w.u16(large ? 2 : 1);
  for (let i = 0; i < 6; i++) w.u8(0);
  w.u16(3); // channels in the merged image
  w.u32(height);
  w.u32(width);
  w.u16(8);
  w.u16(3); // RGB
  w.u32(0); // colour mode data
  w.u32(0); // image resources
  const layerAndMask = length64();
  const layerInfo = length64();
  w.u16(layers.length);
  for (const l of layers) {
    w.i32(l.top);
    w.i32(l.left);
    w.i32(l.bottom);
    w.i32(l.right);
    w.u16(l.channels.length);
    for (const c of l.channels) {
      w.u16(c.id & 0xffff);
      if (large) w.u32(0);
      w.u32(2 + c.data.length);
    }
    w.ascii('8BIMnorm');
    w.u8(255); // opacity
    w.u8(0); // clipping
    w.u8(0); // flags
    w.u8(0); // filler
    const extra = w.lengthMark();
    if (l.mask) {
      w.u32(20);
      w.i32(l.mask.top);
      w.i32(l.mask.left);
      w.i32(l.mask.bottom);
      w.i32(l.mask.right);
      w.u8(l.mask.defaultColor ?? 0);
      w.u8(0); // flags
      w.u16(0); // padding
    } else w.u32(0);
    w.u32(0); // blending ranges
    const name = l.name ?? 'layer';
    w.u8(name.length);
    w.ascii(name);
    for (let n = 1 + name.length; n % 4; n++) w.u8(0);
    extra();
  }
  for (const l of layers) {
    for (const c of l.channels) {
      w.u16(c.compression);
      w.raw(c.data);
    }
  }
  if (w.length % 2) w.u8(0);
  layerInfo();
  w.u32(0); // global layer mask info
  layerAndMask();
  // Merged image: raw, white.
  w.u16(0);
  w.raw(new Uint8Array(width * height * 3).fill(255));
  return w.done();
}

/** `value` as PackBits rows for a `width` × `height` channel (RLE, compression 1). */
export function rleChannel(width: number, height: number, value: number, large = false): Uint8Array {
  const row: number[] = [];
  for (let left = width; left > 0; left -= 128) {
    const n = Math.min(128, left);
    if (n === 1) row.push(0, value);
    else row.push(257 - n, value);
  }
  const count = large ? 4 : 2;
  const out = new Uint8Array(height * count + height * row.length);
  const view = new DataView(out.buffer);
  for (let y = 0; y < height; y++) {
    if (large) view.setUint32(y * 4, row.length);
    else view.setUint16(y * 2, row.length);
    out.set(row, height * count + y * row.length);
  }
  return out;
}

/**
 * A zlib stream (RFC 1950/1951) that inflates to `size` zero bytes, at about 1,000 : 1, the
 * best deflate allows: one dynamic-Huffman block whose literal/length code gives length 258
 * (symbol 285) a 1-bit code and whose distance code gives distance 1 a 1-bit code, so each
 * 258-byte repeat of the previous zero costs two bits. Built directly, so a gigabyte of output
 * costs a megabyte of input and no time to make.
 */
export function zlibZeros(size: number): Uint8Array {
  if (size < 1 || (size - 1) % 258) throw new Error('size must be 1 + 258 k');
  const repeats = (size - 1) / 258;
  const out = new Uint8Array(Math.ceil((repeats * 2 + 200) / 8) + 8);
  let bit = 0;
  const bits = (value: number, n: number) => {
    // Numbers go least significant bit first.
    for (let i = 0; i < n; i++, bit++) if ((value >>> i) & 1) out[2 + (bit >>> 3)] |= 1 << (bit & 7);
  };
  const code = (c: string) => {
    // Huffman codes go most significant bit first.
    for (const ch of c) bits(ch === '1' ? 1 : 0, 1);
  };
  out[0] = 0x78;
  out[1] = 0x01;
  bits(1, 1); // BFINAL
  bits(2, 2); // dynamic Huffman
  bits(286 - 257, 5); // HLIT
  bits(2 - 1, 5); // HDIST
  bits(18 - 4, 4); // HCLEN
  // Code-length code lengths in the order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13 2 14 1:
  // 18 gets 1 bit ('0'), 1 and 2 get 2 bits ('10', '11').
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1];
  const clLengths: Record<number, number> = { 18: 1, 1: 2, 2: 2 };
  for (const s of order) bits(clLengths[s] ?? 0, 3);
  const cl = { 1: '10', 2: '11', 18: '0' } as const;
  // Literal/length lengths: 0 → 2, 1..255 → 0, 256 → 2, 257..284 → 0, 285 → 1; distances 0, 1 → 1.
  code(cl[2]);
  code(cl[18]), bits(138 - 11, 7);
  code(cl[18]), bits(117 - 11, 7);
  code(cl[2]);
  code(cl[18]), bits(28 - 11, 7);
  code(cl[1]);
  code(cl[1]);
  code(cl[1]);
  // Canonical codes: 285 '0', literal 0 '10', end of block '11'; distance 0 '0'.
  code('10'); // literal zero
  bit += repeats * 2; // each repeat is '0' (length 258) + '0' (distance 1): zero bits already
  code('11');
  let end = 2 + Math.ceil(bit / 8);
  // Adler-32 of `size` zeros: a = 1, b = size mod 65521.
  const view = new DataView(out.buffer);
  view.setUint32(end, ((size % 65521) << 16) | 1);
  end += 4;
  return out.slice(0, end);
}

/** The smallest `1 + 258 k` at or above `n`. */
export const zlibSize = (n: number) => 1 + Math.ceil((n - 1) / 258) * 258;
