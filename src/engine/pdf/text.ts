/**
 * `textOutputMode: "text"`: the layer's text as real PDF text in embedded TrueType subsets
 * (Type0 / CIDFontType2, Identity-H, with ToUnicode maps), so it can be selected, searched and
 * copied. The visible glyphs stay resvg's outlines (exactly the preview's shapes); the text is
 * laid over them in rendering mode 3 (invisible, ISO 32000-1 §9.3.6), placed line by line from
 * the same SVG. Each line is shaped as the renderer shapes it (fonts/shaper.ts: HarfBuzz, bidi
 * runs, the template's font then its fallbacks), so the glyph ids are the shaped ones (Arabic
 * joined forms, Indic conjuncts, kerning) and each run selects its own font. Each glyph cluster
 * maps back to its characters in the font's ToUnicode map, and each line carries its characters
 * in logical order as /ActualText (ISO 32000-1 §14.9.4), which text extraction prefers for
 * right-to-left and reordered scripts. A font that is not glyf-based TrueType or whose licence
 * (OS/2 fsType) forbids embedding a subset gets no text layer: outlines only.
 */
import { zlib } from './flate';
import { hex4, toUnicodeCMap, utf16Hex } from './to-unicode';
import { descriptorMetrics, openEmbeddable, subsetFontName, subsetTrueType, type SfntFont } from './font-subset';
import type { PdfFontResource } from './document';
import { name, num, str, type PdfRef, type PdfWriter } from './writer';
import { shapeText } from '../fonts/shaper';

const unescapeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!);

/**
 * Invisible text operators (in the SVG's pixel space) and the fonts they use, or null. `files`:
 * the font the SVG names first, then the fallbacks it was drawn with (the vector's `fonts`).
 */
export function invisibleText(
  svg: string,
  files: readonly Uint8Array[],
): { ops: string; fonts: Record<string, PdfFontResource> } | null {
  if (!files.length) return null;
  const group = /<g transform="matrix\(([^)]*)\)"([^>]*)>/.exec(svg);
  const size = Number(/font-size="([^"]+)"/.exec(group?.[2] ?? '')?.[1]);
  if (!group || !(size > 0)) return null;
  const letterSpacing = Number(/letter-spacing="([^"]+)"/.exec(group[2])?.[1] ?? 0);
  const matrix = group[1].split(/[\s,]+/).map(Number);
  if (matrix.length !== 6 || !matrix.every(Number.isFinite)) return null;

  const embedded = new Map<number, EmbeddedFont | null>();
  const fontFor = (index: number) => {
    let font = embedded.get(index);
    if (font === undefined) {
      const sfnt = openEmbeddable(files[index]);
      embedded.set(index, (font = sfnt && { font: sfnt, used: new Map() }));
    }
    return font;
  };
  const lines: PlacedLine[] = [];
  for (const m of svg.matchAll(/<text x="([^"]+)" y="([^"]+)" text-anchor="(\w+)"([^>]*)>([^<]*)<\/text>/g)) {
    const text = unescapeXml(m[5]);
    const wordSpacing = Number(/word-spacing="([^"]+)"/.exec(m[4])?.[1] ?? 0);
    const shown = shapedShow(files, text, { size, letterSpacing, wordSpacing }, fontFor);
    if (!shown) return null;
    if (!shown.runs.length) continue;
    const anchor = m[3];
    const x = Number(m[1]) - (anchor === 'middle' ? shown.width / 2 : anchor === 'end' ? shown.width : 0);
    lines.push({ ...shown, x, y: Number(m[2]), text });
  }
  if (!lines.length) return null;

  const resources: Record<string, PdfFontResource> = {};
  const names = new Map<number, string>();
  for (const [index, font] of embedded) {
    const resource = fontResource(font!.font, files[index], font!.used);
    resources[resource.res] = resource.font;
    names.set(index, resource.res);
  }
  const ops = lines.map((line) => {
    const show = `1 0 0 -1 ${num(line.x)} ${num(line.y)} Tm ${line.runs.map((r) => `/${names.get(r.font)} ${num(size)} Tf [${r.glyphs}] TJ`).join(' ')}`;
    // pdftotext reverses /ActualText of right-to-left lines as if it were visual: those rely on
    // the ToUnicode maps alone, unless characters no font has (.notdef, which maps to nothing
    // useful) need the /ActualText.
    return line.rtl && !line.notdef ? show : `/Span <</ActualText <feff${utf16Hex(line.text)}>>> BDC ${show} EMC`;
  });
  return { ops: `q ${matrix.map(num).join(' ')} cm BT 3 Tr\n${ops.join('\n')}\nET Q`, fonts: resources };
}

