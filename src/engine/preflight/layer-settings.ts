/**
 * What a template's layer names set for personalisation and preflight (issue 21), as template
 * information shows it: the markers of src/engine/personalise/markers.ts read per text and image
 * layer, with the defaults the checks use where the name sets nothing, so a storefront learns
 * from /api/information/template how a field behaves without parsing layer names itself.
 */
import { templateInfo } from '../compiled/info';
import { spotLayerIds } from '../compiled/spots';
import { DEFAULT_PPI_THRESHOLD } from '../personalise/checks';
import { layerMarkers, nameWithoutMarkers, type TextFit } from '../personalise/markers';
import type { CompiledTemplate, FrameLayer, FramesInfo, LayerNode } from '../types';

export interface LayerSettings {
  /** The name `data` may use: the layer name without its markers (when it carries any). */
  dataName?: string;
  /** Text: how the text is fitted when a request gives no `fit`. */
  fit?: TextFit;
  /** Text: the smallest size shrinking may reach (pt); absent: half the original size. */
  minSize?: number;
  /** Point text: how wide it may run (template px); absent: the canvas. */
  maxWidth?: number;
  /** Preflight reports the layer when its text or picture is empty. */
  required: boolean;
  /** Pictures: effective ppi below which preflight warns (errors below half). */
  ppi?: number;
}

/** The settings of a text or image layer; null for other layers. */
export function layerSettings(node: Pick<LayerNode, 'name' | 'type'>): LayerSettings | null {
  const isText = node.type === 'Text';
  const isPicture = node.type === 'Image' || node.type === 'SmartObject';
  if (!isText && !isPicture) return null;
  const markers = layerMarkers(node.name);
  const bare = nameWithoutMarkers(node.name);
  return {
    ...(bare !== node.name ? { dataName: bare } : {}),
    ...(isText ? { fit: markers.fit ?? 'none', minSize: markers.minSize, maxWidth: markers.maxWidth } : {}),
    required: !!markers.required,
    ...(isPicture ? { ppi: markers.ppi ?? DEFAULT_PPI_THRESHOLD } : {}),
  };
}

export type FrameLayerWithSettings = FrameLayer & { settings?: LayerSettings; layers?: FrameLayerWithSettings[] };

/** templateInfo, each text and image layer carrying its `settings`. */
export function templateInfoWithSettings(compiled: CompiledTemplate, fullInfo: boolean): FramesInfo & { layers: FrameLayerWithSettings[] } {
  const info = templateInfo(compiled, fullInfo);
  const annotate = (layers: FrameLayer[], nodes: LayerNode[]): FrameLayerWithSettings[] =>
    layers.map((layer, i) => {
      const node = nodes[i];
      const settings = node ? layerSettings(node) : null;
      const children = layer.layers && node?.children ? { layers: annotate(layer.layers, node.children) } : {};
      return { ...layer, ...(settings ? { settings: withoutUndefined(settings) } : {}), ...children };
    });
  // Spot channels' preview layers are in the tree but not in the information (compiled/spots.ts).
  const spotLayers = spotLayerIds(compiled);
  return { ...info, layers: annotate(info.layers, compiled.layers.filter((n) => !spotLayers.has(n.id))) };
}

const withoutUndefined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
