/**
 * The engine's errors: typed, with a stable `code` (the way jose names its errors), free of HTTP.
 * The rendering area maps each class to a response in one place (src/dynamic-image/errors.ts).
 *
 * ```ts
 * try { await preparePreview(store, options, deps); }
 * catch (e) { if (e instanceof EngineError && e.code === 'ERR_NOT_FOUND') … }
 * ```
 */

/** Which input is at fault (`data.Photo.image`, `size`, …) and what is wrong with it. */
export interface ErrorDetail {
  path: string;
  reason: string;
}

export class EngineError extends Error {
  static code = 'ERR_ENGINE';
  code = 'ERR_ENGINE';

  constructor(
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request itself is wrong (bad `data`, an unacceptable URL, an output too large to make). */
export class InvalidInput extends EngineError {
  static override code = 'ERR_INVALID_INPUT';
  override code = 'ERR_INVALID_INPUT';
}

/** A template, image or font the request names does not exist. */
export class NotFound extends EngineError {
  static override code = 'ERR_NOT_FOUND';
  override code = 'ERR_NOT_FOUND';
}

/** An input exists but cannot be used: not a PSD/image/font we can read, a fetch that failed. */
export class Unprocessable extends EngineError {
  static override code = 'ERR_UNPROCESSABLE';
  override code = 'ERR_UNPROCESSABLE';
}

/** The inputs of one request are more than it may hold (e.g. 32 MB of images named by URL). */
export class InputsTooLarge extends EngineError {
  static override code = 'ERR_INPUTS_TOO_LARGE';
  override code = 'ERR_INPUTS_TOO_LARGE';
}

export const invalidInput = (message: string, details?: ErrorDetail[]) => new InvalidInput(message, details);
export const notFound = (message: string, details?: ErrorDetail[]) => new NotFound(message, details);
export const unprocessable = (message: string, details?: ErrorDetail[]) => new Unprocessable(message, details);
