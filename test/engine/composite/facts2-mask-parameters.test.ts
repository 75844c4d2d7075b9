import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { MASKED_WIDTH, maskedRow } from '../psd/kit';

/**
 * psd-tools' mask-parameters-no-real-channel.psd (#693, PR #704): a layer with a pixel mask (-2
 * channel, no -3) and a vector mask, pixel feather 3, vector density 191, vector feather 6, whose
 * 36-byte mask block holds the parameters straight after the flags. ag-psd read them as a real
 * mask's rectangle and the file was refused (422, "mask rectangle is inverted"). Built here on
 * one row with feathers of 0 where a blur would blur the arithmetic: a red layer, its pixel mask
 * white, its vector mask the left half at density 191 (the right half shows at 1 − 191/255).
 */
const W = MASKED_WIDTH;

async function row(params: object): Promise<number[][]> {
  const bytes = maskedRow(params);
  const img = await renderTemplate(env.FILES, await compileTemplate(env.FILES, bytes), { scale: 1 });
  return Array.from({ length: W }, (_, x) => [...img.data.subarray(x * 4, x * 4 + 3)]);
}

describe('mask parameters with no real mask header, through compile and render (psd-tools #693)', () => {
  it('0b1110 (the fixture\'s pattern): renders, the vector density shows the right half at 64/255', async () => {
    const got = await row({ userMaskFeather: 0, vectorMaskDensity: 191 / 255, vectorMaskFeather: 0 });
    const outside = [255, 191, 191];
    expect(got).toEqual([[255, 0, 0], [255, 0, 0], outside, outside]);
  });

  it('0b1111: the pixel mask density applies (a white mask at 50 % still reveals all), the vector density too', async () => {
    const got = await row({ userMaskDensity: 128 / 255, userMaskFeather: 0, vectorMaskDensity: 191 / 255, vectorMaskFeather: 0 });
    expect(got).toEqual([[255, 0, 0], [255, 0, 0], [255, 191, 191], [255, 191, 191]]);
  });
});
