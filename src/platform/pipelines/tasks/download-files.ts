/**
 * download-files: each of `urls` (in order) becomes an output member, fetched through the
 * outbound policy (public hosts only, 25 MB each, redirects checked hop by hop) with `headers`
 * (e.g. an Authorization the source needs). Empty entries (what an optional `{{x?}}` leaves) are
 * skipped. The file name comes from Content-Disposition, else the URL's last path segment, else
 * `<output>_<n>`; the extension from the name, else the Content-Type.
 *
 * A refused URL (private host, bad scheme) fails the task at once; a remote that does not
 * deliver (5xx, network) is infrastructure trouble and retried by `maxAutoRetryCount`.
 */
import { OutboundError, outboundFetch } from '../../../http/outbound';
import { TaskFailure } from './errors';
import { safeSegments } from './remote-paths';
import type { TaskModule } from './types';

const EXT_OF_TYPE: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/tiff': 'tif',
  'image/svg+xml': 'svg',
  'image/vnd.adobe.photoshop': 'psd',
  'application/json': 'json',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/zip': 'zip',
};

/** The last safe segment of a Content-Disposition file name (RFC 6266 `filename*` first). */
export function dispositionName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  let name: string | null = null;
  if (star) {
    try {
      name = decodeURIComponent(star[1]!.trim());
    } catch {
      name = null;
    }
  }
  name ??= /filename\s*=\s*"([^"]*)"/.exec(header)?.[1] ?? /filename\s*=\s*([^;\s]+)/.exec(header)?.[1] ?? null;
  return name ? (safeSegments(name).pop() ?? null) : null;
}

function urlName(url: URL): string | null {
  const last = url.pathname.split('/').pop() ?? '';
  let decoded = last;
  try {
    decoded = decodeURIComponent(last);
  } catch {
    /* keep it as written */
  }
  return safeSegments(decoded).pop() ?? null;
}

export const downloadFiles: TaskModule<'download-files'> = {
  async run(ctx, p) {
    const out = ctx.task.outputs[0]!;
    const urls = p.urls.map((u) => u.trim()).filter(Boolean);
    if (!urls.length) throw new TaskFailure('urls: there is nothing to download');
    if (!out.collection && urls.length > 1) throw new TaskFailure(`urls has ${urls.length} entries; ${out.name} takes one (use ${out.name}*)`);
    const headers = p.headers;
    for (const [k, v] of Object.entries(headers)) {
      // A header value reaches the wire as written: no line breaks or NULs.
      if (/[\r\n\0]/.test(k) || /[\r\n\0]/.test(v)) throw new TaskFailure(`headers: ${JSON.stringify(k)} contains a line break or NUL`);
    }
    for (const [i, raw] of urls.entries()) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new TaskFailure(`urls[${i}]: ${JSON.stringify(raw.slice(0, 200))} is not a URL`);
      }
      let answer;
      try {
        answer = await outboundFetch(url, { env: ctx.env, ...ctx.outbound, headers, signal: ctx.signal, timeoutMs: 60_000 });
      } catch (e) {
        if (e instanceof OutboundError && e.refused) throw new TaskFailure(`urls[${i}]: ${e.message}`);
        throw e;
      }
      const type = (answer.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();
      let name = dispositionName(answer.headers.get('content-disposition')) ?? urlName(new URL(answer.url));
      const fromName = name && /\.([A-Za-z0-9]{1,5})$/.exec(name)?.[1]?.toLowerCase();
      const ext = fromName || EXT_OF_TYPE[type] || 'bin';
      if (!name) name = `${out.name}_${i + 1}.${ext}`;
      else if (!fromName) name = `${name}.${ext}`;
      await ctx.output(out.name, { ext, fileName: name, format: ext, bytes: answer.bytes, contentType: type });
    }
  },
};
