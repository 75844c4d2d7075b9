/**
 * Decoded-size bounds of a PDF, checked before anything decodes a whole stream (issue 18, item 3:
 * a 1 MB PDF whose page content inflates to 1 GB took PDFium 26 s and GBs of memory). PDFium and
 * pdf-lib both decode a stream whole, into memory, before using it; this check streams every
 * stream of the file through bounded decoders that stop at the limit, so a bomb costs at most
 * the limit in time and a few MB of memory.
 *
 * ```ts
 * checkPdfDecodedSizes(bytes); // throws InputsTooLarge naming the limit, or returns the totals
 * ```
 *
 * What is bounded (PDF_DECODE_LIMITS):
 * - every stream (page contents, fonts, object and xref streams, images) after EACH filter of its
 *   chain (FlateDecode, LZWDecode, RunLengthDecode, ASCIIHexDecode, ASCII85Decode, followed in
 *   order), since PDFium keeps each stage's whole output;
 * - every image XObject by its declared size, width × height × 4 (the BGRA bitmap PDFium makes
 *   of it), whatever its filter (DCT, JPX, JBIG2 and CCITT output is never decoded here);
 * - all streams of the file together;
 * - an encrypted file's streams cannot be decoded without its key, so each is bounded by the
 *   most its length could inflate to (Flate's 1032 : 1), and refused when that could pass the limit.
 *
 * The file is read lexically (`<< … >> stream … endstream`), not through its cross-reference
 * table, so a broken or lying xref hides no stream; the search goes on inside stream data (a fake
 * marker cannot hide a real stream), and its work is budgeted at 16 × the file's size. Page rasters are bounded by the caller
 * (rasterisePdfPages' maxLongSide and maxPages). Not covered: inline images (BI … ID … EI) inside
 * content streams, whose content stream is bounded but not their declared size.
 */
import { Unzlib } from 'fflate';
import { InputsTooLarge } from '../errors';
import { sniffImage } from '../raster/sniff';

const MiB = 1024 * 1024;

export interface PdfDecodeLimits {
  /** Bytes one stream that is not an image may decode to, after any one filter. */
  streamBytes: number;
  /**
   * Bytes one image's stream may decode to (no more than its declared width × height × 8 +
   * height, 4 channels of 16 bits and a predictor byte per row, when that is over `streamBytes`),
   * and, when `checkImageSizes`, width ×
   * height × 4 (the BGRA bitmap PDFium draws it into). An image with no readable size decodes
   * within `streamBytes`, as any stream: a page's content stream labelled /Subtype /Image gains nothing.
   */
  imageBytes: number;
  /** Refuse images by their declared size: for PDFium, which draws them; pdf-lib only copies them. */
  checkImageSizes: boolean;
  /** Bytes every stream of the file may decode to together (each filter's output counted). */
  totalBytes: number;
}

/** What PDFium may decode: it draws images too. */
export const PDF_DECODE_LIMITS = { streamBytes: 64 * MiB, imageBytes: 256 * MiB, totalBytes: 1024 * MiB, checkImageSizes: true } as const satisfies PdfDecodeLimits;
/** What pdf-lib may decode (object streams on load, page contents when it embeds a page): images are copied, not drawn. */
export const PDF_LIB_DECODE_LIMITS: PdfDecodeLimits = { ...PDF_DECODE_LIMITS, checkImageSizes: false };

/** The largest ratio of Flate (deflate): 258 bytes for two 1-bit codes, in the best case. */
const FLATE_MAX_RATIO = 1032;
/** Input is fed to the decoders in pieces this large: a Flate piece inflates to ≤ 2 MB at once. */
const PIECE = 2048;

export interface PdfDecodeSummary {
  streams: number;
  images: number;
  /** Bytes all streams decoded to, every filter stage counted. */
  decodedBytes: number;
}

const mb = (n: number) => `${Math.round((n / MiB) * 10) / 10} MB`;

/**
 * Checks every stream of `file` against `limits` (see the module comment); throws InputsTooLarge
 * naming the stream (its object number when it has one) and the limit.
 */
