/**
 * The one streaming multipart/form-data reader (RFC 7578), for every upload: text fields are
 * collected (small, bounded), each file part's bytes are handed to `onFile` as a stream while the
 * request is still arriving, so a 100 MB upload never sits in memory whole (issue 25 §1). The
 * Dynamic Image uploads take several file parts, the platform's one (src/platform/assets/multipart.ts).
 *
 * Boundaries can straddle chunks: the reader keeps back the last `delimiter.length` bytes of
 * every chunk until it knows they are not the start of the next delimiter.
 *
 * Errors are MultipartError (`field` set when one field is at fault); each caller turns them into
 * its protocol's 400. Whatever goes wrong, the rest of the body is drained, never cancelled
 * (src/http/read-limited.ts says why).
 */
import { freeNow } from '../engine/compiled/free';
import { DISCARD_BYTES, drain } from './read-limited';

const CRLF = new Uint8Array([13, 10]);
const CRLF_CRLF = new Uint8Array([13, 10, 13, 10]);
export const MAX_FIELD_BYTES = 256 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PARTS = 64;

/** The body cannot be read as multipart, or one field breaks a rule (`field`). */
export class MultipartError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'MultipartError';
  }
}

export interface MultipartFile {
  field: string;
  filename: string;
  contentType?: string;
  stream: ReadableStream<Uint8Array>;
}

export interface MultipartOptions<T> {
  /** Whether a part is a file, streamed to onFile (else a text field, at most 256 KB). */
  isFile(field: string, filename: string | undefined): boolean;
  /** Consumes one file part's stream (to its end); its result is kept in `files`. */
  onFile(file: MultipartFile): Promise<T>;
  /** At most this many file parts (a 400 on the field beyond); default unbounded. */
  maxFiles?: number;
  /** At most this many parts in all; default 64. */
  maxParts?: number;
  /** The whole body's bound: past it `tooLarge()` is thrown (the rest drained). */
  limit?: { bytes: number; tooLarge: () => Error };
}

export interface MultipartResult<T> {
  /** Text fields in order, names as sent. */
  fields: Array<[string, string]>;
  files: Array<{ field: string; filename: string; contentType?: string; result: T }>;
}

/** The boundary of a `multipart/form-data; boundary=…` content type, or null. */
export function boundaryOf(contentType: string): string | null {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2])! : null;
}

function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  const last = hay.length - needle.length;
  outer: for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/**
 * The unscanned tail and a new chunk as one array. The chunk, copied, is given back at once
 * (engine/compiled/free.ts): the reader owns it and nothing else sees it, and a 100 MB body's chunks would
 * otherwise wait for V8's next collection in the runtime's memory.
 */
function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  freeNow([b]);
  return out;
}

/** The name, file name (`filename*` preferred) and type of a part, from its header lines. */
function parseHeaders(text: string): { disposition: boolean; name?: string; filename?: string; contentType?: string } {
  const out: { disposition: boolean; name?: string; filename?: string; contentType?: string } = { disposition: false };
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      out.disposition = /^form-data\b/i.test(value);
      const name = /(?:^|;)\s*name\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(value) ?? /(?:^|;)\s*name\s*=\s*([^;]+)/i.exec(value);
      if (name) out.name = name[1]!.replace(/\\(.)/g, '$1').trim();
      const star = /filename\*\s*=\s*(?:UTF-8'[^']*')?([^;]+)/i.exec(value);
      const plain = /;\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(value) ?? /;\s*filename\s*=\s*([^;]*)/i.exec(value);
      if (star) {
        try {
          out.filename = decodeURIComponent(star[1]!.trim());
        } catch {
          out.filename = star[1]!.trim();
        }
      } else if (plain) out.filename = plain[1]!.replace(/\\(.)/g, '$1').trim();
    } else if (key === 'content-type') out.contentType = value;
  }
  return out;
}

/**
 * Reads `body` part by part. Throws MultipartError, `limit.tooLarge()`, or what onFile throws;
 * in every case the body is drained first (up to DISCARD_BYTES in all).
 */
