"""Converts a CFF-flavoured OpenType font to TrueType outlines (glyf, quadratic curves by cu2qu,
within 1 font unit), so the fallback can be embedded in PDFs as a CIDFontType2 subset
(src/engine/pdf/font-subset.ts handles glyf fonts only). Usage: cff-to-glyf.py in.otf out.ttf
Needs fontTools (Debian python3-fonttools, or pip install fonttools)."""
import sys
from fontTools.ttLib import TTFont, newTable
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen

source, target = sys.argv[1], sys.argv[2]
font = TTFont(source, recalcTimestamp=False)  # same bytes on every run
order = font.getGlyphOrder()
glyph_set = font.getGlyphSet()
glyphs = {}
for name in order:
    pen = TTGlyphPen(glyph_set)
    glyph_set[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
    glyphs[name] = pen.glyph()

del font['CFF ']
if 'VORG' in font:
    del font['VORG']
glyf = font['glyf'] = newTable('glyf')
glyf.glyphOrder = order
glyf.glyphs = glyphs
font['loca'] = newTable('loca')
maxp = font['maxp']
maxp.tableVersion = 0x00010000
for field in ('maxZones', 'maxTwilightPoints', 'maxStorage', 'maxFunctionDefs', 'maxInstructionDefs',
              'maxStackElements', 'maxSizeOfInstructions', 'maxComponentElements'):
    setattr(maxp, field, 0)
maxp.maxZones = 1
post = font['post']
post.formatType = 3.0  # no glyph names: smaller, and PDF readers do not need them
font.sfntVersion = '\x00\x01\x00\x00'
font['head'].glyphDataFormat = 0
font.save(target)
