/**
 * The typed errors platform services throw. Services know nothing of HTTP: they throw one of
 * these with a stable `code`, and `problem.ts` turns it into a response in one place.
 *
 * @example
 * if (!row) throw new NotFoundError(`No design ${id}.`);
 * if (clash) throw new ConflictError('NameConflict', `A design named "${name}" already exists in ${path}.`);
 * throw new ValidationError({ 'items[0].designIds[1]': ['No such design.'] });
 */

/** `errors` of a problem: JSON path of the input (root `$`) → what is wrong there. */
export type ErrorsByPath = Record<string, string[]>;

export class PlatformError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 413 | 415 | 422 | 501,
    readonly code: string,
    message: string,
    readonly errors?: ErrorsByPath,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends PlatformError {
  constructor(errors: ErrorsByPath, message = 'The request is not valid.') {
    super(400, 'invalid_request', message, errors);
  }
}

/** Unknown, malformed or another tenant's (or owner's) id: all look the same from outside. */
export class NotFoundError extends PlatformError {
  constructor(message = 'Not found.', errors?: ErrorsByPath) {
    super(404, 'not_found', message, errors);
  }
}

export class ForbiddenError extends PlatformError {
  constructor(message: string) {
    super(403, 'forbidden', message);
  }
}

/** Well-formed input the service cannot process (a PSD the engine refuses, a failed fetch…). */
export class UnprocessableError extends PlatformError {
  constructor(message: string, errors?: ErrorsByPath) {
    super(422, 'unprocessable', message, errors);
  }
}

export class PayloadTooLargeError extends PlatformError {
  constructor(message: string) {
    super(413, 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends PlatformError {
  constructor(message: string) {
    super(415, 'unsupported_media_type', message);
  }
}

export class NotImplementedError extends PlatformError {
  constructor(message: string) {
    super(501, 'not_implemented', message);
  }
}

export const CONFLICT_TYPES = ['NameConflict', 'FolderOverwriteConflict', 'IdConflict', 'GeneralConflict'] as const;
export type ConflictType = (typeof CONFLICT_TYPES)[number];

/**
 * 409, the one non-problem error: `{type, description, ...extras}` as `application/json`
 * (extras such as `availableTransitions`, `existingReferences`).
 */
export class ConflictError extends Error {
  constructor(
    readonly type: ConflictType,
    readonly description: string,
    readonly extras: Record<string, unknown> = {},
  ) {
    super(description);
    this.name = 'ConflictError';
  }
}
