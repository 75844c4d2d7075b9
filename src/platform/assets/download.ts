/**
 * File downloads (contract, Conventions): 200 or 206 for one `Range` (RFC 9110: `bytes=a-b`,
 * `bytes=a-`, `bytes=-n`; several ranges are answered whole with 200, an unsatisfiable one with
 * 416 and `Content-Range: bytes *\/size`), `Content-Disposition` inline or, with
 * `attachment=true`, attachment, with the file name in both ASCII and RFC 5987 form.
 */
import { NotFoundError, problemResponse } from '../core';

export interface Download {
  key: string;
  filename: string;
  contentType: string;
  attachment: boolean;
  cacheControl?: string;
}

/**
 * The name a download is saved under: the base name only (an asset named `../../x/index.html`
 * saves as `index.html`, never into another folder of the client), without control characters;
 * `download` when nothing is left.
 */
export function downloadName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base === '' || base === '.' || base === '..' ? 'download' : base;
}

function contentDisposition(filename: string, attachment: boolean): string {
  const name = downloadName(filename);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${attachment ? 'attachment' : 'inline'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

type Range = { offset: number; length: number } | 'unsatisfiable' | null;

export function parseRange(header: string | null | undefined, size: number): Range {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null; // unknown units or several ranges: whole file
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    const length = Math.min(n, size);
    return { offset: size - length, length };
  }
  const start = Number(m[1]);
  if (start >= size) return 'unsatisfiable';
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (end < start) return null;
  return { offset: start, length: end - start + 1 };
}

export async function serveFile(bucket: R2Bucket, d: Download, request: Request): Promise<Response> {
  const head = await bucket.head(d.key);
  if (!head) throw new NotFoundError('The file is missing.');
  const headers = new Headers({
    'content-type': d.contentType,
    'content-disposition': contentDisposition(d.filename, d.attachment),
    'accept-ranges': 'bytes',
    etag: head.httpEtag,
  });
  if (d.cacheControl) headers.set('cache-control', d.cacheControl);
  const range = parseRange(request.headers.get('range'), head.size);
  if (range === 'unsatisfiable') {
    // A 4xx like every other: problem details, with the size in Content-Range (RFC 9110 §15.5.17).
    return problemResponse(new URL(request.url).pathname, {
      status: 416,
      detail: `The range "${request.headers.get('range')!.slice(0, 100)}" selects none of the file's ${head.size} bytes.`,
      headers: { 'content-range': `bytes */${head.size}`, 'accept-ranges': 'bytes' },
    });
  }
  const method = request.method.toUpperCase();
  if (range) {
    headers.set('content-range', `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
    headers.set('content-length', String(range.length));
    if (method === 'HEAD') return new Response(null, { status: 206, headers });
    const obj = await bucket.get(d.key, { range });
    if (!obj) throw new NotFoundError('The file is missing.');
    return new Response(obj.body, { status: 206, headers });
  }
  headers.set('content-length', String(head.size));
  if (method === 'HEAD') return new Response(null, { status: 200, headers });
  const obj = await bucket.get(d.key);
  if (!obj) throw new NotFoundError('The file is missing.');
  return new Response(obj.body, { status: 200, headers });
}
