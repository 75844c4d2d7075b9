import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, deleteCompiledTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { backdropCache, bandCache, clearEngineCaches, treeCache } from '../../../src/engine/cache';
import { loadCompiledTemplateCached } from '../../../src/engine/compiled/store';
import type { LayerNode } from '../../../src/engine/types';
import { psdFixture } from '../../helpers/fixtures';
import { firstDifference } from '../../helpers/pixels';
import { recording } from '../../helpers/recording-bucket';


/** Reads of layers' and masks' bands, alone or in packs (compiled/packs.ts). */
const pixelReads = (reads: string[]) => reads.filter((k) => /\/(px|mask|pack)\//.test(k));

describe('engine caches', () => {
  it('a second render of the same template reads no layer band from R2 (band cache)', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const cold = recording(env.FILES);
    const first = await renderTemplate(cold.bucket, compiled, { scale: 0.25 });
    expect(pixelReads(cold.reads).length).toBeGreaterThan(0);
    backdropCache.clear(); // draw every layer again, from cached bands
    const warm = recording(env.FILES);
    const second = await renderTemplate(warm.bucket, compiled, { scale: 0.25 });
    expect(pixelReads(warm.reads)).toEqual([]);
    expect(firstDifference(second.data, first.data)).toBe(-1);
    expect(bandCache.size).toBeLessThanOrEqual(bandCache.budget);
  });

  it('the parsed tree is read from R2 once per isolate, and forgotten when the template is deleted', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-blend-multiply.psd'));
    clearEngineCaches();
    const a = recording(env.FILES);
    await loadCompiledTemplateCached(a.bucket, compiled.hash);
    await loadCompiledTemplateCached(a.bucket, compiled.hash);
    expect(a.reads.filter((k) => k.endsWith('tree.json'))).toHaveLength(1);
    await deleteCompiledTemplate(env.FILES, compiled.hash);
    expect(treeCache.count).toBe(0);
    expect(await loadCompiledTemplateCached(env.FILES, compiled.hash)).toBeNull();
  });

  // Overrides at several depths (top level, inside groups, clipped, under adjustments): a render
  // starting from a backdrop cached by a DIFFERENT request equals a render with empty caches.
  for (const fixture of ['psdrb-example-design.psd', 'oovpsd-nested-groups.psd', 'psdtools-group-pass-through.psd', 'psdtools-clipping-mask.psd', 'psdtools-adjust-curves.psd']) {
    it(`a cached backdrop gives the same bytes as a cold render, whatever layer is overridden (${fixture})`, async () => {
      const compiled = await compileTemplate(env.FILES, await psdFixture(fixture));
      const nodes = [...walkLayers(compiled.layers)].filter((n: LayerNode) => n.hasPixels || n.type === 'Group');
      const picks = [...new Set([0, Math.floor(nodes.length / 3), Math.floor((2 * nodes.length) / 3), nodes.length - 1])].map((i) => nodes[i]).filter(Boolean);
      const scale = Math.min(1, 400 / Math.max(compiled.width, compiled.height));
      let used = 0;
      for (const node of picks) {
        const red: LayerOverrides = new Map([[node.id, { color: { r: 255, g: 0, b: 0, a: 1 } }]]);
        const hidden: LayerOverrides = new Map([[node.id, { visible: false }]]);
        clearEngineCaches();
        const cold = await renderTemplate(env.FILES, compiled, { scale, overrides: red });
        clearEngineCaches();
        await renderTemplate(env.FILES, compiled, { scale, overrides: hidden }); // caches the backdrop under node
        const warm = await renderTemplate(env.FILES, compiled, { scale, overrides: red });
        expect(firstDifference(warm.data, cold.data), `override of ${node.name}`).toBe(-1);
        used += backdropCache.hits;
      }
      expect(used, 'some render started from a cached backdrop').toBeGreaterThan(0);
    });
  }

  it('renders strips from backdrops keyed by their rows: each strip equals the rows of the whole', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    clearEngineCaches();
    const top = [...walkLayers(compiled.layers)].find((n) => n.hasPixels)!;
    const overrides: LayerOverrides = new Map([[top.id, { visible: false }]]);
    const full = await renderTemplate(env.FILES, compiled, { scale: 0.5, overrides });
    for (const [a, b] of [[0, 40], [100, 140], [0, 40]]) {
      const strip = await renderTemplate(env.FILES, compiled, { scale: 0.5, overrides, region: { top: a, bottom: b } });
      expect(firstDifference(strip.data, full.data.subarray(a * full.width * 4, b * full.width * 4))).toBe(-1);
    }
  });

  it('an unpersonalised render served from the backdrop cache is the same and reads nothing', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('oovpsd-nested-groups.psd'));
    clearEngineCaches();
    const first = await renderTemplate(env.FILES, compiled, { scale: 0.5 });
    const { bucket, reads } = recording(env.FILES);
    const second = await renderTemplate(bucket, compiled, { scale: 0.5 });
    expect(pixelReads(reads)).toEqual([]);
    expect(firstDifference(second.data, first.data)).toBe(-1);
    expect(backdropCache.size).toBeLessThanOrEqual(backdropCache.budget);
  });
});
