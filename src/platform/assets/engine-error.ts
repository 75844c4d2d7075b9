/**
 * An engine refusal (src/engine/errors.ts) as the platform's 422, the engine's message kept: one
 * module of its own, since content checks, PDF pages and mockup layers all map through it.
 */
import { EngineError } from '../../engine/errors';
import { UnprocessableError } from '../core';

/** An engine refusal as the platform's 422 (the engine's message kept). */
export function engineError(e: unknown): unknown {
  if (e instanceof EngineError) {
    const errors = e.details?.length ? Object.fromEntries(e.details.map((d) => [d.path || 'file', [d.reason]])) : undefined;
    return new UnprocessableError(e.message, errors);
  }
  return e;
}
