/**
 * `textOutputMode: "text"`: the layer's text as real PDF text in an embedded TrueType subset
 * (Type0 / CIDFontType2, Identity-H, with a ToUnicode map), so it can be selected, searched and
 * copied. The visible glyphs stay resvg's outlines (exactly the preview's shapes, kerning
 * included); the text is laid over them in rendering mode 3 (invisible, ISO 32000-1 §9.3.6),
 * placed line by line from the same SVG. A font that is not glyf-based TrueType, whose licence
 * (OS/2 fsType) forbids embedding a subset, or that lacks a character (fallback fonts were used)
 * gets no text layer: outlines only.
 */
import { zlib } from './flate';
import { openEmbeddable, subsetTrueType, type SfntFont } from './font-subset';
import type { PdfFontResource } from './document';
import { name, num, str, type PdfRef, type PdfWriter } from './writer';

const unescapeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!);

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** Invisible text operators (in the SVG's pixel space) and the font they use, or null. */
export function invisibleText(svg: string, fontBytes: Uint8Array | undefined): { ops: string; fonts: Record<string, PdfFontResource> } | null {
  const font = fontBytes && openEmbeddable(fontBytes);
  if (!font) return null;
  const group = /<g transform="matrix\(([^)]*)\)"([^>]*)>/.exec(svg);
  const size = Number(/font-size="([^"]+)"/.exec(group?.[2] ?? '')?.[1]);
  if (!group || !(size > 0)) return null;
  const letterSpacing = Number(/letter-spacing="([^"]+)"/.exec(group[2])?.[1] ?? 0);
  const matrix = group[1].split(/[\s,]+/).map(Number);
  if (matrix.length !== 6 || !matrix.every(Number.isFinite)) return null;

  const used = new Map<number, string>();
  const lines: string[] = [];
  for (const m of svg.matchAll(/<text x="([^"]+)" y="([^"]+)" text-anchor="(\w+)"[^>]*>([^<]*)<\/text>/g)) {
    const text = unescapeXml(m[4]);
    let gids = '';
    let width = 0;
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      const gid = font.glyphOf(cp);
      if (!gid && cp > 0x20) return null; // drawn with a fallback font
      used.set(gid, ch);
      gids += hex4(gid);
      width += (font.advance(gid) / font.unitsPerEm) * size + letterSpacing;
    }
    const anchor = m[3];
    const x = Number(m[1]) - (anchor === 'middle' ? width / 2 : anchor === 'end' ? width : 0);
    lines.push(`1 0 0 -1 ${num(x)} ${num(Number(m[2]))} Tm <${gids}> Tj`);
  }
  if (!lines.length) return null;
  const resource = fontResource(font, fontBytes!, used);
  const ops = `q ${matrix.map(num).join(' ')} cm BT 3 Tr /${resource.res} ${num(size)} Tf ${num(letterSpacing)} Tc\n${lines.join('\n')}\nET Q`;
  return { ops, fonts: { [resource.res]: resource.font } };
}

function fontResource(font: SfntFont, bytes: Uint8Array, used: Map<number, string>): { res: string; font: PdfFontResource } {
  const gids = [...used.keys()].sort((a, b) => a - b);
  const base = font.postscriptName ?? 'Font';
  const key = `${base}:${bytes.length}:${gids.join(',')}`;
  // The subset tag: six capitals from the key (ISO 32000-1 §9.6.4), stable for equal subsets.
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  let tag = '';
  for (let i = 0; i < 6; i++, h = Math.floor(h / 26)) tag += String.fromCharCode(65 + (h % 26));
  const fontName = `${tag}+${base}`;
  const res = `F${tag}`;
  const scale = 1000 / font.unitsPerEm;
  return {
    res,
    font: {
      key,
      async write(w: PdfWriter): Promise<PdfRef> {
        const file = w.alloc();
        const program = subsetTrueType(font, gids);
        await w.stream(file, { Length1: program.length, Filter: name('FlateDecode') }, await zlib(program));
        const descriptor = w.alloc();
        await w.object(descriptor, {
          Type: name('FontDescriptor'),
          FontName: name(fontName),
          Flags: 4,
          FontBBox: font.bbox.map((v) => Math.round(v * scale)),
          ItalicAngle: font.italicAngle,
          Ascent: Math.round(font.ascender * scale),
          Descent: Math.round(font.descender * scale),
          CapHeight: Math.round(font.ascender * scale),
          StemV: 80,
          FontFile2: file,
        });
        const cid = w.alloc();
        await w.object(cid, {
          Type: name('Font'),
          Subtype: name('CIDFontType2'),
          BaseFont: name(fontName),
          CIDSystemInfo: { Registry: str('Adobe'), Ordering: str('Identity'), Supplement: 0 },
          FontDescriptor: descriptor,
          W: gids.flatMap((g) => [g, [Math.round(font.advance(g) * scale)]]),
          CIDToGIDMap: name('Identity'),
        });
        const toUnicode = w.alloc();
        await w.stream(toUnicode, { Filter: name('FlateDecode') }, await zlib(new TextEncoder().encode(toUnicodeCMap(used))));
        const type0 = w.alloc();
        await w.object(type0, {
          Type: name('Font'),
          Subtype: name('Type0'),
          BaseFont: name(fontName),
          Encoding: name('Identity-H'),
          DescendantFonts: [cid],
          ToUnicode: toUnicode,
        });
        return type0;
      },
    },
  };
}

/** ToUnicode CMap (Adobe Technical Note #5411): glyph id → UTF-16BE (also the design atoms' PDFs). */
export function toUnicodeCMap(used: Map<number, string>): string {
  const entries = [...used].map(([gid, ch]) => {
    let u = '';
    for (let i = 0; i < ch.length; i++) u += hex4(ch.charCodeAt(i));
    return `<${hex4(gid)}> <${u}>`;
  });
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const part = entries.slice(i, i + 100);
    blocks.push(`${part.length} beginbfchar\n${part.join('\n')}\nendbfchar`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

