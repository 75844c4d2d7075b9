import { describe, expect, it } from 'vitest';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { resolveFont, substitutesFor } from '../../../src/engine/fonts/substitution';
import { bundledFont, bundledFontStore } from './helpers';

describe('substitution table', () => {
  it.each([
    ['ArialMT', 'LiberationSans'],
    ['Arial-BoldMT', 'LiberationSans-Bold'],
    ['Arial-ItalicMT', 'LiberationSans-Italic'],
    ['Arial-BoldItalicMT', 'LiberationSans-BoldItalic'],
    ['Arial-Black', 'LiberationSans-Bold'],
    ['Helvetica', 'LiberationSans'],
    ['Helvetica-Bold', 'LiberationSans-Bold'],
    ['HelveticaNeue-Light', 'LiberationSans'],
    ['MyriadPro-Regular', 'LiberationSans'],
    ['MyriadPro-It', 'LiberationSans-Italic'],
    ['TimesNewRomanPSMT', 'LiberationSerif'],
    ['TimesNewRomanPS-BoldMT', 'LiberationSerif-Bold'],
    ['MinionPro-Regular', 'LiberationSerif'],
    ['CourierNewPSMT', 'LiberationMono'],
    ['SomethingUnknown-Regular', 'LiberationSans'],
  ])('%s → %s with the bundled fonts', async (requested, used) => {
    const font = await resolveFont(requested, bundledFontStore);
    expect(font?.postscriptName).toBe(used);
    expect(font?.substituted).toBe(true);
  });

  it('a font the store holds is used as is', async () => {
    const font = await resolveFont('DejaVuSans', bundledFontStore);
    expect(font).toMatchObject({ postscriptName: 'DejaVuSans', substituted: false });
  });

  it('falls back within the family, then to Liberation Sans and DejaVu Sans', () => {
    expect(substitutesFor('TimesNewRomanPS-BoldItalicMT')).toEqual([
      'LiberationSerif-BoldItalic',
      'LiberationSerif-Bold',
      'LiberationSerif',
      'LiberationSans-BoldItalic',
      'LiberationSans',
      'DejaVuSans',
    ]);
  });

  it('is null when neither the font nor any substitute is in the store', async () => {
    expect(await resolveFont('ArialMT', async () => null)).toBeNull();
  });
});

describe('fontMetrics', () => {
  it('reads Arial-compatible advances and ascender from Liberation Sans', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    expect(m.unitsPerEm).toBe(2048);
    expect(m.advance(0x20)).toBeCloseTo(569 / 2048, 6); // Arial's space
    expect(m.advance('H'.codePointAt(0)!)).toBeCloseTo(1479 / 2048, 6);
    expect(m.ascender).toBeCloseTo(1491 / 2048, 6);
    expect(m.has('é'.codePointAt(0)!)).toBe(true);
    expect(m.has(0x4e2d)).toBe(false); // no CJK
  });
});
