import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';
import type { Layer, LayerEffectsInfo, LayerMaskData } from 'ag-psd';
import type { LayerNode } from '../../../src/engine/types';
import { psdFixture } from '../../helpers/fixtures';
import { equalOutside } from '../../helpers/pixels';

describe('dirtyBounds', () => {
  for (const fixture of ['psdrb-example-design.psd', 'oovpsd-nested-groups.psd', 'psdtools-layer-effects-all.psd']) {
    it(`renders differ only inside it, against no overrides and against a base (${fixture})`, { timeout: 60_000 }, async () => {
      const compiled = await compileTemplate(env.FILES, await psdFixture(fixture));
      const scale = Math.min(1, 300 / Math.max(compiled.width, compiled.height));
      const nodes = [...walkLayers(compiled.layers)].filter((n: LayerNode) => n.hasPixels);
      const [a, b] = [nodes[0]!, nodes[nodes.length - 1]!];
      const base: LayerOverrides = new Map([[a.id, { visible: false }]]);
      const overrides: LayerOverrides = new Map([[a.id, { visible: false }], [b.id, { color: { r: 250, g: 0, b: 120, a: 1 } }]]);
      const plain = await renderTemplate(env.FILES, compiled, { scale });
      const withBase = await renderTemplate(env.FILES, compiled, { scale, overrides: base });
      const personalised = await renderTemplate(env.FILES, compiled, { scale, overrides });
      expect(equalOutside(personalised, plain, dirtyBounds(compiled, overrides, scale))).toBe(true);
      const againstBase = dirtyBounds(compiled, overrides, scale, base);
      expect(equalOutside(personalised, withBase, againstBase)).toBe(true);
      // The base's own change is not counted against it.
      expect(dirtyBounds(compiled, base, scale, new Map([[a.id, { visible: false }]]))).toBeNull();
      expect(dirtyBounds(compiled, new Map(), scale)).toBeNull();
      // Overrides that repeat the template (a switch sets every child's visibility) change nothing.
      expect(dirtyBounds(compiled, new Map(nodes.map((n) => [n.id, { visible: n.visible }])), scale)).toBeNull();
    });
  }

  // Issue 25 §3: a drawn text's box is its line boxes; only its glyphs (and their effects' reach) can change the picture.
  it('new pixels reach only where they are not transparent, grown by the layer effects', { timeout: 60_000 }, async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    const node = [...walkLayers(compiled.layers)].find((n: LayerNode) => n.name === 'Drop Shadow')!;
    const [w, h] = [240, 120];
    const box = (ink: boolean) => {
      const data = new Uint8ClampedArray(w * h * 4);
      for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (!ink || (y >= 50 && y < 70 && x >= 20 && x < 200)) data.set([30, 60, 200, 255], (y * w + x) * 4);
      return { width: w, height: h, data };
    };
    const bounds = { left: 150, top: 180, right: 150 + w, bottom: 180 + h };
    const inked: LayerOverrides = new Map([[node.id, { pixels: box(true), bounds }]]);
    const dirty = dirtyBounds(compiled, inked, 1)!;
    const full = dirtyBounds(compiled, new Map([[node.id, { pixels: box(false), bounds }]]), 1)!;
    expect(dirty.bottom - dirty.top).toBeLessThan(full.bottom - full.top);
    const plain = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const personalised = await renderTemplate(env.FILES, compiled, { scale: 1, overrides: inked });
    expect(equalOutside(personalised, plain, dirty)).toBe(true);
    // All transparent: only where the template's own pixels were.
    const none = new Map([[node.id, { pixels: { width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }, bounds }]]);
    const cleared = await renderTemplate(env.FILES, compiled, { scale: 1, overrides: none });
    expect(equalOutside(cleared, plain, dirtyBounds(compiled, none, 1))).toBe(true);
  });

  // Issue 25 §3: groups that are not opened up (Normal, or pass-through with an opacity or a
  // mask) count only their changed units; every layer of these fixtures, recoloured or hidden.
  for (const fixture of ['psdtools-transparency-group.psd', 'webtoon-mobile-ui-example.psd']) {
    it(`a change inside a group that is not opened up differs only inside it (${fixture}, every layer)`, { timeout: 120_000 }, async () => {
      const compiled = await compileTemplate(env.FILES, await psdFixture(fixture));
      const scale = Math.min(1, 300 / Math.max(compiled.width, compiled.height));
      const plain = await renderTemplate(env.FILES, compiled, { scale });
      for (const node of [...walkLayers(compiled.layers)].filter((n: LayerNode) => n.type !== 'Group')) {
        for (const change of [{ color: { r: 250, g: 0, b: 120, a: 1 } }, { visible: !node.visible }]) {
          const overrides: LayerOverrides = new Map([[node.id, change]]);
          const personalised = await renderTemplate(env.FILES, compiled, { scale, overrides });
          expect(equalOutside(personalised, plain, dirtyBounds(compiled, overrides, scale)), `${node.name} ${Object.keys(change)}`).toBe(true);
        }
      }
    });
  }

  // Issue 25 §3: a group that is not opened up (here: Normal at 70 %, or with a mask) holding a
  // full-canvas matte changes only where the changed layer inside it reaches; one with effects of
  // its own (they read its whole alpha) changes wherever it paints.
  it('a group holding a full-canvas matte changes only where its changed layer reaches, unless its effects read it all', { timeout: 60_000 }, async () => {
    const { writePsdUint8Array } = await import('ag-psd');
    const [W, H] = [200, 160];
    const fill = (w: number, h: number, rgba: number[]) => {
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
      return { width: w, height: h, data };
    };
    const group = (name: string, more: Partial<Layer>): Layer => ({
      name,
      opened: true,
      ...more,
      children: [
        { name: `${name} matte`, top: 0, left: 0, bottom: H, right: W, imageData: fill(W, H, [240, 230, 200, 255]) },
        { name: `${name} name`, top: 60, left: 30, bottom: 80, right: 90, imageData: fill(60, 20, [20, 20, 120, 255]) },
      ],
    });
    const shadow: LayerEffectsInfo = { dropShadow: [{ enabled: true, present: true, color: { r: 0, g: 0, b: 0 }, opacity: 0.7, angle: 90, distance: { units: 'Pixels', value: 4 }, size: { units: 'Pixels', value: 6 } }] };
    const mask: LayerMaskData = { top: 0, left: 0, bottom: H, right: W, imageData: fill(W, H, [255, 255, 255, 255]) };
    const compiled = await compileTemplate(
      env.FILES,
      writePsdUint8Array({
        width: W,
        height: H,
        children: [
          { name: 'paper', top: 0, left: 0, bottom: H, right: W, imageData: fill(W, H, [255, 255, 255, 255]) },
          group('faded', { blendMode: 'normal', opacity: 0.7 }),
          group('masked', { blendMode: 'multiply', mask }),
          group('shadowed', { blendMode: 'normal', effects: shadow }),
        ],
      }),
    );
    const byName = (name: string) => [...walkLayers(compiled.layers)].find((n) => n.name === name)!;
    const plain = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const pixels = fill(40, 12, [200, 40, 40, 255]);
    for (const name of ['faded', 'masked', 'shadowed']) {
      const overrides: LayerOverrides = new Map([[byName(`${name} name`).id, { pixels, bounds: { left: 100, top: 100, right: 140, bottom: 112 } }]]);
      const dirty = dirtyBounds(compiled, overrides, 1)!;
      if (name === 'shadowed') expect(dirty, name).toEqual({ left: 0, top: 0, right: W, bottom: H });
      else expect((dirty.right - dirty.left) * (dirty.bottom - dirty.top), name).toBeLessThan((W * H) / 4);
      const personalised = await renderTemplate(env.FILES, compiled, { scale: 1, overrides });
      expect(equalOutside(personalised, plain, dirty), name).toBe(true);
    }
  });
});

