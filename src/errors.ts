import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** One entry of an error's `details`: which input field, and what is wrong with it. */
export interface ErrorDetail {
  path: string;
  reason: string;
}

/**
 * The one error type of the Worker. Anything that should become a 4xx is thrown as an ApiError
 * (or a subclass) and turned into a JSON response by `handleError`, in one place.
 *
 * Body: `{ "error": "<code>", "message": "<sentence>", "details": [{ "path", "reason" }] }`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toResponse(): Response {
    const body: Record<string, unknown> = { error: this.code, message: this.message };
    if (this.details?.length) body.details = this.details;
    return Response.json(body, { status: this.status, headers: this.headers });
  }
}

export const badRequest = (message: string, details?: ErrorDetail[]) =>
  new ApiError(400, 'invalid_request', message, details);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
export const forbidden = (message: string) => new ApiError(403, 'forbidden', message);
export const unprocessable = (message: string, details?: ErrorDetail[]) =>
  new ApiError(422, 'unprocessable', message, details);

/**
 * OAuth 2.0 error (RFC 6749 §5.2): `{ error, error_description }`, never cached.
 */
export class OAuthError extends ApiError {
  constructor(
    status: ContentfulStatusCode,
    code: string,
    description: string,
    headers: Record<string, string> = {},
  ) {
    super(status, code, description, undefined, headers);
    this.name = 'OAuthError';
  }

  override toResponse(): Response {
    return Response.json(
      { error: this.code, error_description: this.message },
      {
        status: this.status,
        headers: { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...this.headers },
      },
    );
  }
}

/** Zod-style issues → our details list. Accepts zod v4 issues or anything shaped alike. */
export function detailsFromIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  prefix = '',
): ErrorDetail[] {
  return issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.'),
    reason: issue.message,
  }));
}

/**
 * The hook every OpenAPIHono app uses for schema validation failures: a uniform 400 naming
 * each offending field.
 */
export function validationHook(
  result: { success: boolean; error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }; target?: string },
): void {
  if (!result.success && result.error) {
    throw badRequest(
      'The request is not valid.',
      detailsFromIssues(result.error.issues, result.target === 'json' ? '' : result.target),
    );
  }
}

/** The single place where thrown errors become responses. */
export function handleError(err: unknown, c: Context): Response {
  if (err instanceof ApiError) return err.toResponse();
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    const code =
      status === 413 ? 'payload_too_large' : status === 401 ? 'unauthorized' : status === 404 ? 'not_found' : 'invalid_request';
    return new ApiError(status, code, err.message || 'The request could not be processed.').toResponse();
  }
  console.error('Unhandled error', c.req.method, c.req.path, err);
  return Response.json(
    { error: 'internal_error', message: 'An unexpected error occurred; it has been logged.' },
    { status: 500 },
  );
}

export function notFoundHandler(c: Context): Response {
  return new ApiError(404, 'not_found', `No endpoint ${c.req.method} ${c.req.path}.`).toResponse();
}
