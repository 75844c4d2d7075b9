import type { Bounds, LayerNode } from '../types';

/**
 * A pixel layer the compiler makes itself (a flat document's merged image over the canvas, a
 * spot channel's preview layers over its inked rectangle): stored pixels over `bounds`, visible,
 * fully opaque as a layer.
 */
export function compilerLayer(id: number, name: string, bounds: Bounds, blendMode = 'normal'): LayerNode {
  return { id, name, type: 'Image', bounds, pixelBounds: bounds, hasPixels: true, visible: true, opacity: 1, fillOpacity: 1, blendMode, clipping: false };
}
