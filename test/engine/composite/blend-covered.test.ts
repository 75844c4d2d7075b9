import { describe, expect, it } from 'vitest';
import { blendSurface } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { kernels } from '../../../src/engine/raster/kernels';
import { random } from './kit';

/**
 * compositor.ts blendWithGamma blends a layer's content over its covered pixels' box only (the box
 * effects.ts tightShape found: knownCoveredBox; blendSurface's `within`). Pixels of alpha 0 blend
 * to nothing in every mode, with every option (the kernel and the loop pass over a pixel of no
 * coverage first), so the bytes are those of the whole blend.
 */
const MODES = ['normal', 'multiply', 'screen', 'overlay', 'darken', 'lighten', 'color dodge', 'linear burn', 'difference', 'hue', 'luminosity', 'dissolve', 'vivid light', 'linear light'];

describe('a blend over the covered box only', () => {
  it('gives the bytes of the whole blend', async () => {
    await kernels();
    for (let seed = 1; seed <= 300; seed++) {
      const rnd = random(seed);
      const w = 1 + rnd.int(40);
      const h = 3 + rnd.int(30);
      const top = rnd.int(h - 1);
      const bottom = top + 1 + rnd.int(h - top);
      const left = rnd.int(w);
      const right = left + 1 + rnd.int(w - left);
      const src: Surface = { x: rnd.int(20) - 10, y: rnd.int(20) - 10, w, h, data: new Uint8ClampedArray(w * h * 4) };
      for (let y = top; y < bottom; y++) {
        for (let x = left; x < right; x++) {
          const o = (y * w + x) * 4;
          for (let c = 0; c < 3; c++) src.data[o + c] = rnd.int(256);
          src.data[o + 3] = rnd.next() < 0.3 ? 0 : rnd.next() < 0.4 ? 255 : rnd.int(256);
        }
      }
      const cw = 5 + rnd.int(50);
      const ch = 5 + rnd.int(40);
      const canvas: Surface = { x: -12 + rnd.int(8), y: -12 + rnd.int(8), w: cw, h: ch, data: new Uint8ClampedArray(cw * ch * 4) };
      for (let i = 0; i < canvas.data.length; i++) canvas.data[i] = i % 4 === 3 && rnd.next() < 0.5 ? 255 : rnd.int(256);
      const mask = rnd.next() < 0.4 ? Uint8ClampedArray.from({ length: w * h }, () => rnd.int(256)) : null;
      const mode = MODES[rnd.int(MODES.length)]!;
      const opacity = rnd.next() < 0.5 ? 1 : rnd.next();
      const options = {
        atop: rnd.next() < 0.3,
        textGamma: rnd.next() < 0.5 ? 1.45 : 1,
        fill: rnd.next() < 0.5 ? 1 : rnd.next(),
        excludedChannels: rnd.next() < 0.2 ? [rnd.int(3)] : undefined,
      };
      const whole = { ...canvas, data: canvas.data.slice() };
      blendSurface(whole, src, mask, opacity, mode, options);
      const cut = { ...canvas, data: canvas.data.slice() };
      const covered = { left: src.x + left, top: src.y + top, right: src.x + right, bottom: src.y + bottom };
      blendSurface(cut, src, mask, opacity, mode, options, covered);
      expect(cut.data, `seed ${seed} ${mode}`).toEqual(whole.data);
      // The loop too (blendIf takes the blend out of the kernel; a range letting everything through).
      const loopWhole = { ...canvas, data: canvas.data.slice() };
      const loopCut = { ...canvas, data: canvas.data.slice() };
      const pass = { ...options, blendIf: [{ source: [0, 0, 255, 255], dest: [0, 0, 255, 255] }] };
      blendSurface(loopWhole, src, mask, opacity, mode, pass);
      blendSurface(loopCut, src, mask, opacity, mode, pass, covered);
      expect(loopCut.data, `seed ${seed} ${mode} (loop)`).toEqual(loopWhole.data);
    }
  });
});
