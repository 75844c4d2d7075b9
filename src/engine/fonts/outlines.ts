/**
 * Glyph outlines of TrueType (glyf) fonts as SVG path data, and whole lines shaped by our shaper
 * (shaper.ts) drawn as one path: for drawing text whose shaping the renderer gets wrong. resvg
 * 2.6.2 (its rustybuzz) drops the consonant after a syllable with a pre-base matra in Devanagari
 * ("प्रिया" comes out as "प्रिा"; docs/fonts.md), so a renderer can draw such lines from these paths
 * instead of a `<text>` element. CFF-flavoured fonts have no glyf table: null (keep `<text>`).
 *
 * @example
 *   const line = shapedPath([font, ...fallbacks], 'प्रियंका', { size: 40 });
 *   // `<path transform="translate(${x} ${y})" d="${line.d}"/>`, line.width px wide
 */
import { findTable } from './font-info';
import { shapeText } from './shaper';

interface Point {
  x: number;
  y: number;
  on: boolean;
}

type Contours = Point[][];

interface GlyfFont {
  contours(gid: number): Contours;
}

const fonts = new WeakMap<Uint8Array, GlyfFont | null>();

function glyfFont(bytes: Uint8Array): GlyfFont | null {
  let hit = fonts.get(bytes);
  if (hit === undefined) fonts.set(bytes, (hit = openGlyf(bytes)));
  return hit;
}

function openGlyf(bytes: Uint8Array): GlyfFont | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const base = view.getUint32(0) === 0x74746366 ? view.getUint32(12) : 0;
  const [head, loca, glyf, maxp] = ['head', 'loca', 'glyf', 'maxp'].map((t) => findTable(view, t, base));
  if (!head || !loca || !glyf || !maxp) return null;
  const longLoca = view.getInt16(head.offset + 50) === 1;
  const numGlyphs = view.getUint16(maxp.offset + 4);
  const range = (gid: number): [number, number] =>
    longLoca
      ? [view.getUint32(loca.offset + gid * 4), view.getUint32(loca.offset + gid * 4 + 4)]
      : [view.getUint16(loca.offset + gid * 2) * 2, view.getUint16(loca.offset + gid * 2 + 2) * 2];
  const cache = new Map<number, Contours>();

  const contours = (gid: number, depth = 0): Contours => {
    const hit = cache.get(gid);
    if (hit) return hit;
    if (gid >= numGlyphs || depth > 8) return [];
    const [start, end] = range(gid);
    if (end <= start) return [];
    const p0 = glyf.offset + start;
    const count = view.getInt16(p0);
    const out = count >= 0 ? simple(p0, count) : composite(p0, depth);
    cache.set(gid, out);
    return out;
  };

  // OpenType spec, glyf: "Simple glyph description".
  const simple = (p0: number, count: number): Contours => {
    let p = p0 + 10;
    const ends: number[] = [];
    for (let i = 0; i < count; i++, p += 2) ends.push(view.getUint16(p));
    const points = count ? ends[count - 1] + 1 : 0;
    p += 2 + view.getUint16(p); // instructions
    const flags: number[] = [];
    while (flags.length < points) {
      const f = view.getUint8(p++);
      flags.push(f);
      if (f & 0x08) for (let r = view.getUint8(p++); r > 0; r--) flags.push(f);
    }
    const coords = (short: number, same: number) => {
      const values: number[] = [];
      let v = 0;
      for (const f of flags) {
        if (f & short) v += f & same ? view.getUint8(p++) : -view.getUint8(p++);
        else if (!(f & same)) {
          v += view.getInt16(p);
          p += 2;
        }
        values.push(v);
      }
      return values;
    };
    const xs = coords(0x02, 0x10);
    const ys = coords(0x04, 0x20);
    const out: Contours = [];
    let first = 0;
    for (const last of ends) {
      const contour: Point[] = [];
      for (let i = first; i <= last; i++) contour.push({ x: xs[i], y: ys[i], on: (flags[i] & 1) === 1 });
      out.push(contour);
      first = last + 1;
    }
    return out;
  };

  // OpenType spec, glyf: "Composite glyph description" (offsets as x/y values; point matching is rare: ignored).
  const composite = (p0: number, depth: number): Contours => {
    let p = p0 + 10;
    const out: Contours = [];
    for (;;) {
      const flags = view.getUint16(p);
      const component = view.getUint16(p + 2);
      p += 4;
      let dx: number;
      let dy: number;
      if (flags & 0x0001) {
        dx = view.getInt16(p);
        dy = view.getInt16(p + 2);
        p += 4;
      } else {
        dx = view.getInt8(p);
        dy = view.getInt8(p + 1);
        p += 2;
      }
      if (!(flags & 0x0002)) dx = dy = 0;
      let [a, b, c, d] = [1, 0, 0, 1];
      const f2dot14 = (o: number) => view.getInt16(o) / 16384;
      if (flags & 0x0008) {
        a = d = f2dot14(p);
        p += 2;
      } else if (flags & 0x0040) {
        a = f2dot14(p);
        d = f2dot14(p + 2);
        p += 4;
      } else if (flags & 0x0080) {
        [a, b, c, d] = [f2dot14(p), f2dot14(p + 2), f2dot14(p + 4), f2dot14(p + 6)];
        p += 8;
      }
      for (const contour of contours(component, depth + 1)) {
        out.push(contour.map((q) => ({ x: a * q.x + c * q.y + dx, y: b * q.x + d * q.y + dy, on: q.on })));
      }
      if (!(flags & 0x0020)) return out;
    }
  };

  return { contours: (gid) => contours(gid) };
}

