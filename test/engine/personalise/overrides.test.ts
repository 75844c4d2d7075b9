import { describe, expect, it } from 'vitest';
import { buildOverrides, imageReferences, placementQuad, type PersonaliseContext } from '../../../src/engine/personalise';
import type { RGBAImage } from '../../../src/engine/types';
import { placementCache } from '../../../src/engine/cache';
import { bundledFontStore } from '../fonts/helpers';
import { findNode, fixtureTree, inkStats } from './helpers';

const solid = (width: number, height: number, rgba: number[]): RGBAImage => {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set(rgba, i * 4);
  return { width, height, data };
};

function context(scale = 1, images: Record<string, RGBAImage> = {}): PersonaliseContext & { imageLoads: string[] } {
  const imageLoads: string[] = [];
  return {
    scale,
    imageLoads,
    loadFont: bundledFontStore,
    loadImage: async (ref) => {
      imageLoads.push(ref);
      const img = images[ref];
      if (!img) throw new Error(`no test image ${ref}`);
      return img;
    },
  };
}

describe('buildOverrides on fixtures', () => {
  it('text: a changed text layer gets re-rendered pixels at its place; unchanged text keeps Photoshop pixels', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const node = findNode(tree, 'Line 1 Line 2 Line 3 and text');
    const changed = await buildOverrides(tree, { [node.name]: { type: 'text', text: 'Hello\nWorld' } }, context());
    const o = changed.get(node.id)!;
    expect(o.pixels).toBeDefined();
    const ink = inkStats(o.pixels!, o.bounds!.left, o.bounds!.top);
    expect(Math.abs(ink.left - 84)).toBeLessThanOrEqual(2); // starts where the original starts
    expect(Math.abs(ink.top - 110)).toBeLessThanOrEqual(2);
    const same = await buildOverrides(tree, { [node.name]: { type: 'text', text: node.text!.text } }, context());
    expect(same.get(node.id)).toBeUndefined();
  });

  // Issue 25 §3: one name, six text layers (psdrb's variant groups, five hidden): only the shown one is drawn.
  it('text: a layer that does not show (itself or a group above hidden) is checked, not drawn', async () => {
    const { tree } = await fixtureTree('psdrb-example-design.psd');
    const all = (nodes: typeof tree): typeof tree => nodes.flatMap((n) => [n, ...all(n.children ?? [])]);
    const texts = all(tree).filter((n) => n.type === 'Text');
    const overrides = await buildOverrides(tree, { [texts[0]!.name]: { type: 'text', text: 'Hello' } }, context());
    const drawn = texts.filter((n) => overrides.get(n.id)?.pixels);
    expect([texts.length, drawn.map((n) => n.id)]).toEqual([6, [findNode(tree, 'Version A').children!.find((n) => n.type === 'Text')!.id]]);
  });

  it('text: pixels and bounds are in output space at the render scale', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const node = findNode(tree, 'Line 1 Line 2 Line 3 and text');
    const o = (await buildOverrides(tree, { [node.name]: { type: 'text', text: 'Hello', color: 'rgb(255,0,0)' } }, context(0.5))).get(node.id)!;
    const ink = inkStats(o.pixels!, o.bounds!.left, o.bounds!.top);
    expect(Math.abs(ink.left - 42)).toBeLessThanOrEqual(1.5);
    expect(Math.abs(ink.bottom - 119.7 / 2)).toBeLessThanOrEqual(1.5);
  });

  it('image into a smart object takes its placement (agpsd apple: 265,240 → 465,390)', async () => {
    const { tree } = await fixtureTree('agpsd-shapes-smart-objects.psd');
    const apple = findNode(tree, 'apple');
    const ctx = context(1, { 'pic.png': solid(40, 30, [0, 128, 255, 255]) });
    const o = (await buildOverrides(tree, { apple: { type: 'image', image: 'pic.png', resizeMode: 'fill' } }, ctx)).get(apple.id)!;
    expect(o.bounds).toEqual({ left: 265, top: 240, right: 465, bottom: 390 });
    expect(ctx.imageLoads).toEqual(['pic.png']);
  });

  it('image placements are kept per isolate by picture content and placement, when the picture has a content key', async () => {
    const { tree } = await fixtureTree('agpsd-shapes-smart-objects.psd');
    const apple = findNode(tree, 'apple');
    placementCache.clear();
    const picture = solid(40, 30, [0, 128, 255, 255]);
    const keyed = { ...context(1, { 'pic.png': picture }), imageKey: () => 'image/abc' };
    const data = { apple: { type: 'image', image: 'pic.png', resizeMode: 'fill' } };
    const first = (await buildOverrides(tree, data, keyed)).get(apple.id)!;
    const second = (await buildOverrides(tree, data, keyed)).get(apple.id)!;
    expect(second.pixels).toBe(first.pixels);
    expect(placementCache.hits).toBe(1);
    const fit = (await buildOverrides(tree, { apple: { ...data.apple, resizeMode: 'fit' } }, keyed)).get(apple.id)!;
    expect(fit.pixels).not.toBe(first.pixels);
    const unkeyed = (await buildOverrides(tree, data, context(1, { 'pic.png': picture }))).get(apple.id)!;
    expect(unkeyed.pixels).not.toBe(first.pixels);
    expect(unkeyed.pixels!.data).toEqual(first.pixels!.data);
  });

  it('image into a perspective smart object: corners land where the placement says, at scale', async () => {
    const { tree } = await fixtureTree('psdtools-smart-objects-placed.psd');
    const node = findNode(tree, 'linked-psd');
    node.smartObject = { ...node.smartObject!, corners: [40, 60, 220, 80, 200, 190, 30, 170] };
    const ctx = context(0.5, { 'p.png': solid(101, 55, [255, 0, 0, 255]) });
    const o = (await buildOverrides(tree, { 'linked-psd': { type: 'image', image: 'p.png', resizeMode: 'fill' } }, ctx)).get(node.id)!;
    expect(o.bounds).toEqual({ left: 15, top: 30, right: 110, bottom: 95 });
    const quad = placementQuad(node, 0.5);
    expect(quad.corners).toEqual([20, 30, 110, 40, 100, 95, 15, 85]);
  });

  it('image on a plain image layer uses the layer bounds', async () => {
    const { tree } = await fixtureTree('agpsd-groups.psd');
    const layer = findNode(tree, 'Layer 1');
    const ctx = context(1, { 'x.png': solid(10, 10, [0, 0, 0, 255]) });
    const o = (await buildOverrides(tree, { 'Layer 1': { type: 'image', image: 'x.png', resizeMode: 'fit' } }, ctx)).get(layer.id)!;
    // 244×157 bounds, square picture fitted: 157×157 centred horizontally.
    expect(o.bounds).toEqual({ left: 24 + Math.floor((244 - 157) / 2), top: 11, right: 24 + Math.ceil((244 + 157) / 2), bottom: 168 });
  });

  it('shape recolours a fill layer; colour keeps alpha from rgba()', async () => {
    const { tree } = await fixtureTree('psdtools-passthrough-fill-layer.psd');
    const fill = findNode(tree, 'Color Fill 1');
    expect(fill.type).toBe('Shape');
    const o = await buildOverrides(tree, { 'Color Fill 1': { type: 'shape', color: 'rgba(10, 20, 30, 0.5)' } }, context());
    expect(o.get(fill.id)).toEqual({ color: { r: 10, g: 20, b: 30, a: 0.5 } });
  });

  it('a name shared by several layers applies to all of them', async () => {
    const { tree } = await fixtureTree('psdtools-passthrough-fill-layer.psd');
    const o = await buildOverrides(tree, { 'Layer 1 copy': { visible: false } }, context());
    expect(o.size).toBe(3);
    for (const v of o.values()) expect(v).toEqual({ visible: false });
  });

  it('visible: shows a hidden layer and hides a visible one; combines with a command', async () => {
    const { tree } = await fixtureTree('agpsd-groups.psd');
    const o = await buildOverrides(tree, { 'Group 2': { visible: true }, 'Layer 0': { visible: false } }, context());
    expect(o.get(findNode(tree, 'Group 2').id)).toEqual({ visible: true });
    expect(o.get(findNode(tree, 'Layer 0').id)).toEqual({ visible: false });
    const { tree: t2 } = await fixtureTree('psdtools-passthrough-fill-layer.psd');
    const both = await buildOverrides(t2, { 'Color Fill 1': { type: 'shape', color: '#fff', visible: false } }, context());
    expect(both.get(findNode(t2, 'Color Fill 1').id)).toEqual({ visible: false, color: { r: 255, g: 255, b: 255, a: 1 } });
  });

  it('switch shows the selected child of a group and hides its siblings', async () => {
    const { tree } = await fixtureTree('agpsd-groups.psd');
    const o = await buildOverrides(tree, { 'Group 1': { type: 'switch', select: 'Group 2' } }, context());
    expect(o.get(findNode(tree, 'Group 2').id)).toEqual({ visible: true });
    expect(o.get(findNode(tree, 'Layer 3').id)).toEqual({ visible: false });
    expect(o.get(findNode(tree, 'Layer 1').id)).toEqual({ visible: false });
    expect(o.has(findNode(tree, 'Group 1').id)).toBe(false);
  });

  it('an explicit visible on a child wins over its group switch', async () => {
    const { tree } = await fixtureTree('agpsd-groups.psd');
    const o = await buildOverrides(tree, { 'Group 1': { type: 'switch', select: 'Group 2' }, 'Layer 3': { visible: true } }, context());
    expect(o.get(findNode(tree, 'Layer 3').id)).toEqual({ visible: true });
  });
});

describe('imageReferences', () => {
  it('collects each image reference once, ignoring other commands', () => {
    expect(
      imageReferences({
        A: { type: 'image', image: 'https://x/a.jpg' },
        B: { type: 'image', image: 'https://x/a.jpg' },
        C: { type: 'image', image: 'stored/b.png' },
        D: { type: 'text', text: 'x' },
        E: null,
      }),
    ).toEqual(['https://x/a.jpg', 'stored/b.png']);
    expect(imageReferences(undefined)).toEqual([]);
  });
});

describe('buildOverrides font fallback', () => {
  it('loads the fallback font only when the text has characters the layer font lacks', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const node = findNode(tree, 'Line 1 Line 2 Line 3 and text');
    const asked: string[] = [];
    const ctx = { ...context(), loadFont: async (n: string) => (asked.push(n), bundledFontStore(n)) };
    await buildOverrides(tree, { [node.name]: { type: 'text', text: 'Plain text' } }, ctx);
    expect(asked).not.toContain('DejaVuSans');
    await buildOverrides(tree, { [node.name]: { type: 'text', text: 'Smile \u2654' } }, ctx);
    expect(asked).toContain('DejaVuSans');
  });
});
