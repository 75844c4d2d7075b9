/**
 * Text and shapes as vector in print PDFs (rendering contract, "Print PDF"; rules listed in
 * docs/pdf.md).
 *
 * Which layers: a text layer we re-rendered (its override carries the SVG it was drawn from), or
 * a shape layer filled with one solid colour whose vector mask PDF fills and clips can draw; drawn
 * normally (blend normal, no effects, pixel masks or clipping, not warped, inside groups that
 * change nothing), with nothing visible above it overlapping it. Such a layer looks the same
 * whether it is composited into the raster or drawn on top of it, so the strips are rendered
 * without it and its outlines are drawn over them.
 *
 * How: resvg turns the SVG into plain paths (usvg's own output, the same geometry its raster
 * came from); those become PDF path operators. Anything beyond solid fills of plain paths
 * (clips, masks, gradients, strokes, images, group opacity) keeps the layer rasterised. A shape's
 * path is its vector mask's Béziers as they are (the geometry the compositor rasterises masks
 * and strokes from, src/engine/composite/vector.ts), filled with its own fill rule.
 */
import { Resvg } from '@resvg/resvg-wasm';
import type { Bounds, LayerNode, LayerOverride, LayerOverrides, VectorMask } from '../types';
import type { PdfVectorLayer } from './document';
import { invisibleText } from './text';
import { growRect as grow, unionRect as union } from '../composite/surface';
import { pathComponents } from '../composite/vector';
import { num } from './writer';

/** `sc` operands for an RGB colour (0–255) in the page's colour space (output.ts builds CMYK and grey ones). */
export type ColourOperands = (rgb: { r: number; g: number; b: number }) => string;
const rgbOperands: ColourOperands = ({ r, g, b }) => `${num(r / 255)} ${num(g / 255)} ${num(b / 255)}`;

export type VectorCandidate =
  | { kind: 'text'; node: LayerNode; override: LayerOverride & { vector: NonNullable<LayerOverride['vector']> } }
  | {
      kind: 'shape';
      node: LayerNode;
      /** The drawn subpaths (for bounds). */
      paths: VectorMask['paths'];
      /** Those subpaths as Photoshop's shape components (pathComponents): each has one operation and fill rule. */
      components: VectorMask['paths'][];
      color: { r: number; g: number; b: number };
      alpha: number;
    };

const intersects = (a: Bounds, b: Bounds) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const inside = (a: Bounds, b: Bounds) => a.left >= b.left && a.top >= b.top && a.right <= b.right && a.bottom <= b.bottom;
const enabled = (m?: { disabled?: boolean }) => !!m && !m.disabled;
const hasEffects = (n: LayerNode) => !!n.effects && !(n.effects as { disabled?: boolean }).disabled && Object.keys(n.effects).some((k) => k !== 'disabled' && k !== 'scale');
/** Blending options that change how a layer meets what lies below ("Blend If", excluded channels, knockout). */
const advancedBlending = (n: LayerNode) => !!n.blendIf || !!n.excludedChannels?.length || !!n.knockout;

/** Groups that composite their children unchanged (an artboard also clips them: see `within`). */
function neutralGroup(n: LayerNode): boolean {
  return (
    (n.blendMode === 'pass through' || n.blendMode === 'normal') &&
    n.opacity === 1 &&
    n.fillOpacity === 1 &&
    !enabled(n.mask) &&
    !enabled(n.vectorMask) &&
    !hasEffects(n) &&
    !n.clipping &&
    !advancedBlending(n)
  );
}

function plainText(n: LayerNode, o: LayerOverride | undefined): o is Extract<VectorCandidate, { kind: 'text' }>['override'] {
  return (
    n.type === 'Text' &&
    !!o?.vector &&
    !!o.bounds &&
    (o.visible ?? n.visible) &&
    n.blendMode === 'normal' &&
    n.opacity === 1 &&
    n.fillOpacity === 1 &&
    !n.clipping &&
    !n.text?.warped &&
    !enabled(n.mask) &&
    !enabled(n.vectorMask) &&
    !hasEffects(n) &&
    !advancedBlending(n)
  );
}

