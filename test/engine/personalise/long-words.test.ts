import { describe, expect, it } from 'vitest';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { clusters } from '../../../src/engine/personalise/line-break';
import { layoutParagraphs, measure, type LayoutStyle } from '../../../src/engine/personalise/text-layout';
import { bundledFont } from '../fonts/helpers';

/**
 * A shopper's very long text (fuzz2, session 20): V8's segments each hold a copy of their input,
 * so segmenting 30,000 characters at once made 0.9 GB, and line breaking segmented and measured the
 * rest of a word too wide for its box again for every line (10,000 characters: 23 s; 100,000: out
 * of memory). clusters() segments window by window; wrap walks one segmentation.
 */
const whole = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((g) => g.segment);

describe('clusters of long texts', () => {
  it.each([
    ['letters', 'x'.repeat(5000)],
    ['flags (regional-indicator pairs across windows)', '🇩🇪🇫🇷🇯🇵'.repeat(400) + 'a' + '🇩🇪'.repeat(300)],
    ['emoji ZWJ sequences and modifiers', '👨‍👩‍👧‍👦👍🏽🏳️‍🌈'.repeat(300)],
    ['one base with more marks than a window', 'e' + '\u0301'.repeat(3000) + 'f' + '\u0301'.repeat(10)],
    ['CR LF at every offset', 'ab\r\n'.repeat(1500)],
    ['Hangul jamo and Devanagari', '\u1100\u1161\u11a8नमस्ते'.repeat(700)],
  ])('%s: the same clusters as segmenting the whole text', (_, text) => {
    expect(clusters(text)).toEqual(whole(text));
  });
});

describe('a word far wider than its box', () => {
  const style = (metricsBox: LayoutStyle['box']): LayoutStyle => ({ size: 24, leading: 28.8, tracking: 0, alignment: 'left', box: metricsBox });

  it('100,000 characters are cut into lines that each fit, in a few seconds at most', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    const box = { left: 0, top: 0, right: 300, bottom: 200 };
    const t0 = performance.now();
    const { lines, overset, brokenWord } = layoutParagraphs('x'.repeat(100_000), m, style(box));
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(brokenWord).toBe(true);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(measure(line.text, m, style(box))).toBeLessThanOrEqual(300 + 1e-6);
    // Every line but the last is as full as it can be; nothing is lost.
    const perLine = lines[0].text.length;
    expect(lines.slice(0, -1).every((l) => l.text.length === perLine)).toBe(true);
    expect(measure('x'.repeat(perLine + 1), m, style(box))).toBeGreaterThan(300);
    expect(lines.map((l) => l.text).join('') + overset).toBe('x'.repeat(100_000));
  });
});
