import type { RGBAImage } from '../types';

/**
 * Applies EXIF orientation (1–8) to stored pixels, giving the image as it is meant to be seen.
 * 2 mirror · 3 rotate 180° · 4 flip · 5 transpose · 6 rotate 90° CW · 7 transverse · 8 rotate 90° CCW.
 */
export function applyOrientation(img: RGBAImage, orientation: number): RGBAImage {
  if (!(orientation >= 2 && orientation <= 8)) return img;
  const { width: w, height: h } = img;
  const swap = orientation >= 5;
  const W = swap ? h : w;
  const H = swap ? w : h;
  const data = img.data.byteOffset % 4 ? img.data.slice() : img.data;
  const src = new Uint32Array(data.buffer, data.byteOffset, w * h);
  const out = new Uint8ClampedArray(W * H * 4);
  const dst = new Uint32Array(out.buffer);
  const [ax, bx, cx, ay, by, cy] = orientationMap(orientation, w, h);
  const step = ay * w + ax; // one shown pixel to the right, in stored pixels
  for (let Y = 0; Y < H; Y++) {
    let i = (by * Y + cy) * w + bx * Y + cx;
    const row = Y * W;
    for (let X = 0; X < W; X++, i += step) dst[row + X] = src[i]!;
  }
  return { width: W, height: H, data: out };
}

/**
 * Where applyOrientation takes each shown pixel from: the stored pixel (x, y) shown at (X, Y) is
 * x = ax·X + bx·Y + cx, y = ay·X + by·Y + cy, for a stored picture of w × h (EXIF `orientation`).
 */
export function orientationMap(orientation: number, w: number, h: number): [ax: number, bx: number, cx: number, ay: number, by: number, cy: number] {
  switch (orientation) {
    case 2: return [-1, 0, w - 1, 0, 1, 0];
    case 3: return [-1, 0, w - 1, 0, -1, h - 1];
    case 4: return [1, 0, 0, 0, -1, h - 1];
    case 5: return [0, 1, 0, 1, 0, 0];
    case 6: return [0, 1, 0, -1, 0, h - 1];
    case 7: return [0, -1, w - 1, -1, 0, h - 1];
    case 8: return [0, -1, w - 1, 1, 0, 0];
    default: return [1, 0, 0, 0, 1, 0];
  }
}
