// An upright placement of a picture is kept (placementCache) and the picture's decode is lent
// (decodeBounded's `lend`, not cached): a request that places the same picture again must find
// the placement without loading the picture, and a lent picture must be given back once placed.
import { describe, expect, it } from 'vitest';
import { buildOverrides, type PersonaliseContext } from '../../../src/engine/personalise';
import type { LayerNode } from '../../../src/engine/types';
import { layerNode as node } from './helpers';

const tree = (): LayerNode[] => [node(4, 'Photo', 'Image', { bounds: { left: 0, top: 0, right: 10, bottom: 10 } })];

function context(hash: string) {
  const loads: string[] = [];
  let released = 0;
  const ctx: PersonaliseContext = {
    scale: 1,
    loadFont: async () => null,
    imageKey: () => `image/${hash}`,
    imageSize: async () => ({ width: 20, height: 20 }),
    loadImage: async (ref, target, how) => {
      loads.push(`${ref} ${target.width}x${target.height}${how?.deferResize ? ' deferred' : ''}`);
      const data = new Uint8ClampedArray(20 * 20 * 4);
      for (let i = 0; i < data.length; i++) data[i] = i % 4 === 3 ? 255 : (i * 7) % 251;
      return { width: 20, height: 20, data, source: { width: 20, height: 20 }, opaque: true, release: () => void released++ };
    },
  };
  return { ctx, loads, released: () => released };
}

describe('a picture placed again', () => {
  it('is placed from the kept placement, not loaded; a lent one is given back once placed', async () => {
    const hash = `picture-arrays-${Math.random()}`;
    const first = context(hash);
    const placed = await buildOverrides(tree(), { Photo: { type: 'image', image: 'a.jpg', resizeMode: 'fill' } }, first.ctx);
    expect(first.loads).toEqual(['a.jpg 10x10 deferred']);
    expect(first.released()).toBe(1);
    const again = context(hash);
    const kept = await buildOverrides(tree(), { Photo: { type: 'image', image: 'a.jpg', resizeMode: 'fill' } }, again.ctx);
    expect(again.loads).toEqual([]);
    expect(kept.get(4)?.pixels).toBe(placed.get(4)?.pixels);
    // Another mode is another placement: loaded and placed.
    const fit = context(hash);
    await buildOverrides(tree(), { Photo: { type: 'image', image: 'a.jpg', resizeMode: 'fit' } }, fit.ctx);
    expect(fit.loads).toHaveLength(1);
    expect(fit.released()).toBe(1);
  });
});