/**
 * A shape layer that is one solid colour inside its path: Photoshop's stored pixels (what
 * previews draw) are that path filled, so the path filled in PDF is the same picture. The fill
 * colour is the layer's own or the request's recolour (`color`, which keeps the pixels' alpha).
 * Opacity below 1 (layer opacity × fill × the recolour's alpha) is a PDF `ca` with a single
 * combined path only: overlapping fills of several paths would cover their overlap twice.
 */
function plainShape(n: LayerNode, o: LayerOverride | undefined): Omit<Extract<VectorCandidate, { kind: 'shape' }>, 'kind' | 'node'> | null {
  const vm = n.vectorMask;
  if (n.type !== 'Shape' || !n.hasPixels || !n.fillColor || !vm || vm.disabled || vm.invert || vm.fillStartsWithAllPixels) return null;
  // A soft vector mask (density below 100 % or a feather) lets the fill show beyond the path
  // (composite/compositor.ts fillFromPath): not a plain path fill.
  if ((vm.density ?? 1) < 1 || (vm.feather ?? 0) > 0) return null;
  if (o?.pixels || o?.vector || !(o?.visible ?? n.visible)) return null;
  if (n.blendMode !== 'normal' || n.clipping || enabled(n.mask) || hasEffects(n) || n.vectorStroke || advancedBlending(n)) return null;
  // Fill and stroke as the PSD describes them: a disabled fill or any enabled stroke (gradient and
  // pattern strokes included; Photoshop's pixels carry them) is not a plain path fill.
  if (n.shapeStyle && (!n.shapeStyle.fill || n.shapeStyle.stroke)) return null;
  // Subpaths stored with operation -1 continue the component before them (a ring's hole).
  const components = pathComponents(vm.paths)
    .map((c) => ({ op: c[0]!.operation ?? 'combine', rule: c[0]!.fillRule, paths: c.filter((p) => p.knots.length >= 2) }))
    .filter((c) => c.paths.length);
  // See shapeLayer: subtracting needs the component's complement, exact as an even-odd clip only
  // for an even-odd component; exclude (xor) has no clip equivalent. Paths combine from nothing,
  // so the first component must add.
  const drawable = (c: (typeof components)[number]) =>
    c.op === 'combine' || c.op === 'intersect' || (c.op === 'subtract' && c.rule === 'even-odd');
  const fills = components.filter((c) => c.op === 'combine').length;
  if (!fills || components[0]!.op !== 'combine' || !components.every(drawable)) return null;
  const alpha = n.opacity * n.fillOpacity * (o?.color?.a ?? 1);
  if (!(alpha > 0) || (alpha < 1 && fills > 1)) return null;
  const hex = parseInt(n.fillColor.slice(1), 16);
  const color = o?.color ? { r: o.color.r, g: o.color.g, b: o.color.b } : { r: (hex >> 16) & 255, g: (hex >> 8) & 255, b: hex & 255 };
  return { paths: components.flatMap((c) => c.paths), components: components.map((c) => c.paths), color, alpha };
}

/** Bounding box of paths' anchors and handles (contains the curves), template pixels. */
export function pathsBounds(paths: VectorMask['paths']): Bounds {
  const b = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (const p of paths)
    for (const k of p.knots)
      for (let i = 0; i < 6; i += 2) {
        b.left = Math.min(b.left, k[i]);
        b.right = Math.max(b.right, k[i]);
        b.top = Math.min(b.top, k[i + 1]);
        b.bottom = Math.max(b.bottom, k[i + 1]);
      }
  return { left: Math.floor(b.left), top: Math.floor(b.top), right: Math.ceil(b.right), bottom: Math.ceil(b.bottom) };
}


