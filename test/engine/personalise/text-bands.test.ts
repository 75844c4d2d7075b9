import { describe, expect, it } from 'vitest';
import { MAX_BANDED_TEXT_PIXELS, MAX_TEXT_PIXELS, renderText, TextTooLargeError, type TextRenderInput } from '../../../src/engine/personalise/text';
import { renderSvg, renderSvgInBands } from '../../../src/engine/personalise/resvg';
import { knownInk } from '../../../src/engine/cache/ink';
import { unpremultiply } from '../../../src/engine/raster/pixels';
import type { RGBAImage, TextInfo } from '../../../src/engine/types';
import { bundledFont } from '../fonts/helpers';

const MB = 1024 * 1024;

/** Point text, left-aligned, its baseline one size down from the top. */
const at = (size: number, more: Partial<TextInfo> = {}): TextInfo => ({
  text: '',
  font: 'ArialMT',
  size,
  color: '#203040',
  tracking: 0,
  leading: size * 1.2,
  alignment: 'left',
  transform: [1, 0, 0, 1, 10, size],
  ...more,
});

/** The text drawn as one resvg render of its own SVG, made straight: what drawText did for every text before bands. */
async function oneRender(drawn: { vector: { svg: string; fonts: Uint8Array[] } }): Promise<RGBAImage> {
  const whole = await renderSvg(drawn.vector.svg, drawn.vector.fonts);
  await unpremultiply(whole.data);
  return whole;
}

/** The largest difference of two rasters' alpha and how many pixels differ at all. */
function compare(a: RGBAImage, b: RGBAImage): { alpha: number; pixels: number } {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let alpha = 0;
  let pixels = 0;
  for (let i = 0; i < a.data.length; i += 4) {
    if (a.data[i] !== b.data[i] || a.data[i + 1] !== b.data[i + 1] || a.data[i + 2] !== b.data[i + 2] || a.data[i + 3] !== b.data[i + 3]) pixels++;
    alpha = Math.max(alpha, Math.abs(a.data[i + 3]! - b.data[i + 3]!));
  }
  return { alpha, pixels };
}

/**
 * A text raster larger than one resvg render may draw (~5.6 MP at ~12 bytes a pixel) is drawn in
 * bands of rows (resvg.ts renderSvgInBands): the raster and one band at a time, so a text that
 * shows on a large canvas draws where it was refused before, within the memory the request says
 * it leaves the text (`memory`; without it, refused as before). A band's pixels are not one render's:
 * tiny-skia clips every edge of a path that crosses the pixmap's edge, which moves the
 * anti-aliasing of its curves (by up to 95 of 255 in alpha, in ~0.1 % of the pixels of 510 random
 * texts, session 21), so texts up to 5.6 MP keep one render and its bytes.
 */
