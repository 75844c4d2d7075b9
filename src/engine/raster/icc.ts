import { concat } from './bytes';

/** Re-exported for existing importers (src/engine/pdf); it lives in ./bytes. */
export { concat };

/**
 * Colour profiles for previews: a compact sRGB profile built here (no downloaded profile), and
 * embedding / reading an ICC profile in JPEG (APP2 "ICC_PROFILE" segments, ICC.1 Annex B.4) and
 * PNG (iCCP chunk, PNG spec §11.3.3.3).
 */

/** s15Fixed16Number */
const s15 = (v: number) => Math.round(v * 65536) | 0;

/** sRGB transfer function (IEC 61966-2-1): encoded 0..1 → linear 0..1. */
export const srgbToLinear = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);

let srgb: Uint8Array | undefined;
let sgray: Uint8Array | undefined;

/** The sRGB tone curve, sampled at 1024 points (shared by the RGB and grey profiles). */
function srgbCurve(): number[] {
  const points = 1024;
  const curv = [...ascii('curv'), 0, 0, 0, 0, ...u32(points)];
  for (let i = 0; i < points; i++) {
    const v = Math.round(srgbToLinear(i / (points - 1)) * 65535);
    curv.push(v >> 8, v & 255);
  }
  return curv;
}

/**
 * A minimal ICC v2.1 display profile for sRGB: D50-adapted (Bradford) colorants, D50 white
 * point, and a shared 1024-point tone curve. 2,536 bytes; the same bytes every time.
 */
export function srgbProfile(): Uint8Array {
  if (srgb) return srgb;
  const curv = srgbCurve();
  srgb = buildProfile('RGB ', 'sRGB IEC61966-2.1 (compact)', [
    ['rXYZ', xyz(0.436074, 0.222504, 0.013932)],
    ['gXYZ', xyz(0.385065, 0.716879, 0.097105)],
    ['bXYZ', xyz(0.14308, 0.060617, 0.714173)],
    ['rTRC', curv],
    ['gTRC', curv],
    ['bTRC', curv],
  ]);
  return srgb;
}

/**
 * The grey counterpart (ICC v2.1 display class, D50, sRGB's tone curve as its `kTRC`): a grey
 * level v converts to sRGB (v, v, v) and back unchanged, so grey documents keep their pixels.
 */
export function sgrayProfile(): Uint8Array {
  sgray ??= buildProfile('GRAY', 'sGray (sRGB tone curve, compact)', [['kTRC', srgbCurve()]]);
  return sgray;
}

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const xyz = (x: number, y: number, z: number) => [...ascii('XYZ '), 0, 0, 0, 0, ...u32(s15(x)), ...u32(s15(y)), ...u32(s15(z))];

/** Header, tag table and tag bodies of a display-class profile with a D50 white point. */
function buildProfile(space: 'RGB ' | 'GRAY', desc: string, colourTags: Array<[string, number[]]>): Uint8Array {
  const descTag = [...ascii('desc'), 0, 0, 0, 0, ...u32(desc.length + 1), ...ascii(desc), 0, ...new Array(4 + 4 + 2 + 1 + 67).fill(0)];
  const cprtTag = [...ascii('text'), 0, 0, 0, 0, ...ascii('No copyright, use freely'), 0];
  const tags: Array<[string, number[]]> = [['desc', descTag], ['cprt', cprtTag], ['wtpt', xyz(0.9642, 1.0, 0.8249)], ...colourTags];
  // Layout: header (128), tag table, then each distinct tag body 4-byte aligned (TRCs shared).
  const tableSize = 4 + tags.length * 12;
  const bodies = new Map<number[], number>();
  let offset = 128 + tableSize;
  const chunks: number[][] = [];
  const table: number[] = [...u32(tags.length)];
  for (const [sig, body] of tags) {
    let at = bodies.get(body);
    if (at === undefined) {
      at = offset;
      bodies.set(body, at);
      const padded = [...body, ...new Array((4 - (body.length % 4)) % 4).fill(0)];
      chunks.push(padded);
      offset += padded.length;
    }
    table.push(...ascii(sig), ...u32(at), ...u32(body.length));
  }
  const header = new Array(128).fill(0);
  header.splice(0, 4, ...u32(offset));
  header.splice(8, 4, 0x02, 0x10, 0, 0); // version 2.1
  header.splice(12, 4, ...ascii('mntr'));
  header.splice(16, 4, ...ascii(space));
  header.splice(20, 4, ...ascii('XYZ '));
  header.splice(24, 12, ...[2026, 1, 1, 0, 0, 0].flatMap((v) => [v >> 8, v & 255]));
  header.splice(36, 4, ...ascii('acsp'));
  header.splice(68, 12, ...u32(s15(0.9642)), ...u32(s15(1.0)), ...u32(s15(0.8249))); // PCS illuminant D50
  return new Uint8Array([...header, ...table, ...chunks.flat()]);
}

