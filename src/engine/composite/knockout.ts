import { drop } from '../memory/drop';
import type { LayerNode } from '../types';
import { blendSurface, fadeInto, type BlendOptions } from './blend';
import { createSurface, intersectRect, rectOf, type Surface } from './surface';

/**
 * Photoshop's Knockout (Layer Style > Blending Options > Knockout: None, Shallow, Deep). Adobe:
 * "Shallow knocks out to the first possible stopping point, such as the first layer after the
 * layer group or the base layer of the clipping mask. Deep knocks out to the background; if
 * there is no background, Deep knocks out to transparency. If you are not using a layer group or
 * clipping mask, either creates a knockout that reveals the background layer (or transparency)."
 * A group that is not pass-through composites its layers apart, from transparency, so its
 * bottom is as deep as any knockout inside it reaches ("punches through to the layer directly
 * below the set, for both Deep and Shallow"); the same holds for a clipping group.
 *
 * Where the layer is, then, it blends onto that backdrop (the *target*) instead of onto the
 * layers between, and the result replaces what the canvas held there:
 *
 *   canvas ← lerp(canvas, target ⊕ layer, opacity · shape)
 *
 * `shape` is the layer's own coverage (pixel alpha × masks): the knockout cuts by the layer's
 * shape, not by its paint, so a layer at Fill 0 % punches a clean hole (the usual way to use
 * it), and at Fill 100 % in Normal mode the knockout changes nothing. `target ⊕ layer` blends
 * the layer's colour with its mode at its Fill. Opacity fades the whole, the hole included, as
 * it fades everything else of the layer. The lerp is premultiplied (fadeInto), so a hole in a
 * transparent target leaves the canvas transparent there.
 */

/** The backdrops a knockout reveals in the current scope: null is transparency. */
export interface KnockoutScope {
  shallow: Surface | null;
  deep: Surface | null;
}

/** Whether a node, or any layer inside it, knocks out. */
export function hasKnockout(node: LayerNode): boolean {
  return !!node.knockout || (node.children?.some(hasKnockout) ?? false);
}

/** The target of a layer's knockout in a scope. */
export const knockoutTarget = (scope: KnockoutScope, node: LayerNode) => (node.knockout === 'deep' ? scope.deep : scope.shallow);

/**
 * Draws `content` (with its `mask`, one byte per content pixel) onto `canvas` knocking out to
 * `target`. `options` are the layer's blend options (fill, blend-if, channels, atop, gamma).
 * `whole`: "Transparency Shapes Layer" off, which "applies [knockouts] throughout the layer":
 * the hole is the whole of `content`'s rectangle (× mask), not its pixels' alpha, and the layer
 * paints its pixels, with their own alpha, onto the target inside it:
 *   canvas ← lerp(canvas, target ⊕ layer (alpha × fill), opacity · mask).
 */
export function knockoutBlend(
  canvas: Surface,
  target: Surface | null,
  content: Surface,
  mask: Uint8ClampedArray | null,
  opacity: number,
  mode: string,
  options: BlendOptions,
  whole = false,
): void {
  const r = intersectRect(rectOf(canvas), rectOf(content));
  if (!r || opacity <= 0) return;
  const w = r.right - r.left;
  const h = r.bottom - r.top;
  // What is beneath the hole: the target's pixels over r (transparent outside it).
  const under = createSurface(r);
  const t = target ? intersectRect(r, rectOf(target)) : null;
  if (target && t) {
    for (let y = t.top; y < t.bottom; y++) {
      const s = ((y - target.y) * target.w + (t.left - target.x)) * 4;
      under.data.set(target.data.subarray(s, s + (t.right - t.left) * 4), ((y - r.top) * w + (t.left - r.left)) * 4);
    }
  }
  // The layer's colour, opaque wherever it has coverage, and that coverage (× mask) as the shape.
  const paint = createSurface(r);
  const shape = new Uint8ClampedArray(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const ci = (y + r.top - content.y) * content.w + (x + r.left - content.x);
      const a = content.data[ci * 4 + 3];
      const p = y * w + x;
      if (whole) shape[p] = mask ? mask[ci] : 255;
      if (!a) continue;
      paint.data.set(content.data.subarray(ci * 4, ci * 4 + 3), p * 4);
      paint.data[p * 4 + 3] = whole ? a : 255;
      if (!whole) shape[p] = mask ? (a * mask[ci] + 127) / 255 : a;
    }
  }
  blendSurface(under, paint, null, 1, mode, options);
  // The canvas over r, faded toward the knocked-out result by opacity · shape, and put back.
  const here = createSurface(r);
  for (let y = 0; y < h; y++) {
    const s = ((y + r.top - canvas.y) * canvas.w + (r.left - canvas.x)) * 4;
    here.data.set(canvas.data.subarray(s, s + w * 4), y * w * 4);
  }
  fadeInto(here, under, shape, opacity);
  for (let y = 0; y < h; y++) {
    canvas.data.set(here.data.subarray(y * w * 4, (y + 1) * w * 4), ((y + r.top - canvas.y) * canvas.w + (r.left - canvas.x)) * 4);
  }
  drop(under.data, paint.data, shape, here.data); // made for this blend alone
}
