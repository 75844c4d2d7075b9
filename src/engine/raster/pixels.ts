import { inPlace } from './kernels';

/**
 * Composites straight RGBA8 over opaque white, in place (Photoshop's matte, and what a JPEG
 * needs: it has no alpha). c' = round((c·a + 255·(255 − a)) / 255), a' = 255.
 */
export async function flattenOverWhite(data: Uint8ClampedArray | Uint8Array): Promise<void> {
  await inPlace(data, (k) => k.flattenOverWhite);
}

/** Straight → premultiplied alpha, in place on RGBA8: c' = round(c·a / 255). */
export async function premultiply(data: Uint8ClampedArray | Uint8Array): Promise<void> {
  await inPlace(data, (k) => k.premultiply);
}

/** Premultiplied → straight alpha, in place on RGBA8: c = min(255, round(c'·255 / a)), a = 0 → 0. */
export async function unpremultiply(data: Uint8ClampedArray | Uint8Array): Promise<void> {
  await inPlace(data, (k) => k.unpremultiply);
}