function u32(v: number): number[] {
  return [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
}

// ---------------------------------------------------------------------------------------------
// JPEG

const ICC_MARKER = [0x49, 0x43, 0x43, 0x5f, 0x50, 0x52, 0x4f, 0x46, 0x49, 0x4c, 0x45, 0]; // "ICC_PROFILE\0"
const MAX_ICC_CHUNK = 65535 - 2 - ICC_MARKER.length - 2;

interface JpegSegment {
  marker: number;
  /** Offset of the 0xFF byte. */
  start: number;
  /** Offset just past the segment. */
  end: number;
}

/** The marker segments before the first SOS (start of scan). */
function jpegHeaderSegments(bytes: Uint8Array): JpegSegment[] {
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('not a JPEG');
  const segments: JpegSegment[] = [];
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) throw new Error('corrupt JPEG marker');
    const marker = bytes[p + 1]!;
    if (marker === 0xff) {
      p++; // fill byte
      continue;
    }
    const length = (bytes[p + 2]! << 8) | bytes[p + 3]!;
    segments.push({ marker, start: p, end: p + 2 + length });
    if (marker === 0xda) break;
    p += 2 + length;
  }
  return segments;
}

const isIccSegment = (bytes: Uint8Array, s: JpegSegment) =>
  s.marker === 0xe2 && ICC_MARKER.every((b, i) => bytes[s.start + 4 + i] === b);

function embedJpegIcc(bytes: Uint8Array, icc: Uint8Array): Uint8Array {
  const segments = jpegHeaderSegments(bytes);
  const count = Math.ceil(icc.length / MAX_ICC_CHUNK);
  if (count > 255) throw new Error('ICC profile too large for JPEG');
  // After SOI and any APP0 (JFIF) / APP1 (Exif) segments, as readers expect.
  let insertAt = 2;
  for (const s of segments) {
    if (s.marker === 0xe0 || s.marker === 0xe1) insertAt = s.end;
    else break;
  }
  const app2: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const part = icc.subarray(i * MAX_ICC_CHUNK, (i + 1) * MAX_ICC_CHUNK);
    const length = 2 + ICC_MARKER.length + 2 + part.length;
    app2.push(new Uint8Array([0xff, 0xe2, length >> 8, length & 255, ...ICC_MARKER, i + 1, count]), part);
  }
  // Drop any ICC segments already present: one profile per file.
  const kept: Uint8Array[] = [];
  let last = 0;
  for (const s of segments) {
    if (!isIccSegment(bytes, s)) continue;
    kept.push(bytes.subarray(last, s.start));
    last = s.end;
  }
  kept.push(bytes.subarray(last));
  // No ICC segment to drop (our own JPEGs): the file as it is, not a copy of it.
  const stripped = kept.length === 1 ? bytes : concat(kept);
  const removedBefore = segments.filter((s) => isIccSegment(bytes, s) && s.end <= insertAt).reduce((n, s) => n + s.end - s.start, 0);
  const at = insertAt - removedBefore;
  return concat([stripped.subarray(0, at), ...app2, stripped.subarray(at)]);
}

