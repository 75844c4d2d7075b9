import type { CompiledTemplate, FrameLayer, FramesInfo, LayerNode } from '../types';
import { spotLayerIds } from './spots';

/**
 * The spec's FramesInfo: size and the layer tree in panel order (top first); groups carry
 * `layers`. `fullInfo` adds bounds, visibility, opacity, blend mode, text, smart-object placement.
 */
export function templateInfo(compiled: CompiledTemplate, fullInfo: boolean): FramesInfo {
  // Spot channels are shown by layers of their own (./spots.ts), which are not the document's.
  const spotLayers = spotLayerIds(compiled);
  const convert = (n: LayerNode): FrameLayer => {
    const out: FrameLayer = { name: n.name, type: n.type };
    if (fullInfo) {
      out.bounds = { ...n.bounds };
      out.visible = n.visible;
      out.opacity = n.opacity;
      out.blendMode = n.blendMode;
      if (n.text) out.text = n.text;
      if (n.smartObject) out.smartObject = n.smartObject;
      if (n.fillColor) out.fillColor = n.fillColor;
    }
    if (n.children) out.layers = n.children.map(convert);
    return out;
  };
  return { size: { width: compiled.width, height: compiled.height }, layers: compiled.layers.filter((n) => !spotLayers.has(n.id)).map(convert) };
}

/** Every node of the tree, depth first, top first. */
export function* walkLayers(nodes: LayerNode[]): Generator<LayerNode> {
  for (const n of nodes) {
    yield n;
    if (n.children) yield* walkLayers(n.children);
  }
}
