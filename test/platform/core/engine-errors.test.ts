// Engine errors thrown inside a platform handler (a template the engine refuses, a bad image
// URL) are the platform's 4xx problems, never a 500.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { InvalidInput, NotFound, Unprocessable } from '../../../src/engine/errors';
import { OutboundError } from '../../../src/http/outbound';
import { platformErrorResponse } from '../../../src/platform/core';

function answerFor(err: unknown) {
  const app = new Hono();
  app.onError((e, c) => platformErrorResponse(e, c));
  app.get('/api/storage/v1/x', () => {
    throw err;
  });
  return app.request('/api/storage/v1/x');
}

describe('engine errors in platform areas', () => {
  it.each([
    [new InvalidInput('bad data'), 400],
    [new NotFound('no such template'), 404],
    [new Unprocessable('not a PSD we can render'), 422],
  ])('%s becomes a %i problem', async (err, status) => {
    const res = await answerFor(err);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const body = (await res.json()) as { status: number; detail: string; instance: string };
    expect(body).toMatchObject({ status, detail: (err as Error).message, instance: '/api/storage/v1/x' });
  });

  it('an outbound fetch the policy refuses is a 400 problem', async () => {
    const res = await answerFor(new OutboundError('ERR_OUTBOUND_HOST', 'That host is not reachable from here.', true));
    expect(res.status).toBe(400);
  });
});
