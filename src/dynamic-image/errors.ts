/**
 * Engine errors → HTTP, in one place: the rendering app's error handler and the multipage page
 * prefixing both go through `toApiError`. Stable engine codes, stable API codes.
 */
import type { Context } from 'hono';
import { EngineError, InputsTooLarge, InvalidInput, NotFound, Unprocessable } from '../engine/errors';
import { ApiError, handleError } from '../errors';
import { OutboundError } from '../http/outbound';

const STATUS: Array<[new (...a: never[]) => EngineError, 400 | 404 | 422, string]> = [
  [InvalidInput, 400, 'invalid_request'],
  [NotFound, 404, 'not_found'],
  [InputsTooLarge, 422, 'unprocessable'],
  [Unprocessable, 422, 'unprocessable'],
];

/** The API error for `err` when it is an engine (or outbound) error; anything else unchanged. */
export function toApiError(err: unknown): unknown {
  if (err instanceof EngineError) {
    const [, status, code] = STATUS.find(([type]) => err instanceof type) ?? [EngineError, 422, 'unprocessable'];
    return new ApiError(status, code, err.message, err.details);
  }
  if (err instanceof OutboundError) return new ApiError(err.refused ? 400 : 422, err.refused ? 'invalid_request' : 'unprocessable', err.message);
  return err;
}

/** The rendering app's onError: engine errors become their 4xx, the rest goes to handleError. */
export const renderingErrorHandler = (err: Error, c: Context) => handleError(toApiError(err), c);
