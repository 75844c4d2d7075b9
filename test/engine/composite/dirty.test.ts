import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { dirtyBounds } from '../../../src/engine/composite/dirty';
import type { Bounds, LayerNode, RGBAImage } from '../../../src/engine/types';
import { psdFixture } from '../../helpers/fixtures';

/** Whether two renders are equal outside `r`. */
function equalOutside(a: RGBAImage, b: RGBAImage, r: Bounds | null): boolean {
  for (let y = 0; y < a.height; y++)
    for (let x = 0; x < a.width; x++) {
      if (r && x >= r.left && x < r.right && y >= r.top && y < r.bottom) continue;
      const i = (y * a.width + x) * 4;
      for (let c = 0; c < 4; c++) if (a.data[i + c] !== b.data[i + c]) return false;
    }
  return true;
}

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
});

