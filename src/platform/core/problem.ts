/**
 * Problem details (RFC 9457) for every platform 4xx/5xx, and the conflict DTO for 409: the ONE
 * place where thrown errors become platform responses. Identity and rendering keep their own
 * `{error, message, details}` bodies (src/errors.ts); only platform paths come here.
 *
 *   { "type": "about:blank", "title": "Not Found", "status": 404, "detail": "No design 65…",
 *     "instance": "/api/storage/v1/designs/65…", "code": "not_found",
 *     "errors": { "items[0].designIds[1]": ["…"] } }            application/problem+json
 *   { "type": "NameConflict", "description": "…", …extras }    application/json (409 only)
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError } from '../../errors';
import { toApiError } from '../../dynamic-image/errors';
import { ConflictError, CONFLICT_TYPES, PlatformError, ValidationError, type ErrorsByPath } from './errors';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

const CODES: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  416: 'range_not_satisfiable',
  422: 'unprocessable',
  500: 'internal_error',
  501: 'not_implemented',
};

export interface ProblemInit {
  status: number;
  detail: string;
  code?: string;
  errors?: ErrorsByPath;
  headers?: Record<string, string>;
}

/** A problem+json response for `instance` (the request path). */
export function problemResponse(instance: string, p: ProblemInit): Response {
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: REASONS[p.status] ?? 'Error',
    status: p.status,
    detail: p.detail,
    instance,
    code: p.code ?? CODES[p.status] ?? 'error',
  };
  if (p.errors && Object.keys(p.errors).length) body.errors = p.errors;
  return new Response(JSON.stringify(body), {
    status: p.status,
    headers: { ...p.headers, 'Content-Type': 'application/problem+json' },
  });
}

export function conflictResponse(err: ConflictError): Response {
  return Response.json({ type: err.type, description: err.description, ...err.extras }, { status: 409 });
}

/** `['items', 0, 'designIds', 1]` → `items[0].designIds[1]`; the root is `$`. */
export function jsonPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '$';
}

type Issue = { path: ReadonlyArray<PropertyKey>; message: string };

/** zod issues → `errors` by JSON path, every issue kept. */
export function errorsFromIssues(issues: ReadonlyArray<Issue>, into: ErrorsByPath = {}): ErrorsByPath {
  for (const issue of issues) (into[jsonPath(issue.path)] ??= []).push(issue.message);
  return into;
}

export function mergeErrors(into: ErrorsByPath, more: ErrorsByPath): ErrorsByPath {
  for (const [k, v] of Object.entries(more)) (into[k] ??= []).push(...v);
  return into;
}

/** defaultHook of every platform area: a failed zod validation is a 400 problem. */
export function platformValidationHook(result: { success: boolean; error?: { issues: ReadonlyArray<Issue> } }): void {
  if (!result.success && result.error) throw new ValidationError(errorsFromIssues(result.error.issues));
}

/** Any thrown value → the platform response. */
export function platformErrorResponse(thrown: unknown, c: Context): Response {
  const instance = c.req.path;
  // Engine and outbound-fetch errors (a refused template, a bad image URL) are 4xx wherever the
  // engine is called from: one mapping, shared with the Dynamic Image API.
  const err = toApiError(thrown);
  if (err instanceof ConflictError) return conflictResponse(err);
  if (err instanceof PlatformError) return problemResponse(instance, { status: err.status, code: err.code, detail: err.message, errors: err.errors });
  if (err instanceof ApiError) {
    // Shared code (requireScope's 401/403 with WWW-Authenticate, engine 422s, size limits).
    const errors = err.details?.length ? errorsFromIssues(err.details.map((d) => ({ path: d.path ? [d.path] : [], message: d.reason }))) : undefined;
    if (err.status === 409) return conflictResponse(new ConflictError('GeneralConflict', err.message));
    return problemResponse(instance, { status: err.status, code: err.code, detail: err.message, errors, headers: err.headers });
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    const res = err.getResponse();
    const headers: Record<string, string> = {};
    const allow = res.headers.get('allow');
    if (allow) headers.Allow = allow;
    return problemResponse(instance, { status, detail: err.message || REASONS[status] || 'The request could not be processed.', headers });
  }
  console.error('Unhandled platform error', c.req.method, instance, err);
  return problemResponse(instance, { status: 500, detail: 'An unexpected error occurred; it has been logged.' });
}

/** onError of every platform area. */
export const platformErrorHandler = (err: unknown, c: Context): Response => platformErrorResponse(err, c);

/** 404 for platform paths no route matches. */
export const platformNotFound = (c: Context): Response =>
  problemResponse(c.req.path, { status: 404, detail: `No endpoint ${c.req.method} ${c.req.path}.` });

// --- documentation -----------------------------------------------------------------------------

export const ProblemDetails = z
  .object({
    type: z.literal('about:blank'),
    title: z.string().openapi({ example: 'Bad Request' }),
    status: z.number().int().openapi({ example: 400 }),
    detail: z.string().openapi({ example: 'The request is not valid.' }),
    instance: z.string().openapi({ example: '/api/storage/v1/designs' }),
    code: z.string().openapi({ example: 'invalid_request' }),
    errors: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .openapi({ description: 'JSON path of the input (root `$`) → problems there.', example: { 'items[0].quantity': ['Expected a number.'] } }),
  })
  .openapi('ProblemDetails');

export const ConflictDto = z
  .object({
    type: z.enum(CONFLICT_TYPES),
    description: z.string(),
  })
  .catchall(z.unknown())
  .openapi('ConflictDto', { description: 'Extras such as `availableTransitions` or `existingReferences` may follow.' });

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: `errors` names every offending field by JSON path.',
  401: 'Missing or invalid bearer token (see WWW-Authenticate).',
  403: 'The token lacks the required scope, or `tenantId` names another tenant.',
  404: 'Unknown path or id (another tenant\'s ids look unknown too).',
  409: 'Conflict with the current state.',
  413: 'The body is larger than the limit.',
  415: 'Unsupported content type.',
  422: 'Well-formed input that cannot be processed.',
  501: 'Not implemented.',
};

/** Documented error responses, picked by status: `...problemResponses(400, 404, 409)`. */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      s === 409
        ? { description: DESCRIPTIONS[s]!, content: { 'application/json': { schema: ConflictDto } } }
        : { description: DESCRIPTIONS[s] ?? 'Error', content: { 'application/problem+json': { schema: ProblemDetails } } },
    ]),
  );
}