const fmt = (v: number) => String(Math.round(v * 100) / 100);

/** Quadratic contours → path commands, each point mapped by `at` (font units → user space). */
function pathOf(contours: Contours, at: (x: number, y: number) => [number, number]): string {
  let d = '';
  for (const contour of contours) {
    const n = contour.length;
    if (n < 2) continue;
    // Start at an on-curve point, or midway between the first two off-curve ones.
    const startIndex = contour.findIndex((q) => q.on);
    const start =
      startIndex >= 0 ? contour[startIndex] : { x: (contour[0].x + contour[1].x) / 2, y: (contour[0].y + contour[1].y) / 2, on: true };
    const from = startIndex >= 0 ? startIndex : 0;
    const point = (q: { x: number; y: number }) => at(q.x, q.y).map(fmt).join(' ');
    d += `M${point(start)}`;
    let control: Point | null = null;
    // With no on-curve point the start is an implied one: the first point is still a control.
    for (let k = 1; k <= n; k++) {
      const q = contour[(from + k) % n];
      const closing = k === n && startIndex >= 0;
      const target = closing ? start : q;
      if (!closing && !q.on) {
        if (control) d += `Q${point(control)} ${point({ x: (control.x + q.x) / 2, y: (control.y + q.y) / 2 })}`;
        control = q;
        continue;
      }
      d += control ? `Q${point(control)} ${point(target)}` : `L${point(target)}`;
      control = null;
    }
    if (control) d += `Q${point(control)} ${point(start)}`;
    d += 'Z';
  }
  return d;
}

/**
 * A line shaped with `fonts` (the first that has each character, bidi runs) as one path, its
 * origin on the baseline at the line's left end, y down; `width` is its advance with letter and
 * word spacing (as `<text>` letter-spacing and word-spacing add them, per cluster). Null when a
 * font the line needs is not glyf-based.
 */
export function shapedPath(
  fonts: readonly Uint8Array[],
  text: string,
  style: { size: number; letterSpacing?: number; wordSpacing?: number },
): { d: string; width: number } | null {
  const { size, letterSpacing = 0, wordSpacing = 0 } = style;
  let pen = 0;
  let d = '';
  for (const run of shapeText(fonts, text)) {
    const font = glyfFont(fonts[run.font]);
    if (!font) return null;
    const scale = size / run.unitsPerEm;
    run.glyphs.forEach((g, i) => {
      const x0 = pen + g.xOffset * scale;
      const y0 = -g.yOffset * scale;
      d += pathOf(font.contours(g.gid), (x, y) => [x0 + x * scale, y0 - y * scale]);
      const last = i === run.glyphs.length - 1 || run.glyphs[i + 1].cluster !== g.cluster;
      pen += g.xAdvance * scale + (last ? letterSpacing + (text[g.cluster] === ' ' ? wordSpacing : 0) : 0);
    });
  }
  return { d, width: pen };
}

const unescapeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e]!);

/** Lines resvg may draw wrong: any character beyond Latin, Greek and Cyrillic (U+0590 on). */
const BEYOND_CYRILLIC = /[^\u0000-\u058f]/u;

/**
 * A text layer's SVG (personalise/text.ts: a `<g transform="matrix(…)" font-size=… [letter-spacing=…]>`
 * of `<text x y text-anchor [word-spacing]>` lines) with each line that holds characters beyond
 * Cyrillic drawn as a shaped path instead, its `<text>` kept beside it hidden (resvg draws neither
 * hidden text nor puts it in outlines; the PDF Text mode reads it). Latin, Greek and Cyrillic lines,
 * and lines in a font without TrueType outlines, stay `<text>` as they were.
 *
 * @example
 *   const pixels = await renderSvg(withShapedPaths(svg, fonts), fonts);
 */
export function withShapedPaths(svg: string, fonts: readonly Uint8Array[]): string {
  const group = /<g transform="matrix\([^)]*\)"([^>]*)>/.exec(svg);
  const size = Number(/font-size="([^"]+)"/.exec(group?.[1] ?? '')?.[1]);
  if (!group || !(size > 0) || !fonts.length) return svg;
  const letterSpacing = Number(/letter-spacing="([^"]+)"/.exec(group[1])?.[1] ?? 0);
  return svg.replace(/<text x="([^"]+)" y="([^"]+)" text-anchor="(\w+)"([^>]*)>([^<]*)<\/text>/g, (line, x: string, y: string, anchor: string, attrs: string, body: string) => {
    const text = unescapeXml(body);
    if (!BEYOND_CYRILLIC.test(text)) return line;
    const wordSpacing = Number(/word-spacing="([^"]+)"/.exec(attrs)?.[1] ?? 0);
    const path = shapedPath(fonts, text, { size, letterSpacing, wordSpacing });
    if (!path) return line;
    // resvg anchors a <text> by its advance without the letter spacing after the last character
    // (as Photoshop ends a line: docs/fonts.md, "Photoshop's text layout"); so does the path.
    const anchored = path.width - (text ? letterSpacing : 0);
    const left = Number(x) - (anchor === 'middle' ? anchored / 2 : anchor === 'end' ? anchored : 0);
    return `<path transform="translate(${fmt(left)} ${y})" d="${path.d}"/><text x="${x}" y="${y}" text-anchor="${anchor}"${attrs} visibility="hidden">${body}</text>`;
  });
}
