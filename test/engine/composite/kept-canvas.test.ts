import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers } from '../../../src/engine';
import { psdFixture } from '../../helpers/fixtures';

/**
 * renderTemplate's `canvas`: a caller's kept array to draw the region into (issue 25 §3, no
 * fresh array per personalised request). The same bytes as a new canvas, over the backdrop cache
 * as ever, whatever the array held before; a longer array's start serves, a shorter one is left alone.
 */
describe('renderTemplate into a kept canvas', () => {
  it("gives a new canvas's bytes for a changed layer with a drop shadow, in the array given", async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    const layer = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    expect(layer).toBeDefined();
    const b = layer.bounds;
    // The layer's pixels replaced by an opaque block of its size: its shadow is drawn anew.
    const w = b.right - b.left;
    const h = b.bottom - b.top;
    const pixels = { width: w, height: h, data: new Uint8ClampedArray(w * h * 4).map((_, i) => (i % 4 === 3 ? (i >> 2) % 7 ? 255 : 0 : 90)) };
    const overrides = new Map([[layer.id, { pixels, bounds: b }]]);
    const region = { top: b.top - 30, bottom: b.bottom + 40, left: b.left - 40, right: b.right + 50 };
    for (const background of [undefined, 'transparent'] as const) {
      const fresh = await renderTemplate(env.FILES, compiled, { scale: 1, overrides, region, background });
      const kept = new Uint8ClampedArray(fresh.data.length + 4096).fill(173);
      const into = await renderTemplate(env.FILES, compiled, { scale: 1, overrides, region, background, canvas: kept });
      expect([into.data.buffer, into.data.byteOffset, into.data.length]).toEqual([kept.buffer, 0, fresh.data.length]);
      expect([into.width, into.height]).toEqual([fresh.width, fresh.height]);
      expect(Buffer.compare(Buffer.from(into.data), Buffer.from(fresh.data))).toBe(0);
      // Again into the same array (what it held: the last request's pixels).
      const again = await renderTemplate(env.FILES, compiled, { scale: 1, overrides, region, background, canvas: kept });
      expect(Buffer.compare(Buffer.from(again.data), Buffer.from(fresh.data))).toBe(0);
    }
    const other = new Uint8ClampedArray(16).fill(9); // shorter than the region
    const notInto = await renderTemplate(env.FILES, compiled, { scale: 1, overrides, region, canvas: other });
    expect(notInto.data).not.toBe(other);
    expect([...other]).toEqual(new Array(16).fill(9));
  });
});
