import { describe, expect, it } from 'vitest';
import { fallbackFontNames } from '../../../src/engine/fonts/fallback';
import { writePdf, type PdfPage } from '../../../src/engine/pdf/document';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { shapedPath } from '../../../src/engine/fonts/outlines';
import { shapeRun } from '../../../src/engine/fonts/shaper';
import { invisibleText } from '../../../src/engine/pdf/text';
import { svgOutlines } from '../../../src/engine/pdf/vector';
import { renderText } from '../../../src/engine/personalise/text';
import { srgbProfile } from '../../../src/engine/raster/icc';
import type { TextInfo } from '../../../src/engine/types';
import { runTool } from '../../helpers/fixtures';
import { bundledFontStore } from '../fonts/helpers';

/**
 * Issue 21 §3: names in every script, drawn as a template's text layer is (renderText with the
 * template's font and the fallbacks fallbackFontNames gives), written in Text mode, come back
 * from poppler's pdftotext as they were typed.
 */
const NAMES = [
  'Jonathan Livingstone-Smith',
  'AVATAR Wave',
  'محمد عبد الله',
  'شارع 2024',
  'Ali علي',
  'שָׁלוֹם כהן',
  'प्रियंका शर्मा',
  'क्षत्रिय अर्जुन',
  'สมชาย ใจดี',
  '王小明',
  '山田太郎 やまだ',
  '김민준',
  // DejaVu Sans has a few emoji in black and white; no bundled font has the unicorn: drawn as
  // .notdef (preflight reports it), still extractable (/ActualText).
  'Anna 😀',
  'Tom 🦄',
];

/**
 * A right-to-left line with a left-to-right part: pdftotext orders the parts as they stand on the
 * page, left to right (the visual order is all a PDF keeps; docs/fonts.md).
 */
const EXTRACTED: Record<string, string> = { 'شارع 2024': '2024 شارع' };

async function textModePdf(lines: string[]): Promise<Uint8Array> {
  const font = (await bundledFontStore('LiberationSans'))!;
  const vectors = [];
  for (const [i, text] of lines.entries()) {
    const fallbacks = await Promise.all(fallbackFontNames(text).map(async (n) => (await bundledFontStore(n))!));
    const info: TextInfo = { text, font: 'LiberationSans', size: 24, color: '#000000', transform: [1, 0, 0, 1, 20, 40 + i * 40] };
    const drawn = (await renderText({ info, text, font, fallbackFonts: fallbacks, scale: 1 }))!;
    // The text layer over the outlines, as svgOutlines(…, 'text') makes it, with every font drawn.
    const outlines = svgOutlines(drawn.vector, drawn.bounds, 'outlines')!;
    const invisible = invisibleText(drawn.vector.svg, drawn.vector.fonts);
    expect(invisible, text).not.toBeNull();
    vectors.push({ ops: `${outlines.ops}\n${invisible!.ops}`, fonts: invisible!.fonts });
  }
  const page: PdfPage = {
    width: 600,
    height: 40 + lines.length * 40,
    resolution: 72,
    icc: srgbProfile(),
    renderRows: async (top, bottom) => ({ width: 600, height: bottom - top, data: new Uint8ClampedArray(600 * (bottom - top) * 4) }),
    vectors,
  };
  const sink = new MemorySink();
  await writePdf(sink, [async () => page], {});
  return sink.bytes();
}

describe('Text-mode PDFs of names in every script', () => {
  it('pdftotext gives every name back, in logical order, from shaped glyphs in embedded subsets', async () => {
    const pdf = await textModePdf(NAMES);
    expect((await runTool('qpdf-check', pdf)).code).toBe(0);
    const text = await runTool('pdftotext', pdf);
    expect(text.code, text.stderr).toBe(0);
    // pdftotext wraps right-to-left words in embedding marks (U+202B … U+202C): formatting, not text.
    const got = text.stdout.split('\n').map((l) => l.replace(/[\u202a-\u202e\u2066-\u2069]/g, '').trim()).filter(Boolean);
    expect(got).toEqual(NAMES.map((n) => EXTRACTED[n] ?? n));
    const fonts = (await runTool('pdffonts', pdf)).stdout.trim().split('\n').slice(2);
    // One subset per layer and font; Liberation Sans has Hebrew itself.
    expect([...new Set(fonts.map((l) => l.split(/\s+/)[0].replace(/^[A-Z]{6}\+/, '')))].sort()).toEqual([
      'DejaVuSans',
      'LiberationSans',
      'NotoSansArabic-Regular',
      'NotoSansCJKsc-Regular',
      'NotoSansDevanagari-Regular',
      'NotoSansThai-Regular',
    ]);
  });
});

