import { expect } from 'vitest';
import type { RGBAImage } from '../../../src/engine/types';
import { fixtureServer, runTool, testAsset } from '../../helpers/fixtures';

export const base64ToBytes = (b64: string) => Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));

/** Binary PPM (P6) or PGM (P5, grey), maxval 255, as djpeg writes them → RGB bytes. */
export function parsePpm(bytes: Uint8Array): { width: number; height: number; rgb: Uint8Array } {
  const fields: string[] = [];
  let i = 0;
  while (fields.length < 4) {
    while (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09) i++;
    let token = '';
    while (bytes[i] !== 0x20 && bytes[i] !== 0x0a && bytes[i] !== 0x0d && bytes[i] !== 0x09) token += String.fromCharCode(bytes[i++]);
    fields.push(token);
  }
  i++; // the single whitespace after maxval
  expect(['P6', 'P5']).toContain(fields[0]);
  const width = Number(fields[1]);
  const height = Number(fields[2]);
  const body = bytes.subarray(i);
  if (fields[0] === 'P6') return { width, height, rgb: body };
  const rgb = new Uint8Array(width * height * 3);
  for (let p = 0; p < width * height; p++) rgb.fill(body[p]!, p * 3, p * 3 + 3);
  return { width, height, rgb };
}

/** PSNR (dB, 99 = identical) of an RGBA image's colour against RGB bytes of the same size. */
export function psnr(img: RGBAImage, rgb: Uint8Array): number {
  let se = 0;
  for (let p = 0, q = 0; p < img.data.length; p += 4, q += 3)
    for (let c = 0; c < 3; c++) se += (img.data[p + c]! - rgb[q + c]!) ** 2;
  const mse = se / ((img.data.length / 4) * 3);
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}

/** Deterministic pseudo-random image (xorshift), optionally with varied alpha. */
export function noiseImage(width: number, height: number, seed = 1, alpha: 'opaque' | 'varied' = 'varied'): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    data[i] = s & 255;
    if (i % 4 === 3 && alpha === 'opaque') data[i] = 255;
  }
  return { width, height, data };
}

export function solidImage(width: number, height: number, rgba: [number, number, number, number]): RGBAImage {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { width, height, data };
}

export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

/** A JPEG of test/fixtures/jpeg, from the test setup's fixture server. */
export async function jpegFixture(name: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fixtures/jpeg/${name}`);
  if (!res.ok) throw new Error(`fixture ${name}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** libjpeg-turbo's own decode at k/8 (`djpeg -scale k/8`), as RGB. */
export async function djpegAt(jpeg: Uint8Array, k: number): Promise<{ width: number; height: number; rgb: Uint8Array }> {
  const out = await runTool('djpeg', jpeg, { scale: `${k}/8` });
  expect(out.code).toBe(0);
  return parsePpm(base64ToBytes(out.pages[0]!));
}

/** RGBA → RGB bytes, to compare with a PPM. */
export function rgbOf(img: { data: Uint8ClampedArray }): Uint8Array {
  const rgb = new Uint8Array((img.data.length / 4) * 3);
  for (let p = 0, q = 0; p < img.data.length; p += 4, q += 3) rgb.set(img.data.subarray(p, p + 3), q);
  return rgb;
}

/** Whether the test server's djpeg takes `-scale k/8` (an older one decodes whole). */
export async function djpegTakesEighths(): Promise<boolean> {
  const probe = await runTool('djpeg', await testAsset('jpeg/photo-444.jpg'), { scale: '3/8' });
  return probe.code === 0 && parsePpm(base64ToBytes(probe.pages[0]!)).width === Math.ceil((203 * 3) / 8);
}

/** `jpeg` with an Exif APP1 segment giving `orientation`. */
export function withOrientation(jpeg: Uint8Array, orientation: number): Uint8Array {
  const tiff = [0x49, 0x49, 0x2a, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0, 0, 0, 0, 0];
  const body = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const segment = [0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 255, ...body];
  const out = new Uint8Array(jpeg.length + segment.length);
  out.set(jpeg.subarray(0, 2));
  out.set(segment, 2);
  out.set(jpeg.subarray(2), 2 + segment.length);
  return out;
}
