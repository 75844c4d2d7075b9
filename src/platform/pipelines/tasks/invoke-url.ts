/**
 * invoke-url: calls `url` (through the outbound module: public hosts only, 25 MB) with
 * `Idempotency-Key: <job>-<run>-<task>-<member>`, so a unit redone after a crash is recognisable
 * to the receiver (outbound effects are at least once). A non-2xx answer or a network failure is
 * retried only by `retryCount` after `retryDelaySeconds` (through alarms), then fails the task
 * (RequestFailed). The answer becomes the output artifact when the task declares one.
 */
import { OutboundError, outboundFetch } from '../../../http/outbound';
import { CallFailure, TaskFailure } from './errors';
import type { TaskModule } from './types';

const EXT: Record<string, string> = { 'application/json': 'json', 'text/plain': 'txt', 'text/csv': 'csv', 'application/pdf': 'pdf', 'image/png': 'png', 'image/jpeg': 'jpg' };

export const invokeUrl: TaskModule = {
  async run(ctx) {
    const p = ctx.params as {
      url: string; httpMethod: string; queryHeaders: Record<string, string>; queryParameters: Record<string, string>;
      body: unknown; retryCount: number; retryDelaySeconds: number;
    };
    const url = new URL(p.url);
    for (const [k, v] of Object.entries(p.queryParameters ?? {})) url.searchParams.set(k, v);
    const headers = new Headers(p.queryHeaders ?? {});
    headers.set('Idempotency-Key', ctx.unitKey);
    let body: string | null = null;
    if (p.body !== undefined && p.body !== null && p.httpMethod !== 'GET') {
      body = typeof p.body === 'string' ? p.body : JSON.stringify(p.body);
      if (!headers.has('content-type')) headers.set('content-type', typeof p.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json');
    }
    let answer;
    try {
      answer = await outboundFetch(url, { env: ctx.env, method: p.httpMethod, headers, body, signal: ctx.signal, timeoutMs: 60_000 });
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
