import { initializeCanvas, readPsd, type Layer, type Psd } from 'ag-psd';
import { buildTree } from '../../../src/engine/psd/tree';
import type { PlacementQuad, ResizeMode } from '../../../src/engine/personalise/image';
import { encodeJpeg } from '../../../src/engine/raster/codecs';
import type { Bounds, LayerNode } from '../../../src/engine/types';
import { noiseImage } from '../raster/helpers';
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

/** The corners of an upright rectangle, as a PlacementQuad's. */
export const upright = (left: number, top: number, right: number, bottom: number) => [left, top, right, top, right, bottom, left, bottom];

/** A seeded generator of bytes (0–255), the same sequence for a seed. */
export function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 24);
}

/**
 * Case `t` of the placement tests' random upright placements: a noise JPEG (4:2:0 or 4:2:2) and a
 * layer at 1/8 … 7/8 of its size, at a fractional offset, maybe past the canvas (`within`), fit or fill.
 */
export async function uprightPlacementCase(next: () => number, t: number): Promise<{ jpeg: Uint8Array; quad: PlacementQuad; mode: ResizeMode; within?: Bounds; size: { width: number; height: number }; label: string }> {
  const [pw, ph] = [120 + (next() % 200), 90 + (next() % 160)];
  const jpeg = await encodeJpeg(noiseImage(pw, ph, t + 1, 'opaque'), 85, { subsampling: t % 2 ? 1 : 2 });
  const k = 1 + (t % 7);
  const [cw, ch] = [Math.max(8, Math.round((pw * k) / 8) - (next() % 30)), Math.max(8, Math.round((ph * k) / 8) - (next() % 30))];
  const x0 = (next() % 40) - 15 + (next() % 4) / 4;
  const y0 = (next() % 40) - 15;
  const quad = { corners: upright(x0, y0, x0 + cw, y0 + ch), width: cw, height: ch };
  const mode: ResizeMode = t % 3 ? 'fill' : 'fit';
  const within: Bounds | undefined = t % 4 ? { left: 0, top: 0, right: 40 + (next() % 200), bottom: 40 + (next() % 200) } : undefined;
  const label = `${t}: ${pw}×${ph} into ${cw}×${ch} ${mode}${within ? ` within ${within.right}×${within.bottom}` : ''} at ${k}/8`;
  return { jpeg, quad, mode, within, size: { width: cw, height: ch }, label };
}
