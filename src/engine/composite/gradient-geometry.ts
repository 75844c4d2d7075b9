/**
 * Where a pixel falls on a gradient overlay's or gradient stroke's ramp (t, 0..1 before
 * clamping), for each gradient style, from the pixel's offset (px, py) from the gradient's centre
 * in output pixels (y down), the unit direction of the angle on screen (dx, dy) = (cos θ, −sin θ),
 * the angle θ itself in radians (counterclockwise on screen), the linear length and the radius
 * (both in output pixels). The box the gradient aligns to, its Scale, offset and the linear
 * ramp's ends snapped to pixels are worked out by the caller (effects.ts gradientFill); see
 * docs/fidelity.md "Gradients" and "Gradient geometry on boxes that are not square".
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
