/**
 * invoke-url: calls `url` (through the outbound module: public hosts only, 25 MB) with
 * `Idempotency-Key: <job>-<run>-<task>-<member>`, so a unit redone after a crash is recognisable
 * to the receiver (outbound effects are at least once). A non-2xx answer or a network failure is
 * retried only by `retryCount` after `retryDelaySeconds` (through alarms), then fails the task
 * (RequestFailed). The answer becomes the output artifact when the task declares one.
 *
 * User info in the URL (`https://{{secrets.user}}:{{secrets.pass}}@host/…`, the one place of a
 * URL that may hold secrets) is sent as `Authorization: Basic …` and never as part of the URL.
 * Header names and values are checked for CR/LF/NUL after interpolation (remote-paths.ts).
 */
import { OutboundError, outboundFetch } from '../../../http/outbound';
import { CallFailure, TaskFailure } from './errors';
import { protocolValue } from './remote-paths';
import type { TaskModule } from './types';

const EXT: Record<string, string> = { 'application/json': 'json', 'text/plain': 'txt', 'text/csv': 'csv', 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' };

export const invokeUrl: TaskModule<'invoke-url'> = {
  async run(ctx, p) {
    let url: URL;
    try {
      url = new URL(p.url);
    } catch {
      throw new TaskFailure('url: not a valid absolute URL after interpolation');
    }
    for (const [k, v] of Object.entries(p.queryParameters ?? {})) url.searchParams.set(k, v);
    const headers = new Headers();
    for (const [k, v] of Object.entries(p.queryHeaders ?? {})) {
      protocolValue(`queryHeaders.${k}`, k);
      protocolValue(`queryHeaders.${k}`, v);
      try {
        headers.set(k, v);
      } catch {
        throw new TaskFailure(`queryHeaders.${k}: not a valid header name or value`);
      }
    }
    if (url.username || url.password) {
      const decode = (s: string) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      };
      headers.set('authorization', `Basic ${base64(`${decode(url.username)}:${decode(url.password)}`)}`);
      url.username = '';
      url.password = '';
    }
    headers.set('Idempotency-Key', ctx.unitKey);
    let body: string | null = null;
    if (p.body !== undefined && p.body !== null && p.httpMethod !== 'GET') {
      body = typeof p.body === 'string' ? p.body : JSON.stringify(p.body);
      if (!headers.has('content-type')) headers.set('content-type', typeof p.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json');
    }
    let answer;
    try {
      answer = await outboundFetch(url, { env: ctx.env, ...ctx.outbound, method: p.httpMethod, headers, body, signal: ctx.signal, timeoutMs: 60_000 });
    } catch (e) {
      if (e instanceof OutboundError && e.refused) throw new TaskFailure(`url: ${e.message}`);
      const status = e instanceof OutboundError && e.upstreamStatus ? ` (HTTP ${e.upstreamStatus})` : '';
      throw new CallFailure(`the call to ${url.host} failed${status}: ${(e as Error).message}`, p.retryCount, p.retryDelaySeconds);
    }
    const out = ctx.task.outputs[0];
    if (!out) return;
    const type = (answer.headers.get('content-type') ?? 'application/octet-stream').split(';')[0]!.trim().toLowerCase();
    const ext = EXT[type] ?? 'bin';
    await ctx.output(out.name, { ext, fileName: `${out.name}.${ext}`, format: ext, bytes: answer.bytes, contentType: type });
  },
};

/** Base64 of UTF-8 text (btoa takes bytes as Latin-1 characters). */
function base64(text: string): string {
  let binary = '';
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}
