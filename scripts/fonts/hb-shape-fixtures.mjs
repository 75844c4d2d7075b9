// Writes test/engine/fonts/fixtures/hb-shape.json: HarfBuzz's own shaping of sample names per
// script, by Debian's hb-shape (libharfbuzz-bin), for test/engine/fonts/shaper.test.ts (issue 21
// §3: our glyph ids and advances equal HarfBuzz's). Each run is shaped as
//   LANG=C hb-shape --output-format=json --no-glyph-names --direction=<ltr|rtl> --unicodes=<hex,…> assets/fonts/<font>
// and its clusters turned from code point indices into UTF-16 indices of the run's text.
// Cases that mix scripts list their runs as the bidi algorithm and font fallback must split them,
// in visual order. Usage: node scripts/fonts/hb-shape-fixtures.mjs
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const ARABIC = 'NotoSansArabic-Regular.ttf';
const HEBREW = 'NotoSansHebrew-Regular.ttf';
const DEVANAGARI = 'NotoSansDevanagari-Regular.ttf';
const THAI = 'NotoSansThai-Regular.ttf';
const CJK = 'NotoSansCJKsc-Regular.ttf';
const SANS = 'LiberationSans-Regular.ttf';

/** One script, one font: [name, font, text, direction]. */
const single = [
  ['arabic name', ARABIC, 'محمد عبد الله', 'rtl'],
  ['arabic lam-alef ligature', ARABIC, 'لا سلام', 'rtl'],
  ['hebrew name', HEBREW, 'דוד כהן', 'rtl'],
  ['hebrew with points', HEBREW, 'שָׁלוֹם', 'rtl'],
  ['devanagari name', DEVANAGARI, 'प्रियंका शर्मा', 'ltr'],
  ['devanagari conjuncts and reph', DEVANAGARI, 'क्षत्रिय अर्जुन', 'ltr'],
  ['thai name', THAI, 'สมชาย ใจดี', 'ltr'],
  ['thai stacked marks', THAI, 'น้ำ ที่นี่', 'ltr'],
  ['chinese name', CJK, '王小明', 'ltr'],
  ['japanese name', CJK, '山田太郎 やまだ たろう', 'ltr'],
  ['korean name', CJK, '김민준', 'ltr'],
  ['cjk punctuation', CJK, '東京、大阪。', 'ltr'],
  ['latin kerning', SANS, 'AVATAR Wave Tōkyō', 'ltr'],
  ['latin kerning (dejavu)', 'DejaVuSans.ttf', 'AVA To Ty', 'ltr'],
];

/** Several runs: [name, fonts (primary first), text, runs in visual order: [substring, font, direction]]. */
const mixed = [
  ['arabic with digits and latin', [SANS, ARABIC], 'علي 2024 Ali', [['Ali', SANS, 'ltr'], [' ', SANS, 'rtl'], ['2024', SANS, 'ltr'], [' ', SANS, 'rtl'], ['علي', ARABIC, 'rtl']]],
  // Arabic-Indic digits are AN: a left-to-right run at level 2 inside the right-to-left text.
  ['arabic with arabic-indic digits', [ARABIC], 'شارع ١٢٣', [['١٢٣', ARABIC, 'ltr'], ['شارع ', ARABIC, 'rtl']]],
  // The Liberation fonts have Hebrew letters themselves: no fallback.
  ['latin then hebrew', [SANS, HEBREW], 'Dana דנה', [['Dana ', SANS, 'ltr'], ['דנה', SANS, 'rtl']]],
  ['latin, devanagari and cjk', [SANS, DEVANAGARI, CJK], 'Anil अनिल 王', [['Anil ', SANS, 'ltr'], ['अनिल', DEVANAGARI, 'ltr'], [' ', SANS, 'ltr'], ['王', CJK, 'ltr']]],
];

function hbShape(font, text, direction) {
  const out = execFileSync(
    'hb-shape',
    [
      '--output-format=json',
      '--no-glyph-names',
      `--direction=${direction}`,
      // Code points rather than argv text: glib would decode argv in the C locale's charset.
      `--unicodes=${[...text].map((c) => c.codePointAt(0).toString(16)).join(',')}`,
      path.join(root, 'assets/fonts', font),
    ],
    { env: { ...process.env, LANG: 'C' }, encoding: 'utf8' },
  );
  // Clusters of --unicodes input are code point indices: → UTF-16 indices.
  const index = [];
  let units = 0;
  for (const ch of text) {
    index.push(units);
    units += ch.length;
  }
  return JSON.parse(out).map((g) => ({ gid: g.g, cluster: index[g.cl], xAdvance: g.ax, xOffset: g.dx, yOffset: g.dy }));
}

const version = execFileSync('hb-shape', ['--version'], { encoding: 'utf8' }).split('\n')[0];
const cases = [
  ...single.map(([name, font, text, direction]) => ({ name, fonts: [font], text, runs: [{ text, font, direction, glyphs: hbShape(font, text, direction) }] })),
  ...mixed.map(([name, fonts, text, runs]) => ({
    name,
    fonts,
    text,
    runs: runs.map(([part, font, direction]) => ({ text: part, font, direction, glyphs: hbShape(font, part, direction) })),
  })),
];
const file = path.join(root, 'test/engine/fonts/fixtures/hb-shape.json');
const json = JSON.stringify({ made: `${version}; node scripts/fonts/hb-shape-fixtures.mjs`, cases }, null, 1);
// One glyph per line.
writeFileSync(file, json.replace(/\{\n\s+"gid"[^}]*\}/g, (g) => g.replace(/\s*\n\s*/g, ' ')) + '\n');
console.log(`${cases.length} cases by ${version} → ${path.relative(root, file)}`);
