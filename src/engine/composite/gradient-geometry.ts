import type { LayerEffectsInfo } from 'ag-psd';
import type { Bounds } from '../types';
import { gradientRamp, type Gradient } from './gradient';

/**
 * Gradients laid over a box: gradient overlays and gradient strokes (composite/effects.ts), and
 * gradient fill layers that stored no pixels (composite/gradient-fill.ts), drawn alike.
 *
 * `styleT`: where a pixel falls on the ramp (t, 0..1 before clamping), for each gradient style,
 * from the pixel's offset (px, py) from the gradient's centre in output pixels (y down), the unit
 * direction of the angle on screen (dx, dy) = (cos θ, −sin θ), the angle θ itself in radians
 * (counterclockwise on screen), the linear length and the radius (both in output pixels). The box
 * the gradient aligns to, its Scale, offset and the linear ramp's ends snapped to pixels are
 * worked out by `gradientPixels`; see docs/fidelity.md "Gradients" and "Gradient geometry on
 * boxes that are not square".
 *
 * **Angle** runs clockwise on screen from the angle's direction: t = 0 along θ, ¼ a quarter
 * turn clockwise from it, ½ opposite, ¾ a quarter turn counterclockwise (2026-11-30). Sources,
 * read as reference data (no code taken):
 * - photocraft (storytold/photocraft, crates/compose/src/effects.rs `gradient_t`, "Clockwise sweep
 *   starting at the gradient angle"; its unit test puts t = 0.75 straight above the centre of a
 *   0° gradient), whose gradient geometry is stated as fitted on psd-tools' gradient-styles.psd,
 *   Photoshop's own renderings of every style.
 * - psd-tools (`composite/paint.py` `_make_angle_gradient`: t = (atan2(y down, x) + θ) / 360, the
 *   same sweep), held by its test `test_gradient_styles` to Photoshop's stored pixels of the same
 *   gradient-styles.psd and gradient-sizes.psd (mean squared error ≤ 0.08 for solid gradients; a
 *   black → white angle gradient swept the other way is off by 1/3).
 * - libpsd's angle table (rodolforg/libpsd, `gradient_fill_angle`) and Krita's conical painter run
 *   the same way.
 * Adobe's manuals describe the gradient tool's Angle as "a counterclockwise sweep around the
 * starting point", which, if read as the direction the ramp runs, is the other way; no source
 * with a Photoshop render reads it so. The two readings differ exactly by Reverse.
 */

export type GradientStyle = 'linear' | 'radial' | 'angle' | 'reflected' | 'diamond' | string;

export function styleT(type: GradientStyle, px: number, py: number, dx: number, dy: number, angle: number, length: number, radius: number): number {
  if (type === 'radial') return Math.hypot(px, py) / radius;
  if (type === 'reflected') return Math.abs((px * dx + py * dy) / (length / 2));
  if (type === 'angle') return angleT(px, py, angle);
  // A diamond's corner points along the angle (the gradient tool's end point is a corner).
  if (type === 'diamond') return (Math.abs(px * dx + py * dy) + Math.abs(py * dx - px * dy)) / radius;
  return (px * dx + py * dy) / length + 0.5;
}

/** The angle style's t: the clockwise turn on screen from the angle θ (radians) to the pixel, in turns 0..1. */
export function angleT(px: number, py: number, angle: number): number {
  const turn = (angle - Math.atan2(-py, px)) / (2 * Math.PI);
  return turn - Math.floor(turn);
}

/** A gradient overlay's settings (a gradient stroke's and a gradient fill's are passed in the same shape). */
export type GradientOverlay = NonNullable<LayerEffectsInfo['gradientOverlay']>[number];

const widthOf = (r: Bounds) => r.right - r.left;
const heightOf = (r: Bounds) => r.bottom - r.top;

/**
 * Per-pixel colours of a gradient over rectangle r (output pixels, `s` output pixels to a document
 * pixel), aligned with the box `b` (document pixels); the gradient's opacity (its opacity stops)
 * in the alpha bytes, which callers fold into their coverage. Written into `into` (r's RGBA, every
 * byte written) when given: a fill layer's surface itself, not a copy of it (issue 25 §1).
 */
