import { describe, expect, it } from 'vitest';
import { gradientRamp } from '../../../src/engine/composite/gradient';

/**
 * A noise gradient whose band is one value (min = max) is that colour everywhere: Photoshop 2026
 * renders psd-tools' noise-gradient-rgb.psd bands so (tests/psd_tools/composite/test_paint.py,
 * NOISE_EXACT, within a level): RGB 80/40/20 % → (204, 102, 51), HSB hue 30° (8.33 % of the
 * turn), saturation 60, brightness 80 → (204, 143, 82). ag-psd gives the bands as fractions (its
 * percentages / 100).
 */
const flat = (colorModel: string, v: number[]) => gradientRamp({ type: 'noise', colorModel, randomSeed: 1234567, roughness: 0.5, min: [...v, 1], max: [...v, 1] }, { steps: 16 })!;

describe('flat noise gradients (psd-tools test_paint.py, Photoshop 2026)', () => {
  const cases: [string, number[], number[]][] = [
    ['rgb', [0.8, 0.4, 0.2], [204, 102, 51]],
    ['hsb', [8.33 / 100, 0.6, 0.8], [204, 143, 82]],
  ];
  for (const [model, band, want] of cases) {
    it(`${model} ${band.join('/')} is ${want.join(', ')} at every step`, () => {
      const { rgba, steps } = flat(model, band);
      for (let i = 0; i < steps; i++) {
        for (let c = 0; c < 3; c++) expect(Math.abs(rgba[i * 4 + c] - want[c])).toBeLessThanOrEqual(1);
        expect(rgba[i * 4 + 3]).toBe(255);
      }
    });
  }
});
