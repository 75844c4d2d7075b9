/**
 * A streaming multipart/form-data reader for uploads with ONE file part (RFC 7578): text fields
 * are collected (small, bounded), the file part's bytes are handed to `onFile` as a stream while
 * the request is still arriving, so a 100 MB upload never sits in memory whole.
 *
 * Boundaries can straddle chunks: the reader keeps back the last `delimiter.length` bytes of
 * every chunk until it knows they are not the start of the next delimiter.
 */
import { DISCARD_BYTES, drain } from '../../http/read-limited';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../core';

const CRLF = new Uint8Array([13, 10]);
const MAX_FIELD_BYTES = 256 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const MAX_FIELDS = 64;

export interface MultipartFile {
  field: string;
  filename: string;
  contentType?: string;
  stream: ReadableStream<Uint8Array>;
}

export interface MultipartResult<T> {
  fields: Record<string, string>;
  file?: { field: string; filename: string; contentType?: string; result: T };
}

/** The boundary of a multipart/form-data request, or 415. */
export function multipartBoundary(contentType: string | null | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    throw new UnsupportedMediaTypeError(`This endpoint takes multipart/form-data${type ? `, not ${type}` : ''}.`);
  }
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType!);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200) throw new ValidationError({ $: ['The multipart body has no valid boundary.'] });
  return boundary;
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

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function parseHeaders(text: string): { name?: string; filename?: string; contentType?: string } {
  const out: { name?: string; filename?: string; contentType?: string } = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      const name = /(?:^|;)\s*name="((?:[^"\\]|\\.)*)"/i.exec(value) ?? /(?:^|;)\s*name=([^;]+)/i.exec(value);
      if (name) out.name = name[1]!.replace(/\\(.)/g, '$1').trim();
      const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(value);
      const plain = /filename="((?:[^"\\]|\\.)*)"/i.exec(value) ?? /filename=([^;]+)/i.exec(value);
      if (star) {
        try {
          out.filename = decodeURIComponent(star[1]!.trim());
        } catch {
          out.filename = star[1]!.trim();
        }
      } else if (plain) out.filename = plain[1]!.replace(/\\(.)/g, '$1');
    } else if (key === 'content-type') out.contentType = value;
  }
  return out;
}

/**
 * Reads `body`; text fields come back in `fields` (names as sent), the one file part whose field
 * is in `fileFields` (ignoring case) goes to `onFile`, whose result is returned. A second file
 * part is a 400. `onFile` must consume its stream.
 */
export async function readMultipart<T>(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  fileFields: string[],
  onFile: (file: MultipartFile) => Promise<T>,
): Promise<MultipartResult<T>> {
  if (!body) throw new ValidationError({ $: ['The multipart body is empty.'] });
  const enc = new TextEncoder();
  const delimiter = enc.encode(`\r\n--${boundary}`);
  const reader = body.getReader();
  // A leading CRLF lets the first delimiter be found like every other one.
  let buf: Uint8Array = CRLF;
  let done = false;
  const more = async (): Promise<boolean> => {
    if (done) return false;
    const r = await reader.read();
    if (r.done) {
      done = true;
      return false;
    }
    buf = join(buf, r.value);
    return true;
  };
  const malformed = (why: string) => new ValidationError({ $: [`The multipart body is malformed: ${why}`] });

  const wanted = new Set(fileFields.map((f) => f.toLowerCase()));
  const fields: Record<string, string> = {};
  let file: MultipartResult<T>['file'];
  let count = 0;
  try {
    // Preamble up to the first delimiter.
    for (;;) {
      const at = indexOf(buf, delimiter);
      if (at >= 0) {
        buf = buf.subarray(at + delimiter.length);
        break;
      }
      if (buf.length > MAX_HEADER_BYTES) throw malformed('no boundary found.');
      if (!(await more())) throw malformed('no boundary found.');
    }

    for (;;) {
      // After a delimiter: "--" ends the body, else CRLF then the part's headers.
      while (buf.length < 2) if (!(await more())) throw malformed('it ends inside a boundary.');
      if (buf[0] === 45 && buf[1] === 45) break;
      let headerEnd: number;
      for (;;) {
        headerEnd = indexOf(buf, enc.encode('\r\n\r\n'));
        if (headerEnd >= 0) break;
        if (buf.length > MAX_HEADER_BYTES) throw malformed('part headers are too long.');
        if (!(await more())) throw malformed('it ends inside part headers.');
      }
      const headers = parseHeaders(new TextDecoder().decode(buf.subarray(0, headerEnd)));
      buf = buf.subarray(headerEnd + 4);
      if (++count > MAX_FIELDS) throw malformed(`more than ${MAX_FIELDS} parts.`);
      if (!headers.name && headers.name !== '') throw malformed('a part has no name.');

      const isFile = headers.filename !== undefined || wanted.has(headers.name!.toLowerCase());
      if (isFile && wanted.has(headers.name!.toLowerCase())) {
        if (file) throw new ValidationError({ [headers.name!]: ['Send one file only.'] });
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
              if (!(await more())) {
                controller.error(malformed('it ends inside the file part.'));
                return;
              }
            }
          },
        });
        const result = await onFile({ field: headers.name!, filename: headers.filename ?? '', contentType: headers.contentType, stream });
        if (!ended) throw malformed('the file part was not read to its end.');
        file = { field: headers.name!, filename: headers.filename ?? '', contentType: headers.contentType, result };
        continue;
      }
      // A text field (or an unexpected file part: read and bounded like a field).
      for (;;) {
        const at = indexOf(buf, delimiter);
        if (at >= 0) {
          if (at > MAX_FIELD_BYTES) throw new ValidationError({ [headers.name!]: [`The field is longer than ${MAX_FIELD_BYTES / 1024} KB.`] });
          if (headers.filename === undefined) fields[headers.name!] = new TextDecoder().decode(buf.subarray(0, at));
          else throw new ValidationError({ [headers.name!]: [`Unexpected file field; the file goes in "${fileFields[0]}".`] });
          buf = buf.subarray(at + delimiter.length);
          break;
        }
        if (buf.length > MAX_FIELD_BYTES + delimiter.length) throw new ValidationError({ [headers.name!]: [`The field is longer than ${MAX_FIELD_BYTES / 1024} KB.`] });
        if (!(await more())) throw malformed('it ends inside a field.');
      }
    }
  } catch (e) {
    // Answer without cancelling the body (src/http/read-limited.ts says why): drain a bounded
    // amount, whatever the problem (the lock is released either way).
    if (!done) await drain(reader, DISCARD_BYTES);
    throw e;
  } finally {
    reader.releaseLock();
  }
  return { fields, file };
}
