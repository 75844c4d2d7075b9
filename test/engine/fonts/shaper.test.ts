import { describe, expect, it } from 'vitest';
import { harfbuzzVersion, shapedMetrics, shapeRun, shapeText } from '../../../src/engine/fonts/shaper';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { bundledFont } from './helpers';
import fixtures from './fixtures/hb-shape.json';

/**
 * Issue 21 §3 proof: our glyph ids, clusters, advances and offsets equal Debian's hb-shape
 * (HarfBuzz 6.0.0) on the bundled fonts, per script, and mixed texts split into the bidi and
 * font-fallback runs listed in the fixture (made by scripts/fonts/hb-shape-fixtures.mjs).
 */
describe('shaper', () => {
  const fonts = new Map<string, Uint8Array>();
  const font = async (file: string) => {
    if (!fonts.has(file)) fonts.set(file, await bundledFont(file));
    return fonts.get(file)!;
  };

  it('runs a HarfBuzz of its own (the version docs/fonts.md names)', () => {
    expect(harfbuzzVersion()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  for (const c of fixtures.cases) {
    it(`shapes ${c.name} as hb-shape does`, async () => {
      const files = await Promise.all(c.fonts.map(font));
      const runs = shapeText(files, c.text);
      expect(runs.map((r) => ({ text: c.text.slice(r.start, r.end), font: c.fonts[r.font], direction: r.rtl ? 'rtl' : 'ltr' }))).toEqual(
        c.runs.map((r) => ({ text: r.text, font: r.font, direction: r.direction })),
      );
      runs.forEach((run, i) => {
        // Clusters of the fixture count from the run's start.
        expect(run.glyphs.map((g) => ({ ...g, cluster: g.cluster - run.start }))).toEqual(c.runs[i].glyphs);
      });
      // One run shaped alone is the same as within the text.
      for (const r of c.runs) expect(shapeRun(await font(r.font), r.text, r.direction as 'ltr' | 'rtl')).toEqual(r.glyphs);
    });
  }

  it('measures shaped text: kerning narrows "AVA", Arabic joins, fallbacks measure their runs', async () => {
    const sans = await font('LiberationSans-Regular.ttf');
    const arabic = await font('NotoSansArabic-Regular.ttf');
    const m = shapedMetrics(sans, [arabic]);
    const unshaped = (t: string) => [...t].reduce((w, ch) => w + m.advance(ch.codePointAt(0)!), 0);
    expect(m.textAdvance!('AVA')).toBeLessThan(unshaped('AVA'));
    expect(m.textAdvance!('Ali')).toBeCloseTo(unshaped('Ali'), 6);
    const name = 'علي 2024 Ali';
    const fixture = fixtures.cases.find((c) => c.text === name)!;
    const expected = fixture.runs.reduce((w, r) => w + r.glyphs.reduce((s, g) => s + g.xAdvance, 0) / fontMetrics(r.font === 'NotoSansArabic-Regular.ttf' ? arabic : sans).unitsPerEm, 0);
    expect(m.textAdvance!(name)).toBeCloseTo(expected, 9);
    expect(m.textAdvance!('')).toBe(0);
  });

  it('keeps one measuring object per font and fallback list, so widths measured once serve later texts (issue 25 §3)', async () => {
    const sans = await font('LiberationSans-Regular.ttf');
    const arabic = await font('NotoSansArabic-Regular.ttf');
    const dejavu = await font('DejaVuSans.ttf');
    const m = shapedMetrics(sans, [arabic]);
    expect(shapedMetrics(sans, [arabic])).toBe(m);
    expect(shapedMetrics(sans, [dejavu])).not.toBe(m);
    expect(shapedMetrics(sans)).not.toBe(m);
    expect(shapedMetrics(sans, [])).toBe(shapedMetrics(sans));
    // The kept widths are the ones a fresh shaping gives.
    for (const text of ['Hello', 'AVA Tokyo', 'علي 2024 Ali', 'Hello']) {
      expect(m.textAdvance!(text)).toBe(shapeText([sans, arabic], text).reduce((w, r) => w + r.glyphs.reduce((s, g) => s + g.xAdvance, 0) / r.unitsPerEm, 0));
    }
  });

  it('keeps marks with their base, pairs of surrogates together, and measures emoji in the font that has them', async () => {
    const sans = await font('LiberationSans-Regular.ttf');
    const arabic = await font('NotoSansArabic-Regular.ttf');
    const dejavu = await font('DejaVuSans.ttf');
    // U+064E (fatha) follows its letter into the Arabic font although Liberation Sans lacks both.
    const runs = shapeText([sans, arabic], 'Ali بَ');
    expect(runs.map((r) => [r.font, r.start, r.end, r.rtl])).toEqual([[0, 0, 4, false], [1, 4, 6, true]]);
    // A supplementary character (two UTF-16 units) is one glyph, not .notdef; DejaVu Sans has the
    // whole text, so it draws all of it (resvg's rule), and Liberation Sans none.
    const emoji = shapeText([sans, dejavu], 'Hi 😀');
    expect(emoji.map((r) => [r.font, r.start, r.end])).toEqual([[1, 0, 5]]);
    expect(emoji[0].glyphs).toHaveLength(4);
    expect(emoji[0].glyphs[3]).toMatchObject({ cluster: 3 });
    expect(emoji[0].glyphs[3].gid).not.toBe(0);
    // No font has it: the first font's .notdef.
    expect(shapeText([sans], '🦄')[0].glyphs.map((g) => g.gid)).toEqual([0]);
  });

  it('shapes alike after HarfBuzz fonts were evicted (many copies of a 3.6 MB font)', async () => {
    const cjk = await font('NotoSansCJKsc-Regular.ttf');
    const expected = shapeRun(cjk, '山田太郎', 'ltr');
    for (let i = 0; i < 10; i++) expect(shapeRun(cjk.slice(), '山田太郎', 'ltr')).toEqual(expected);
    expect(shapeRun(cjk, '山田太郎', 'ltr')).toEqual(expected);
  });
});
