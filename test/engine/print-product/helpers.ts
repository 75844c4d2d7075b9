import { encodeJpeg, encodePng } from '../../../src/engine/raster/codecs';
import type { RGBAImage } from '../../../src/engine/types';
import type { ImageLookup, ResolvedImage } from '../../../src/engine/print-product/svg';
import { parseModel } from '../../../src/engine/print-product/validate';
import { bundledFontStore } from '../fonts/helpers';

export const fonts = async (name: string) => (await bundledFontStore(name)) ?? undefined;
export const fontExists = async (name: string) => !!(await bundledFontStore(name));

/** An image w × h whose left half is `left` and right half `right` (RGBA). */
export function halves(w: number, h: number, left: number[], right: number[]): RGBAImage {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(x < w / 2 ? left : right, (y * w + x) * 4);
  return { width: w, height: h, data };
}

export async function pngImage(img: RGBAImage): Promise<ResolvedImage> {
  return { bytes: await encodePng(img), mime: 'image/png', width: img.width, height: img.height };
}
export async function jpegImage(img: RGBAImage, quality = 95): Promise<ResolvedImage> {
  return { bytes: await encodeJpeg(img, quality, { subsampling: 1 }), mime: 'image/jpeg', width: img.width, height: img.height };
}

/** An image lookup over Embedded keys and URLs; records what it was asked for. */
export function imageStore(images: Record<string, ResolvedImage>): ImageLookup & { asked: string[] } {
  const asked: string[] = [];
  const lookup = (async (source: Parameters<ImageLookup>[0]) => {
    const key = source.type === 'Embedded' ? source.key : source.type === 'Url' ? source.url : source.id;
    asked.push(`${source.type}:${key}`);
    return images[key];
  }) as unknown as ImageLookup & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}

/** A one-surface model of `width` × `height` points with `items` in one container, validated. */
export function oneSurface(width: number, height: number, items: unknown[], extra: Record<string, unknown> = {}) {
  return parseModel({ surfaces: [{ id: 's', name: 'Front', width, height, containers: [{ id: 'c', items }], ...extra }] }, { fontExists });
}

/** RGBA at (x, y). */
export const px = (img: RGBAImage, x: number, y: number) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4)];

/** True when every channel is within `tol` of `want`. */
export const near = (got: number[], want: number[], tol = 3) => want.every((v, i) => Math.abs(got[i] - v) <= tol);

/** Bounding box of pixels whose alpha exceeds `min` (or, for opaque images, that are darker than `dark`). */
export function inkBox(img: RGBAImage, test: (p: number[]) => boolean) {
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++)
      if (test(px(img, x, y))) {
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
  return { left, top, right, bottom };
}

/** Inflated content of every Flate stream in a PDF written with useObjectStreams: false. */
export async function inflatedStreams(pdf: Uint8Array): Promise<string[]> {
  const text = new TextDecoder('latin1').decode(pdf);
  const out: string[] = [];
  for (const m of text.matchAll(/\/Length (\d+)[^]*?>>\s*stream\r?\n/g)) {
    if (!/FlateDecode/.test(text.slice(Math.max(0, m.index! - 400), m.index! + m[0].length))) continue;
    const start = m.index! + m[0].length;
    const body = pdf.subarray(start, start + Number(m[1]));
    try {
      out.push(await new Response(new Blob([body]).stream().pipeThrough(new DecompressionStream('deflate'))).text());
    } catch {
      // not deflate after all
    }
  }
  return out;
}
