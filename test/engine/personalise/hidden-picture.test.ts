// A picture command on a name several layers share, some of them in hidden variant groups (psd.rb's
// example: six "Matte" layers, five hidden): only the layers that show have the picture decoded
// and placed; the hidden ones have it measured once, for the checks (which report nothing for
// what does not print). Issue 25 §3 (speed-wide): each hidden layer decoded the picture, ~430 ms
// a personalised request.
import { describe, expect, it } from 'vitest';
import { buildOverrides, type PersonaliseContext } from '../../../src/engine/personalise';
import type { LayerNode } from '../../../src/engine/types';
import { layerNode as node } from './helpers';

const picture = { width: 20, height: 20, data: new Uint8ClampedArray(20 * 20 * 4).fill(200), source: { width: 20, height: 20 } };

function context(withImageSize: boolean) {
  const loads: Array<{ ref: string; width: number; height: number }> = [];
  const measured: string[] = [];
  const ctx: PersonaliseContext = {
    scale: 1,
    loadFont: async () => null,
    loadImage: async (ref, target) => {
      loads.push({ ref, ...target });
      if (ref !== 'a.jpg') throw new Error(`no test image ${ref}`);
      return picture;
    },
    ...(withImageSize ? { imageSize: async (ref: string) => (measured.push(ref), { width: 20, height: 20 }) } : {}),
  };
  return { ctx, loads, measured };
}

const tree = (): LayerNode[] => [
  node(9, 'Variant B', 'Group', { visible: false, children: [node(8, 'Matte', 'Image', { bounds: { left: 0, top: 0, right: 10, bottom: 10 } })] }),
  node(7, 'Variant C', 'Group', { visible: false, children: [node(6, 'Matte', 'Image', { bounds: { left: 0, top: 0, right: 10, bottom: 10 } })] }),
  node(5, 'Variant A', 'Group', { children: [node(4, 'Matte', 'Image', { bounds: { left: 0, top: 0, right: 10, bottom: 10 } })] }),
  node(3, 'Hidden', 'Image', { visible: false }),
];

describe('a picture on a name hidden layers share', () => {
  it('is decoded and placed for the layer that shows only; the hidden ones measure it once', async () => {
    const { ctx, loads, measured } = context(true);
    const overrides = await buildOverrides(tree(), { Matte: { type: 'image', image: 'a.jpg' } }, ctx);
    expect([...overrides.keys()]).toEqual([4]);
    expect(overrides.get(4)?.pixels).toBeTruthy();
    expect(loads.map((l) => `${l.width}x${l.height}`)).toEqual(['10x10']);
    expect(measured).toEqual(['a.jpg']);
  });

  it('a switch that shows another variant moves the decode there', async () => {
    const { ctx, loads } = context(true);
    const overrides = await buildOverrides(tree(), { 'Variant B': { visible: true }, 'Variant A': { visible: false }, Matte: { type: 'image', image: 'a.jpg' } }, ctx);
    expect([...overrides.keys()].filter((id) => overrides.get(id)?.pixels)).toEqual([8]);
    expect(loads).toHaveLength(1);
  });

  it('a picture only hidden layers take is still looked up (an unknown one fails), not decoded', async () => {
    const bad = context(false);
    await expect(buildOverrides(tree(), { Hidden: { type: 'image', image: 'missing.jpg' } }, bad.ctx)).rejects.toThrow();
    const good = context(true);
    const overrides = await buildOverrides(tree(), { Hidden: { type: 'image', image: 'a.jpg' } }, good.ctx);
    expect([...overrides.values()].some((o) => o.pixels)).toBe(false);
    expect(good.loads).toHaveLength(0);
    expect(good.measured).toEqual(['a.jpg']);
  });
});
