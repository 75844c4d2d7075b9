/**
 * Fallback fonts (issue 21 §3): which bundled fonts (assets/fonts, seeded into the font store's
 * `fonts/`) draw the characters a template's font lacks. Noto subsets under the SIL OFL cover
 * Arabic, Hebrew, Devanagari, Thai and CJK (docs/fonts.md lists what each keeps); DejaVu Sans
 * comes last for the rest of Latin, Greek, Cyrillic and symbols. Emoji have no bundled font:
 * preflight reports them as missing glyphs.
 */

/** A bundled fallback font and the code point ranges (inclusive) of the script it serves. */
interface ScriptFont {
  postscriptName: string;
  ranges: ReadonlyArray<readonly [number, number]>;
}

export const DEFAULT_FALLBACK = 'DejaVuSans';

/** Bundled fallback fonts by script, in the order tried when a text mixes scripts. */
export const SCRIPT_FONTS: readonly ScriptFont[] = [
  {
    postscriptName: 'NotoSansArabic-Regular',
    ranges: [[0x0600, 0x06ff], [0x0750, 0x077f], [0x08a0, 0x08ff], [0xfb50, 0xfdff], [0xfe70, 0xfeff]],
  },
  { postscriptName: 'NotoSansHebrew-Regular', ranges: [[0x0590, 0x05ff], [0xfb1d, 0xfb4f]] },
  { postscriptName: 'NotoSansDevanagari-Regular', ranges: [[0x0900, 0x097f], [0x1cd0, 0x1cff], [0xa8e0, 0xa8ff]] },
  { postscriptName: 'NotoSansThai-Regular', ranges: [[0x0e00, 0x0e7f]] },
  {
    postscriptName: 'NotoSansCJKsc-Regular',
    ranges: [
      [0x1100, 0x11ff], // Hangul jamo
      [0x2e80, 0x2fff], // radicals
      [0x3000, 0x33ff], // CJK punctuation, kana, bopomofo, Hangul compatibility jamo, enclosed
      [0x3400, 0x4dbf], // Han extension A
      [0x4e00, 0x9fff], // Han
      [0xac00, 0xd7af], // Hangul syllables
      [0xf900, 0xfaff], // compatibility ideographs
      [0xfe30, 0xfe4f], // compatibility forms
      [0xff00, 0xffef], // halfwidth and fullwidth forms
      [0x20000, 0x3134f], // Han extensions B–G
    ],
  },
];

/** The bundled font for a code point's script, or undefined (Latin, symbols, emoji…). */
export function scriptFontOf(codePoint: number): string | undefined {
  for (const font of SCRIPT_FONTS) {
    for (const [lo, hi] of font.ranges) if (codePoint >= lo && codePoint <= hi) return font.postscriptName;
  }
  return undefined;
}

/**
 * PostScript names of the bundled fonts that cover the scripts in `text`, in the order the
 * scripts first appear, then DejaVu Sans (always last, also for text of no listed script).
 *
 * @example fallbackFontNames('Ali علي 日本') // ['NotoSansArabic-Regular', 'NotoSansCJKsc-Regular', 'DejaVuSans']
 */
export function fallbackFontNames(text: string): string[] {
  const names = new Set<string>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x0590) continue; // Latin, Greek, Cyrillic: the template's font or DejaVu Sans
    const name = scriptFontOf(cp);
    if (name) names.add(name);
  }
  names.add(DEFAULT_FALLBACK);
  return [...names];
}
