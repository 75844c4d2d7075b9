import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../src/engine';
import { clearEngineCaches } from '../../src/engine/cache';
import { renderFrame, type FrameOptions } from '../../src/engine/frame';
import { ServerTiming } from '../../src/http/server-timing';
import { psdFixture } from '../helpers/fixtures';
import { firstDifference } from '../helpers/pixels';

// Issue 25 §3: a personalised rectangle is drawn into a canvas kept from request to request
// (frame.ts takeCanvas/giveCanvas). Requests in flight at once must each get their own, and a
// canvas given back must not change a frame another request still reads.
describe('kept region canvases', () => {
  it('frames drawn at once and released in any order equal frames drawn alone', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdtools-layer-effects-all.psd'));
    clearEngineCaches();
    const node = [...walkLayers(compiled.layers)].find((n) => n.name === 'Drop Shadow')!;
    // Straight at scale 1, no sharpening: the drawn patch is the kept canvas itself.
    const o: FrameOptions = { scale: 1, width: compiled.width, height: compiled.height, quality: 'high', sharpen: null };
    const overridesWith = (shade: number): LayerOverrides => {
      const [w, h] = [120, 40];
      const data = new Uint8ClampedArray(w * h * 4);
      for (let i = 0; i < data.length; i += 4) data.set([shade, 255 - shade, 90, 255], i);
      return new Map([[node.id, { pixels: { width: w, height: h, data }, bounds: { left: 100 + shade, top: 150, right: 220 + shade, bottom: 190 } }]]);
    };
    const shades = [10, 60, 110];
    const expected = await Promise.all(shades.map((s) => renderTemplate(env.FILES, compiled, { scale: 1, overrides: overridesWith(s) })));
    await renderFrame(env.FILES, compiled, o, new ServerTiming()); // the kept template frame
    for (let round = 0; round < 2; round++) {
      const frames = await Promise.all(shades.map((s) => renderFrame(env.FILES, compiled, { ...o, overrides: overridesWith(s) }, new ServerTiming())));
      // Read one, release it, and let a later request take its canvas before the others are read.
      expect(firstDifference(frames[0]!.image.data, expected[0]!.data)).toBe(-1);
      frames[0]!.release?.();
      const again = await renderFrame(env.FILES, compiled, { ...o, overrides: overridesWith(200) }, new ServerTiming());
      for (let i = 1; i < frames.length; i++) {
        expect(firstDifference(frames[i]!.image.data, expected[i]!.data)).toBe(-1);
        frames[i]!.release?.();
      }
      again.release?.();
    }
  }, 180_000);
});
