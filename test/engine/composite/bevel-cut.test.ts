import { describe, expect, it } from 'vitest';
import { bevelLight, type BevelOptions } from '../../../src/engine/composite/bevel';
import { seeded } from '../../../src/engine/composite/gradient';
import { Scratch } from '../../../src/engine/composite/morphology';

/**
 * A large bevel tile lit over the tile alone, its height blurred over the alpha (bevelLight's
 * `to`; issue 25 §1: one array of the tile's arrays' size, not three), gives the maps of the
 * whole arrays over the tile, every float: every style and technique, contours, gloss, soften,
 * both directions, tiles touching the arrays' edges.
 */
function alphaField(rnd: () => number, w: number, h: number): Float32Array {
  const a = new Float32Array(w * h);
  const cx = w * (0.3 + rnd() * 0.4);
  const cy = h * (0.3 + rnd() * 0.4);
  const r = Math.min(w, h) * (0.15 + rnd() * 0.2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const d = Math.hypot(x - cx, y - cy) - r;
      // A soft disc with a ragged edge and a hole.
      let v = Math.max(0, Math.min(1, 0.5 - d / 2 + 0.3 * Math.sin(x / 5) * Math.cos(y / 7)));
      if (Math.hypot(x - cx - r / 3, y - cy) < r / 4) v *= 0.3;
      a[y * w + x] = v;
    }
  }
  return a;
}

const curve = (rnd: () => number) => {
  const lut = new Float32Array(256);
  const bend = 0.5 + rnd() * 2;
  for (let i = 0; i < 256; i++) lut[i] = 255 * Math.pow(i / 255, bend) * (0.8 + 0.2 * Math.sin(i / 20));
  return lut as unknown as BevelOptions['gloss'];
};

describe('bevelLight over a tile alone (issue 25 §1)', () => {
  it('gives the whole arrays’ maps over the tile, every float', () => {
    const styles = ['inner bevel', 'outer bevel', 'emboss', 'pillow emboss', 'stroke emboss'];
    const techniques = ['smooth', 'chisel hard', 'chisel soft'];
    let cases = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const rnd = seeded(seed);
      const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
      // Past BOTH_PIXELS, where drawBevel cuts (bevelCut): the whole arrays' maps are lit one by one
      // there, as the cut ones are (below it both are lit in one pass, in the kernels where they are).
      const [w, h] = [int(560, 700), int(480, 560)];
      const o: BevelOptions = {
        style: styles[seed % styles.length],
        technique: techniques[int(0, 2)],
        size: int(1, 40) + rnd(),
        depth: 0.3 + rnd() * 2,
        up: rnd() < 0.5,
        soften: rnd() < 0.5 ? 0 : int(1, 12),
        angle: int(-180, 180),
        altitude: int(0, 90),
        gloss: rnd() < 0.3 ? curve(rnd) : null,
        contour: rnd() < 0.3 ? curve(rnd) : null,
      };
      const alpha = alphaField(rnd, w, h);
      const whole = bevelLight(alpha.slice(), w, h, o, new Scratch());
      const hi = whole('highlight', new Float32Array(w * h)).slice();
      const lo = whole('shadow', new Float32Array(w * h)).slice();
      const left = int(0, w - 20);
      const top = int(0, h - 20);
      const to = { left, top, right: rnd() < 0.3 ? w : int(left + 10, w), bottom: rnd() < 0.3 ? h : int(top + 10, h) };
      const tw = to.right - to.left;
      const th = to.bottom - to.top;
      const cut = bevelLight(alpha.slice(), w, h, o, new Scratch(), to);
      const map = new Float32Array(tw * th);
      for (const [which, want] of [['highlight', hi], ['shadow', lo]] as const) {
        const got = cut(which, map);
        let differ = 0;
        for (let y = 0; y < th; y++) for (let x = 0; x < tw; x++) if (!Object.is(got[y * tw + x], want[(y + to.top) * w + x + to.left])) differ++;
        expect(differ, `seed ${seed} ${o.style} ${o.technique} ${which}`).toBe(0);
      }
      cases++;
    }
    expect(cases).toBe(30);
  });
});