describe('a text raster drawn in bands', () => {
  it('draws a text over the one-render limit, within anti-aliasing of one render', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // 7,102 × 1,080 = 7.7 MP: a TextTooLargeError before bands, and still when the request's memory is not known.
    const input = { info: at(600), text: 'HELLO WORLD HELLO', font, scale: 1 };
    await expect(renderText(input)).rejects.toBeInstanceOf(TextTooLargeError);
    const drawn = (await renderText({ ...input, memory: 64 * MB }))!;
    const { width, height } = drawn.pixels;
    expect(width * height).toBeGreaterThan(MAX_TEXT_PIXELS);
    expect(width * height).toBeLessThanOrEqual(MAX_BANDED_TEXT_PIXELS);
    expect(drawn.vector.svg).toContain(`width="${width}" height="${height}"`);
    const { alpha, pixels } = compare(drawn.pixels, await oneRender(drawn));
    expect(alpha).toBeLessThanOrEqual(96);
    expect(pixels).toBeLessThan(width * height * 0.002);
    // Its ink is left to composite/dirty.ts's scan, as for every raster too large for the kernels' one visit.
    expect(knownInk(drawn.pixels.data, width, height)).toBeUndefined();
  });

  it('still refuses a text over the new limit', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // 11,826 × 1,799 = 21.3 MP, over MAX_BANDED_TEXT_PIXELS (15.2 MP) however much memory is left.
    await expect(renderText({ info: at(999), text: 'HELLO WORLD HELLO', font, scale: 1, memory: 96 * MB })).rejects.toBeInstanceOf(TextTooLargeError);
    // A side longer than tiny-skia anti-aliases, however few its pixels.
    await expect(renderText({ info: at(20), text: 'x'.repeat(4000), font, scale: 1, memory: 96 * MB })).rejects.toBeInstanceOf(TextTooLargeError);
  });

  it('gets what the request leaves it: a raster in bands is held until the frame is drawn', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // 20 MB beside a wide canvas's frame: room for 3.5 MP in bands, less than one render's 5.6 MP,
    // which is still drawn as before bands; the 7.7 MP text is refused.
    const memory = 20 * MB;
    await expect(renderText({ info: at(600), text: 'HELLO WORLD HELLO', font, scale: 1, memory })).rejects.toBeInstanceOf(TextTooLargeError);
    const drawn = (await renderText({ info: at(500), text: 'HELLO WORLD HELLO', font, scale: 1, memory }))!;
    expect(drawn.pixels.width * drawn.pixels.height).toBeGreaterThan(5_000_000);
    // Room for the 7.7 MP one: 40 MB.
    expect(await renderText({ info: at(600), text: 'HELLO WORLD HELLO', font, scale: 1, memory: 40 * MB })).not.toBeNull();
  });

  it('keeps one render, to the byte, for a text up to the old limit', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // 4,735 × 720 = 3.4 MP.
    const drawn = (await renderText({ info: at(400), text: 'HELLO WORLD HELLO', font, scale: 1 }))!;
    expect(compare(drawn.pixels, await oneRender(drawn))).toEqual({ alpha: 0, pixels: 0 });
    // And where the request leaves one render's ~12 bytes a pixel (41 MB).
    const roomy = (await renderText({ info: at(400), text: 'HELLO WORLD HELLO', font, scale: 1, memory: 42 * MB }))!;
    expect(compare(roomy.pixels, drawn.pixels)).toEqual({ alpha: 0, pixels: 0 });
  });

  it('draws a text under the old limit in bands where one render would pass what the request leaves it', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // 3.4 MP: one render's peak ~41 MB, more than 30 MB; bands' ~20 MB fit.
    const drawn = (await renderText({ info: at(400), text: 'HELLO WORLD HELLO', font, scale: 1, memory: 30 * MB }))!;
    const { width, height } = drawn.pixels;
    const { alpha, pixels } = compare(drawn.pixels, await oneRender(drawn));
    expect(pixels).toBeGreaterThan(0);
    expect(alpha).toBeLessThanOrEqual(96);
    expect(pixels).toBeLessThan(width * height * 0.002);
    // Where not even bands fit (10 MB: 1 MP), one render as before bands: the limit never falls below it.
    const tight = (await renderText({ info: at(400), text: 'HELLO WORLD HELLO', font, scale: 1, memory: 10 * MB }))!;
    expect(compare(tight.pixels, await oneRender(tight))).toEqual({ alpha: 0, pixels: 0 });
  });

  const texts: Array<[string, Partial<TextRenderInput> & { text: string; info: TextInfo }, string[]]> = [
    ['a rotated, skewed line at half opacity', { info: at(90, { transform: [0.8, 0.5, -0.2, 0.9, 60, 90] }), text: 'Quick brown fox', color: { r: 200, g: 30, b: 60, a: 0.5 } }, ['LiberationSerif-Regular.ttf']],
    ['a rotated box text (clipped by a clip path)', { info: at(40, { box: { left: 0, top: 0, right: 500, bottom: 130 }, transform: [0.94, 0.34, -0.34, 0.94, 40, 20] }), text: 'Jumpy gyjpq wave OQSCG '.repeat(6) }, ['LiberationSans-Bold.ttf']],
    ['CJK with tracking', { info: at(70, { tracking: 120 }), text: '東京タワー 背景 3月' }, ['NotoSansCJKsc-Regular.ttf']],
    ['Devanagari (HarfBuzz outlines) over two lines', { info: at(60), text: 'नमस्ते हिन्दी\nक्षत्रिय' }, ['NotoSansDevanagari-Regular.ttf']],
  ];

  it.each(texts)('renders %s in bands as one render would, but for anti-aliasing', async (_, input, files) => {
    const [font, ...fallbackFonts] = await Promise.all(files.map((f) => bundledFont(f)));
    const drawn = (await renderText({ font: font!, fallbackFonts, scale: 1, ...input }))!;
    const whole = await renderSvg(drawn.vector.svg, drawn.vector.fonts);
    const size = { width: whole.width, height: whole.height };
    for (const rows of [1, 7, 64]) {
      const landed: number[] = [];
      const banded = await renderSvgInBands(drawn.vector.svg, drawn.vector.fonts, size, rows, async (band) => void landed.push(band.length));
      // Every band is handed over once, whole rows at a time, no longer than asked.
      expect(landed.every((bytes) => bytes % (size.width * 4) === 0 && bytes <= rows * size.width * 4)).toBe(true);
      const { alpha, pixels } = compare(banded, whole);
      expect(alpha).toBeLessThanOrEqual(96);
      expect(pixels).toBeLessThan(size.width * size.height * 0.05);
    }
  });

  it('draws nothing outside the drawing, and a band wholly outside a clipped group does not break resvg', async () => {
    // A box text clipped to its rotated box in a raster far taller than its ink: resvg panicked
    // ("unreachable") rendering a clipped group wholly outside its pixmap.
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="147" height="60" viewBox="0 0 147 60"><defs><clipPath id="box"><rect x="0" y="0" width="259" height="118"/></clipPath></defs>' +
      '<g transform="matrix(0.5 0 0.1356 0.5 0.4168 0.6161)" clip-path="url(#box)" font-family="\'Liberation Sans\'" font-size="27.6" fill="rgb(183,72,11)"><text x="129.7" y="20" text-anchor="middle">Jumpy gyjpq</text></g></svg>';
    const fonts = [await bundledFont('LiberationSans-Regular.ttf')];
    const whole = await renderSvg(svg, fonts);
    const banded = await renderSvgInBands(svg, fonts, { width: 147, height: 60 }, 4, async () => {});
    expect(compare(banded, whole).alpha).toBeLessThanOrEqual(96);
    // And resvg still draws afterwards.
    expect((await renderSvg(svg, fonts)).data).toEqual(whole.data);
  });
});
