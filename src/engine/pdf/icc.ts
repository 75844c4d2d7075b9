/**
 * The sRGB profile assumed for templates that embed none (rendering contract: sRGB when the PSD
 * has no profile). Built in code rather than shipped as a binary: an ICC v2 display profile
 * (ICC.1:2001-04) with the sRGB primaries adapted to D50 (Bradford) and the sRGB transfer curve
 * sampled at 1024 points — what colour-managed PDF readers need for an ICCBased space.
 */

const D50 = [0.9642, 1.0, 0.8249];
const PRIMARIES = {
  rXYZ: [0.4360747, 0.2225045, 0.0139322],
  gXYZ: [0.3850649, 0.7168786, 0.0971045],
  bXYZ: [0.1430804, 0.0606169, 0.7141733],
};

class Bytes {
  private parts: number[] = [];
  get length(): number {
    return this.parts.length;
  }
  u8(...v: number[]): this {
    this.parts.push(...v.map((x) => x & 0xff));
    return this;
  }
  u16(v: number): this {
    return this.u8(v >> 8, v);
  }
  u32(v: number): this {
    return this.u8(v >>> 24, v >>> 16, v >>> 8, v);
  }
  ascii(s: string): this {
    for (const c of s) this.u8(c.charCodeAt(0));
    return this;
  }
  s15f16(v: number): this {
    return this.u32(Math.round(v * 65536) | 0);
  }
  pad(to = 4): this {
    while (this.parts.length % to) this.u8(0);
    return this;
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

function xyz(v: number[]): Uint8Array {
  const b = new Bytes().ascii('XYZ ').u32(0);
  for (const x of v) b.s15f16(x);
  return b.bytes();
}

function srgbCurve(): Uint8Array {
  const n = 1024;
  const b = new Bytes().ascii('curv').u32(0).u32(n);
  for (let i = 0; i < n; i++) {
    const v = i / (n - 1);
    const lin = v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    b.u16(Math.round(lin * 65535));
  }
  return b.bytes();
}

function desc(text: string): Uint8Array {
  const b = new Bytes().ascii('desc').u32(0).u32(text.length + 1).ascii(text).u8(0);
  b.u32(0).u32(0); // Unicode language code, count
  b.u16(0).u8(0); // ScriptCode code, count
  for (let i = 0; i < 67; i++) b.u8(0);
  return b.bytes();
}

function text(s: string): Uint8Array {
  return new Bytes().ascii('text').u32(0).ascii(s).u8(0).bytes();
}

let cached: Uint8Array | undefined;

export function srgbProfile(): Uint8Array {
  if (cached) return cached;
  const curve = srgbCurve();
  const tags: Array<[string, Uint8Array]> = [
    ['desc', desc('sRGB IEC61966-2.1 (built-in)')],
    ['cprt', text('No copyright, use freely')],
    ['wtpt', xyz(D50)],
    ['rXYZ', xyz(PRIMARIES.rXYZ)],
    ['gXYZ', xyz(PRIMARIES.gXYZ)],
    ['bXYZ', xyz(PRIMARIES.bXYZ)],
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ];
  // Layout: header, tag table, then tag data (shared curves stored once), each 4-byte aligned.
  const tableSize = 4 + tags.length * 12;
  const offset = 128 + tableSize;
  const placed = new Map<Uint8Array, number>();
  const data = new Bytes();
  const table = new Bytes().u32(tags.length);
  for (const [sig, body] of tags) {
    let at = placed.get(body);
    if (at === undefined) {
      at = offset + data.length;
      placed.set(body, at);
      for (const x of body) data.u8(x);
      data.pad();
    }
    table.ascii(sig).u32(at).u32(body.length);
  }
  const size = 128 + tableSize + data.length;
  const header = new Bytes()
    .u32(size)
    .u32(0)
    .u32(0x02100000)
    .ascii('mntr')
    .ascii('RGB ')
    .ascii('XYZ ');
  for (const v of [2026, 1, 1, 0, 0, 0]) header.u16(v);
  header.ascii('acsp').u32(0).u32(0).u32(0).u32(0).u32(0).u32(0).u32(0);
  header.s15f16(D50[0]).s15f16(D50[1]).s15f16(D50[2]).u32(0);
  while (header.length < 128) header.u8(0);
  const out = new Uint8Array(size);
  out.set(header.bytes(), 0);
  out.set(table.bytes(), 128);
  out.set(data.bytes(), 128 + tableSize);
  cached = out;
  return out;
}
