/**
 * The Vibrance slider of Photoshop's Vibrance adjustment (docs/fidelity.md, "Vibrance"); its
 * Saturation slider is Hue/Saturation's master saturation and is applied by adjust.ts with that
 * code, after this.
 *
 * Adobe documents the behaviour, not the formula: vibrance changes "the saturation of all
 * lower-saturated colors with less effect on the higher-saturated colors", minimising clipping
 * as colours near full saturation, and "prevents skin tones from becoming oversaturated".
 * Photoshop's own formula is not published, so this is a model of that description (an
 * approximation, said so in docs/fidelity.md):
 * - each channel's distance from the pixel's HSL lightness L = (max + min) / 2 is scaled by
 *   k = 1 + v·(1 − S)·p(h), v = vibrance / 100, S the pixel's HSL saturation: greys and fully
 *   saturated colours stay, the less saturated a colour the more it moves; lightness and hue
 *   are kept (the same kind of step as Hue/Saturation's saturation);
 * - raising never passes full saturation, so nothing clips: 1 + (1 − S) ≤ 1 / S for every S
 *   (S(2 − S) ≤ 1); the cap k ≤ 1 / S below only guards that;
 * - skin protection p(h) (raising only): hues on the skin-tone line, orange around 25°, take half
 *   the change, falling off linearly to none at 0° and 50° (hexcone hue):
 *   p(h) = 1 − ½·max(0, 1 − |h − 25°| / 25°);
 * - lowering (v < 0) uses the same weight without the skin term: at −100, k = S, so a colour's
 *   saturation becomes S², muted colours go grey and strong ones keep most of theirs, as
 *   Photoshop's −100 vibrance leaves an image partly coloured where −100 saturation greys it.
 */
export const SKIN_HUE = 25;
export const SKIN_WIDTH = 25;
export const SKIN_PROTECTION = 0.5;

/** The factor on a channel's distance from the lightness, for a pixel of HSL saturation s (0..1) and hexcone hue h (degrees). */
export function vibranceFactor(v: number, s: number, h: number): number {
  if (v === 0 || s <= 0) return 1;
  if (v < 0) return 1 + Math.max(-1, v) * (1 - s);
  const skin = Math.max(0, 1 - Math.abs(hueDistance(h, SKIN_HUE)) / SKIN_WIDTH);
  const k = 1 + Math.min(1, v) * (1 - s) * (1 - SKIN_PROTECTION * skin);
  return Math.min(k, 1 / s);
}

/** Applies the vibrance slider (−100..100) to RGBA pixels in place (alpha untouched). */
export function applyVibrance(vibrance: number, d: Uint8ClampedArray): boolean {
  const v = Math.max(-100, Math.min(100, vibrance)) / 100;
  if (v === 0) return true;
  // Per pixel with scalars only (vibranceFactor inlined): the skin term needs the hue only where
  // it can be 0°..60°, red the largest channel and green at least blue.
  const skinLo = SKIN_HUE - SKIN_WIDTH, skinHi = SKIN_HUE + SKIN_WIDTH;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    const mx = r > g ? (r > b ? r : b) : g > b ? g : b;
    const mn = r < g ? (r < b ? r : b) : g < b ? g : b;
    if (mx === mn) continue;
    const sum = mx + mn;
    const c = mx - mn;
    const s = c / (sum <= 255 ? sum : 510 - sum);
    let k: number;
    if (v < 0) k = 1 + v * (1 - s);
    else {
      let p = 1;
      if (mx === r && g >= b && skinLo >= 0) {
        const h = (60 * (g - b)) / c;
        if (h > skinLo && h < skinHi) p = 1 - SKIN_PROTECTION * (1 - Math.abs(h - SKIN_HUE) / SKIN_WIDTH);
      }
      k = 1 + v * (1 - s) * p;
      if (k * s > 1) k = 1 / s;
    }
    const L = sum / 2;
    d[i] = L + (r - L) * k;
    d[i + 1] = L + (g - L) * k;
    d[i + 2] = L + (b - L) * k;
  }
  return true;
}

/** Signed distance between two hues in degrees, in (−180, 180]. */
function hueDistance(a: number, b: number): number {
  const x = (((a - b) % 360) + 360) % 360;
  return x > 180 ? x - 360 : x;
}
