/**
 * A 5 MB body through `wrangler dev` (issue 8, item 2.8): every endpoint that reads a body answers
 * its own JSON 4xx — 413 for the rendering API —, with Content-Length and chunked alike, instead
 * of the local proxy's `500 Network connection lost` or a dropped connection. The body is sent
 * with node:http so that the transfer encoding is exactly what the test says.
 */
import { describe, expect, it } from 'vitest';
import { sendBigBody, type Answer } from './big-body.js';

function send(path: string, contentType: string, mode: 'content-length' | 'chunked'): Promise<Answer> {
  const json = contentType.includes('json');
  // A JSON body is valid up to the point where it becomes too large; others are "aaaa…".
  return sendBigBody({ method: 'POST', path, headers: { 'content-type': contentType }, mode, prefix: json ? '{"template":"x","pad":"' : '', fill: json ? 0x20 : 0x61 });
}

const routes: Array<[string, string, number | 'oauth']> = [
  ['/connect/token', 'application/x-www-form-urlencoded', 'oauth'],
  ['/connect/revocation', 'application/x-www-form-urlencoded', 'oauth'],
  ['/connect/introspect', 'application/x-www-form-urlencoded', 'oauth'],
  ['/api/information/template', 'application/json', 413],
  ['/api/rendering/preview', 'application/json', 413],
  ['/api/rendering/hires', 'application/json', 413],
  ['/api/rendering/multipage/preview', 'application/json', 413],
  ['/api/rendering/multipage/hires', 'application/json', 413],
];

describe('5 MB bodies through wrangler dev', () => {
  for (const mode of ['content-length', 'chunked'] as const) {
    it.each(routes)(`%s (${mode}) answers its own JSON 4xx`, async (path, type, expected) => {
      const started = Date.now();
      const answer = await send(path, type, mode);
      expect(answer.type, answer.body).toMatch(/^application\/json/);
      const body = JSON.parse(answer.body) as { error?: string };
      if (expected === 'oauth') {
        expect(answer.status, answer.body).toBeGreaterThanOrEqual(400);
        expect(answer.status, answer.body).toBeLessThan(500);
        expect(body.error).toBeTruthy();
      } else {
        expect(answer.status, answer.body).toBe(expected);
        expect(body.error).toBe('payload_too_large');
      }
      expect(answer.body).not.toMatch(/\bat .*\.(ts|js):\d+/); // no stack
      expect(Date.now() - started).toBeLessThan(20_000);
    });
  }
});
