/**
 * ToUnicode CMaps (Adobe Technical Note #5411) for our Identity-H fonts, so text extraction
 * (pdftotext, copy and paste, search) gives the characters back. Plain code, no shaper: the
 * imposition's slug font uses it without loading HarfBuzz.
 */
export const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** A string as UTF-16BE hex digits. */
export const utf16Hex = (s: string) => {
  let u = '';
  for (let i = 0; i < s.length; i++) u += hex4(s.charCodeAt(i));
  return u;
};

/** Glyph id → the characters it stands for (a cluster's first glyph carries the cluster). */
export function toUnicodeCMap(used: Map<number, string>): string {
  // A glyph that only continues a cluster (a mark, a conjunct's second part) maps to nothing.
  const entries = [...used].filter(([, ch]) => ch).map(([gid, ch]) => `<${hex4(gid)}> <${utf16Hex(ch)}>`);
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
