import { describe, expect, it } from 'vitest';
import { layoutParagraphs, type LayoutStyle, type MeasuringMetrics } from '../../../src/engine/personalise/text-layout';

/**
 * A word wider than its box is cut between clusters until the rest fits whole (as at 68c07e9).
 * Session 20's wrap walks the rest's prefixes instead, which is the same only where a cluster never
 * narrows a line: tracking far below 0, and shaped final forms, can make the rest fit where one of
 * its prefixes does not. The lines here are 68c07e9's.
 */
const lines = (text: string, metrics: MeasuringMetrics, style: LayoutStyle) => layoutParagraphs(text, metrics, style).lines.map((l) => l.text);
const box = (right: number) => ({ left: 0, top: 0, right, bottom: 1000 });

describe('a cut word whose rest fits whole though a prefix does not', () => {
  it('tracking −700: an M (1.5 em) widens a line, an i (0.25 em) narrows it', () => {
    const metrics: MeasuringMetrics = { unitsPerEm: 1000, ascender: 0.8, descender: -0.2, has: () => true, advance: (cp) => (cp === 0x4d ? 1.5 : cp === 0x69 ? 0.25 : 0.55) };
    const style: LayoutStyle = { size: 20, leading: 24, tracking: -700, alignment: 'left', box: box(40) };
    // The rest "MMi" is 40 px and fits; its prefix "MM" (50 px) does not.
    expect(lines('MMMMMMMi', metrics, style)).toEqual(['M', 'M', 'M', 'M', 'M', 'MMi']);
  });

  it('shaped: a noon is 0.6 em in its final form, 0.25 em before another letter', () => {
    const NOON = '\u0646';
    const ALEF = '\u0627';
    const textAdvance = (s: string) => [...s].reduce((w, c, i, all) => w + (c === NOON ? (i === all.length - 1 ? 0.6 : 0.25) : 0.2), 0);
    const metrics: MeasuringMetrics = { unitsPerEm: 1000, ascender: 0.8, descender: -0.2, has: () => true, advance: () => 0.5, textAdvance };
    const style: LayoutStyle = { size: 20, leading: 24, tracking: 0, alignment: 'right', box: box(20) };
    // "نننا" is 0.95 em and fits; its prefix "ننن" (1.1 em) does not.
    expect(lines(NOON.repeat(5) + ALEF, metrics, style)).toEqual([NOON + NOON, NOON + NOON + NOON + ALEF]);
  });
});
