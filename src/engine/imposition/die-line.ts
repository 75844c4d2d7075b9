/**
 * Die lines (cut patterns) read from a PDF (the first page's painted paths) or an SVG (path,
 * rect, line, polyline, polygon, circle, ellipse, with nested transforms), as plain geometry in
 * points, y up, and drawn over a page as a stroke in a `/Separation` spot colour that
 * overprints (ExtGState /OP true /OPM 1), so a RIP or cutter plotter finds the cut on its own
 * plate without knocking out the artwork.
 */
import { PDFArray, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFStream, decodePDFRawStream, type PDFPage } from 'pdf-lib';
import { addColorSpace, n, overprint, separation } from './spot';
import { checkPdfDecodedSizes, PDF_LIB_DECODE_LIMITS } from '../pdf-raster/bounds';

export type Seg = { op: 'M' | 'L'; x: number; y: number } | { op: 'C'; x1: number; y1: number; x2: number; y2: number; x: number; y: number } | { op: 'Z' };

export interface DieLine {
  /** The pattern's own frame (its page or viewBox), in points; its centre is the default anchor. */
  frame: { x: number; y: number; width: number; height: number };
  segments: Seg[];
}

type M = [number, number, number, number, number, number];
const mul = (a: M, b: M): M => [
  a[0] * b[0] + a[1] * b[2],
  a[0] * b[1] + a[1] * b[3],
  a[2] * b[0] + a[3] * b[2],
  a[2] * b[1] + a[3] * b[3],
  a[4] * b[0] + a[5] * b[2] + b[4],
  a[4] * b[1] + a[5] * b[3] + b[5],
];
const ap = (m: M, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
const ID: M = [1, 0, 0, 1, 0, 0];

function mapSegs(segs: Seg[], m: M): Seg[] {
  return segs.map((s) => {
    if (s.op === 'Z') return s;
    if (s.op === 'C') {
      const [x1, y1] = ap(m, s.x1, s.y1);
      const [x2, y2] = ap(m, s.x2, s.y2);
      const [x, y] = ap(m, s.x, s.y);
      return { op: 'C', x1, y1, x2, y2, x, y };
    }
    const [x, y] = ap(m, s.x, s.y);
    return { op: s.op, x, y };
  });
}

// ---------------------------------------------------------------- PDF

/** The painted paths of a PDF's first page (fills and strokes alike; clips and text ignored). */
export async function dieLineFromPdf(bytes: Uint8Array): Promise<DieLine> {
  checkPdfDecodedSizes(bytes, PDF_LIB_DECODE_LIMITS); // the page's content is decoded whole: bombs refused first (issue 18 item 3)
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const page = doc.getPage(0);
  const box = page.node.TrimBox() ? page.getTrimBox() : page.getMediaBox();
  const contents = page.node.Contents();
  const streams: PDFStream[] = [];
  const take = (o: unknown) => {
    const s = o instanceof PDFRef ? doc.context.lookup(o) : o;
    if (s instanceof PDFStream) streams.push(s);
  };
  if (contents instanceof PDFArray) for (let i = 0; i < contents.size(); i++) take(contents.get(i));
  else take(contents);
  const text = streams
    .map((s) => (s instanceof PDFRawStream ? decodePDFRawStream(s).decode() : s.getContents()))
    .map((b) => latin1(b))
    .join('\n');
  return { frame: { x: box.x, y: box.y, width: box.width, height: box.height }, segments: pathsOfContent(text) };
}

const latin1 = (b: Uint8Array) => {
  let s = '';
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
};

const PAINT = new Set(['S', 's', 'f', 'F', 'f*', 'B', 'B*', 'b', 'b*']);

/** Walks a content stream: path construction under the CTM, kept when painted. */
export function pathsOfContent(text: string): Seg[] {
  const out: Seg[] = [];
  let path: Seg[] = [];
  let ctm: M = ID;
  const stack: M[] = [];
  const nums: number[] = [];
  let cur: [number, number] = [0, 0];
  const re = /\s*(?:%[^\r\n]*|\((?:\\.|[^\\)])*\)|<<|>>|<[0-9A-Fa-f\s]*>|\[|\]|\/[^\s/[\]()<>{}%]*|[+-]?(?:\d+\.?\d*|\.\d+)|[A-Za-z'"*]+|[^\s])/gy;
  let m: RegExpExecArray | null;
  let inlineImage = false;
  while ((m = re.exec(text)) !== null) {
    const t = m[0].trim();
    if (!t) break;
    if (inlineImage) {
      if (t === 'EI') inlineImage = false;
      continue;
    }
    if (/^[+-]?(?:\d+\.?\d*|\.\d+)$/.test(t)) {
      nums.push(Number(t));
      continue;
    }
    if (!/^[A-Za-z'"*]+$/.test(t)) {
      if (t[0] !== '%') nums.length = 0;
      continue;
    }
    const a = nums.splice(0);
    const pt = (x: number, y: number) => ap(ctm, x, y);
    switch (t) {
      case 'q':
        stack.push(ctm);
        break;
      case 'Q':
        ctm = stack.pop() ?? ID;
        break;
      case 'cm':
        if (a.length >= 6) ctm = mul(a.slice(-6) as M, ctm);
        break;
      case 'm':
      case 'l': {
        if (a.length < 2) break;
        const [x, y] = pt(a[a.length - 2]!, a[a.length - 1]!);
        path.push({ op: t === 'm' ? 'M' : 'L', x, y });
        cur = [a[a.length - 2]!, a[a.length - 1]!];
        break;
      }
      case 'c':
      case 'v':
      case 'y': {
        const need = t === 'c' ? 6 : 4;
        if (a.length < need) break;
        const v = a.slice(-need);
        const [p1, p2, p3] = t === 'c' ? [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]]] : t === 'v' ? [cur, [v[0], v[1]], [v[2], v[3]]] : [[v[0], v[1]], [v[2], v[3]], [v[2], v[3]]];
        const [x1, y1] = pt(p1![0]!, p1![1]!);
        const [x2, y2] = pt(p2![0]!, p2![1]!);
        const [x, y] = pt(p3![0]!, p3![1]!);
        path.push({ op: 'C', x1, y1, x2, y2, x, y });
        cur = [p3![0]!, p3![1]!];
        break;
      }
      case 're': {
        if (a.length < 4) break;
        const [x, y, w, h] = a.slice(-4) as [number, number, number, number];
        const c = [pt(x, y), pt(x + w, y), pt(x + w, y + h), pt(x, y + h)];
        path.push({ op: 'M', x: c[0]![0], y: c[0]![1] });
        for (const p of c.slice(1)) path.push({ op: 'L', x: p[0], y: p[1] });
        path.push({ op: 'Z' });
        cur = [x, y];
        break;
      }
      case 'h':
        path.push({ op: 'Z' });
        break;
      case 'n':
        path = [];
        break;
      case 'BI':
        inlineImage = true;
        break;
      default:
        if (PAINT.has(t)) {
          if (t === 's' || t === 'b' || t === 'b*') path.push({ op: 'Z' });
          out.push(...path);
          path = [];
        }
    }
  }
  return out;
}

// ---------------------------------------------------------------- SVG

const PX = 0.75;
const UNIT: Record<string, number> = { '': PX, px: PX, pt: 1, pc: 12, in: 72, mm: 72 / 25.4, cm: 72 / 2.54 };

function svgLength(v: string | undefined): number | null {
  const m = v && /^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(px|pt|pc|in|mm|cm)?\s*$/i.exec(v);
  return m ? Number(m[1]) * UNIT[(m[2] ?? '').toLowerCase()]! : null;
}

function attrs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/([\w:-]+)\s*=\s*("([^"]*)"|'([^']*)')/g)) out[m[1]!] = m[3] ?? m[4] ?? '';
  return out;
}

