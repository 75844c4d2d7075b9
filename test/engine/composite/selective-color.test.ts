import { describe, expect, it } from 'vitest';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { rangeWeight } from '../../../src/engine/composite/selective-color';

/**
 * Photoshop's Selective Color as docs/fidelity.md derives it (after blog.pkh.me's observation of
 * Photoshop, FFmpeg's selectivecolor): a range acts by max − mid (reds, greens, blues), mid − min
 * (cyans, magentas, yellows), 2·min − 255 (whites), 255 − 2·max (blacks) or
 * 255 − (|2·max − 255| + |2·min − 255|)/2 (neutrals); a slider's change is −a − (1 + a)·k, times
 * the channel's own ink 1 − v in relative mode, clipped to [−v, 1 − v], times the weight.
 * The expected values below are worked by hand from that formula.
 */
type CMYK = { c: number; m: number; y: number; k: number };
const cmyk = (c = 0, m = 0, y = 0, k = 0): CMYK => ({ c, m, y, k });

function run(mode: 'relative' | 'absolute', ranges: Record<string, CMYK>, ...rgb: number[]): number[] {
  const d = new Uint8ClampedArray([...rgb, 255]);
  expect(applyAdjustment({ type: 'selective color', mode, ...ranges } as never, d)).toBe(true);
  return [...d.subarray(0, 4)];
}

describe('selective colour range weights', () => {
  it('weigh (200, 100, 50) as reds 100, yellows 50, neutrals 105 and nothing else', () => {
    const w = (kind: number) => rangeWeight(kind, 200, 100, 50, 200, 100, 50);
    expect([0, 1, 2, 3, 4, 5].map(w)).toEqual([100, 50, 0, 0, 0, 0]);
    expect(w(6)).toBeLessThan(0); // whites: the minimum is below middle grey
    expect(w(7)).toBe(105);
    expect(w(8)).toBeLessThan(0); // blacks: the maximum is above middle grey
  });

  it('whites and blacks grow toward white and black, neutrals vanish there', () => {
    expect(rangeWeight(6, 255, 255, 255, 255, 255, 255)).toBe(255);
    expect(rangeWeight(8, 0, 0, 0, 0, 0, 0)).toBe(255);
    expect(rangeWeight(7, 255, 255, 255, 255, 255, 255)).toBe(0);
    expect(rangeWeight(7, 0, 0, 0, 0, 0, 0)).toBe(0);
    expect(rangeWeight(7, 128, 128, 128, 128, 128, 128)).toBe(254);
  });
});

describe('selective colour', () => {
  it('reds +100 cyan: absolute takes the whole weight off red, relative scales it by red’s ink', () => {
    // absolute: −1 clipped to −200/255, times 100 → 200 − 78.4; relative: −1 · 55/255 · 100 = −21.6.
    expect(run('absolute', { reds: cmyk(100) }, 200, 100, 50)).toEqual([122, 100, 50, 255]);
    expect(run('relative', { reds: cmyk(100) }, 200, 100, 50)).toEqual([178, 100, 50, 255]);
  });

  it('−100 cyan adds red only up to white', () => {
    // +1 clipped to 1 − 200/255 = 55/255, times 100 → +21.6, in both modes.
    expect(run('absolute', { reds: cmyk(-100) }, 200, 100, 50)).toEqual([222, 100, 50, 255]);
    expect(run('relative', { reds: cmyk(-100) }, 200, 100, 50)).toEqual([222, 100, 50, 255]);
  });

  it('black moves all three channels', () => {
    // absolute −0.5 each, clipped to −v: 200 − 50, 100 − 39.2, 50 − 19.6.
    expect(run('absolute', { reds: cmyk(0, 0, 0, 50) }, 200, 100, 50)).toEqual([150, 61, 30, 255]);
    // relative −0.5·(1 − v): −10.8, −30.4, −0.402 clipped to −0.196 → −19.6.
    expect(run('relative', { reds: cmyk(0, 0, 0, 50) }, 200, 100, 50)).toEqual([189, 70, 30, 255]);
  });

  it('ranges add up, each from the original pixel', () => {
    // (40, 160, 220): blues weight 60, cyans 120, neutrals 75 (see make-l.mjs for the sums).
    const ranges = { blues: cmyk(50), cyans: cmyk(0, 0, 40), neutrals: cmyk(0, 0, 0, 20) };
    expect(run('absolute', ranges, 40, 160, 220)).toEqual([19, 145, 157, 255]);
    expect(run('relative', ranges, 40, 160, 220)).toEqual([19, 154, 211, 255]);
  });

  it('neutrals act on greys, whites on light colours, blacks on dark ones', () => {
    expect(run('absolute', { neutrals: cmyk(0, 20) }, 128, 128, 128)).toEqual([128, 77, 128, 255]);
    // whites weight 2·220 − 255 = 185; −30 yellow clipped to 1 − 240/255 → +10.9.
    expect(run('absolute', { whites: cmyk(0, 0, -30) }, 230, 220, 240)).toEqual([230, 220, 251, 255]);
    // blacks weight 255 − 120 = 135; cyan +40 relative = −0.369, clipped to −20/255 → −10.6.
    expect(run('relative', { blacks: cmyk(40) }, 20, 40, 60)).toEqual([9, 40, 60, 255]);
  });

  it('leaves ranges that do not reach a pixel alone, and alpha always', () => {
    expect(run('absolute', { greens: cmyk(100, 100, 100, 100), blacks: cmyk(100) }, 200, 100, 50)).toEqual([200, 100, 50, 255]);
    const d = new Uint8ClampedArray([200, 100, 50, 7]);
    applyAdjustment({ type: 'selective color', mode: 'absolute', reds: cmyk(100) } as never, d);
    expect(d[3]).toBe(7);
  });
});
