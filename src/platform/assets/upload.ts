/**
 * Getting a file in: a multipart upload streamed into R2 staging, or a download from a URL
 * through the outbound-fetch policy (https only, http in local development; 30 s; 3 redirects;
 * the type's size limit; a 422 that says why).
 */
import { outboundFetch, OutboundError } from '../../http/outbound';
import { PayloadTooLargeError, UnprocessableError, ValidationError, type TenantContext } from '../core';
import { dropStaged, stageStream, type Staged } from './blobs';
import { emit as emitWebhook } from '../webhooks/events';
import { LIMIT_NAMES, STREAM_LIMIT } from './content';
import type { AssetType } from './model';
import { multipartBoundary, readMultipart } from './multipart';

export interface Received {
  /** Text fields by lower-cased name. */
  fields: Map<string, string>;
  staged?: Staged;
  filename?: string;
  contentType?: string;
}

/** A multipart request with at most one file (in one of `fileFields`), streamed to staging. */
export async function receiveUpload(
  t: TenantContext,
  request: Request,
  fileFields: string[],
  limit: { bytes: number; what: string; keep?: (head: Uint8Array) => boolean },
): Promise<Received> {
  const boundary = multipartBoundary(request.headers.get('content-type'));
  // The file part is staged before the parts after it are read: a refusal from here on (a field
  // given twice, a second file, a body that breaks after the file) removes it, as the caller
  // never sees it.
  let staged: Staged | undefined;
  try {
    const { fields, file } = await readMultipart(request.body, boundary, fileFields, async (f) =>
      (staged = await stageStream(t.env.FILES, t.tenantId, f.stream, limit.bytes, limit.what, limit.keep)),
    );
    const byName = new Map<string, string>();
    for (const [k, v] of Object.entries(fields)) {
      const key = k.toLowerCase();
      if (byName.has(key)) throw new ValidationError({ [k]: ['The field is given twice (names are matched ignoring case).'] });
      byName.set(key, v);
    }
    return { fields: byName, staged: file?.result, filename: file?.filename, contentType: file?.contentType };
  } catch (e) {
    await dropStaged(t.env.FILES, staged);
    throw e;
  }
}

const ascii = (h: Uint8Array, n: number) => String.fromCharCode(...h.subarray(0, n));
/**
 * Files the service parses whole (fonts, PDFs, print-product JSON) are kept in memory while staged.
 * PSDs and PSBs are not: they are staged in R2 and compiled from there by range (issue 25 §1).
 */
const KEEP: Record<AssetType, ((head: Uint8Array) => boolean) | undefined> = {
  design: (h) => ascii(h, 4) !== '8BPS',
  mockup: undefined,
  font: () => true,
  image: (h) => ascii(h, 5) === '%PDF-',
  resource: undefined,
};

export const uploadLimit = (type: AssetType): { bytes: number; what: string; keep?: (head: Uint8Array) => boolean } => ({
  bytes: STREAM_LIMIT[type],
  what: LIMIT_NAMES[type],
  keep: KEEP[type],
});

/** `requestHeaders` as a map or as `[{name, value}]`. */
export function headersFrom(v: unknown): Headers {
  const h = new Headers();
  if (v === undefined || v === null) return h;
  try {
    if (Array.isArray(v)) for (const e of v as Array<{ name: string; value: string }>) h.append(e.name, e.value);
    else for (const [k, x] of Object.entries(v as Record<string, string>)) h.append(k, String(x));
  } catch {
    throw new ValidationError({ requestHeaders: ['Not a valid HTTP header name or value.'] });
  }
  return h;
}

export const IMPORT_TIMEOUT_MS = 30_000;
export const IMPORT_REDIRECTS = 3;

/**
 * Downloads `url` into staging, streamed like an upload: counted against the type's limit as it
 * arrives (413 at the first byte past it) and written to R2 on the way, except content the
 * service parses whole (fonts, PDFs, print-product JSON), which is held in memory within that limit.
 * The file name is the URL's last path segment or the answer's Content-Disposition.
 */
export async function receiveFromUrl(
  t: TenantContext,
  url: string,
  headers: Headers,
  limit: { bytes: number; what: string; keep?: (head: Uint8Array) => boolean },
): Promise<Received> {
  const tooLarge = () => new PayloadTooLargeError(`${limit.what} is larger than the limit of ${limit.bytes / 1024 / 1024} MB.`);
  const refused = (why: string) => new UnprocessableError(`The file at sourceUrl could not be imported: ${why}`, { sourceUrl: [why] });
  let res;
  try {
    res = await outboundFetch(url, { env: t.env, headers, timeoutMs: IMPORT_TIMEOUT_MS, maxRedirects: IMPORT_REDIRECTS, maxBytes: limit.bytes, stream: true });
  } catch (e) {
    if (e instanceof OutboundError) {
      if (e.code === 'ERR_OUTBOUND_TOO_LARGE') throw tooLarge();
      await emitWebhook(t.env, t.tenantId, 'asset.import.failed', { sourceUrl: url.split(/[?#]/)[0], reason: e.message });
      throw refused(e.message);
    }
    throw e;
  }
  const body = res.body ?? new Blob([]).stream();
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > limit.bytes) {
    await body.cancel().catch(() => {});
    throw tooLarge();
  }
  // A body that breaks off (the 30 s limit on the fetch's signal, or the connection) is the
  // source's failure (422); anything else while staging (R2) stays ours.
  const reader = body.getReader();
  let broke: unknown;
  const source = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (e) {
        broke = e ?? new Error('read failed');
        controller.error(e);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  let staged: Staged;
  try {
    staged = await stageStream(t.env.FILES, t.tenantId, source, limit.bytes, limit.what, limit.keep);
  } catch (e) {
    await source.cancel().catch(() => {});
    if (broke === undefined) throw e;
    const timedOut = broke instanceof Error && (broke.name === 'TimeoutError' || broke.name === 'AbortError');
    throw refused(timedOut ? `no complete answer within ${IMPORT_TIMEOUT_MS / 1000} s.` : 'the connection failed while the file was read.');
  }
  let filename = '';
  try {
    filename = decodeURIComponent(new URL(res.url).pathname.split('/').pop() ?? '');
  } catch {
    filename = '';
  }
  const disposition = res.headers.get('content-disposition');
  const named = disposition && /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  return { fields: new Map(), staged, filename: named || filename, contentType: res.headers.get('content-type') ?? undefined };
}
