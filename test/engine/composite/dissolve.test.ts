import { writePsdUint8Array } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';

/**
 * Dissolve (Adobe: "the result colour is a random replacement of the pixels with the base colour
 * or the blend colour, depending on the opacity at any pixel location"): no pixel is a mix, and
 * the share of blend-colour pixels follows the opacity. Photoshop's own random pattern cannot be
 * derived, so the test holds the rule, not the pattern.
 */
describe('dissolve', () => {
  it('replaces pixels, never mixes them, in proportion to the opacity', async () => {
    const W = 64;
    const H = 64;
    const solid = (c: number[]) => {
      const data = new Uint8ClampedArray(W * H * 4);
      for (let i = 0; i < W * H; i++) data.set([...c, 255], i * 4);
      return { width: W, height: H, data };
    };
    for (const opacity of [64 / 255, 128 / 255, 192 / 255]) {
      const bytes = writePsdUint8Array({
        width: W,
        height: H,
        children: [
          { name: 'bg', top: 0, left: 0, imageData: solid([200, 100, 50]) },
          { name: 'd', top: 0, left: 0, blendMode: 'dissolve', opacity, imageData: solid([0, 0, 255]) },
        ],
      });
      const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
      let blue = 0;
      for (let i = 0; i < img.data.length; i += 4) {
        const px = [img.data[i], img.data[i + 1], img.data[i + 2]].join();
        expect(['200,100,50', '0,0,255']).toContain(px);
        if (px === '0,0,255') blue++;
      }
      expect(Math.abs(blue / (W * H) - opacity)).toBeLessThan(0.05);
    }
  });
});
