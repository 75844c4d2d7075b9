// A 5 MB request body sent through `wrangler dev` with node:http, so the transfer encoding is
// exactly what the test says (Content-Length or chunked); written as the socket drains.
import http from 'node:http';
import { inject } from 'vitest';

export const FIVE_MB = 5 * 1024 * 1024;

export interface Answer {
  status: number;
  type: string;
  body: string;
}

export interface BigBody {
  method: string;
  path: string;
  headers: Record<string, string>;
  mode: 'content-length' | 'chunked';
  /** Written first (e.g. a JSON object left open, valid up to where it grows too large). */
  prefix?: string;
  /** The byte the rest of the 5 MB is made of. */
  fill: number;
}

export function sendBigBody({ method, path, headers, mode, prefix = '', fill }: BigBody): Promise<Answer> {
  const url = new URL(path, inject('wranglerUrl'));
  const chunk = Buffer.alloc(64 * 1024, fill);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method,
      headers: { ...headers, ...(mode === 'content-length' ? { 'content-length': FIVE_MB } : { 'transfer-encoding': 'chunked' }) },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (prefix) req.write(prefix);
    let sent = Buffer.byteLength(prefix);
    const pump = () => {
      while (sent < FIVE_MB) {
        const part = chunk.subarray(0, Math.min(chunk.length, FIVE_MB - sent));
        sent += part.length;
        if (!req.write(part)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}