export function gradientPixels(g: GradientOverlay, r: Bounds, s: number, b: Bounds, into?: Uint8ClampedArray): Uint8ClampedArray | null {
  const grad = g.gradient;
  if (!grad) return null;
  const built = gradientRamp(grad as Gradient, { reverse: g.reverse, method: g.interpolationMethod });
  if (!built) return null;
  const { rgba: ramp, steps: STEPS } = built;
  // Geometry: aligned to the layer's bounds, in document pixels, then scaled to the output.
  const bw = b.right - b.left;
  const bh = b.bottom - b.top;
  // The offset ('Ofst', stored in percent) is a share of the box: ag-psd has divided it by 100.
  const cx = (b.left + b.right) / 2 + (g.offset?.x ?? 0) * bw;
  const cy = (b.top + b.bottom) / 2 + (g.offset?.y ?? 0) * bh;
  const angle = ((g.angle ?? 90) * Math.PI) / 180;
  const dx = Math.cos(angle);
  const dy = -Math.sin(angle);
  const sc = g.scale ?? 1;
  const scale = (sc > 10 ? sc / 100 : sc) || 1;
  const type = g.type ?? 'linear';
  // Across the layer's box along the angle, to the nearer pair of edges.
  const across = Math.min(Math.abs(dx) > 1e-6 ? bw / Math.abs(dx) : Infinity, Math.abs(dy) > 1e-6 ? bh / Math.abs(dy) : Infinity);
  const length = across * scale * s || 1;
  const radius = length / 2;
  // Noise gradients keep the exact line: their bands are ours, not Photoshop's, so nothing measures where they sit.
  const snapped = grad.type !== 'noise' && (type === 'linear' || type === 'reflected');
  const line = snapped ? (type === 'linear' ? linearEnds : reflectedEnds)(cx, cy, dx, dy, (across * scale) / 2, s) : null;
  const mirror = type === 'reflected';
  const w = widthOf(r);
  const out = into ?? new Uint8ClampedArray(w * heightOf(r) * 4);
  for (let y = 0; y < heightOf(r); y++) {
    for (let x = 0; x < w; x++) {
      const px0 = r.left + x + 0.5 - cx * s;
      const py0 = r.top + y + 0.5 - cy * s;
      // The style's place on the ramp; a linear or reflected ramp between its snapped ends.
      let t = line ? ((r.left + x + 0.5 - line.x) * line.dx + (r.top + y + 0.5 - line.y) * line.dy) / line.length2 : styleT(type, px0, py0, dx, dy, angle, length, radius);
      if (line && mirror) t = Math.abs(t);
      const k = Math.round(Math.max(0, Math.min(1, t)) * (STEPS - 1)) * 4;
      const o = (y * w + x) * 4;
      out[o] = ramp[k];
      out[o + 1] = ramp[k + 1];
      out[o + 2] = ramp[k + 2];
      out[o + 3] = ramp[k + 3];
    }
  }
  return out;
}

/**
 * A linear gradient's ends as Photoshop places them: the two ends of the line through the centre
 * along the angle, each moved to the centre of the document pixel it falls in (then scaled to the
 * output), and a pixel's place on the ramp its projection between them. Read back from
 * Photoshop's composite (psdtools-layer-effects-all.psd, "Gradient Overlay": box 600 × 60 at 87°,
 * ends (397.4, 482.0) and (400.6, 422.0) drawn as from pixel 397 to 400: direction 3 : 60, not
 * tan 3°): 98.5 % of channels exact against 27 % with the exact ends at pixel centres. Null when
 * both ends fall in one pixel (the exact line is drawn then).
 */
function linearEnds(cx: number, cy: number, dx: number, dy: number, half: number, s: number) {
  // cos 90° is 6e-17, not 0: an end on a pixel's edge must not fall into the pixel before it.
  const pixel = (v: number) => (Math.floor(v + 1e-9) + 0.5) * s;
  const x0 = pixel(cx - half * dx);
  const y0 = pixel(cy - half * dy);
  const ex = pixel(cx + half * dx) - x0;
  const ey = pixel(cy + half * dy) - y0;
  const length2 = ex * ex + ey * ey;
  return length2 > 0 ? { x: x0, y: y0, dx: ex, dy: ey, length2 } : null;
}

/**
 * A reflected gradient's line as Photoshop lays it out: from the box's centre, moved half a pixel
 * right and down (the top-left-corner sampling that puts a linear ramp's ends in the pixels they
 * fall in), to the centre of the pixel the end falls in, and a pixel's place on the ramp its
 * projection's distance from the centre along that line. On a small box the snapped end turns the
 * ramp: Photoshop's 30° reflected fill on a 4 × 4 image runs as a 45° one, t = |x − y| / 4
 * (photocraft, crates/compose/src/fill_layout.rs gradient_layout, "fitted on the psd-tools
 * `colormodes` files"; the same layout for overlays, strokes and fills); libpsd's reflected table
 * too is centred on a pixel (left + ⌊w/2⌋). Null when the end falls within half a pixel of the centre.
 */
function reflectedEnds(cx: number, cy: number, dx: number, dy: number, half: number, s: number) {
  const pixel = (v: number) => (Math.floor(v + 1e-9) + 0.5) * s;
  const x0 = (cx + 0.5) * s;
  const y0 = (cy + 0.5) * s;
  const ex = pixel(cx + half * dx) - x0;
  const ey = pixel(cy + half * dy) - y0;
  const length2 = ex * ex + ey * ey;
  return length2 >= 0.25 * s * s ? { x: x0, y: y0, dx: ex, dy: ey, length2 } : null;
}
