/**
 * How a unit's failure is handled (contract): input, parameter and data errors fail the task at
 * once; network, 5xx, R2 and D1 errors retry `maxAutoRetryCount` times after 10·2ⁿ s; a called
 * URL's failure (invoke-url) is retried only by its own `retryCount`.
 */
import { InterpolationError, ParameterError } from '../language';
import { EngineError } from '../../../engine/errors';
import { OutboundError } from '../../../http/outbound';
import { PlatformError } from '../../core/errors';

/** Input, parameter or data problem: the task fails now. */
export class TaskFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskFailure';
  }
}

/** Infrastructure trouble worth retrying (network, 5xx, storage). */
export class TransientFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientFailure';
  }
}

/** A called URL did not succeed: retried by the task's own `retryCount` / `retryDelaySeconds`. */
export class CallFailure extends Error {
  constructor(
    message: string,
    readonly retryCount: number,
    readonly retryDelaySeconds: number,
  ) {
    super(message);
    this.name = 'CallFailure';
  }
}

export type Classified =
  | { kind: 'fail'; message: string }
  | { kind: 'retry'; message: string }
  | { kind: 'call'; message: string; retryCount: number; retryDelaySeconds: number };

export function classify(e: unknown): Classified {
  const message = e instanceof Error ? e.message : String(e);
  if (e instanceof CallFailure) return { kind: 'call', message, retryCount: e.retryCount, retryDelaySeconds: e.retryDelaySeconds };
  if (e instanceof TaskFailure || e instanceof ParameterError || e instanceof InterpolationError) return { kind: 'fail', message };
  if (e instanceof EngineError || e instanceof PlatformError) return { kind: 'fail', message };
  if (e instanceof OutboundError) return e.refused ? { kind: 'fail', message } : { kind: 'retry', message };
  if (e instanceof TransientFailure) return { kind: 'retry', message };
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return { kind: 'fail', message: 'processingTimeout exceeded' };
  // Anything else (R2, D1, network exceptions from the runtime) is treated as transient.
  return { kind: 'retry', message };
}

/** Backoff of automatic retries: 10·2ⁿ s (n = retries already made). */
export const retryDelayMs = (n: number) => 10_000 * 2 ** n;
