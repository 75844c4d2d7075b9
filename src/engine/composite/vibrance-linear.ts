/**
 * Photoshop's Vibrance adjustment as storytold/photocraft measured it black-box on Photoshop 25.4
 * (7,400-colour charts, 8 and 16 bits, sRGB, Adobe RGB and ProPhoto documents; its
 * crates/compose/src/adjust.rs `vibrance_px` / `vibrance_lin`, read as reference data). Both
 * sliders work in linear light through the document's tone curve (sRGB here: compiled documents
 * are RGB), Vibrance first, then Saturation (`vibranceSaturation`, below).
 *
 * The Vibrance slider v (−1..1) on a linear pixel, with V its largest channel, t = 1 − min/max
 * its HSV saturation and s = t(1 − t)(2 − t + t²)·V(1 − V):
 * - lowering (a = −v): t' = t(1 − a/4)(1 − a + a·t(1 + t)/2), V' = V − a·s; measured exact
 *   (0.2/255 on average) but in the deepest shadows (V < 0.05), which Photoshop desaturates less;
 * - raising: V' = V + v/4·s (exact), and t' = min(1, t(1 + b)) with the boost b fitted to the
 *   charts (0.4/255 off on average at +10, 5/255 at +100): it grows as t and V fall and is damped
 *   on skin hues (HSV 0°–30°, fading out by 45° and back in from 300°);
 * then the hue is kept: each channel is V'(1 − t') + (x − min)·(V' − V'(1 − t'))/(max − min).
 */

import { linearToLevel, mapColours, SRGB_TO_LINEAR } from './colour-map';

/** Clamps a linear value to 0..1 and takes it to its sRGB level. */
const level = (x: number) => linearToLevel(x <= 0 ? 0 : x >= 1 ? 1 : x);

/** The fitted boost of raising: c0, c1 (on a and a²), the powers of t and 1 − t, and the exponent's r0, ra, rt. */
const BOOST = { c0: 0.5001, c1: 0.0887, p: 0.4374, q: 0.7573, r0: -0.8113, ra: 0.5154, rt: 2.8026 };

/** How much raising treats an HSV hue (degrees) as skin. */
function skin(h: number): number {
  if (h <= 30) return 1;
  if (h < 45) return (45 - h) / 15;
  if (h < 300) return 0;
  return (h - 300) / 60;
}

/** Applies the Vibrance slider (−100..100) to RGBA pixels in place (alpha untouched). */
export function applyVibranceLinear(vibrance: number, d: Uint8ClampedArray): boolean {
  const v = Math.max(-100, Math.min(100, vibrance)) / 100;
  if (v === 0) return true;
  const a = -v;
  const skinV = 0.64 * Math.pow(Math.max(0, v), 1.6);
  mapColours(d, (r8, g8, b8) => {
    const r = SRGB_TO_LINEAR[r8], g = SRGB_TO_LINEAR[g8], b = SRGB_TO_LINEAR[b8];
    const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
    const t = 1 - mn / mx;
    const shape = t * (1 - t) * (2 - t + t * t) * mx * Math.max(0, 1 - mx);
    let t2: number, v2: number;
    if (v < 0) {
      t2 = t * (1 - a / 4) * (1 - a + (a * t * (1 + t)) / 2);
      v2 = mx - a * shape;
    } else {
      const c = mx - mn;
      const h6 = mx === r ? (((g - b) / c) % 6 + 6) % 6 : mx === g ? (b - r) / c + 2 : (r - g) / c + 4;
      const w = skin(h6 * 60);
      const av = v * (1 - w) + skinV * w;
      const boost = (BOOST.c0 * av + BOOST.c1 * av * av) * Math.pow(t, BOOST.p) * Math.pow(1 - t, BOOST.q) *
        Math.exp((BOOST.r0 + BOOST.ra * av + BOOST.rt * (1 - t)) * Math.max(0, 1 - mx));
      t2 = Math.min(1, t * (1 + boost));
      v2 = mx + (v / 4) * shape;
    }
    const m2 = v2 * (1 - t2);
    const k = (v2 - m2) / (mx - mn);
    return (level(m2 + (r - mn) * k) << 16) | (level(m2 + (g - mn) * k) << 8) | level(m2 + (b - mn) * k);
  });
  return true;
}

/** The grey Vibrance's Saturation slider moves colours towards or away from: R and G in linear light (blue has none). */
export const VIBRANCE_GREY_R = 0.288;
export const VIBRANCE_GREY_G = 0.712;

/**
 * The Saturation slider of Photoshop's Vibrance adjustment (saturation −100..100), not
 * Hue/Saturation's: in linear light (the document's sRGB curve), each channel moves from the grey
 * 0.288·R + 0.712·G by 1 + saturation/100 and clips to 0..1. photocraft measured it black-box on
 * Photoshop 25.4 over 7,400-colour charts (8 and 16 bits; sRGB, Adobe RGB and ProPhoto
 * documents: blue has no weight in any) to within 0.07/255 at every setting (storytold/photocraft
 * crates/compose/src/adjust.rs, `vibrance_px`; docs/colour.md).
 */
export function vibranceSaturation(saturation: number, d: Uint8ClampedArray): boolean {
  const s = Math.max(-100, Math.min(100, saturation)) / 100;
  if (s === 0) return true;
  const k = 1 + s;
  mapColours(d, (r8, g8, b8) => {
    const r = SRGB_TO_LINEAR[r8], g = SRGB_TO_LINEAR[g8], b = SRGB_TO_LINEAR[b8];
    const grey = VIBRANCE_GREY_R * r + VIBRANCE_GREY_G * g;
    return (level(grey + k * (r - grey)) << 16) | (level(grey + k * (g - grey)) << 8) | level(grey + k * (b - grey));
  });
  return true;
}
