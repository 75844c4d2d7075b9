import { initializeCanvas, readPsd, type Layer, type Psd } from 'ag-psd';
import { buildTree } from '../../../src/engine/psd/tree';
import type { LayerNode } from '../../../src/engine/types';
import { psdFixture } from '../../helpers/fixtures';

let canvasReady = false;

/** A fixture's layer tree as the engine builds it, with ag-psd's layer record per node id. */
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
  const tree = buildTree(psd, (layer, node) => layers.set(node.id, layer));
  return { psd, tree, layers };
}

/** A plain layer node as the tree builds one (10 × 10 at the origin, visible, normal), with `extra` over it. */
export const layerNode = (id: number, name: string, type: LayerNode['type'], extra: Partial<LayerNode> = {}): LayerNode => ({
  id,
  name,
  type,
  bounds: { left: 0, top: 0, right: 10, bottom: 10 },
  visible: true,
  opacity: 1,
  fillOpacity: 1,
  blendMode: 'normal',
  clipping: false,
  ...extra,
});

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
