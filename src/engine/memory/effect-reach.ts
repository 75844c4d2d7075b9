/**
 * How far a layer effect's kernels read at a render scale, and the preview that would need more
 * than the effect tiles hold (issue 25: "a 500 is a bug"). Effects are drawn in tiles whose arrays
 * are the tile grown by the kernel's reach on every side, at most TILE_AREA values
 * (composite/effects.ts); near a reach of 1,023 px the tiles shrink to nothing, past it none fits
 * and the arrays grow with the square of the reach. An upscaled preview multiplies the reach: a
 * 250 px inside stroke on a 3 × 2 template previewed 111× read 27,750 px and held over 3 GB
 * (session 19 fuzz, seed 35). Upscaled previews are therefore drawn at the scale where their
 * kernels reach UPSCALED_REACH (memory/budget.ts previewRenderScale) and enlarged; this check
 * refuses, with a 422 naming the layer and the effect, what would still read past the tiles: a
 * template stored before the upload refused effects past Photoshop's own sizes (at most 250 px,
 * compiled/unsupported.ts).
 */
import { TILE_AREA } from '../composite/effects';
import { unprocessable } from '../errors';
import type { LayerNode } from '../types';
import { effectKernel } from './kernel-reach';

/**
 * The longest reach (output px) at which a tile of 256 px still fits TILE_AREA with its arrays.
 * Nearer the limit the tiles shrink to a few pixels each, every one with arrays of TILE_AREA: a
 * 250 px drop shadow at 4× (a reach of 1,000 px) drew a 72 × 357 layer in 180 tiles, 53 s; a
 * 201 × 151 template at 3.98× took 84 s (session 19 fuzz, seeds 4 and 168).
 */
export const MAX_EFFECT_READ = (Math.sqrt(TILE_AREA) - 256) / 2;

/**
 * Refuses (422) a render at `scale` in which an effect of any layer would read past MAX_EFFECT_READ;
 * with `showsHidden` false, layers the template hides are left out (kernel-reach.ts mayShowHidden).
 */
export function checkEffectReach(layers: LayerNode[], scale: number, showsHidden = true): void {
  const found: Array<{ path: string; reason: string }> = [];
  const walk = (nodes: LayerNode[], parent: string) => {
    for (const node of nodes) {
      if (!showsHidden && node.visible === false) continue;
      const path = parent ? `${parent}/${node.name}` : node.name;
      const kernel = effectKernel(node);
      if (kernel && kernel.px * scale > MAX_EFFECT_READ) {
        found.push({ path: `layers.${path}`, reason: `${kernel.effect} of ${kernel.px} px reads ${Math.ceil(kernel.px * scale)} px at this size` });
      }
      if (node.children) walk(node.children, path);
    }
  };
  walk(layers, '');
  if (!found.length) return;
  const list = found.map((d) => `${d.reason} (layer "${d.path.slice('layers.'.length)}")`).join('; ');
  throw unprocessable(`The output is too large for the template's layer effects: ${list}, more than the ${MAX_EFFECT_READ} px a request can draw. Ask for a smaller size.`, found);
}
