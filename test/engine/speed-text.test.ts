import { describe, expect, it } from 'vitest';
import { shapedAdvance, shapeRun, shapeText } from '../../src/engine/fonts/shaper';
import { validateData } from '../../src/engine/personalise';
import { bundledFont } from './fonts/helpers';
import { layerNode as node } from './personalise/helpers';

/**
 * speed-text (issue 25 §3): what a personalised text request no longer does twice gives what it
 * gave: the data checked once per request, HarfBuzz's one buffer for the isolate, advances summed
 * without glyph objects.
 */
describe('validateData once per data object', () => {
  const tree = [node(2, 'Title', 'Text', { text: { text: 'Hello', font: 'ArialMT', size: 12, color: '#000000' } }), node(1, 'Badge', 'Shape')];

  it('gives the targets it gave for the same data and tree, and checks again for another tree', () => {
    const data = { Title: { type: 'text', text: 'Hi' }, Badge: { visible: false } };
    const first = validateData(tree, data);
    expect(validateData(tree, data)).toBe(first);
    expect(validateData(tree, { ...data })).toEqual(first);
    const other = [node(7, 'Title', 'Text', { text: { text: 'x', font: 'ArialMT', size: 12, color: '#000000' } })];
    expect(() => validateData(other, data)).toThrow(/does not fit/);
    expect(validateData(tree, data)).toEqual(first);
  });

  it('throws every time for data that does not fit', () => {
    const data = { Nope: { visible: true } };
    expect(() => validateData(tree, data)).toThrow(/does not fit/);
    expect(() => validateData(tree, data)).toThrow(/does not fit/);
  });
});

describe('shaping with the isolate’s one HarfBuzz buffer', () => {
  const texts = ['Hello World', 'AVAST Wally ffi fl', 'Ali علي 123 abc', 'שלום world', 'प्रियंका Priyanka', 'สวัสดี', '中文 test 3月', 'a\u0301b ﬁ', '', ' ', 'Mixed عربي עברית हिन्दी ไทย 中文 end', 'x'.repeat(200)];

  it('measures as the sum of shapeText’s advances, run by run, glyph by glyph (the same double)', async () => {
    const lists = [
      [await bundledFont('LiberationSans-Regular.ttf')],
      await Promise.all(['LiberationSans-Regular.ttf', 'NotoSansArabic-Regular.ttf', 'NotoSansHebrew-Regular.ttf', 'NotoSansDevanagari-Regular.ttf', 'NotoSansThai-Regular.ttf', 'DejaVuSans.ttf'].map(bundledFont)),
    ];
    for (const fonts of lists) {
      for (const text of texts) {
        let width = 0;
        for (const run of shapeText(fonts, text)) for (const g of run.glyphs) width += g.xAdvance / run.unitsPerEm;
        expect(shapedAdvance(fonts, text)).toBe(width);
      }
    }
  });

  it('shapes a run the same whatever was shaped before it (direction, script, length)', async () => {
    const sans = await bundledFont('LiberationSans-Regular.ttf');
    const arabic = await bundledFont('NotoSansArabic-Regular.ttf');
    const alone = [shapeRun(sans, 'AVA Wally'), shapeRun(arabic, 'علي', 'rtl'), shapeRun(sans, 'x'.repeat(300)), shapeRun(sans, 'AVA Wally', 'ltr')];
    // Reversed order, a long text first (the scratch area grows), an RTL run just before an LTR one.
    expect(shapeRun(sans, 'AVA Wally', 'ltr')).toEqual(alone[3]);
    expect(shapeRun(sans, 'x'.repeat(300))).toEqual(alone[2]);
    expect(shapeRun(arabic, 'علي', 'rtl')).toEqual(alone[1]);
    expect(shapeRun(sans, 'AVA Wally')).toEqual(alone[0]);
    expect(shapeRun(sans, '')).toEqual([]);
  });
});
