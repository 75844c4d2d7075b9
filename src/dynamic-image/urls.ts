/**
 * Absolute URLs handed out by the API. One form each (documented in docs/rendering.md):
 *   result:    <base>/api/results/download/<name>
 *   thumbnail: <base>/api/resources/images/preview?file=<name>
 * where <base> is PUBLIC_BASE_URL when set, else the request's origin.
 */
import type { Context } from 'hono';
import type { AppBindings } from '../env';

export function baseUrl(c: Context<AppBindings>): string {
  const configured = c.env.PUBLIC_BASE_URL?.trim();
  return (configured || new URL(c.req.url).origin).replace(/\/+$/, '');
}

export const resultUrl = (c: Context<AppBindings>, name: string): string =>
  `${baseUrl(c)}/api/results/download/${encodeURIComponent(name)}`;

export const imagePreviewUrl = (c: Context<AppBindings>, name: string): string =>
  `${baseUrl(c)}/api/resources/images/preview?file=${encodeURIComponent(name)}`;