function parseTransform(t: string | undefined): M {
  let m: M = ID;
  if (!t) return m;
  for (const f of t.matchAll(/(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)/g)) {
    const v = f[2]!.split(/[\s,]+/).filter(Boolean).map(Number);
    let k: M = ID;
    switch (f[1]) {
      case 'matrix':
        if (v.length === 6) k = v as M;
        break;
      case 'translate':
        k = [1, 0, 0, 1, v[0] ?? 0, v[1] ?? 0];
        break;
      case 'scale':
        k = [v[0] ?? 1, 0, 0, v[1] ?? v[0] ?? 1, 0, 0];
        break;
      case 'rotate': {
        const r = ((v[0] ?? 0) * Math.PI) / 180;
        const [cx, cy] = [v[1] ?? 0, v[2] ?? 0];
        k = mul(mul([1, 0, 0, 1, -cx, -cy], [Math.cos(r), Math.sin(r), -Math.sin(r), Math.cos(r), 0, 0]), [1, 0, 0, 1, cx, cy]);
        break;
      }
      case 'skewX':
        k = [1, 0, Math.tan(((v[0] ?? 0) * Math.PI) / 180), 1, 0, 0];
        break;
      case 'skewY':
        k = [1, Math.tan(((v[0] ?? 0) * Math.PI) / 180), 0, 1, 0, 0];
        break;
    }
    // SVG lists apply right to left: the element's point goes through the last one first.
    m = mul(k, m);
  }
  return m;
}