export function checkPdfDecodedSizes(file: Uint8Array, limits: PdfDecodeLimits = PDF_DECODE_LIMITS): PdfDecodeSummary {
  const summary: PdfDecodeSummary = { streams: 0, images: 0, decodedBytes: 0 };
  const encrypted = findToken(file, '/Encrypt', 0) >= 0;
  const refuse = (reason: string, message: string): never => {
    throw new InputsTooLarge(message, [{ path: 'file', reason }]);
  };
  const totalReason = `streams decode past the ${mb(limits.totalBytes)} limit`;
  const totalMessage = `The PDF's streams decode to more than ${mb(limits.totalBytes)} together; the limit is ${mb(limits.totalBytes)} per file.`;
  const budget: Budget = { left: SCAN_WORK_PER_BYTE * file.length + MiB };
  for (const s of streams(file, budget)) {
    summary.streams++;
    const dict = parseDict(s.dict, file);
    const name = s.objectNumber !== undefined ? `object ${s.objectNumber}` : `the stream at byte ${s.start}`;
    const isImage = dict.subtype === 'Image';
    let limit = limits.streamBytes;
    const what = isImage ? 'image' : 'stream';
    const data = file.subarray(s.start, s.end);
    // A /Filter we cannot read: PDFium may find it (an object stream), so zlib data is inflated anyway.
    const filters = dict.filters ?? (looksLikeZlib(data) ? ['FlateDecode'] : []);
    if (isImage) {
      summary.images++;
      let { width, height } = dict;
      if ((width === undefined || height === undefined) && filters.at(-1) === 'DCTDecode' && filters.length === 1) {
        const jpeg = sniffImage(data.subarray(0, 256 * 1024));
        if (jpeg) (width = jpeg.width), (height = jpeg.height);
      }
      if (width !== undefined && height !== undefined) {
        if (limits.checkImageSizes && width * height * 4 > limits.imageBytes)
          refuse(
            `image ${width} × ${height} px over the ${mb(limits.imageBytes)} image limit`,
            `The PDF's image (${name}) is ${width} × ${height} px: ${mb(width * height * 4)} decoded; the limit is ${mb(limits.imageBytes)} per image.`,
          );
        limit = Math.min(Math.max(width * height * 8 + height, limits.streamBytes), limits.imageBytes);
      }
    }
    // Cross-reference streams are never encrypted (ISO 32000-1 §7.5.8.2): they are read as usual.
    if (encrypted && (dict.filters?.length ?? 1) && !isImage && dict.type !== 'XRef') {
      // Without the key its bytes are noise to a decoder: bound it by what it could become.
      const worst = data.length * FLATE_MAX_RATIO;
      if (worst > limit)
        refuse(
          `encrypted stream could decode past the ${mb(limit)} limit`,
          `The PDF is encrypted, so its ${what} (${name}) cannot be checked before decoding: its ${data.length} bytes could decode to ${mb(worst)}; the limit is ${mb(limit)} per ${what}. Upload it unencrypted.`,
        );
    } else {
      let stage: Iterable<Uint8Array> = pieces(data);
      // Overlapping fake streams could make the same bytes decode again and again: charged too.
      if (filters[0] && DECODERS[filters[0]]) spend(budget, data.length);
      else stage = [];
      for (const filter of filters) {
        const decode = DECODERS[filter];
        if (!decode) break; // DCT, JPX, JBIG2, CCITT, Crypt: images, bounded by their size above
        let produced = 0;
        stage = counted(decode(stage), (n) => {
          produced += n;
          summary.decodedBytes += n;
          if (produced > limit)
            refuse(
              `${what} decodes past the ${mb(limit)} limit`,
              `The PDF's ${what} (${name}) decodes to more than ${mb(limit)} (${filter}); the limit is ${mb(limit)} per ${what}.`,
            );
          if (summary.decodedBytes > limits.totalBytes) refuse(totalReason, totalMessage);
        });
      }
      for (const _ of stage); // pull everything through the chain (each stage counts and checks)
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------
// Finding streams

interface RawStream {
  /** The stream dictionary's text, `<<` to `>>`. */
  dict: string;
  objectNumber?: number;
  /** Data from `start` to `end` (exclusive), as the file has it (still encoded). */
  start: number;
  end: number;
}

const isWhite = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09 || b === 0x0c || b === 0x00;
const isRegular = (b: number | undefined) =>
  b !== undefined && !isWhite(b) && b !== 0x28 && b !== 0x29 && b !== 0x3c && b !== 0x3e && b !== 0x5b && b !== 0x5d && b !== 0x7b && b !== 0x7d && b !== 0x2f && b !== 0x25;
const latin1 = (b: Uint8Array) => {
  let s = '';
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
};

/** The first `token` at or after `from` that is not part of a longer name or keyword. */
function findToken(file: Uint8Array, token: string, from: number): number {
  const first = token.charCodeAt(0);
  for (let i = file.indexOf(first, from); i >= 0; i = file.indexOf(first, i + 1)) {
    let k = 1;
    while (k < token.length && file[i + k] === token.charCodeAt(k)) k++;
    if (k === token.length && !isRegular(file[i + k]) && (token[0] === '/' || !isRegular(file[i - 1]))) return i;
  }
  return -1;
}

/** Bytes the lexical search may look at, per byte of the file: a file full of fake markers is refused, not searched forever. */
const SCAN_WORK_PER_BYTE = 16;

interface Budget {
  left: number;
}

/**
 * Every `<< … >> stream` in the file, in order. The search goes on INSIDE each stream's data too:
 * a fake `>> stream` (in a string of a dictionary, say) must not hide the real one after it.
 */
function* streams(file: Uint8Array, budget: Budget): Generator<RawStream> {
  let from = 0;
  for (;;) {
    const at = findToken(file, 'stream', from);
    if (at < 0) return;
    from = at + 6;
    // The dictionary ends right before the keyword (whitespace and comments may come between).
    const close = dictEndBefore(file, at, budget);
    if (close < 0) continue;
    const open = dictStart(file, close, budget);
    if (open < 0) continue;
    let start = at + 6;
    if (file[start] === 0x0d) start++;
    if (file[start] === 0x0a) start++;
    const dict = latin1(file.subarray(open, close + 1));
    const end = streamEnd(file, dict, start, budget);
    const head = latin1(file.subarray(Math.max(0, open - 32), open));
    const num = /(\d+)\s+\d+\s+obj\s*$/.exec(head);
    yield { dict, objectNumber: num ? Number(num[1]) : undefined, start, end };
  }
}

function spend(budget: Budget, n: number): void {
  budget.left -= n;
  if (budget.left < 0)
    throw new InputsTooLarge('The PDF has too many stream markers to be checked; it is refused rather than decoded unchecked.', [{ path: 'file', reason: 'too many stream markers' }]);
}

/** The last `>` of the `>>` before `at`, skipping whitespace and `%` comments; -1 when there is none. */
function dictEndBefore(file: Uint8Array, at: number, budget: Budget): number {
  let i = at - 1;
  try {
    for (let comments = 0; comments < 8; comments++) {
      while (i >= 0 && isWhite(file[i]!)) i--;
      if (i >= 1 && file[i] === 0x3e && file[i - 1] === 0x3e) return i;
      // A comment runs from `%` to the end of its line: look for one on this line.
      let k = i;
      while (k >= 0 && file[k] !== 0x0a && file[k] !== 0x0d && file[k] !== 0x25) k--;
      if (k < 0 || file[k] !== 0x25) return -1;
      i = k - 1;
    }
    return -1;
  } finally {
    spend(budget, at - Math.max(i, 0));
  }
}

/** The `<<` that opens the dictionary whose `>>` ends at `closeAt` (nested dictionaries balanced). */
function dictStart(file: Uint8Array, closeAt: number, budget: Budget): number {
  let depth = 0;
  const floor = Math.max(0, closeAt - 256 * 1024);
  let i = closeAt;
  try {
    for (; i > floor; i--) {
      if (file[i] === 0x3e && file[i - 1] === 0x3e) {
        depth++;
        i--;
      } else if (file[i] === 0x3c && file[i - 1] === 0x3c) {
        depth--;
        i--;
        if (depth === 0) return i;
      }
    }
    return -1;
  } finally {
    spend(budget, closeAt - i);
  }
}

/** Where the data ends: at a direct /Length when `endstream` follows it, else at the next `endstream`. */
function streamEnd(file: Uint8Array, dict: string, start: number, budget: Budget): number {
  const direct = /\/Length\s+(\d+)\b(?!\s+\d+\s+R)/.exec(dict);
  if (direct) {
    const end = start + Number(direct[1]);
    let k = end;
    while (k < file.length && isWhite(file[k]!)) k++;
    if (end <= file.length && findToken(file, 'endstream', k) === k) return end;
  }
  const found = findToken(file, 'endstream', start);
  spend(budget, (found < 0 ? file.length : found) - start);
  if (found < 0) return file.length;
  let end = found;
  if (file[end - 1] === 0x0a) end--;
  if (file[end - 1] === 0x0d) end--;
  return Math.max(start, end);
}

// ---------------------------------------------------------------------------------------------
// Reading the dictionary

interface StreamDict {
  /** Decode order; `undefined` when /Filter names an object this lexical reading cannot find (compressed in an object stream). */
  filters: string[] | undefined;
  type?: string;
  subtype?: string;
  width?: number;
  height?: number;
}

const FILTER_NAMES: Record<string, string> = { Fl: 'FlateDecode', LZW: 'LZWDecode', RL: 'RunLengthDecode', AHx: 'ASCIIHexDecode', A85: 'ASCII85Decode' };

/** The top-level entries the check needs; nested dictionaries (DecodeParms) are skipped. */
function parseDict(text: string, file: Uint8Array): StreamDict {
  const top = topLevel(text);
  // A value may be indirect (`/Filter 7 0 R`): read the object it names.
  const value = (key: string, direct: string): string | null | undefined => {
    const m = new RegExp(`/${key}\\s*(?:${direct}|(\\d+)\\s+(\\d+)\\s+R)`).exec(top);
    if (!m) return undefined;
    return m[1] ?? objectText(file, Number(m[2]), Number(m[3]));
  };
  const filter = value('Filter', '(\\[[^\\]]*\\]|\\/[^\\s/[\\]<>()]+)');
  const filters = filter === null ? undefined : [...(filter ?? '').matchAll(/\/([^\s/[\]<>()]+)/g)].map((m) => FILTER_NAMES[m[1]!] ?? m[1]!);
  const subtype = value('Subtype', '\\/([^\\s/[\\]<>()]+)')?.replace(/^\s*\//, '').trim();
  const type = /\/Type\s*\/([^\s/[\]<>()]+)/.exec(top)?.[1];
  const int = (key: string) => {
    const m = new RegExp(`/${key}\\s+(\\d+)(\\s+(\\d+)\\s+R)?`).exec(top);
    if (!m) return undefined;
    return m[2] ? resolveInteger(file, Number(m[1]), Number(m[3])) : Number(m[1]);
  };
  return { filters, type, subtype, width: subtype === 'Image' ? int('Width') : undefined, height: subtype === 'Image' ? int('Height') : undefined };
}

/** `text` (one dictionary) with its nested dictionaries blanked out. */
function topLevel(text: string): string {
  let depth = 0;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('<<', i)) {
      depth++;
      i++;
      out += '  ';
    } else if (text.startsWith('>>', i)) {
      depth--;
      i++;
      out += '  ';
    } else out += depth <= 1 ? text[i] : ' ';
  }
  return out;
}

/** The integer object `num gen obj <int> endobj`, for an indirect /Width or /Height. */
function resolveInteger(file: Uint8Array, num: number, gen: number): number | undefined {
  const m = /^\s*(\d+)\s*$/.exec(objectText(file, num, gen) ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Where each `num gen obj` starts its body (the last definition wins), found in one pass and kept per file. */
const OBJECTS = new WeakMap<Uint8Array, Map<string, number>>();
function objectIndex(file: Uint8Array): Map<string, number> {
  let index = OBJECTS.get(file);
  if (index) return index;
  index = new Map();
  for (let at = findToken(file, 'obj', 0); at >= 0; at = findToken(file, 'obj', at + 3)) {
    const m = /(?:^|[^\d])(\d+)\s+(\d+)\s+$/.exec(latin1(file.subarray(Math.max(0, at - 24), at)));
    if (m) index.set(`${m[1]} ${m[2]}`, at + 3);
  }
  OBJECTS.set(file, index);
  return index;
}

/** The text of a small object (`num gen obj … endobj`), or null when it is not in the file as text. */
function objectText(file: Uint8Array, num: number, gen: number): string | null {
  const at = objectIndex(file).get(`${num} ${gen}`);
  if (at === undefined) return null;
  return /^([\s\S]*?)endobj/.exec(latin1(file.subarray(at, at + 4096)))?.[1] ?? null;
}

// ---------------------------------------------------------------------------------------------
// Bounded decoders: pull-based generators, so a stage that stops stops the ones before it.

type Decoder = (input: Iterable<Uint8Array>) => Generator<Uint8Array>;

/** A zlib header (RFC 1950 §2.2): deflate, window ≤ 32 KB, check bits right. */
const looksLikeZlib = (d: Uint8Array) => d.length > 2 && (d[0]! & 0x0f) === 8 && d[0]! >> 4 <= 7 && ((d[0]! << 8) | d[1]!) % 31 === 0;

function* pieces(data: Uint8Array): Generator<Uint8Array> {
  for (let i = 0; i < data.length; i += PIECE) yield data.subarray(i, i + PIECE);
}

/** Passes `input` through, reporting each chunk's length to `count` (which throws past a limit). */
function* counted(input: Iterable<Uint8Array>, count: (n: number) => void): Generator<Uint8Array> {
  for (const chunk of input) {
    count(chunk.length);
    yield chunk;
  }
}

/** Runs `step` over every input chunk, yielding what it produced; corrupt data ends the output. */
function* drive(input: Iterable<Uint8Array>, step: (chunk: Uint8Array | null, out: Uint8Array[]) => void): Generator<Uint8Array> {
  const out: Uint8Array[] = [];
  try {
    // In pieces, whatever the stage before produced at once: each piece's output stays small.
    for (const chunk of input) {
      for (let i = 0; i < chunk.length; i += PIECE) {
        step(chunk.subarray(i, i + PIECE), out);
        while (out.length) yield out.shift()!;
      }
    }
    step(null, out);
  } catch (e) {
    if (e instanceof InputsTooLarge) throw e;
    // Corrupt or truncated: decoders stop at the error, as PDFium's do.
  }
  while (out.length) yield out.shift()!;
}

const flate: Decoder = (input) => {
  let z: Unzlib | undefined;
  return drive(input, (chunk, out) => {
    z ??= new Unzlib((data) => out.push(data));
    z.push(chunk ?? new Uint8Array(0), chunk === null);
  });
};

/** LZW as PDF uses it (MSB first, 9–12 bit codes, EarlyChange 1), emitting ≤ 64 KB at a time. */
const lzw: Decoder = (input) => {
  const prefix = new Int32Array(4096);
  const suffix = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let i = 0; i < 256; i++) (suffix[i] = i), (length[i] = 1), (prefix[i] = -1);
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let nbits = 0;
  let done = false;
  let buf = new Uint8Array(65536);
  let used = 0;
  const emit = (code: number, out: Uint8Array[], extra?: number) => {
    const n = length[code]! + (extra !== undefined ? 1 : 0);
    if (used + n > buf.length) {
      out.push(buf.subarray(0, used));
      buf = new Uint8Array(Math.max(65536, n));
      used = 0;
    }
    let c = code;
    for (let k = length[code]! - 1; k >= 0; k--) (buf[used + k] = suffix[c]!), (c = prefix[c]!);
    if (extra !== undefined) buf[used + n - 1] = extra;
    used += n;
  };
  return drive(input, (chunk, out) => {
    if (chunk === null || done) {
      if (used) out.push(buf.subarray(0, used)), (used = 0);
      return;
    }
    for (const byte of chunk) {
      bits = ((bits << 8) | byte) & 0xffffff;
      nbits += 8;
      while (nbits >= width && !done) {
        const code = (bits >>> (nbits - width)) & ((1 << width) - 1);
        nbits -= width;
        if (code === 256) {
          next = 258;
          width = 9;
          previous = -1;
          continue;
        }
        if (code === 257) {
          done = true;
          break;
        }
        if (previous < 0) {
          if (code > 255) throw new Error('bad LZW code');
          emit(code, out);
          previous = code;
          continue;
        }
        let first: number;
        if (code < next) {
          emit(code, out);
          let c = code;
          while (prefix[c]! >= 0) c = prefix[c]!;
          first = suffix[c]!;
        } else if (code === next) {
          let c = previous;
          while (prefix[c]! >= 0) c = prefix[c]!;
          first = suffix[c]!;
          emit(previous, out, first);
        } else throw new Error('bad LZW code');
        if (next < 4096) {
          prefix[next] = previous;
          suffix[next] = first;
          length[next] = length[previous]! + 1;
          next++;
        }
        if (next + 1 >= 1 << width && width < 12) width++;
        previous = code;
      }
    }
    if (used > 32768) out.push(buf.subarray(0, used)), (buf = new Uint8Array(65536)), (used = 0);
  });
};

const runLength: Decoder = (input) => {
  let pending: number[] = [];
  let done = false;
  return drive(input, (chunk, out) => {
    if (!chunk || done) return;
    const bytes = pending.length ? Uint8Array.from([...pending, ...chunk]) : chunk;
    pending = [];
    const parts: Uint8Array[] = [];
    let i = 0;
    while (i < bytes.length) {
      const n = bytes[i]!;
      if (n === 128) {
        done = true;
        break;
      }
      if (n < 128) {
        if (i + 1 + n + 1 > bytes.length) break;
        parts.push(bytes.slice(i + 1, i + 2 + n));
        i += n + 2;
      } else {
        if (i + 1 >= bytes.length) break;
        parts.push(new Uint8Array(257 - n).fill(bytes[i + 1]!));
        i += 2;
      }
    }
    if (!done) pending = [...bytes.subarray(i)];
    out.push(...parts);
  });
};

const asciiHex: Decoder = (input) => {
  let half = -1;
  let done = false;
  return drive(input, (chunk, out) => {
    if (!chunk || done) {
      if (chunk === null && half >= 0 && !done) out.push(Uint8Array.of(half << 4));
      return;
    }
    const bytes: number[] = [];
    for (const c of chunk) {
      if (c === 0x3e) {
        done = true;
        break;
      }
      const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1;
      if (v < 0) continue;
      if (half < 0) half = v;
      else bytes.push((half << 4) | v), (half = -1);
    }
    if (done && half >= 0) bytes.push(half << 4), (half = -1);
    out.push(Uint8Array.from(bytes));
  });
};

const ascii85: Decoder = (input) => {
  const group: number[] = [];
  let done = false;
  const flush = (bytes: number[], n: number) => {
    let v = 0;
    for (let k = 0; k < 5; k++) v = v * 85 + (group[k] ?? 84);
    for (let k = 0; k < n; k++) bytes.push((v >>> (24 - 8 * k)) & 0xff);
  };
  return drive(input, (chunk, out) => {
    const bytes: number[] = [];
    if (chunk && !done) {
      for (const c of chunk) {
        if (c === 0x7e) {
          done = true;
          break;
        }
        if (c === 0x7a && group.length === 0) {
          bytes.push(0, 0, 0, 0);
          continue;
        }
        if (c < 0x21 || c > 0x75) continue;
        group.push(c - 33);
        if (group.length === 5) flush(bytes, 4), (group.length = 0);
      }
    }
    if ((done || chunk === null) && group.length > 1) flush(bytes, group.length - 1), (group.length = 0);
    out.push(Uint8Array.from(bytes));
  });
};

const DECODERS: Record<string, Decoder> = {
  FlateDecode: flate,
  LZWDecode: lzw,
  RunLengthDecode: runLength,
  ASCIIHexDecode: asciiHex,
  ASCII85Decode: ascii85,
};
