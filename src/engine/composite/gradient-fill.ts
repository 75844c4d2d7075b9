import type { Bounds, LayerNode, VectorMask } from '../types';
import type { RenderContext } from './context';
import { gradientPixels } from './gradient-geometry';
import { createSurface, type Surface } from './surface';

/**
 * A gradient fill layer drawn from its settings, for a record that stores no pixels. Photoshop
 * stores a fill layer's pixels in 8-bit documents, which we draw as stored; in 16- and 32-bit
 * documents it stores none: photocraft (storytold/photocraft, crates/compose/src/fill_layout.rs,
 * read as reference data) fits its gradient fill layout "on the psd-tools `colormodes` files, whose
 * 16/32-bit versions store no fill pixels", and renders them to Photoshop's composite (its test
 * `small_gradient_fill_matches_photoshop_at_all_depths`). Such a layer drew nothing here.
 *
 * The gradient is laid out as a gradient overlay is (gradient-geometry.ts `gradientPixels`: the
 * same styles, span, Scale, offset, Reverse, method and the linear ends in the pixels they fall
 * in), over the document: a fill layer covers the whole image, its "Align with Layer" box is the
 * image (photocraft lays fill and overlay gradients out alike, `fill_layout::gradient_layout`).
 * A fill layer with a vector mask (a gradient-filled shape) takes its shape from the mask, as the
 * compositor does for a solid-colour shape without pixels (compositor.ts fillFromPath), and, when
 * aligned with the layer, its gradient spans the path's box (the box of its anchor points, in
 * fractions of a pixel, as photocraft's shape renderer lays a shape's gradient over "the shape's
 * bounds": crates/vector/src/lib.rs Paint::from_fill).
 */
/** A fill layer's gradient as ag-psd reads it ('GdFl': a solid or noise gradient with its style, angle, scale...). */
export type FillGradient = NonNullable<LayerNode['fillGradient']>;

/** The fill over `clip` (output pixels), or null when the gradient draws nothing (no stops). */
export function gradientFillSurface(ctx: RenderContext, fill: FillGradient, clip: Bounds, vectorMask?: VectorMask): Surface | null {
  const image: Bounds = { left: 0, top: 0, right: ctx.compiled.width, bottom: ctx.compiled.height };
  const box = (fill.align !== false && pathBox(vectorMask)) || image;
  // Drawn straight into the surface (at a print strip, 4 MB, not a second 4 MB copied from).
  const surface = createSurface(clip);
  return gradientPixels({ ...fill, type: fill.style ?? 'linear', gradient: fill }, clip, ctx.scale, box, surface.data) ? surface : null;
}

/** The box of a vector mask's anchor points (document pixels), or null when it has none or is not a plain shape. */
function pathBox(vm: VectorMask | undefined): Bounds | null {
  if (!vm || vm.disabled || vm.invert || vm.fillStartsWithAllPixels) return null;
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const path of vm.paths) {
    for (const k of path.knots) {
      left = Math.min(left, k[2]);
      right = Math.max(right, k[2]);
      top = Math.min(top, k[3]);
      bottom = Math.max(bottom, k[3]);
    }
  }
  return right > left && bottom > top ? { left, top, right, bottom } : null;
}
