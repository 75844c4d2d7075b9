import { initializeCanvas, readPsd, type Layer, type Psd } from 'ag-psd';
import { placementFromLayer, textInfoFromLayer } from '../../../src/engine/personalise/layer-info';
import type { LayerNode, LayerType } from '../../../src/engine/types';
import { psdFixture } from '../../helpers/fixtures';

let canvasReady = false;

/**
 * A fixture's layer tree, built here from ag-psd directly so these tests do not depend on the
 * compiler: ids number layers depth-first, bottom-first, as the engine does.
 */
export async function fixtureTree(name: string): Promise<{ psd: Psd; tree: LayerNode[]; layers: Map<number, Layer> }> {
  if (!canvasReady) {
    initializeCanvas(
      (() => {
        throw new Error('no canvas');
      }) as never,
      ((width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) })) as never,
    );
    canvasReady = true;
  }
  const psd = readPsd(await psdFixture(name), { useImageData: true, skipThumbnail: true, skipCompositeImageData: true });
  const layers = new Map<number, Layer>();
  let nextId = 0;
  const walk = (list: Layer[]): LayerNode[] =>
    list
      .map((layer) => {
        const id = nextId++;
        layers.set(id, layer);
        const node: LayerNode = {
          id,
          name: layer.name ?? '',
          type: typeOf(layer),
          bounds: { left: layer.left ?? 0, top: layer.top ?? 0, right: layer.right ?? 0, bottom: layer.bottom ?? 0 },
          visible: !layer.hidden,
          opacity: layer.opacity ?? 1,
          fillOpacity: layer.fillOpacity ?? 1,
          blendMode: layer.blendMode ?? 'normal',
          clipping: !!layer.clipping,
        };
        const text = textInfoFromLayer(layer);
        if (text) node.text = text;
        const placement = placementFromLayer(layer);
        if (placement) node.smartObject = placement;
        if (layer.children) node.children = walk(layer.children);
        return node;
      })
      .reverse();
  return { psd, tree: walk(psd.children ?? []), layers };
}

function typeOf(layer: Layer): LayerType {
  if (layer.children) return 'Group';
  if (layer.adjustment) return 'Adjustment';
  if (layer.text) return 'Text';
  if (layer.placedLayer) return 'SmartObject';
  if (layer.vectorFill || layer.vectorOrigination) return 'Shape';
  return 'Image';
}

export function findNode(tree: LayerNode[], name: string): LayerNode {
  for (const node of tree) {
    if (node.name === name) return node;
    if (node.children) {
      try {
        return findNode(node.children, name);
      } catch {
        /* keep looking */
      }
    }
  }
  throw new Error(`no layer ${name}`);
}

/** Bounding box and centroid of the alpha of an image placed at (left, top). */
export function inkStats(img: { width: number; height: number; data: Uint8ClampedArray }, left: number, top: number, threshold = 64) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, sum = 0, sx = 0, sy = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const a = img.data[(y * img.width + x) * 4 + 3];
      if (a > 0) {
        sum += a;
        sx += a * (x + 0.5);
        sy += a * (y + 0.5);
      }
      if (a >= threshold) {
        minX = Math.min(minX, x);
        maxX = Math.max(maxX, x + 1);
        minY = Math.min(minY, y);
        maxY = Math.max(maxY, y + 1);
      }
    }
  }
  return { left: left + minX, top: top + minY, right: left + maxX, bottom: top + maxY, cx: left + sx / sum, cy: top + sy / sum, ink: sum / 255 };
}
