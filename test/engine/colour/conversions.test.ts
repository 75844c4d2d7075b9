import { describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile, type PixelLayout } from '../../../src/engine/colour';
import reference from './transicc-reference.json';
import { deltaE2000, toLab } from './lab';

/**
 * Our conversions against LittleCMS's own transicc (values precomputed by
 * scripts/colour/transicc-reference.ts, the command in each case): within ΔE2000 ≤ 1 on a grid
 * of colours for every shipped profile, relative colorimetric with black-point compensation.
 */

const profiles = { srgb: defaultProfile('Rgb'), sgray: defaultProfile('Grayscale'), fogra39: defaultProfile('Cmyk') } as const;
const spaceOf = { RGB: 'Rgb', CMYK: 'Cmyk', GRAY: 'Grayscale' } as const;
const channelsOf = { RGB: 3, CMYK: 4, GRAY: 1 } as const;

describe('conversions match transicc (ΔE2000 ≤ 1)', () => {
  it.each(reference.cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const fromLayout = c.fromLayout as 'RGB' | 'CMYK' | 'GRAY';
    const toLayout = c.toLayout as 'RGB' | 'CMYK' | 'GRAY';
    const t = await colourTransform({ from: profiles[c.from as keyof typeof profiles], to: profiles[c.to as keyof typeof profiles], fromLayout: fromLayout as PixelLayout, toLayout: toLayout as PixelLayout });
    // 8-bit input: CMYK percentages become ink levels 0–255.
    const inScale = fromLayout === 'CMYK' ? 255 / 100 : 1;
    const src = new Uint8Array(c.input.flat().map((v) => Math.round(v * inScale)));
    const dst = new Uint8Array(c.input.length * channelsOf[toLayout]);
    t.apply(src, dst, c.input.length);
    const outScale = toLayout === 'CMYK' ? 100 / 255 : 1;
    const ours: number[][] = [];
    for (let i = 0; i < c.input.length; i++) ours.push(Array.from(dst.subarray(i * channelsOf[toLayout], (i + 1) * channelsOf[toLayout]), (v) => v * outScale));
    const to = profiles[c.to as keyof typeof profiles];
    const [labOurs, labRef] = await Promise.all([toLab(to, spaceOf[toLayout], ours), toLab(to, spaceOf[toLayout], c.output)]);
    const errors = labOurs.map((lab, i) => deltaE2000(lab, labRef[i]));
    const worst = Math.max(...errors);
    const at = errors.indexOf(worst);
    expect(worst, `worst at ${JSON.stringify(c.input[at])}: ours ${JSON.stringify(ours[at])}, transicc ${JSON.stringify(c.output[at])}`).toBeLessThanOrEqual(1);
  });
});
