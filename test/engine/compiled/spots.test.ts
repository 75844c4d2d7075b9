import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, templateInfo } from '../../../src/engine';
import { spotsOf } from '../../../src/engine/compiled/spots';
import { labToSrgb } from '../../../src/engine/psd/spots';
import { madeFixture } from '../../helpers/fixtures';


/** test/fixtures/psd-made/make-spot.mjs's first spot. */
const tintA = (x: number, y: number) => (y < 8 ? [255, 128, 64, 0][Math.floor(x / 10)] : y < 16 ? Math.min(255, x * 7) : 0);

describe('spot channels in previews (issue 20 §2)', () => {
  it('show the ink over the image as Photoshop does: (1 − k)·c + k·((1 − s)·c·ink + s·ink)', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-spot-rgb8.psd'));
    expect(spotsOf(compiled).map((s) => [s.name, s.solidity, s.layers.length])).toEqual([['Spot Blue', 0.5, 2]]);
    const ink = labToSrgb([40, 10, -60]);
    const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
    let worst = 0;
    for (let y = 0; y < 24; y++) {
      for (let x = 0; x < 40; x++) {
        const k = tintA(x, y) / 255;
        const base = y >= 16 ? [120, 110, 100] : [230, 220, 200];
        for (let c = 0; c < 3; c++) {
          const want = (1 - k) * base[c] + k * (0.5 * ((base[c] * ink[c]) / 255) + 0.5 * ink[c]);
          worst = Math.max(worst, Math.abs(img.data[(y * 40 + x) * 4 + c] - want));
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(2);
    // Smaller previews come from the spot layers' pyramids like any layer's.
    const half = await renderTemplate(env.FILES, compiled, { scale: 0.5 });
    expect([half.width, half.height]).toEqual([20, 12]);
    expect(half.data[2]).toBeGreaterThan(half.data[0]); // the top left is blue ink
    // The template's layers are the document's: no spot layer in its information.
    expect(templateInfo(compiled, false).layers.map((l) => l.name)).toEqual(['Background']);
  });

  it('a transparent ink (solidity 0) multiplies, an opaque one (100) covers; a CMYK document keeps one layer each', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-spot-cmyk8.psd'));
    const spots = spotsOf(compiled);
    expect(spots.map((s) => [s.name, s.layers.length])).toEqual([
      ['PANTONE 185 C', 1],
      ['Gloss Varnish (UV)#2', 1],
    ]);
    const byId = new Map(compiled.layers.map((n) => [n.id, n]));
    expect(byId.get(spots[0].layers[0])!.blendMode).toBe('multiply');
    expect(byId.get(spots[1].layers[0])!.blendMode).toBe('normal');
    // Each over the rectangle its channel inks: the varnish only in the lower half.
    expect(byId.get(spots[1].layers[0])!.pixelBounds).toEqual({ left: 0, top: 12, right: 40, bottom: 24 });
    expect(byId.get(spots[0].layers[0])!.pixelBounds).toEqual({ left: 0, top: 0, right: 40, bottom: 16 });
    // Top first: the varnish over the Pantone over the document.
    expect(compiled.layers.map((n) => n.id)).toEqual([spots[1].layers[0], spots[0].layers[0], compiled.layers[2].id]);
  });

  it('leave documents without spot channels as they were', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-cmyk8.psd'));
    expect(spotsOf(compiled)).toEqual([]);
    expect('spots' in compiled).toBe(false);
  });
});
