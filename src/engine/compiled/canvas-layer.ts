import type { Bounds, LayerNode } from '../types';

/**
 * A pixel layer the compiler makes itself over the whole canvas (a flat document's merged image,
 * a spot channel's preview layers): stored pixels, visible, fully opaque as a layer.
 */
export function canvasLayer(id: number, name: string, bounds: Bounds, blendMode = 'normal'): LayerNode {
  return { id, name, type: 'Image', bounds, pixelBounds: bounds, hasPixels: true, visible: true, opacity: 1, fillOpacity: 1, blendMode, clipping: false };
}
