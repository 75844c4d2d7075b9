// Upload helpers for the storage and processor tests.
import { api, apiJson, type ApiOptions } from '../../helpers/platform';

export const S = '/api/storage/v1';
export const P = '/api/processor/v1';

export function form(file: Uint8Array | string, filename: string, fields: Record<string, string> = {}, field = 'file'): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append(field, new Blob([file]), filename);
  return fd;
}

export function upload(path: string, file: Uint8Array | string, filename: string, fields: Record<string, string> = {}, options: ApiOptions = {}, field = 'file') {
  return api('POST', path, undefined, { token: 1, ...options, raw: form(file, filename, fields, field) });
}

export async function uploadJson<T = any>(path: string, file: Uint8Array | string, filename: string, fields: Record<string, string> = {}, options: ApiOptions = {}, expected = 201): Promise<T> {
  const res = await upload(path, file, filename, fields, options);
  const text = await res.text();
  if (res.status !== expected) throw new Error(`POST ${path}: expected ${expected}, got ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

export { api, apiJson };

/** A tiny valid PNG (1×1) with a pHYs chunk of 300 dpi. */
export function pngBytes(width = 3, height = 2): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Uint8Array) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: number[]) => {
    const body = new Uint8Array([...type].map((ch) => ch.charCodeAt(0)).concat(data));
    const len = data.length;
    return [len >>> 24, (len >>> 16) & 255, (len >>> 8) & 255, len & 255, ...body, ...((c) => [c >>> 24, (c >>> 16) & 255, (c >>> 8) & 255, c & 255])(crc(body))];
  };
  const be = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const ppm = Math.round(300 / 0.0254);
  return new Uint8Array([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a,
    ...chunk('IHDR', [...be(width), ...be(height), 8, 6, 0, 0, 0]),
    ...chunk('pHYs', [...be(ppm), ...be(ppm), 1]),
    ...chunk('IEND', []),
  ]);
}

export const SVG = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="2in" height="1in" viewBox="0 0 192 96"><rect width="10" height="10"/></svg>';
