import { describe, expect, it } from 'vitest';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { lineSegments } from '../../../src/engine/personalise/line-break';
import { layoutText, measure } from '../../../src/engine/personalise/text-layout';
import { bundledFont } from '../fonts/helpers';

describe('line-break opportunities (UAX #14)', () => {
  it.each([
    ['Hello world', ['Hello ', 'world']],
    ['  two  spaces ', ['  two  ', 'spaces ']], // no line starts with spaces alone
    ['Livingstone-Smith', ['Livingstone-', 'Smith']],
    ['-5 and 1.5 or 1/2', ['-5 ', 'and ', '1.5 ', 'or ', '1/2']],
    ['(see: this!) "quoted"', ['(see: ', 'this!) ', '"quoted"']],
    ['$12.50 50% off', ['$12.50 ', '50% ', 'off']],
    ['end — start', ['end ', '— ', 'start']],
    ['non\u00a0breaking', ['non\u00a0breaking']],
    ['zero\u200bwidth', ['zero\u200b', 'width']],
  ])('%j', (text, segments) => {
    expect(lineSegments(text)).toEqual(segments);
    expect(lineSegments(text).join('')).toBe(text);
  });

  it('CJK breaks between ideographs, never before closing punctuation or small kana, never after opening brackets', () => {
    expect(lineSegments('東京都に住む。')).toEqual(['東', '京', '都', 'に', '住', 'む。']);
    expect(lineSegments('「ちょっと」です')).toEqual(['「ちょっ', 'と」', 'で', 'す']);
    expect(lineSegments('价格：2908元')).toEqual(['价', '格：', '2908', '元']);
  });

  it('marks, joiners and emoji sequences stay with their base', () => {
    expect(lineSegments('नमस्ते दुनिया')).toEqual(['नमस्ते ', 'दुनिया']);
    expect(lineSegments('👩\u200d💻👍🏽')).toEqual(['👩\u200d💻', '👍🏽']);
  });

  it('Thai breaks at dictionary word boundaries', () => {
    expect(lineSegments('สวัสดีครับ')).toEqual(['สวัสดี', 'ครับ']);
  });

  it('box text wraps CJK without spaces inside the box', async () => {
    const font = await bundledFont('NotoSansCJKsc-Regular.ttf');
    const m = fontMetrics(font);
    const lines = layoutText('我们的名片印刷质量很好。', m, { size: 20, leading: 24, tracking: 0, alignment: 'left', box: { left: 0, top: 0, right: 100, bottom: 200 } });
    expect(lines.map((l) => l.text)).toEqual(['我们的名片', '印刷质量很', '好。']);
  });
});

describe('measure', () => {
  it('takes the shaped advance of the whole run when the metrics can shape', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    const plain = measure('AVA', m, { size: 10, tracking: 0 });
    expect(measure('AVA', { ...m, textAdvance: () => 1.5 }, { size: 10, tracking: 100 })).toBeCloseTo(15 + 2 * 0.1 * 10, 6);
    expect(plain).toBeCloseTo((m.advance(65) * 2 + m.advance(86)) * 10, 6);
  });
});
