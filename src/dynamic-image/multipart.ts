/**
 * multipart/form-data (RFC 7578) read by us, for uploads (issue 25 §1). The body is read once into
 * one array of its declared length and each file part is a view of it. workerd's own
 * `formData()` kept each file as a File in its memory, outside the isolate's heap, and
 * `file.arrayBuffer()` made another copy. Reading a 10.8 MB PSD's body grew workerd's process by
 * 27 MB that way and by 13 MB this way (docs/memory.md).
 */
import { readAll } from '../http/read-limited';

/**
 * A file part of an upload: a File (so the form's schema and OpenAPI document stay as they are)
 * whose bytes are a view of the request body, not a copy held by the runtime. Read it with
 * `bytesOf`; `size`, `stream()` and `text()` see an empty Blob.
 */
export class UploadedPart extends File {
  constructor(
    readonly content: Uint8Array,
    name: string,
    type: string,
  ) {
    super([], name, { type });
  }

  /** A copy, as a File's would be (callers that know the part use `content`, or `bytesOf`). */
  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.content.slice().buffer;
  }
}

/** An uploaded file's bytes: the part's own view, or a copy of any other File (tests, callers). */
export async function bytesOf(file: File): Promise<Uint8Array> {
  return file instanceof UploadedPart ? file.content : new Uint8Array(await file.arrayBuffer());
}

/** The multipart body could not be read; `message` says where. */
export class MalformedMultipart extends Error {}

/**
 * The whole of a request body, at most `limit` bytes (http/read-limited.ts readAll): with a
 * declared Content-Length the bytes go straight into one array of that length as they arrive,
 * read into it by a BYOB reader where the stream has one, so no chunk is made and left for the
 * collector. Past the limit: the rest drained (never cancelled, see read-limited.ts) and
 * `tooLarge()` thrown.
 */
export async function readBody(body: ReadableStream<Uint8Array> | null, declared: number | undefined, limit: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  return readAll(body, limit, tooLarge, 'drain', declared ?? 0);
}

/** The boundary of a `multipart/form-data; boundary=…` content type, or null. */
export function boundaryOf(contentType: string): string | null {
  const match = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2])! : null;
}

const CRLF_CRLF = new Uint8Array([13, 10, 13, 10]);

/** Index of `pattern` in `data` from `from` on, or -1 (native indexOf finds each candidate). */
function indexOf(data: Uint8Array, pattern: Uint8Array, from: number): number {
  const first = pattern[0]!;
  const last = data.length - pattern.length;
  for (let i = data.indexOf(first, from); i !== -1 && i <= last; i = data.indexOf(first, i + 1)) {
    let j = 1;
    while (j < pattern.length && data[i + j] === pattern[j]) j++;
    if (j === pattern.length) return i;
  }
  return -1;
}

/** A header's parameter (`name="file"`, `filename=x.psd`); quoted strings may escape with `\`. */
function parameter(header: string, name: string): string | null {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header);
  if (!match) return null;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!;
}

/**
 * The parts of a multipart/form-data body, in order: a part with a file name becomes an
 * UploadedPart (a view of `body`), any other its text. Throws MalformedMultipart.
 */
export function parseMultipart(body: Uint8Array, boundary: string): Array<[string, string | UploadedPart]> {
  const encoder = new TextEncoder();
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const parts: Array<[string, string | UploadedPart]> = [];
  // The first delimiter may open the body without the CRLF before it (at = -2), or follow a preamble.
  let at = indexOf(body, delimiter.subarray(2), 0) === 0 ? -2 : indexOf(body, delimiter, 0);
  if (at === -1) throw new MalformedMultipart(`no boundary "${boundary}" in the body`);
  const utf8 = new TextDecoder();
  for (;;) {
    let p = at + delimiter.length;
    if (body[p] === 0x2d && body[p + 1] === 0x2d) return parts; // "--": the closing delimiter
    // Transport padding, then CRLF.
    while (body[p] === 0x20 || body[p] === 0x09) p++;
    if (body[p] !== 13 || body[p + 1] !== 10) throw new MalformedMultipart('a boundary line does not end with CRLF');
    // The headers end at a blank line (right after the boundary line when there are none).
    const headerEnd = indexOf(body, CRLF_CRLF, p);
    if (headerEnd === -1) throw new MalformedMultipart('a part has no end to its headers');
    const headers = utf8.decode(body.subarray(p + 2, headerEnd)).split('\r\n');
    const contentStart = headerEnd + 4;
    const next = indexOf(body, delimiter, contentStart);
    if (next === -1) throw new MalformedMultipart('the body ends before its closing boundary');
    const content = body.subarray(contentStart, next);
    let disposition: string | undefined;
    let type = '';
    for (const line of headers) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const key = line.slice(0, colon).trim().toLowerCase();
      if (key === 'content-disposition') disposition = line.slice(colon + 1);
      else if (key === 'content-type') type = line.slice(colon + 1).trim();
    }
    if (!disposition || !/^\s*form-data\b/i.test(disposition)) throw new MalformedMultipart('a part has no "Content-Disposition: form-data" header');
    const name = parameter(disposition, 'name');
    if (name === null) throw new MalformedMultipart('a part has no name');
    const filename = parameter(disposition, 'filename');
    parts.push([name, filename === null ? utf8.decode(content) : new UploadedPart(content, filename, type || 'application/octet-stream')]);
    at = next;
  }
}