export async function readMultipart<T>(body: ReadableStream<Uint8Array> | null, boundary: string, options: MultipartOptions<T>): Promise<MultipartResult<T>> {
  if (!body) throw new MultipartError('The multipart body is empty.');
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const reader = body.getReader();
  let buf: Uint8Array = new Uint8Array(0);
  let done = false;
  let seen = 0;
  const more = async (): Promise<boolean> => {
    if (done) return false;
    const r = await reader.read();
    if (r.done) {
      done = true;
      return false;
    }
    seen += r.value.byteLength;
    if (options.limit && seen > options.limit.bytes) throw options.limit.tooLarge();
    buf = join(buf, r.value);
    return true;
  };
  const malformed = (why: string) => new MultipartError(why);

  const fields: Array<[string, string]> = [];
  const files: MultipartResult<T>['files'] = [];
  const maxParts = options.maxParts ?? MAX_PARTS;
  let count = 0;
  try {
    // Preamble up to the first delimiter, which may open the body without the CRLF before it
    // (checked in place: a body read whole is never copied, its file parts are views of it).
    const opening = delimiter.subarray(CRLF.length);
    for (;;) {
      if (buf.length >= opening.length && indexOf(buf.subarray(0, opening.length), opening) === 0) {
        buf = buf.subarray(opening.length);
        break;
      }
      const at = indexOf(buf, delimiter);
      if (at >= 0) {
        buf = buf.subarray(at + delimiter.length);
        break;
      }
      if (buf.length > MAX_HEADER_BYTES) throw malformed(`no boundary "${boundary}" in the body.`);
      if (!(await more())) throw malformed(`no boundary "${boundary}" in the body.`);
    }

    for (;;) {
      // After a delimiter: "--" ends the body, else transport padding, CRLF, the part's headers.
      while (buf.length < 2) if (!(await more())) throw malformed('it ends inside a boundary.');
      if (buf[0] === 45 && buf[1] === 45) break;
      let headerEnd: number;
      for (;;) {
        headerEnd = indexOf(buf, CRLF_CRLF);
        if (headerEnd >= 0) break;
        if (buf.length > MAX_HEADER_BYTES) throw malformed('part headers are too long.');
        if (!(await more())) throw malformed('it ends inside part headers.');
      }
      let p = 0;
      while (buf[p] === 0x20 || buf[p] === 0x09) p++;
      if (buf[p] !== 13 || buf[p + 1] !== 10) throw malformed('a boundary line does not end with CRLF.');
      const headers = parseHeaders(new TextDecoder().decode(buf.subarray(p, headerEnd)));
      buf = buf.subarray(headerEnd + 4);
      if (++count > maxParts) throw malformed(`more than ${maxParts} parts.`);
      if (headers.name === undefined) throw malformed('a part has no name.');
      if (!headers.disposition) throw malformed('a part has no "Content-Disposition: form-data" header.');
      const field = headers.name;

      if (options.isFile(field, headers.filename)) {
        if (options.maxFiles !== undefined && files.length >= options.maxFiles) throw new MultipartError('Send one file only.', field);
        // Stream the part's content up to the next delimiter.
        let ended = false;
        const stream = new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            for (;;) {
              // Every byte is scanned once: all but the last delimiter.length bytes go out as a
              // view (chunks are never reused), so only that short tail is copied by more().
              const at = indexOf(buf, delimiter);
              if (at >= 0) {
                if (at > 0) controller.enqueue(buf.subarray(0, at));
                buf = buf.subarray(at + delimiter.length);
                ended = true;
                controller.close();
                return;
              }
              const safe = buf.length - delimiter.length;
              if (safe > 0) {
                controller.enqueue(buf.subarray(0, safe));
                buf = buf.subarray(safe);
                return;
              }
              let got: boolean;
              try {
                got = await more();
              } catch (e) {
                controller.error(e);
                return;
              }
              if (!got) {
                controller.error(malformed('the body ends before its closing boundary.'));
                return;
              }
            }
          },
        });
        const filename = headers.filename ?? '';
        const result = await options.onFile({ field, filename, contentType: headers.contentType, stream });
        if (!ended) throw malformed('the file part was not read to its end.');
        files.push({ field, filename, contentType: headers.contentType, result });
        continue;
      }
      // A text field.
      for (;;) {
        const at = indexOf(buf, delimiter);
        if (at >= 0) {
          if (at > MAX_FIELD_BYTES) throw new MultipartError(`The field is longer than ${MAX_FIELD_BYTES / 1024} KB.`, field);
          fields.push([field, new TextDecoder().decode(buf.subarray(0, at))]);
          buf = buf.subarray(at + delimiter.length);
          break;
        }
        if (buf.length > MAX_FIELD_BYTES + delimiter.length) throw new MultipartError(`The field is longer than ${MAX_FIELD_BYTES / 1024} KB.`, field);
        if (!(await more())) throw malformed('the body ends before its closing boundary.');
      }
    }
  } catch (e) {
    // Answer without cancelling the body, whatever the problem (the lock is released either way).
    if (!done) await drain(reader, Math.max(0, DISCARD_BYTES - seen));
    throw e;
  } finally {
    reader.releaseLock();
  }
  return { fields, files };
}
