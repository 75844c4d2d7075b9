import { describe, expect, it } from 'vitest';
import { MAX_TEXT_PIXELS, renderText, TextTooLargeError } from '../../../src/engine/personalise/text';
import type { TextInfo } from '../../../src/engine/types';
import { bundledFont } from '../fonts/helpers';

const info: TextInfo = {
  text: '',
  font: 'ArialMT',
  size: 20,
  color: '#000000',
  tracking: 0,
  leading: 24,
  alignment: 'left',
  transform: [1, 0, 0, 1, 10, 30],
};

/**
 * Characters XML forbids (C0 controls, U+FFFE, U+FFFF) in a shopper's text made resvg refuse the
 * whole SVG: a 500 for the preview and the print PDF (fuzz2, session 20). They draw nothing.
 */
describe('text with characters no SVG may hold', () => {
  it.each([
    ['NUL between letters', 'a\u0000b'],
    ['controls and an escape sequence', '\u0001\u0007\b\u000b\f\u001b[31mab'],
    ['the noncharacters U+FFFE and U+FFFF', 'a\ufffeb\uffff'],
  ])('%s: drawn as the text without them', async (_, text) => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const drawn = (await renderText({ info, text, font, scale: 1 }))!;
    const plain = (await renderText({ info, text: text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, ''), font, scale: 1 }))!;
    expect(drawn.vector.svg).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/);
    expect(drawn.pixels.width * drawn.pixels.height).toBeGreaterThan(0);
    // Left-aligned point text starts at the same origin: the same ink where both drew.
    const ink = (p: { data: ArrayLike<number> }) => {
      let sum = 0;
      for (let i = 3; i < p.data.length; i += 4) sum += p.data[i]!;
      return sum;
    };
    expect(ink(drawn.pixels)).toBe(ink(plain.pixels));
  });
});

/**
 * A text raster costs ~12 bytes a pixel at its peak; one of 12 MP (Korean at 999 px in an 800 px
 * preview) grew the isolate by ~170 MB and a 128 MB runtime was killed (fuzz2, session 20).
 */
describe('text too large to draw', () => {
  it('is refused before drawing when its raster would pass MAX_TEXT_PIXELS', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    expect(MAX_TEXT_PIXELS).toBeLessThan(6_000_000);
    const huge = { ...info, size: 999, leading: 1200 };
    await expect(renderText({ info: huge, text: 'HELLO WORLD HELLO', font, scale: 1 })).rejects.toBeInstanceOf(TextTooLargeError);
    // The same text at 300 px (2.1 MP) is drawn.
    const drawn = await renderText({ info: { ...info, size: 300, leading: 360 }, text: 'HELLO WORLD HELLO', font, scale: 1 });
    expect(drawn!.pixels.width * drawn!.pixels.height).toBeLessThanOrEqual(MAX_TEXT_PIXELS);
  });
});
