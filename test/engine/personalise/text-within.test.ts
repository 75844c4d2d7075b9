import { describe, expect, it } from 'vitest';
import { MAX_TEXT_PIXELS, renderText, TextTooLargeError } from '../../../src/engine/personalise/text';
import type { TextInfo } from '../../../src/engine/types';
import { bundledFont } from '../fonts/helpers';

/** Point text at 600 px, left-aligned near a 2,000 × 1,000 canvas's left edge. */
const info: TextInfo = {
  text: '',
  font: 'ArialMT',
  size: 600,
  color: '#000000',
  tracking: 0,
  leading: 720,
  alignment: 'left',
  transform: [1, 0, 0, 1, 50, 700],
};
const canvas = { left: 0, top: 0, right: 2000, bottom: 1000 };
const long = 'A headline far longer than its page';

/**
 * A text too large to draw whole (a long line running past a print page: a 62-character title on
 * an 8,000² template covered 9,767 × 576 px) is drawn where it can show, the canvas at this scale,
 * instead of being refused; a text that fits is drawn whole, as before.
 */
describe('a text too large to draw whole', () => {
  it('is drawn within the canvas when that part fits', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    await expect(renderText({ info, text: long, font, scale: 1 })).rejects.toBeInstanceOf(TextTooLargeError);
    const drawn = (await renderText({ info, text: long, font, scale: 1, within: () => canvas }))!;
    expect(drawn.bounds.left).toBeGreaterThanOrEqual(0);
    expect(drawn.bounds.right).toBe(2000);
    expect(drawn.bounds.bottom).toBeLessThanOrEqual(1000);
    expect(drawn.pixels.width).toBe(drawn.bounds.right - drawn.bounds.left);
    expect(drawn.pixels.width * drawn.pixels.height).toBeLessThanOrEqual(MAX_TEXT_PIXELS);
    // It has ink, and the SVG (the PDF's vector text too) is placed by the same bounds.
    let ink = 0;
    for (let i = 3; i < drawn.pixels.data.length; i += 4) ink += drawn.pixels.data[i]!;
    expect(ink).toBeGreaterThan(0);
    expect(drawn.vector.svg).toContain(`width="${drawn.pixels.width}" height="${drawn.pixels.height}"`);
  });

  it('draws the same pixels on the canvas as the whole text would, but for anti-aliasing', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const text = 'Wide words';
    const whole = (await renderText({ info: { ...info, size: 200, leading: 240 }, text, font, scale: 1 }))!;
    // Not too large: `within` changes nothing, to the byte.
    const same = (await renderText({ info: { ...info, size: 200, leading: 240 }, text, font, scale: 1, within: () => ({ left: 0, top: 0, right: 300, bottom: 300 }) }))!;
    expect(same.bounds).toEqual(whole.bounds);
    expect(Buffer.from(same.pixels.data).equals(Buffer.from(whole.pixels.data))).toBe(true);
  });

  it('draws nothing when none of it can show, and is refused when what shows is still too large', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    expect(await renderText({ info, text: long, font, scale: 1, within: () => ({ left: 0, top: 5000, right: 2000, bottom: 6000 }) })).toBeNull();
    await expect(renderText({ info, text: long, font, scale: 1, within: () => ({ left: -50_000, top: -50_000, right: 50_000, bottom: 50_000 }) })).rejects.toBeInstanceOf(TextTooLargeError);
  });
});