/** An ellipse arc as cubic Béziers (SVG arc endpoint parameterisation, F.6). */
function arc(x1: number, y1: number, rx: number, ry: number, phi: number, large: boolean, sweep: boolean, x2: number, y2: number): Seg[] {
  if (rx === 0 || ry === 0) return [{ op: 'L', x: x2, y: y2 }];
  rx = Math.abs(rx);
  ry = Math.abs(ry);
  const p = (phi * Math.PI) / 180;
  const cos = Math.cos(p);
  const sin = Math.sin(p);
  const dx = (x1 - x2) / 2;
  const dy = (y1 - y2) / 2;
  const x1p = cos * dx + sin * dy;
  const y1p = -sin * dx + cos * dy;
  const lambda = (x1p * x1p) / (rx * rx) + (y1p * y1p) / (ry * ry);
  if (lambda > 1) {
    rx *= Math.sqrt(lambda);
    ry *= Math.sqrt(lambda);
  }
  const num = rx * rx * ry * ry - rx * rx * y1p * y1p - ry * ry * x1p * x1p;
  const den = rx * rx * y1p * y1p + ry * ry * x1p * x1p;
  const k = (large === sweep ? -1 : 1) * Math.sqrt(Math.max(0, num / den));
  const cxp = (k * rx * y1p) / ry;
  const cyp = (-k * ry * x1p) / rx;
  const cx = cos * cxp - sin * cyp + (x1 + x2) / 2;
  const cy = sin * cxp + cos * cyp + (y1 + y2) / 2;
  const ang = (ux: number, uy: number, vx: number, vy: number) => Math.atan2(ux * vy - uy * vx, ux * vx + uy * vy);
  const t1 = ang(1, 0, (x1p - cxp) / rx, (y1p - cyp) / ry);
  let dt = ang((x1p - cxp) / rx, (y1p - cyp) / ry, (-x1p - cxp) / rx, (-y1p - cyp) / ry);
  if (!sweep && dt > 0) dt -= 2 * Math.PI;
  if (sweep && dt < 0) dt += 2 * Math.PI;
  const parts = Math.ceil(Math.abs(dt) / (Math.PI / 2));
  const step = dt / parts;
  const alpha = (4 / 3) * Math.tan(step / 4);
  const point = (t: number) => [cx + rx * Math.cos(t) * cos - ry * Math.sin(t) * sin, cy + rx * Math.cos(t) * sin + ry * Math.sin(t) * cos];
  const deriv = (t: number) => [-rx * Math.sin(t) * cos - ry * Math.cos(t) * sin, -rx * Math.sin(t) * sin + ry * Math.cos(t) * cos];
  const out: Seg[] = [];
  for (let i = 0; i < parts; i++) {
    const a = t1 + i * step;
    const b = a + step;
    const [ax, ay] = point(a);
    const [bx, by] = point(b);
    const [dax, day] = deriv(a);
    const [dbx, dby] = deriv(b);
    out.push({ op: 'C', x1: ax! + alpha * dax!, y1: ay! + alpha * day!, x2: bx! - alpha * dbx!, y2: by! - alpha * dby!, x: bx!, y: by! });
  }
  return out;
}