/** Text and shape layers that can be drawn as vector over the rest of the page (see the file comment). */
export function vectorCandidates(layers: LayerNode[], overrides: LayerOverrides, canvas: Bounds): VectorCandidate[] {
  const out: VectorCandidate[] = [];
  const visible = (n: LayerNode) => overrides.get(n.id)?.visible ?? n.visible;
  // Where a node's drawing can reach: effects and adjustments are taken to reach everywhere.
  const extent = (n: LayerNode): Bounds[] => {
    if (!visible(n)) return [];
    if (n.type === 'Adjustment' || hasEffects(n)) return [canvas];
    if (n.children) return [...n.children.flatMap(extent), ...(n.artboard?.background ? [n.artboard.bounds] : [])];
    const own = overrides.get(n.id)?.bounds ?? n.bounds;
    // A shape's stroke is drawn from its path, around it (composite/effects.ts drawShapeStroke).
    if (n.vectorStroke && n.vectorMask) return [grow(union(own, pathsBounds(n.vectorMask.paths)), Math.ceil(n.vectorStroke.width) + 2)];
    return [own];
  };
  // `within`: the artboards around these nodes clip them; a vector layer must lie inside.
  const visit = (nodes: LayerNode[], above: Bounds[], within: Bounds) => {
    const seen = [...above];
    nodes.forEach((n, i) => {
      const o = overrides.get(n.id);
      // Layers clipped to this one sit right above it in the list (panel order is top first).
      const clipsSomething = i > 0 && nodes[i - 1].clipping;
      const free = (b: Bounds) => !clipsSomething && inside(b, within) && !seen.some((s) => intersects(s, b));
      if (n.children) {
        if (visible(n) && neutralGroup(n)) visit(n.children, seen, n.artboard ? n.artboard.bounds : within);
      } else if (plainText(n, o)) {
        if (free(o.bounds!)) out.push({ kind: 'text', node: n, override: o });
      } else {
        const shape = plainShape(n, o);
        if (shape && free(union(n.bounds, pathsBounds(shape.paths)))) out.push({ kind: 'shape', node: n, ...shape });
      }
      seen.push(...extent(n));
    });
  };
  visit(layers, [], { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity });
  return out;
}

/**
 * A shape layer as PDF operators (template pixels, y down), in the page's colour space (`/CS0`,
 * set by the writer). An alpha below 1 is an ExtGState (`ca`) the writer adds to the page's
 * resources.
 *
 * Paths combine in order from nothing (composite/vector.ts): S = ((P1 op2 P2) op3 P3) …, so a
 * point is inside when some combined path Pi holds it and every later path lets it through: a
 * subtracted Pj does not hold it, an intersected Pj does. Each combined path is therefore filled
 * on its own (same opaque colour: overlaps are harmless), clipped by the later paths: an
 * intersected path is a clip with its own fill rule; a subtracted one is a box around all
 * paths plus the path, clipped even-odd (exactly the box minus an even-odd path's inside).
 */
export function shapeLayer(shape: Extract<VectorCandidate, { kind: 'shape' }>, paint: ColourOperands = rgbOperands): PdfVectorLayer {
  const head = [`${paint(shape.color)} sc`];
  const layer: PdfVectorLayer = { ops: '' };
  if (shape.alpha < 1) {
    const gs = `A${num(shape.alpha)}`;
    layer.opacities = { [gs]: Number(num(shape.alpha)) };
    head.unshift(`/${gs} gs`);
  }
  const box = grow(pathsBounds(shape.paths), 1);
  const boxOps = `${num(box.left)} ${num(box.top)} ${num(box.right - box.left)} ${num(box.bottom - box.top)} re`;
  const evenOdd = (c: VectorMask['paths']) => c[0]!.fillRule === 'even-odd';
  const opOf = (c: VectorMask['paths']) => c[0]!.operation ?? 'combine';
  // A component is one PDF path: all its subpaths, filled or clipped once with its rule.
  const pathOps = (c: VectorMask['paths']) => c.map((p) => knotOps(p.knots, !p.open)).join('\n');
  const fills: string[] = [];
  shape.components.forEach((component, i) => {
    if (opOf(component) !== 'combine') return;
    const clips = shape.components.slice(i + 1).flatMap((c) => {
      const op = opOf(c);
      if (op === 'intersect') return [`${pathOps(c)}\n${evenOdd(c) ? 'W*' : 'W'} n`];
      if (op === 'subtract') return [`${boxOps}\n${pathOps(c)}\nW* n`];
      return [];
    });
    const fill = `${pathOps(component)}\n${evenOdd(component) ? 'f*' : 'f'}`;
    fills.push(clips.length ? ['q', ...clips, fill, 'Q'].join('\n') : fill);
  });
  layer.ops = [...head, ...fills].join('\n');
  return layer;
}