describe('invisibleText', () => {
  it('shows the shaped glyph ids, each run in its font, and moves by HarfBuzz advances (kerning included)', async () => {
    const sans = (await bundledFontStore('LiberationSans'))!;
    const arabic = (await bundledFontStore('NotoSansArabic-Regular'))!;
    const svg = (text: string) =>
      `<svg><g transform="matrix(1 0 0 1 0 0)" font-family="'Liberation Sans'" font-size="50"><text x="10" y="60" text-anchor="start">${text}</text></g></svg>`;
    const made = invisibleText(svg('AV عبد'), [sans, arabic])!;
    const shows = [...made.ops.matchAll(/\/(\w+) 50 Tf \[([^\]]*)\] TJ/g)].map((m) => ({ font: m[1], glyphs: m[2] }));
    expect(shows).toHaveLength(2);
    const gids = (tj: string) => [...tj.matchAll(/<([0-9a-f]{4})>/g)].map((m) => parseInt(m[1], 16));
    // Latin run: 'A', 'V', ' ' with the A–V kerning as a TJ adjustment after 'A'.
    const latin = shapeRun(sans, 'AV ', 'ltr');
    expect(gids(shows[0].glyphs)).toEqual(latin.map((g) => g.gid));
    const kern = Number(/^<[0-9a-f]{4}>(-?[\d.]+)/.exec(shows[0].glyphs)![1]);
    expect(kern).toBeCloseTo(((1366 - latin[0].xAdvance) * 1000) / 2048, 1);
    // Arabic run: the joined forms HarfBuzz chose, right to left.
    expect(gids(shows[1].glyphs)).toEqual(shapeRun(arabic, 'عبد', 'rtl').map((g) => g.gid));
    expect(shows[0].font).not.toBe(shows[1].font);
    expect(Object.keys(made.fonts).sort()).toEqual([shows[0].font, shows[1].font].sort());
  });
});

describe('text drawn as shaped paths (fonts/outlines.ts) keeps its invisible text', () => {
  it('a hidden <text> beside the path: resvg leaves it out of the outlines, invisibleText still reads it', async () => {
    const devanagari = (await bundledFontStore('NotoSansDevanagari-Regular'))!;
    const sans = (await bundledFontStore('LiberationSans'))!;
    const fonts = [sans, devanagari];
    const text = 'प्रिया';
    const path = shapedPath(fonts, text, { size: 40 })!;
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="80"><g transform="matrix(1 0 0 1 0 0)" font-family="'Liberation Sans'" font-size="40" fill="rgb(0,0,0)">` +
      `<path transform="translate(10 50)" d="${path.d}"/><text x="10" y="50" text-anchor="start" visibility="hidden">${text}</text></g></svg>`;
    const outlines = svgOutlines({ svg, fonts }, { left: 0, top: 0 }, 'outlines');
    expect(outlines).not.toBeNull();
    const invisible = invisibleText(svg, fonts)!;
    const page: PdfPage = {
      width: 300,
      height: 80,
      resolution: 72,
      icc: srgbProfile(),
      renderRows: async (top, bottom) => ({ width: 300, height: bottom - top, data: new Uint8ClampedArray(300 * (bottom - top) * 4) }),
      vectors: [{ ops: `${outlines!.ops}\n${invisible.ops}`, fonts: invisible.fonts }],
    };
    const sink = new MemorySink();
    await writePdf(sink, [async () => page], {});
    expect((await runTool('pdftotext', sink.bytes())).stdout.trim()).toBe(text);
  });
});
