import { env, exports } from 'cloudflare:workers';
import { psdFixture } from '../helpers/fixtures';
import { resultsLanded } from '../../src/dynamic-image/store/results';
import { listKeys } from '../helpers/r2-keys';

export const API_KEY = 'test-api-key';
export const BASE = 'http://localhost';

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

export const withKey = (init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { 'X-DynamicImageApiKey': API_KEY, ...(init.headers as Record<string, string>) },
});

export function postJson(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return call(path, { method: 'POST', body: JSON.stringify(body), ...init, headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
}

/** A multipart body with each file in the field `file` (or `field`). */
export function form(files: Array<[string, Uint8Array | string]>, field = 'file'): FormData {
  const fd = new FormData();
  for (const [name, bytes] of files) fd.append(field, new File([bytes], name));
  return fd;
}

/** Uploads files to a root with the API key; returns the response. */
export function upload(root: 'templates' | 'fonts' | 'images', files: Array<[string, Uint8Array | string]>, query = ''): Promise<Response> {
  return call(`/api/resources/${root}${query}`, withKey({ method: 'POST', body: form(files) }));
}

/** Uploads a shared PSD fixture as `<folder>/<name>`; returns the stored name. */
export async function uploadFixture(fixture: string, folder: string, as = fixture): Promise<string> {
  const res = await upload('templates', [[as, await psdFixture(fixture)]], `?destination=${encodeURIComponent(folder)}&overwrite=true`);
  if (res.status !== 201) throw new Error(`upload ${fixture}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as string[])[0];
}

/** Every key in the bucket under `prefix`. */
export async function keys(prefix = ''): Promise<string[]> {
  await resultsLanded(); // results answered before their writes (putLater) are counted once written
  return listKeys(env.FILES, prefix);
}

/** A tiny valid PNG (1×1, red) made by the worker's own encoder is overkill: fixed bytes. */
export const PNG_1x1 = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