/**
 * Photoshop knots ([inX, inY, anchorX, anchorY, outX, outY]) → a closed PDF subpath: a segment
 * runs from an anchor along its out handle and the next knot's in handle; a closed path has a
 * last segment back to the first knot. An open path is closed by a straight line, as filling
 * (and the compositor's rasteriser) does.
 */
export function knotOps(knots: number[][], closed: boolean): string {
  const out = [`${num(knots[0][2])} ${num(knots[0][3])} m`];
  const n = knots.length;
  for (let i = 0; i < (closed ? n : n - 1); i++) {
    const a = knots[i];
    const b = knots[(i + 1) % n];
    const straight = a[2] === a[4] && a[3] === a[5] && b[0] === b[2] && b[1] === b[3];
    if (straight && i === n - 1) break; // back to the first anchor: `h` draws that line
    out.push(straight ? `${num(b[2])} ${num(b[3])} l` : `${[a[4], a[5], b[0], b[1], b[2], b[3]].map(num).join(' ')} c`);
  }
  out.push('h');
  return out.join('\n');
}

/**
 * PDF operators (page pixel space, y down) drawing the SVG's paths, or null when the SVG uses
 * anything beyond solid-filled paths. Resvg is initialised (pdf/prepare.ts, resvgReady).
 */
export function svgOutlines(
  vector: { svg: string; fonts: Uint8Array[] },
  origin: { left: number; top: number },
  mode: 'outlines' | 'text' = 'outlines',
  paint: ColourOperands = rgbOperands,
): PdfVectorLayer | null {
  const resvg = new Resvg(vector.svg, { font: { fontBuffers: vector.fonts, loadSystemFonts: false } as { fontBuffers: Uint8Array[] } });
  let usvg: string;
  try {
    usvg = resvg.toString();
  } finally {
    resvg.free();
  }
  const ops = usvgToOps(usvg, paint);
  if (ops === null) return null;
  const place = `1 0 0 1 ${num(origin.left)} ${num(origin.top)} cm`;
  const text = mode === 'text' ? invisibleText(vector.svg, vector.fonts) : null;
  return text ? { ops: `${place}\n${ops}\n${text.ops}`, fonts: text.fonts } : { ops: `${place}\n${ops}` };
}

const UNSUPPORTED = /<(clipPath|mask|image|linearGradient|radialGradient|pattern|filter|use|text)\b|\b(clip-path|mask|filter)=/;

