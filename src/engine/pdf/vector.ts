/**
 * Text as vector in print PDFs (rendering contract, "Print PDF"; rules listed in docs/pdf.md).
 *
 * Which layers: a text layer we re-rendered (its override carries the SVG it was drawn from),
 * drawn normally (blend normal, 100 % opacity and fill, no effects, masks or clipping, not warped,
 * inside groups that change nothing), with nothing visible above it overlapping it. Such a layer
 * looks the same whether it is composited into the raster or drawn on top of it, so the strips
 * are rendered without it and its outlines are drawn over them.
 *
 * How: resvg turns the SVG into plain paths (usvg's own output, the same geometry its raster
 * came from); those become PDF path operators. Anything beyond solid fills of plain paths
 * (clips, masks, gradients, strokes, images, group opacity) keeps the layer rasterised.
 */
import { Resvg } from '@resvg/resvg-wasm';
import type { Bounds, LayerNode, LayerOverride, LayerOverrides } from '../types';
import type { PdfVectorLayer } from './document';
import { invisibleText } from './text';
import { num } from './writer';

export interface VectorCandidate {
  node: LayerNode;
  override: LayerOverride & { vector: NonNullable<LayerOverride['vector']> };
}

const intersects = (a: Bounds, b: Bounds) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const enabled = (m?: { disabled?: boolean }) => !!m && !m.disabled;
const hasEffects = (n: LayerNode) => !!n.effects && !(n.effects as { disabled?: boolean }).disabled && Object.keys(n.effects).some((k) => k !== 'disabled' && k !== 'scale');

/** Groups that composite their children unchanged. */
function neutralGroup(n: LayerNode): boolean {
  return (n.blendMode === 'pass through' || n.blendMode === 'normal') && n.opacity === 1 && n.fillOpacity === 1 && !enabled(n.mask) && !enabled(n.vectorMask) && !hasEffects(n) && !n.clipping;
}

function plainText(n: LayerNode, o: LayerOverride | undefined): o is VectorCandidate['override'] {
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
    !hasEffects(n)
  );
}

/** Text layers that can be drawn as vector over the rest of the page (see the file comment). */
export function vectorCandidates(layers: LayerNode[], overrides: LayerOverrides, canvas: Bounds): VectorCandidate[] {
  const out: VectorCandidate[] = [];
  const visible = (n: LayerNode) => overrides.get(n.id)?.visible ?? n.visible;
  // Where a node's drawing can reach: effects and adjustments are taken to reach everywhere.
  const extent = (n: LayerNode): Bounds[] => {
    if (!visible(n)) return [];
    if (n.type === 'Adjustment' || hasEffects(n)) return [canvas];
    if (n.children) return n.children.flatMap(extent);
    return [overrides.get(n.id)?.bounds ?? n.bounds];
  };
  const visit = (nodes: LayerNode[], above: Bounds[]) => {
    const seen = [...above];
    nodes.forEach((n, i) => {
      const o = overrides.get(n.id);
      if (n.children) {
        if (visible(n) && neutralGroup(n)) visit(n.children, seen);
      } else if (plainText(n, o)) {
        // Layers clipped to this one sit right above it in the list (panel order is top first).
        const clipsSomething = i > 0 && nodes[i - 1].clipping;
        if (!clipsSomething && !seen.some((b) => intersects(b, o.bounds!))) out.push({ node: n, override: o });
      }
      seen.push(...extent(n));
    });
  };
  visit(layers, []);
  return out;
}

/**
 * PDF operators (page pixel space, y down) drawing the SVG's paths, or null when the SVG uses
 * anything beyond solid-filled paths. Resvg is initialised: the SVG was rendered by it already.
 */
export function svgOutlines(
  vector: { svg: string; fonts: Uint8Array[] },
  origin: { left: number; top: number },
  mode: 'outlines' | 'text' = 'outlines',
): PdfVectorLayer | null {
  const resvg = new Resvg(vector.svg, { font: { fontBuffers: vector.fonts, loadSystemFonts: false } as { fontBuffers: Uint8Array[] } });
  let usvg: string;
  try {
    usvg = resvg.toString();
  } finally {
    resvg.free();
  }
  const ops = usvgToOps(usvg);
  if (ops === null) return null;
  const place = `1 0 0 1 ${num(origin.left)} ${num(origin.top)} cm`;
  const text = mode === 'text' ? invisibleText(vector.svg, vector.fonts[0]) : null;
  return text ? { ops: `${place}\n${ops}\n${text.ops}`, fonts: text.fonts } : { ops: `${place}\n${ops}` };
}

const UNSUPPORTED = /<(clipPath|mask|image|linearGradient|radialGradient|pattern|filter|use|text)\b|\b(clip-path|mask|filter)=/;

/** usvg's normalised SVG (groups with matrix transforms, filled paths) → content-stream operators. */
export function usvgToOps(svg: string): string | null {
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
    const color = [(v >> 16) & 255, (v >> 8) & 255, v & 255].map((c) => num(c / 255)).join(' ');
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
