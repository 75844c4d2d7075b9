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
  for (let Y = 0; Y < H; Y++) {
    for (let X = 0; X < W; X++) {
      let x: number, y: number;
      switch (orientation) {
        case 2: x = w - 1 - X; y = Y; break;
        case 3: x = w - 1 - X; y = h - 1 - Y; break;
        case 4: x = X; y = h - 1 - Y; break;
        case 5: x = Y; y = X; break;
        case 6: x = Y; y = h - 1 - X; break;
        case 7: x = w - 1 - Y; y = h - 1 - X; break;
        default: x = w - 1 - Y; y = X; break; // 8
      }
      dst[Y * W + X] = src[y * w + x]!;
    }
  }
  return { width: W, height: H, data: out };
}
