"""Prints the code points kept in the CJK fallback subset, one hex range or value per line
(hb-subset --unicodes-file). The Han list comes from the national standards' first levels, as
Python's own codecs decode them, so no word list is needed:
  - GB 2312 level 1 (3,755 most common simplified Han; rows 16-55 of EUC-CN),
  - JIS X 0208 level 1 (2,965 most common Japanese kanji; rows 16-47 of EUC-JP),
  - KS X 1001 Hangul (the 2,350 common precomposed syllables; rows 16-40 of EUC-KR),
plus all kana, CJK punctuation, fullwidth and halfwidth forms, and the ideographic space."""
import sys

points = set()


def rows(codec, first, last):
    for row in range(first, last + 1):
        for cell in range(1, 95):
            try:
                ch = bytes([0xA0 + row, 0xA0 + cell]).decode(codec)
            except UnicodeDecodeError:
                continue
            points.update(ord(c) for c in ch)


rows('gb2312', 16, 55)   # level 1 Han
rows('euc_jp', 16, 47)   # level 1 kanji
rows('euc_kr', 16, 40)   # Hangul syllables

ranges = [
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0x3130, 0x318F),  # Hangul compatibility jamo
    (0xFF00, 0xFFEF),  # halfwidth and fullwidth forms
    (0x2018, 0x201F), (0x2026, 0x2026), (0x00B7, 0x00B7), (0x30FB, 0x30FB),
]
for lo, hi in ranges:
    points.update(range(lo, hi + 1))

for cp in sorted(points):
    sys.stdout.write(f'{cp:X}\n')