/** usvg's normalised SVG (groups with matrix transforms, filled paths) → content-stream operators. */
export function usvgToOps(svg: string, paint: ColourOperands = rgbOperands): string | null {
  if (UNSUPPORTED.test(svg)) return null;
  const out: string[] = [];
  const stack: boolean[] = [];
  for (const m of svg.matchAll(/<(\/?)([\w:-]+)([^>]*?)(\/?)>/g)) {
    const [, closing, tag, attrText, selfClosing] = m;
    if (tag === 'svg' || tag === 'defs') continue;
    if (closing) {
      if (tag === 'g' && stack.pop()) out.push('Q');
      continue;
    }
    const attrs = Object.fromEntries([...attrText.matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]]));
    if (attrs.opacity !== undefined && Number(attrs.opacity) !== 1) return null;
    const cm = attrs.transform ? matrix(attrs.transform) : null;
    if (attrs.transform && !cm) return null;
    if (tag === 'g') {
      if (cm) out.push(`q ${cm} cm`);
      if (!selfClosing) stack.push(!!cm);
      else if (cm) out.push('Q');
      continue;
    }
    if (tag !== 'path') return null;
    if (attrs.stroke && attrs.stroke !== 'none') return null;
    if (!attrs.fill || attrs.fill === 'none') continue;
    const rgb = /^#([0-9a-f]{6})$/i.exec(attrs.fill);
    if (!rgb || (attrs['fill-opacity'] !== undefined && Number(attrs['fill-opacity']) !== 1)) return null;
    const path = pathOps(attrs.d ?? '');
    if (path === null) return null;
    const v = parseInt(rgb[1], 16);
    const color = paint({ r: (v >> 16) & 255, g: (v >> 8) & 255, b: v & 255 });
    out.push(`q${cm ? ` ${cm} cm` : ''} ${color} sc\n${path}\n${attrs['fill-rule'] === 'evenodd' ? 'f*' : 'f'} Q`);
  }
  return out.join('\n');
}

function matrix(transform: string): string | null {
  const m = /^\s*matrix\(([^)]*)\)\s*$/.exec(transform);
  const v = m?.[1].split(/[\s,]+/).filter(Boolean).map(Number);
  return v && v.length === 6 && v.every(Number.isFinite) ? v.map(num).join(' ') : null;
}

/** Absolute M/L/H/V/C/Q/Z path data → PDF path operators (quadratics raised to cubics). */
export function pathOps(d: string): string | null {
  try {
    return pathOpsOrThrow(d);
  } catch {
    return null; // a malformed number (num() refuses NaN)
  }
}

function pathOpsOrThrow(d: string): string | null {
  const tokens = d.match(/[A-Za-z]|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g) ?? [];
  const out: string[] = [];
  let i = 0;
  let cmd = '';
  let x = 0;
  let y = 0;
  let sx = 0;
  let sy = 0;
  const n = () => Number(tokens[i++]);
  while (i < tokens.length) {
    if (/[A-Za-z]/.test(tokens[i])) cmd = tokens[i++];
    switch (cmd) {
      case 'M':
        x = sx = n();
        y = sy = n();
        out.push(`${num(x)} ${num(y)} m`);
        cmd = 'L';
        break;
      case 'L':
        x = n();
        y = n();
        out.push(`${num(x)} ${num(y)} l`);
        break;
      case 'H':
        x = n();
        out.push(`${num(x)} ${num(y)} l`);
        break;
      case 'V':
        y = n();
        out.push(`${num(x)} ${num(y)} l`);
        break;
      case 'C': {
        const v = [n(), n(), n(), n(), n(), n()];
        out.push(`${v.map(num).join(' ')} c`);
        [x, y] = [v[4], v[5]];
        break;
      }
      case 'Q': {
        const [qx, qy, ex, ey] = [n(), n(), n(), n()];
        const c1 = [x + (2 / 3) * (qx - x), y + (2 / 3) * (qy - y)];
        const c2 = [ex + (2 / 3) * (qx - ex), ey + (2 / 3) * (qy - ey)];
        out.push(`${[...c1, ...c2, ex, ey].map(num).join(' ')} c`);
        [x, y] = [ex, ey];
        break;
      }
      case 'Z':
      case 'z':
        out.push('h');
        [x, y] = [sx, sy];
        // Z takes no numbers: a number after it is malformed.
        if (i < tokens.length && !/[A-Za-z]/.test(tokens[i])) return null;
        break;
      default:
        return null;
    }
  }
  return out.join('\n');
}
