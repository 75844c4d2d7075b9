import type { LayerNode } from '../types';
import type { RenderContext } from './render';
import type { Surface } from './surface';

/** Layer effects (layer styles). Drawn at render time: they are not baked into stored pixels. */
export function hasEffects(_node: LayerNode): boolean {
  return false;
}

/** How far (output pixels) effects reach beyond the layer's pixels. */
export function effectMargin(_node: LayerNode, _scale: number): number {
  return 0;
}

export async function drawEffectsBelow(
  _ctx: RenderContext,
  _node: LayerNode,
  _canvas: Surface,
  _content: Surface | null,
  _mask: Uint8ClampedArray | null,
  _atop: boolean,
): Promise<void> {}

export async function drawEffectsAbove(
  _ctx: RenderContext,
  _node: LayerNode,
  _canvas: Surface,
  _content: Surface | null,
  _mask: Uint8ClampedArray | null,
  _atop: boolean,
): Promise<void> {}