/** SVG path data → segments (user units, y down). */
export function pathData(d: string): Seg[] {
  const tokens = d.match(/[MmLlHhVvCcSsQqTtAaZz]|[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/g) ?? [];
  const out: Seg[] = [];
  let i = 0;
  let cmd = '';
  let x = 0;
  let y = 0;
  let sx = 0;
  let sy = 0;
  let lastC: [number, number] | null = null;
  let lastQ: [number, number] | null = null;
  const num = () => Number(tokens[i++]);
  const hasNum = () => i < tokens.length && !/^[A-Za-z]$/.test(tokens[i]!);
  const quad = (qx: number, qy: number, ex: number, ey: number) => {
    out.push({ op: 'C', x1: x + (2 / 3) * (qx - x), y1: y + (2 / 3) * (qy - y), x2: ex + (2 / 3) * (qx - ex), y2: ey + (2 / 3) * (qy - ey), x: ex, y: ey });
  };
  while (i < tokens.length) {
    if (/^[A-Za-z]$/.test(tokens[i]!)) cmd = tokens[i++]!;
    else if (!cmd) {
      i++;
      continue;
    }
    const rel = cmd === cmd.toLowerCase();
    const C = cmd.toUpperCase();
    if (C === 'Z') {
      out.push({ op: 'Z' });
      x = sx;
      y = sy;
      lastC = lastQ = null;
      continue;
    }
    if (!hasNum()) continue;
    const ox = rel ? x : 0;
    const oy = rel ? y : 0;
    let c: [number, number] | null = null;
    let q: [number, number] | null = null;
    switch (C) {
      case 'M':
        x = ox + num();
        y = oy + num();
        sx = x;
        sy = y;
        out.push({ op: 'M', x, y });
        cmd = rel ? 'l' : 'L';
        break;
      case 'L':
        x = ox + num();
        y = oy + num();
        out.push({ op: 'L', x, y });
        break;
      case 'H':
        x = ox + num();
        out.push({ op: 'L', x, y });
        break;
      case 'V':
        y = oy + num();
        out.push({ op: 'L', x, y });
        break;
      case 'C': {
        const [x1, y1, x2, y2, ex, ey] = [ox + num(), oy + num(), ox + num(), oy + num(), ox + num(), oy + num()];
        out.push({ op: 'C', x1, y1, x2, y2, x: ex, y: ey });
        c = [x2, y2];
        x = ex;
        y = ey;
        break;
      }
      case 'S': {
        const [x1, y1]: [number, number] = lastC ? [2 * x - lastC[0], 2 * y - lastC[1]] : [x, y];
        const [x2, y2, ex, ey] = [ox + num(), oy + num(), ox + num(), oy + num()];
        out.push({ op: 'C', x1, y1, x2, y2, x: ex, y: ey });
        c = [x2, y2];
        x = ex;
        y = ey;
        break;
      }
      case 'Q': {
        const [qx, qy, ex, ey] = [ox + num(), oy + num(), ox + num(), oy + num()];
        quad(qx, qy, ex, ey);
        q = [qx, qy];
        x = ex;
        y = ey;
        break;
      }
      case 'T': {
        const prev: [number, number] | null = lastQ;
        const qx: number = prev ? 2 * x - prev[0] : x;
        const qy: number = prev ? 2 * y - prev[1] : y;
        const [ex, ey] = [ox + num(), oy + num()];
        quad(qx, qy, ex, ey);
        q = [qx, qy];
        x = ex;
        y = ey;
        break;
      }
      case 'A': {
        const [rx, ry, phi, large, sweep] = [num(), num(), num(), num(), num()];
        const [ex, ey] = [ox + num(), oy + num()];
        out.push(...arc(x, y, rx, ry, phi, large !== 0, sweep !== 0, ex, ey));
        x = ex;
        y = ey;
        break;
      }
      default:
        i++;
    }
    lastC = c;
    lastQ = q;
  }
  return out.filter((s) => s.op === 'Z' || Object.values(s).every((v) => typeof v !== 'number' || Number.isFinite(v)));
}

function shape(name: string, a: Record<string, string>): Seg[] {
  const f = (k: string) => Number(a[k] ?? 0) || 0;
  const poly = (close: boolean) => {
    const v = (a.points ?? '').split(/[\s,]+/).filter(Boolean).map(Number);
    const segs: Seg[] = [];
    for (let i = 0; i + 1 < v.length; i += 2) segs.push({ op: i === 0 ? 'M' : 'L', x: v[i]!, y: v[i + 1]! });
    if (close && segs.length) segs.push({ op: 'Z' });
    return segs;
  };
  const ellipse = (cx: number, cy: number, rx: number, ry: number): Seg[] =>
    rx > 0 && ry > 0 ? [{ op: 'M', x: cx + rx, y: cy }, ...arc(cx + rx, cy, rx, ry, 0, false, true, cx - rx, cy), ...arc(cx - rx, cy, rx, ry, 0, false, true, cx + rx, cy), { op: 'Z' }] : [];
  switch (name) {
    case 'path':
      return pathData(a.d ?? '');
    case 'rect': {
      const [x, y, w, h] = [f('x'), f('y'), f('width'), f('height')];
      let rx = a.rx !== undefined ? f('rx') : a.ry !== undefined ? f('ry') : 0;
      let ry = a.ry !== undefined ? f('ry') : rx;
      rx = Math.min(rx, w / 2);
      ry = Math.min(ry, h / 2);
      if (w <= 0 || h <= 0) return [];
      if (!rx || !ry) return [{ op: 'M', x, y }, { op: 'L', x: x + w, y }, { op: 'L', x: x + w, y: y + h }, { op: 'L', x, y: y + h }, { op: 'Z' }];
      return pathData(`M${x + rx},${y}H${x + w - rx}A${rx},${ry} 0 0 1 ${x + w},${y + ry}V${y + h - ry}A${rx},${ry} 0 0 1 ${x + w - rx},${y + h}H${x + rx}A${rx},${ry} 0 0 1 ${x},${y + h - ry}V${y + ry}A${rx},${ry} 0 0 1 ${x + rx},${y}Z`);
    }
    case 'line':
      return [{ op: 'M', x: f('x1'), y: f('y1') }, { op: 'L', x: f('x2'), y: f('y2') }];
    case 'polyline':
      return poly(false);
    case 'polygon':
      return poly(true);
    case 'circle':
      return ellipse(f('cx'), f('cy'), f('r'), f('r'));
    case 'ellipse':
      return ellipse(f('cx'), f('cy'), f('rx'), f('ry'));
    default:
      return [];
  }
}

/** An SVG's shapes in points, y up, its frame the viewBox (scaled by width/height when given). */
export function dieLineFromSvg(svg: string): DieLine {
  const text = svg.replace(/<!--[\s\S]*?-->/g, '').replace(/<(defs|clipPath|mask|symbol|style|metadata)\b[\s\S]*?<\/\1>/gi, '');
  const root = /<svg\b([^>]*)>/i.exec(text);
  if (!root) throw new Error('not an SVG document');
  const ra = attrs(root[1]!);
  const vb = (ra.viewBox ?? '').split(/[\s,]+/).filter(Boolean).map(Number);
  const w = svgLength(ra.width);
  const h = svgLength(ra.height);
  const view = vb.length === 4 && vb[2]! > 0 && vb[3]! > 0 ? { x: vb[0]!, y: vb[1]!, w: vb[2]!, h: vb[3]! } : { x: 0, y: 0, w: w !== null ? w / PX : 0, h: h !== null ? h / PX : 0 };
  const sx = w !== null && view.w ? w / view.w : PX;
  const sy = h !== null && view.h ? h / view.h : sx;
  const height = view.h * sy;
  // User space (y down) → points (y up): scale, then flip about the frame.
  const toPt: M = [sx, 0, 0, -sy, -view.x * sx, height + view.y * sy];
  const segments: Seg[] = [];
  const stack: M[] = [toPt];
  for (const m of text.slice(root.index + root[0].length).matchAll(/<(\/?)([\w:-]+)([^>]*?)(\/?)>/g)) {
    const [, close, name, rest, selfClose] = m;
    const tag = name!.toLowerCase();
    if (close) {
      if (tag === 'g' || tag === 'svg' || tag === 'a') stack.pop();
      continue;
    }
    const a = attrs(rest!);
    const ctm = mul(parseTransform(a.transform), stack[stack.length - 1] ?? toPt);
    if (tag === 'g' || tag === 'svg' || tag === 'a') {
      if (!selfClose) stack.push(ctm);
      continue;
    }
    if (a.display === 'none' || a.visibility === 'hidden') continue;
    segments.push(...mapSegs(shape(tag, a), ctm));
  }
  return { frame: { x: 0, y: 0, width: view.w * sx, height }, segments };
}

// ---------------------------------------------------------------- drawing

export interface DieLineStyle {
  ink: string;
  strokeWidth: number;
  /** CMYK of the ink on a proof (magenta by default, as RIPs show CutContour). */
  alternate?: readonly [number, number, number, number];
}

/** The die line as content operators, translated by (dx, dy). */
export function dieLineOps(segments: Seg[], dx: number, dy: number): string {
  let out = '';
  for (const s of segments) {
    if (s.op === 'Z') out += 'h\n';
    else if (s.op === 'C') out += `${n(s.x1 + dx)} ${n(s.y1 + dy)} ${n(s.x2 + dx)} ${n(s.y2 + dy)} ${n(s.x + dx)} ${n(s.y + dy)} c\n`;
    else out += `${n(s.x + dx)} ${n(s.y + dy)} ${s.op === 'M' ? 'm' : 'l'}\n`;
  }
  return out;
}

/**
 * Draws the die line over `page` (its own content kept intact inside q … Q), the pattern's
 * frame centre placed at `at` (page coordinates, points).
 */
export function drawDieLine(doc: PDFDocument, page: PDFPage, die: DieLine, at: { x: number; y: number }, style: DieLineStyle, shared?: { cs: PDFRef; gs: PDFRef }): { cs: PDFRef; gs: PDFRef } {
  const refs = shared ?? { cs: separation(doc, style.ink, style.alternate ?? [0, 1, 0, 0]), gs: overprint(doc) };
  const cs = addColorSpace(page, 'CS', refs.cs);
  const gs = page.node.newExtGState('GS', refs.gs).asString();
  const dx = at.x - (die.frame.x + die.frame.width / 2);
  const dy = at.y - (die.frame.y + die.frame.height / 2);
  const ctx = doc.context;
  // Whatever state the page's content leaves (an unbalanced cm) must not move the die line.
  const contents = page.node.Contents();
  const list = PDFArray.withContext(ctx);
  list.push(ctx.register(ctx.stream('q\n')));
  if (contents instanceof PDFArray) for (let i = 0; i < contents.size(); i++) list.push(contents.get(i));
  else if (contents) list.push(page.node.get(PDFName.of('Contents'))!);
  const ops = `Q\nq ${gs} gs /${cs} CS 1 SCN ${n(style.strokeWidth)} w 1 j 1 J\n${dieLineOps(die.segments, dx, dy)}S\nQ\n`;
  list.push(ctx.register(ctx.flateStream(ops)));
  page.node.set(PDFName.of('Contents'), list);
  return refs;
}
