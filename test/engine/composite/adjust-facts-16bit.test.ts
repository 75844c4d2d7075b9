import { describe, expect, it } from 'vitest';
import { againstMergedImage } from './kit';

/**
 * Posterize and Threshold in 16-bit documents (make-u.mjs): the merged images are psd-tools'
 * 16-bit formulas, which it holds to Photoshop's renders of posterize_16bits_* and
 * threshold_16bits_*. The compiled form is 8-bit, so pixels whose 16-bit value lies within the
 * 8-bit rounding of a step stay ambiguous (these ramps are made of them); the figures are what
 * the 8-bit values allow (a simulation of the rule on them gives the same to the hundredth).
 */
const measure = async (name: string) => (await againstMergedImage(name)).psnr;

describe('Posterize and Threshold in 16-bit documents', () => {
  it('threshold steps at the 16-bit edge (9.93 dB with the 8-bit rule)', async () => {
    expect(await measure('made-u-threshold16.psd')).toBeGreaterThanOrEqual(15.1);
  });

  it('posterize bins the 16-bit values (33.17 dB with the 8-bit bins)', async () => {
    expect(await measure('made-u-posterize16.psd')).toBeGreaterThanOrEqual(39.7);
  });
});
