import { describe, expect, it } from 'vitest';
import { shapedPath, withShapedPaths } from '../../../src/engine/fonts/outlines';
import { renderSvg } from '../../../src/engine/personalise/resvg';
import type { RGBAImage } from '../../../src/engine/types';
import { bundledFontStore } from './helpers';

const SIZE = 100;

function ink(img: RGBAImage): { left: number; right: number; top: number; bottom: number; mass: number } {
  let [left, right, top, bottom, mass] = [Infinity, -Infinity, Infinity, -Infinity, 0];
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const a = img.data[(y * img.width + x) * 4 + 3];
      if (!a) continue;
      mass += a / 255;
      left = Math.min(left, x);
      right = Math.max(right, x + 1);
      top = Math.min(top, y);
      bottom = Math.max(bottom, y + 1);
    }
  }
  return { left, right, top, bottom, mass };
}

const svgOf = (body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="200">${body}</svg>`;

describe('shapedPath', () => {
  it('draws what resvg draws where resvg shapes right (Latin with kerning, Arabic, Thai, CJK)', async () => {
    const sans = (await bundledFontStore('LiberationSans'))!;
    for (const [text, fallback] of [
      ['AVATAR Wave', 'DejaVuSans'],
      ['محمد عبد الله', 'NotoSansArabic-Regular'],
      ['สมชาย ใจดี', 'NotoSansThai-Regular'],
      ['山田太郎 やまだ', 'NotoSansCJKsc-Regular'],
    ]) {
      const fonts = [sans, (await bundledFontStore(fallback))!];
      const path = shapedPath(fonts, text, { size: SIZE })!;
      const ours = ink(await renderSvg(svgOf(`<path transform="translate(50 130)" d="${path.d}"/>`), fonts));
      const resvg = ink(
        await renderSvg(svgOf(`<text x="50" y="130" font-family="'Liberation Sans'" font-size="${SIZE}" font-kerning="normal" xml:space="preserve">${text}</text>`), fonts),
      );
      for (const edge of ['left', 'right', 'top', 'bottom'] as const) expect(Math.abs(ours[edge] - resvg[edge]), `${text} ${edge} ${JSON.stringify([ours, resvg])}`).toBeLessThanOrEqual(1);
      expect(Math.abs(ours.mass - resvg.mass) / resvg.mass, text).toBeLessThan(0.01);
    }
  });

  it('draws Devanagari as HarfBuzz shapes it, where resvg drops a consonant', async () => {
    const devanagari = (await bundledFontStore('NotoSansDevanagari-Regular'))!;
    // Ink widths of `hb-view --font-size=100 --margin=0 --unicodes=… NotoSansDevanagari-Regular.ttf`
    // (HarfBuzz 6.0.0 with cairo): 'क्षत्रिय' 207 px, 'प्रियंका शर्मा' 423 px.
    for (const [text, width] of [['क्षत्रिय', 207], ['प्रियंका शर्मा', 423]] as const) {
      const path = shapedPath([devanagari], text, { size: SIZE })!;
      const ours = ink(await renderSvg(svgOf(`<path transform="translate(50 130)" d="${path.d}"/>`), [devanagari]));
      expect(Math.abs(ours.right - ours.left - width), text).toBeLessThanOrEqual(2);
      const resvg = ink(await renderSvg(svgOf(`<text x="50" y="130" font-family="'Noto Sans Devanagari'" font-size="${SIZE}">${text}</text>`), [devanagari]));
      // resvg 2.6.2 loses 'य' after the syllable with the pre-base matra: narrower by about its width.
      expect(width - (resvg.right - resvg.left), text).toBeGreaterThan(20);
    }
  });

  it('is null for a font without TrueType outlines', async () => {
    // Liberation Sans with its glyf table renamed, as a CFF font has none.
    const sans = (await bundledFontStore('LiberationSans'))!.slice();
    const view = new DataView(sans.buffer);
    for (let i = 0; i < view.getUint16(4); i++) {
      const rec = 12 + i * 16;
      if (String.fromCharCode(...sans.subarray(rec, rec + 4)) === 'glyf') sans.set([0x78, 0x78, 0x78, 0x78], rec);
    }
    expect(shapedPath([sans], 'A', { size: 10 })).toBeNull();
  });
});

describe('withShapedPaths', () => {
  it("redraws a text layer's non-Latin lines as shaped paths and leaves Latin lines alone", async () => {
    const sans = (await bundledFontStore('LiberationSans'))!;
    const devanagari = (await bundledFontStore('NotoSansDevanagari-Regular'))!;
    const arabic = (await bundledFontStore('NotoSansArabic-Regular'))!;
    const fonts = [sans, devanagari, arabic];
    const layer = (lines: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="400"><g transform="matrix(1 0 0 1 0 0)" font-family="'Liberation Sans'" font-size="${SIZE}" fill="rgb(0,0,0)" xml:space="preserve" font-kerning="normal">${lines}</g></svg>`;
    const latin = '<text x="50" y="130" text-anchor="start">AVATAR</text>';
    expect(withShapedPaths(layer(latin), fonts)).toBe(layer(latin));
    const svg = withShapedPaths(layer('<text x="450" y="130" text-anchor="middle">प्रियंका शर्मा</text><text x="50" y="300" text-anchor="start">Ali لا الله</text>'), fonts);
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg.match(/visibility="hidden"/g)).toHaveLength(2);
    // The Devanagari line as HarfBuzz draws it (hb-view: 423 px), centred on x = 450.
    const top = ink(await renderSvg(svg.replace(/<path transform="translate\([\d.]+ 300\)"[^>]*>/, ''), fonts));
    // ±3: at a fractional position the edge pixels are partly covered.
    expect(Math.abs(top.right - top.left - 423), JSON.stringify(top)).toBeLessThanOrEqual(3);
    expect(Math.abs((top.left + top.right) / 2 - 450), JSON.stringify(top)).toBeLessThanOrEqual(2);
    // The mixed Latin and Arabic line: resvg alone draws .notdef boxes for the Arabic (its
    // fallback needs as many glyphs as the template's font gave); ours as shaped: narrower.
    const boxes = ink(await renderSvg(layer('<text x="50" y="300" text-anchor="start">Ali لا الله</text>'), fonts));
    const shaped = shapedPath(fonts, 'Ali لا الله', { size: SIZE })!;
    expect(boxes.right - boxes.left).toBeGreaterThan(shaped.width + 20);
  });

  it('anchors a tracked line as resvg anchors <text>: without the spacing after its last character', async () => {
    const sans = (await bundledFontStore('LiberationSans'))!;
    const devanagari = (await bundledFontStore('NotoSansDevanagari-Regular'))!;
    const fonts = [sans, devanagari];
    const tracked = (anchor: string, lines: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="200"><g transform="matrix(1 0 0 1 0 0)" font-family="'Liberation Sans'" font-size="${SIZE}" letter-spacing="20" fill="rgb(0,0,0)" xml:space="preserve" font-kerning="normal"><text x="800" y="130" text-anchor="${anchor}">${lines}</text></g></svg>`;
    // resvg's own: a right-aligned Latin line's ink ends where it would without letter spacing.
    const plain = ink(await renderSvg(tracked('end', 'HH').replace(' letter-spacing="20"', ''), fonts));
    const spaced = ink(await renderSvg(tracked('end', 'HH'), fonts));
    expect(spaced.right).toBe(plain.right);
    // A shaped line ends on its anchor the same way.
    const word = 'नमस्ते';
    const path = shapedPath(fonts, word, { size: SIZE, letterSpacing: 20 })!;
    const left = Number(/translate\(([\d.-]+) 130\)/.exec(withShapedPaths(tracked('end', word), fonts))![1]);
    expect(left).toBeCloseTo(800 - (path.width - 20), 1);
  });
});
