import { describe, expect, it } from 'vitest';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { shapedMetrics } from '../../../src/engine/fonts/shaper';
import { bundledFont } from './helpers';

describe('fontMetrics', () => {
  it("reads the top of 'd' from the glyf table (where Photoshop hangs box text's first baseline)", async () => {
    const liberation = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    expect(liberation.lowercaseAscent).toBe(1484 / 2048);
    expect(liberation.ascender).toBe(1491 / 2048); // OS/2 typographic ascender, a little higher
    expect(fontMetrics(await bundledFont('DejaVuSans.ttf')).lowercaseAscent).toBe(1556 / 2048);
    // Shaping metrics carry it over from the main font.
    expect(shapedMetrics(await bundledFont('LiberationSans-Regular.ttf')).lowercaseAscent).toBe(1484 / 2048);
  });

  it("has no lowercase ascent for a font without a 'd'", async () => {
    expect(fontMetrics(await bundledFont('NotoSansArabic-Regular.ttf')).lowercaseAscent).toBeUndefined();
  });
});