/** A font of a text layer as embedded: its subset's glyphs and what each maps back to (ToUnicode). */
export interface EmbeddedFont {
  font: SfntFont;
  used: Map<number, string>;
}

/** One line of text shaped for a PDF: its glyphs per font run as `TJ` operands. */
export interface ShapedShow {
  /** Advance of the whole line in user space units (the size's), spacing included. */
  width: number;
  /** Font runs left to right: the font's index in the list given, and the TJ array's contents. */
  runs: Array<{ font: number; glyphs: string }>;
  /** Some run is right to left. */
  rtl: boolean;
  /** Some character has no glyph in any font. */
  notdef: boolean;
}

/**
 * Shapes one line (fonts/shaper.ts: bidi runs, the first font that has each character) and
 * writes each run's glyph ids as `TJ` operands that move by HarfBuzz's advances plus letter and
 * word spacing (each glyph's adjustment against its W width, ISO 32000-1 §9.4.3), recording in
 * `fontFor(i).used` what each glyph maps back to: a cluster's characters on its first glyph,
 * nothing on the others and on .notdef. Null when a font the line needs cannot be embedded.
 *
 * @example
 *   const show = shapedShow([font, ...fallbacks], 'Ali علي', { size: 12 }, fontFor);
 *   // `${x} ${y} Td ` + show.runs.map((r) => `/${res[r.font]} 12 Tf [${r.glyphs}] TJ`).join(' ')
 */
export function shapedShow(
  fonts: readonly Uint8Array[],
  text: string,
  style: { size: number; letterSpacing?: number; wordSpacing?: number },
  fontFor: (index: number) => EmbeddedFont | null,
): ShapedShow | null {
  const { size, letterSpacing = 0, wordSpacing = 0 } = style;
  const show: ShapedShow = { width: 0, runs: [], rtl: false, notdef: false };
  for (const run of shapeText(fonts, text)) {
    const font = fontFor(run.font);
    if (!font) return null;
    const { used } = font;
    const upem = font.font.unitsPerEm;
    // Cluster starts in logical order: a cluster's characters run to the next start.
    const starts = [...new Set(run.glyphs.map((g) => g.cluster))].sort((a, b) => a - b);
    const clusterEnd = (c: number) => starts.find((s) => s > c) ?? run.end;
    let glyphs = '';
    run.glyphs.forEach((g, i) => {
      const first = i === 0 || run.glyphs[i - 1].cluster !== g.cluster;
      if (g.gid === 0) used.set(0, ''); // .notdef stands for any missing character: no mapping
      else if (first && !used.get(g.gid)) {
        // Right-to-left glyphs stand in visual order: extractors reverse them, and a cluster's
        // characters with them, so those are written reversed too.
        const chars = text.slice(g.cluster, clusterEnd(g.cluster));
        used.set(g.gid, run.rtl ? [...chars].reverse().join('') : chars);
      } else if (!used.has(g.gid)) used.set(g.gid, '');
      // Spacing follows each cluster's last glyph, as the renderer adds it per cluster.
      const last = i === run.glyphs.length - 1 || run.glyphs[i + 1].cluster !== g.cluster;
      const spacing = last ? letterSpacing + (text[g.cluster] === ' ' ? wordSpacing : 0) : 0;
      const advance = (g.xAdvance / upem) * size + spacing;
      show.width += advance;
      // TJ moves by the font's own width (its W entry) minus the adjustment.
      const adjust = Math.round(font.font.advance(g.gid) * (1000 / upem)) - (advance * 1000) / size;
      glyphs += `<${hex4(g.gid)}>${Math.abs(adjust) > 0.005 ? num(adjust) : ''}`;
      show.notdef ||= g.gid === 0;
    });
    show.runs.push({ font: run.font, glyphs });
    show.rtl ||= run.rtl;
  }
  return show;
}

/** One line of invisible text: where it starts (SVG space), its characters and its shaped runs. */
interface PlacedLine extends ShapedShow {
  x: number;
  y: number;
  text: string;
}

function fontResource(font: SfntFont, bytes: Uint8Array, used: Map<number, string>): { res: string; font: PdfFontResource } {
  const gids = [...used.keys()].sort((a, b) => a - b);
  const { fontName, tag, key } = subsetFontName(font, bytes, gids);
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
          ...descriptorMetrics(font),
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