function readJpegIcc(bytes: Uint8Array): Uint8Array | null {
  const parts = jpegHeaderSegments(bytes)
    .filter((s) => isIccSegment(bytes, s))
    .map((s) => ({ seq: bytes[s.start + 4 + ICC_MARKER.length]!, data: bytes.subarray(s.start + 4 + ICC_MARKER.length + 2, s.end) }))
    .sort((a, b) => a.seq - b.seq);
  return parts.length ? concat(parts.map((p) => p.data)) : null;
}

// ---------------------------------------------------------------------------------------------
// PNG

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

interface PngChunk {
  type: string;
  start: number;
  end: number;
  data: Uint8Array;
}

function pngChunks(bytes: Uint8Array): PngChunk[] {
  if (!PNG_SIGNATURE.every((b, i) => bytes[i] === b)) throw new Error('not a PNG');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  for (let p = 8; p + 12 <= bytes.length; ) {
    const length = view.getUint32(p);
    const type = String.fromCharCode(...bytes.subarray(p + 4, p + 8));
    const end = p + 12 + length;
    if (end > bytes.length) throw new Error('truncated PNG chunk');
    chunks.push({ type, start: p, end, data: bytes.subarray(p + 8, p + 8 + length) });
    if (type === 'IEND') break;
    p = end;
  }
  return chunks;
}

let crcTable: Uint32Array | undefined;
export function crc32(bytes: Uint8Array, crc = 0xffffffff): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 255]! ^ (crc >>> 8);
  return crc;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, (crc32(out.subarray(4, 8 + data.length)) ^ 0xffffffff) >>> 0);
  return out;
}

async function zlib(bytes: Uint8Array, mode: 'compress' | 'decompress'): Promise<Uint8Array> {
  const stream = new Response(bytes as Uint8Array<ArrayBuffer>).body!.pipeThrough(mode === 'compress' ? new CompressionStream('deflate') : new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function embedPngIcc(bytes: Uint8Array, icc: Uint8Array, name: string): Promise<Uint8Array> {
  const chunks = pngChunks(bytes);
  const ihdr = chunks.find((c) => c.type === 'IHDR');
  if (!ihdr || chunks[0] !== ihdr) throw new Error('PNG without IHDR');
  const header = new TextEncoder().encode(name.replace(/[^\x20-\x7e]/g, '').slice(0, 79) || 'ICC profile');
  const iccp = pngChunk('iCCP', concat([header, new Uint8Array([0, 0]), await zlib(icc, 'compress')]));
  // iCCP and sRGB/gAMA/cHRM must not disagree: the profile replaces them.
  const kept = chunks.filter((c) => !['iCCP', 'sRGB', 'gAMA', 'cHRM'].includes(c.type));
  return concat([bytes.subarray(0, 8), bytes.subarray(ihdr.start, ihdr.end), iccp, ...kept.slice(1).map((c) => bytes.subarray(c.start, c.end))]);
}

async function readPngIcc(bytes: Uint8Array): Promise<Uint8Array | null> {
  const chunk = pngChunks(bytes).find((c) => c.type === 'iCCP');
  if (!chunk) return null;
  const nul = chunk.data.indexOf(0);
  return zlib(chunk.data.subarray(nul + 2), 'decompress');
}

// ---------------------------------------------------------------------------------------------

/**
 * Returns `bytes` (an encoded JPEG or PNG) with `icc` embedded, replacing any profile present.
 *
 * @example const jpeg = await embedIcc(await encodeJpeg(img, 85), 'jpeg', template.icc ?? srgbProfile());
 */
export async function embedIcc(bytes: Uint8Array, format: 'jpeg' | 'png', icc: Uint8Array, name = 'ICC profile'): Promise<Uint8Array> {
  return format === 'jpeg' ? embedJpegIcc(bytes, icc) : embedPngIcc(bytes, icc, name);
}

/** The ICC profile embedded in a JPEG or PNG, or null. */
export async function readIcc(bytes: Uint8Array, format: 'jpeg' | 'png'): Promise<Uint8Array | null> {
  return format === 'jpeg' ? readJpegIcc(bytes) : readPngIcc(bytes);
}
