// A gradient's ramp (4,096 samples) is asked for by every tile of every request under a gradient
// overlay, glow or stroke; speed-wide (issue 25 §3) keeps it per gradient object
// (/tmp/team/tasks13/speed-wide-gradient.patch). Whatever is kept, a ramp must be the one its
// gradient and options give: the same samples as a fresh copy of the gradient asked once, for each
// set of options asked of the same object in any order.
import { describe, expect, it } from 'vitest';
import { gradientRamp, type Gradient } from '../../../src/engine/composite/gradient';

const stops = (smoothness: number): Gradient => ({
  type: 'solid',
  smoothness,
  colorStops: [
    { color: { r: 255, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
    { color: { r: 0, g: 128, b: 255 }, location: 0.35 * (smoothness || 1), midpoint: 0.3 },
    { color: { r: 250, g: 250, b: 10 }, location: 0.7 * (smoothness || 1), midpoint: 0.8 },
    { color: { r: 0, g: 0, b: 0 }, location: 1 * (smoothness || 1), midpoint: 0.5 },
  ],
  opacityStops: [
    { opacity: 1, location: 0, midpoint: 0.5 },
    { opacity: 0.2, location: 0.5 * (smoothness || 1), midpoint: 0.6 },
    { opacity: 0.9, location: 1 * (smoothness || 1), midpoint: 0.5 },
  ],
} as unknown as Gradient);

const GRADIENTS: Gradient[] = [
  stops(0),
  stops(1),
  stops(0.5),
  { type: 'noise', roughness: 0.7, randomSeed: 42, colorModel: 'rgb', min: [0, 0, 0, 0], max: [1, 1, 1, 1] } as Gradient,
];
const OPTIONS = [{}, { reverse: true }, { steps: 256 }, { method: 'linear' }, { method: 'perceptual', reverse: true }, { locationScale: 1 }, {}];

describe('gradientRamp', () => {
  it('gives each gradient and options the samples a fresh copy gives, asked in any order', () => {
    for (const g of GRADIENTS) {
      for (const order of [OPTIONS, [...OPTIONS].reverse()]) {
        const same = structuredClone(g);
        for (const options of order) {
          const got = gradientRamp(same, options);
          const fresh = gradientRamp(structuredClone(g), options);
          expect(got?.steps).toBe(fresh?.steps);
          expect(got && Array.from(got.rgba)).toEqual(fresh && Array.from(fresh.rgba));
        }
      }
    }
  });

  it('a gradient without stops has none, asked again', () => {
    const empty = { type: 'solid', colorStops: [] } as Gradient;
    expect(gradientRamp(empty)).toBeNull();
    expect(gradientRamp(empty)).toBeNull();
  });
});
