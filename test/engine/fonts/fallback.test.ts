import { describe, expect, it } from 'vitest';
import { fallbackFontNames, SCRIPT_FONTS } from '../../../src/engine/fonts/fallback';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { bundledFontStore } from './helpers';

describe('fallbackFontNames', () => {
  it('names the bundled font of each script in the order the scripts appear, DejaVu Sans last', () => {
    expect(fallbackFontNames('Anna')).toEqual(['DejaVuSans']);
    expect(fallbackFontNames('Ali علي 日本')).toEqual(['NotoSansArabic-Regular', 'NotoSansCJKsc-Regular', 'DejaVuSans']);
    expect(fallbackFontNames('שלום नमस्ते สวัสดี 김민준 やまだ')).toEqual([
      'NotoSansHebrew-Regular',
      'NotoSansDevanagari-Regular',
      'NotoSansThai-Regular',
      'NotoSansCJKsc-Regular',
      'DejaVuSans',
    ]);
    expect(fallbackFontNames('😀')).toEqual(['DejaVuSans']);
  });

  it('names fonts the bundled store holds, and each covers sample names of its script', async () => {
    const samples: Record<string, string> = {
      'NotoSansArabic-Regular': 'محمد عبد الله ٣٤',
      'NotoSansHebrew-Regular': 'דוד כהן',
      'NotoSansDevanagari-Regular': 'प्रियंका शर्मा',
      'NotoSansThai-Regular': 'สมชาย ใจดี',
      'NotoSansCJKsc-Regular': '王小明 やまだ たろう 山田太郎 김민준 、。',
    };
    for (const { postscriptName } of SCRIPT_FONTS) {
      const bytes = await bundledFontStore(postscriptName);
      expect(bytes, postscriptName).not.toBeNull();
      const metrics = fontMetrics(bytes!);
      for (const ch of samples[postscriptName]) expect(metrics.has(ch.codePointAt(0)!), `${postscriptName} ${ch}`).toBe(true);
    }
  });
});
