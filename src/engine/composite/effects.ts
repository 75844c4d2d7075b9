import type { LayerEffectsInfo } from 'ag-psd';
import type { LayerNode } from '../types';
import { blendSurface } from './blend';
import { curveLut } from './adjust';
import { bandCoverage, blur, dilate, erode, shift, signedDistance } from './morphology';
import { bevelMaps } from './bevel';
import { effectTiling, tilePattern } from './pattern';
import { gradientRamp, rgbOf, type Gradient, type RGB } from './gradient';
import { rasterizeVectorMask } from './vector';
import type { RenderContext } from './context';
import type { Surface } from './surface';

/**
 * Layer effects (layer styles), drawn at render time from the layer's masked shape: they are not
 * baked into stored pixels. Stacking, bottom to top: drop shadow, outer glow, [content], gradient
 * overlay, colour overlay, inner glow, inner shadow, stroke. Effects take the layer's opacity but
 * not its fill opacity. Sizes and distances scale with the output.
 * Contours reshape the falloff of shadows, glows and satin. Gradients (smoothness, opacity
 * stops, noise gradients approximated) come from gradient.ts. Bevels take their gloss contour,
 * Contour element and the stroke emboss style (bevel.ts). Not drawn (yet): noise, jitter, bevel
 * textures.
 */

type Effect = { enabled?: boolean; present?: boolean };
const on = <T extends Effect>(e: T | undefined): e is T => !!e && e.enabled !== false;
const list = <T extends Effect>(e: T[] | T | undefined): T[] => (Array.isArray(e) ? e : e ? [e] : []).filter(on);

const SUPPORTED = ['dropShadow', 'outerGlow', 'patternOverlay', 'gradientOverlay', 'solidFill', 'innerGlow', 'innerShadow', 'stroke', 'bevel', 'satin'] as const;

export function hasEffects(node: LayerNode): boolean {
  const fx = node.effects;
  if (!fx || fx.disabled) return false;
  return SUPPORTED.some((k) => list(fx[k] as Effect[] | Effect | undefined).length > 0);
}

const px = (v: { value: number } | undefined) => v?.value ?? 0;

/** How far (output pixels) effects reach beyond the layer's pixels. */
export function effectMargin(node: LayerNode, scale: number): number {
  const fx = node.effects!;
  let m = 0;
  for (const s of list(fx.dropShadow)) m = Math.max(m, px(s.size) + px(s.distance));
  for (const g of list(fx.outerGlow)) m = Math.max(m, px(g.size));
  for (const s of list(fx.stroke)) m = Math.max(m, px(s.size));
  // Inner effects blur what lies outside the shape: that outside must be in the arrays.
  for (const g of list(fx.innerGlow)) m = Math.max(m, px(g.size));
  for (const s of list(fx.innerShadow)) m = Math.max(m, px(s.size) + px(s.distance));
  // An outer bevel's height field is the shape dilated by its size, then blurred by it: it reads
  // (and paints) up to twice the size out, plus the soften blur.
  // A stroke emboss blurs the stroke's band, which reaches the stroke's size out.
  const stroke = Math.max(0, ...list(fx.stroke).map((s) => px(s.size)));
  for (const b of list(fx.bevel)) m = Math.max(m, (b.style === 'outer bevel' ? 2 : 1) * px(b.size) + px(b.soften) + (b.style === 'stroke emboss' ? stroke : 0));
  for (const t of list(fx.satin)) m = Math.max(m, px(t.size) + px(t.distance));
  return Math.ceil(m * scale) + 2;
}

export interface Shape {
  /** Rectangle (output space) the shape arrays cover. */
  x: number;
  y: number;
  w: number;
  h: number;
  /** Masked content alpha 0..1. */
  alpha: Float32Array;
  /** The layer's channel restrictions, which hold for its effects too. */
  excludedChannels?: number[];
  /** Text layers: the gamma their edges blend with, which holds for the effects drawn on them too. */
  gamma?: number;
}

/** The layer's masked alpha, padded by its effects' reach: what every effect is drawn from. */
export function effectShape(ctx: RenderContext, node: LayerNode, content: Surface, mask: Uint8ClampedArray | null): Shape {
  const pad = effectMargin(node, ctx.scale);
  const w = content.w + 2 * pad;
  const h = content.h + 2 * pad;
  const alpha = new Float32Array(w * h);
  for (let y = 0; y < content.h; y++) {
    for (let x = 0; x < content.w; x++) {
      const i = y * content.w + x;
      let a = content.data[i * 4 + 3] / 255;
      if (mask) a *= mask[i] / 255;
      alpha[(y + pad) * w + x + pad] = a;
    }
  }
  const gamma = node.type === 'Text' ? (ctx.compiled.textGamma ?? 1) : 1;
  return { x: content.x - pad, y: content.y - pad, w, h, alpha, excludedChannels: node.excludedChannels, ...(gamma !== 1 ? { gamma } : {}) };
}

/**
 * Blends a coverage map (0..1) of one colour, or of per-pixel colours, onto the canvas.
 * `overlay`: a colour, gradient or pattern overlay, which recolours the layer and so blends its
 * edges as the layer does (text layers: with Photoshop's text gamma).
 */
function paint(
  canvas: Surface,
  shape: Shape,
  coverage: Float32Array,
  color: RGB | Uint8ClampedArray,
  opacity: number,
  mode: string | undefined,
  atop: boolean,
  overlay = false,
): void {
  const data = new Uint8ClampedArray(shape.w * shape.h * 4);
  const solid = !(color instanceof Uint8ClampedArray);
  for (let i = 0, o = 0; i < coverage.length; i++, o += 4) {
    if (solid) {
      data[o] = color[0];
      data[o + 1] = color[1];
      data[o + 2] = color[2];
    } else {
      data[o] = color[o];
      data[o + 1] = color[o + 1];
      data[o + 2] = color[o + 2];
    }
    data[o + 3] = coverage[i] * 255;
  }
  blendSurface(canvas, { x: shape.x, y: shape.y, w: shape.w, h: shape.h, data }, null, opacity, mode ?? 'normal', {
    atop,
    excludedChannels: shape.excludedChannels,
    gamma: overlay ? shape.gamma : 1,
  });
}

function globalAngle(ctx: RenderContext, e: { useGlobalLight?: boolean; angle?: number }): number {
  return e.useGlobalLight !== false && ctx.compiled.globalAngle !== undefined ? ctx.compiled.globalAngle : (e.angle ?? 120);
}

/** Shadow/glow body: spread (choke %) grows the shape, the rest of the size blurs it. */
function soften(alpha: Float32Array, w: number, h: number, size: number, spreadPercent: number): Float32Array {
  const spread = (size * Math.max(0, Math.min(100, spreadPercent))) / 100;
  let a = spread > 0 ? dilate(alpha, w, h, spread) : alpha.slice();
  const radius = size - spread;
  if (radius > 0) a = blur(a, w, h, radius);
  return a;
}

/**
 * Glow body, "precise" technique: Adobe describes it as a distance measurement (where "softer"
 * blurs), for hard-edged mattes such as type. Full strength out to the spread (choke %) of the
 * size from the anti-aliased edge, then falling linearly with the Euclidean distance to nothing
 * at the size: outward from the shape (outer glow) or inward from its edge (inner glow).
 */
export function precise(alpha: Float32Array, w: number, h: number, size: number, spreadPercent: number, inward: boolean): Float32Array {
  const d = signedDistance(alpha, w, h);
  const plateau = (size * Math.max(0, Math.min(100, spreadPercent))) / 100;
  const out = new Float32Array(alpha.length);
  for (let i = 0; i < d.length; i++) {
    const x = Math.max(0, inward ? -d[i] : d[i]);
    out[i] = x <= plateau ? 1 : x >= size ? 0 : 1 - (x - plateau) / (size - plateau);
  }
  return out;
}

export function drawEffectsBelow(ctx: RenderContext, node: LayerNode, canvas: Surface, shape: Shape, atop: boolean): void {
  const fx = node.effects as LayerEffectsInfo;
  const s = ctx.scale;
  const { w, h } = shape;
  for (const g of list(fx.outerGlow).reverse()) {
    const size = px(g.size) * s;
    // ag-psd reads the technique (GlwT) of outer glows too, though its type leaves it out.
    const cov = (g as { technique?: string }).technique === 'precise' ? precise(shape.alpha, w, h, size, px(g.choke), false) : soften(shape.alpha, w, h, size, px(g.choke));
    applyRange(cov, g.range);
    applyContour(cov, g.contour);
    paint(canvas, shape, cov, rgbOf(g.color), (g.opacity ?? 1) * node.opacity, g.blendMode ?? 'screen', atop);
  }
  for (const d of list(fx.dropShadow).reverse()) {
    const angle = (globalAngle(ctx, d) * Math.PI) / 180;
    const dist = px(d.distance) * s;
    const moved = shift(shape.alpha, w, h, -Math.cos(angle) * dist, Math.sin(angle) * dist);
    const cov = soften(moved, w, h, px(d.size) * s, px(d.choke));
    applyContour(cov, d.contour);
    paint(canvas, shape, cov, rgbOf(d.color), (d.opacity ?? 1) * node.opacity, d.blendMode ?? 'multiply', atop);
  }
}

/** An effect's contour (its falloff curve, 0..255 both ways) applied to a coverage map. */
function applyContour(cov: Float32Array, contour: { curve?: Array<{ x: number; y: number }> } | undefined): void {
  const lut = curveLut(contour?.curve?.map((p) => ({ input: p.x, output: p.y })));
  if (!lut) return;
  for (let i = 0; i < cov.length; i++) {
    const v = Math.max(0, Math.min(1, cov[i])) * 255;
    const lo = Math.floor(v);
    const hi = Math.min(255, lo + 1);
    cov[i] = (lut[lo] + (lut[hi] - lut[lo]) * (v - lo)) / 255;
  }
}

/**
 * Glow "range": the share of the blurred falloff the contour spans; the falloff is divided by it
 * (range 50 % doubles it, which is what Photoshop's glows measure as).
 */
function applyRange(cov: Float32Array, range: number | undefined): void {
  const k = 1 / Math.max(0.01, range ?? 0.5);
  for (let i = 0; i < cov.length; i++) cov[i] = Math.min(1, cov[i] * k);
}

/**
 * The effects over the content. `overOverlays` draws what sits between the overlays and the other
 * interior effects: a shape layer's own stroke, which Photoshop keeps above its fill overlays.
 */
export function drawEffectsAbove(
  ctx: RenderContext,
  node: LayerNode,
  canvas: Surface,
  shape: Shape,
  atop: boolean,
  overOverlays?: () => void,
): void {
  const fx = node.effects as LayerEffectsInfo;
  const s = ctx.scale;
  const { w, h, alpha } = shape;
  const opacity = node.opacity;

  const pattern = fx.patternOverlay;
  const tile = on(pattern) && pattern.pattern ? ctx.patterns.get(pattern.pattern.id) : null;
  if (on(pattern) && tile) {
    // Tiled from the document origin, or when linked with the layer from its effects reference
    // point, at its scale and phase; the pattern's own transparency thins the overlay.
    const tiling = effectTiling(node, s, pattern.align !== false, pattern.phase, pattern.scale ?? 1);
    const colors = tilePattern(tile, tiling, shape.x, shape.y, w, h);
    const cov = new Float32Array(alpha.length);
    for (let i = 0; i < cov.length; i++) cov[i] = alpha[i] * (colors[i * 4 + 3] / 255);
    paint(canvas, shape, cov, colors, (pattern.opacity ?? 1) * opacity, pattern.blendMode, atop, true);
  }
  for (const g of list(fx.gradientOverlay).reverse()) {
    const colors = gradientFill(g, shape, ctx, node);
    if (!colors) continue;
    const cov = new Float32Array(alpha.length);
    for (let i = 0; i < cov.length; i++) cov[i] = alpha[i] * (colors[i * 4 + 3] / 255);
    paint(canvas, shape, cov, colors, (g.opacity ?? 1) * opacity, g.blendMode, atop, true);
  }
  for (const f of list(fx.solidFill).reverse()) {
    paint(canvas, shape, alpha, rgbOf(f.color), (f.opacity ?? 1) * opacity, f.blendMode, atop, true);
  }
  overOverlays?.();
  const satin = fx.satin;
  if (on(satin)) {
    // Two copies of the shape, blurred and pushed apart along the angle; their difference.
    const angle = ((satin.angle ?? 19) * Math.PI) / 180;
    const dist = px(satin.distance) * s;
    const dx = Math.cos(angle) * dist;
    const dy = -Math.sin(angle) * dist;
    const size = px(satin.size) * s;
    const a = blur(shift(alpha, w, h, dx, dy), w, h, size);
    const b = blur(shift(alpha, w, h, -dx, -dy), w, h, size);
    const cov = new Float32Array(alpha.length);
    const lut = curveLut(satin.contour?.curve?.map((p) => ({ input: p.x, output: p.y })));
    for (let i = 0; i < cov.length; i++) {
      let v = Math.min(1, Math.abs(a[i] - b[i]));
      if (lut) v = lut[Math.round(v * 255)] / 255;
      cov[i] = (satin.invert ? 1 - v : v) * alpha[i];
    }
    paint(canvas, shape, cov, rgbOf(satin.color), (satin.opacity ?? 0.5) * opacity, satin.blendMode ?? 'multiply', atop);
  }
  const inner = fx.innerGlow;
  if (on(inner)) {
    const size = px(inner.size) * s;
    const outside = new Float32Array(alpha.length);
    for (let i = 0; i < alpha.length; i++) outside[i] = 1 - alpha[i];
    let cov = inner.technique === 'precise' ? precise(alpha, w, h, size, px(inner.choke), true) : soften(outside, w, h, size, px(inner.choke));
    if (inner.source === 'center') cov = cov.map((v) => 1 - v);
    for (let i = 0; i < cov.length; i++) cov[i] = Math.min(1, cov[i]) * alpha[i];
    applyRange(cov, inner.range);
    applyContour(cov, inner.contour);
    paint(canvas, shape, cov, rgbOf(inner.color), (inner.opacity ?? 1) * opacity, inner.blendMode ?? 'screen', atop);
  }
  for (const d of list(fx.innerShadow).reverse()) {
    const angle = (globalAngle(ctx, d) * Math.PI) / 180;
    const dist = px(d.distance) * s;
    const outside = new Float32Array(alpha.length);
    for (let i = 0; i < alpha.length; i++) outside[i] = 1 - alpha[i];
    const moved = shift(outside, w, h, -Math.cos(angle) * dist, Math.sin(angle) * dist, 1);
    const cov = soften(moved, w, h, px(d.size) * s, px(d.choke));
    applyContour(cov, d.contour);
    for (let i = 0; i < cov.length; i++) cov[i] *= alpha[i];
    paint(canvas, shape, cov, rgbOf(d.color), (d.opacity ?? 1) * opacity, d.blendMode ?? 'multiply', atop);
  }
  drawStrokes(ctx, node, canvas, shape, atop);
  const bevel = fx.bevel;
  if (on(bevel)) drawBevel(ctx, node, bevel, shape, canvas, opacity, atop);
}

type Stroke = NonNullable<LayerEffectsInfo['stroke']>[number];

/**
 * Stroke effects, the first listed on top (Photoshop lists several strokes top first). Each is a
 * band of `size` px along the masked shape's edge: outside it (from the edge out), inside it
 * (from the edge in) or centred on it, measured from the anti-aliased edge with sub-pixel
 * precision and anti-aliased by each pixel's share of the band. Filled with a colour, a gradient
 * (over the layer's box, as a gradient overlay) or a pattern (tiled as a pattern overlay). The
 * stroke takes the layer's opacity, not its fill opacity: at fill 0 the interior goes and the
 * stroke stays.
 */
function drawStrokes(ctx: RenderContext, node: LayerNode, canvas: Surface, shape: Shape, atop: boolean): void {
  const fx = node.effects as LayerEffectsInfo;
  const strokes = list(fx.stroke).filter((st) => px(st.size) * ctx.scale > 0);
  if (!strokes.length) return;
  const { w, h, alpha } = shape;
  const dist = signedDistance(alpha, w, h);
  for (const st of strokes.reverse()) {
    const cov = strokeBand(st, dist, ctx.scale);
    let color: RGB | Uint8ClampedArray = rgbOf(st.color);
    if (st.fillType === 'gradient' && st.gradient) {
      const g = st.gradient;
      const colors = gradientFill({ ...g, type: g.style ?? 'linear', gradient: g }, shape, ctx, node);
      if (colors) {
        color = colors;
        for (let i = 0; i < cov.length; i++) cov[i] *= colors[i * 4 + 3] / 255;
      }
    } else if (st.fillType === 'pattern' && st.pattern) {
      const tile = ctx.patterns.get(st.pattern.id);
      if (tile) {
        // Linked with the layer unless the file says otherwise (Photoshop's default).
        const p = st.pattern as { linked?: boolean; phase?: { x: number; y: number } };
        color = tilePattern(tile, effectTiling(node, ctx.scale, p.linked !== false, p.phase, 1), shape.x, shape.y, w, h);
        for (let i = 0; i < cov.length; i++) cov[i] *= color[i * 4 + 3] / 255;
      }
    }
    paint(canvas, shape, cov, color, (st.opacity ?? 1) * node.opacity, st.blendMode, atop);
  }
}

/** A stroke's band (coverage 0..1): `size` px outside, inside or centred on the edge. */
function strokeBand(st: Stroke, dist: Float32Array, scale: number): Float32Array {
  const size = px(st.size) * scale;
  const position = st.position ?? 'outside';
  const [lo, hi] = position === 'outside' ? [0, size] : position === 'inside' ? [-size, 0] : [-size / 2, size / 2];
  const cov = new Float32Array(dist.length);
  for (let i = 0; i < cov.length; i++) cov[i] = bandCoverage(dist[i], lo, hi);
  return cov;
}

type Bevel = NonNullable<LayerEffectsInfo['bevel']>;

/**
 * Bevel and emboss: highlight and shadow maps from bevel.ts, painted. Its curves as ag-psd hands
 * them over: it reads the gloss contour (TrnS) and the Contour element's curve (MpgS) into the
 * same `contour`, and Photoshop writes MpgS after TrnS only when the Contour element is on
 * (useShape). So with useShape on, `contour` is the element's curve
 * and the gloss contour is lost (drawn Linear, Photoshop's default); with it off, `contour` is the
 * gloss contour. A stroke emboss is drawn on the top stroke's band, and not at all without one.
 */
function drawBevel(ctx: RenderContext, node: LayerNode, b: Bevel, shape: Shape, canvas: Surface, opacity: number, atop: boolean): void {
  const { w, h } = shape;
  let alpha = shape.alpha;
  if (b.style === 'stroke emboss') {
    const st = list((node.effects as LayerEffectsInfo).stroke).find((x) => px(x.size) * ctx.scale > 0);
    if (!st) return;
    alpha = strokeBand(st, signedDistance(shape.alpha, w, h), ctx.scale);
  }
  const curve = curveLut(b.contour?.curve?.map((p) => ({ input: p.x, output: p.y })));
  const globalAltitude = b.useGlobalLight !== false ? ctx.compiled.globalAltitude : undefined;
  const { hi, lo } = bevelMaps(alpha, w, h, {
    gloss: b.useShape ? null : curve,
    contour: b.useShape ? curve : null,
    style: b.style,
    technique: b.technique,
    size: Math.max(1, px(b.size) * ctx.scale),
    depth: b.strength ?? 1,
    up: b.direction !== 'down',
    soften: px(b.soften) * ctx.scale,
    angle: globalAngle(ctx, b),
    altitude: globalAltitude ?? b.altitude ?? 30,
  });
  paint(canvas, shape, hi, rgbOf(b.highlightColor ?? { r: 255, g: 255, b: 255 }), (b.highlightOpacity ?? 0.75) * opacity, b.highlightBlendMode ?? 'screen', atop);
  paint(canvas, shape, lo, rgbOf(b.shadowColor), (b.shadowOpacity ?? 0.75) * opacity, b.shadowBlendMode ?? 'multiply', atop);
}

type GradientOverlay = NonNullable<LayerEffectsInfo['gradientOverlay']>[number];

/**
 * Per-pixel colours of a gradient overlay over the shape's rectangle; the gradient's opacity
 * (its opacity stops) in the alpha bytes, which callers fold into their coverage.
 */
function gradientFill(g: GradientOverlay, shape: Shape, ctx: RenderContext, node: LayerNode): Uint8ClampedArray | null {
  const grad = g.gradient;
  if (!grad) return null;
  const built = gradientRamp(grad as Gradient, { reverse: g.reverse });
  if (!built) return null;
  const { rgba: ramp, steps: STEPS } = built;
  // Geometry: aligned to the layer's bounds (output space).
  const s = ctx.scale;
  const b = node.bounds;
  const cx = ((b.left + b.right) / 2) * s + (g.offset?.x ?? 0) / 100 * (b.right - b.left) * s;
  const cy = ((b.top + b.bottom) / 2) * s + (g.offset?.y ?? 0) / 100 * (b.bottom - b.top) * s;
  const bw = (b.right - b.left) * s;
  const bh = (b.bottom - b.top) * s;
  const angle = (((g.angle ?? 90)) * Math.PI) / 180;
  const dx = Math.cos(angle);
  const dy = -Math.sin(angle);
  const sc = g.scale ?? 1;
  const scale = (sc > 10 ? sc / 100 : sc) || 1;
  const type = g.type ?? 'linear';
  // Across the layer's box along the angle, to the nearer pair of edges.
  const across = Math.min(Math.abs(dx) > 1e-6 ? bw / Math.abs(dx) : Infinity, Math.abs(dy) > 1e-6 ? bh / Math.abs(dy) : Infinity);
  const length = across * scale || 1;
  const radius = length / 2;
  const out = new Uint8ClampedArray(shape.w * shape.h * 4);
  for (let y = 0; y < shape.h; y++) {
    for (let x = 0; x < shape.w; x++) {
      const px0 = shape.x + x + 0.5 - cx;
      const py0 = shape.y + y + 0.5 - cy;
      let t: number;
      if (type === 'radial') t = Math.hypot(px0, py0) / radius;
      else if (type === 'reflected') t = Math.abs((px0 * dx + py0 * dy) / (length / 2));
      else if (type === 'angle') t = ((Math.atan2(-py0, px0) - angle) / (2 * Math.PI) + 2) % 1;
      else if (type === 'diamond') t = (Math.abs(px0) + Math.abs(py0)) / radius;
      else t = (px0 * dx + py0 * dy) / length + 0.5;
      const k = Math.round(Math.max(0, Math.min(1, t)) * (STEPS - 1)) * 4;
      const o = (y * shape.w + x) * 4;
      out[o] = ramp[k];
      out[o + 1] = ramp[k + 1];
      out[o + 2] = ramp[k + 2];
      out[o + 3] = ramp[k + 3];
    }
  }
  return out;
}



const nodeOpacity = (node: LayerNode) => node.opacity * node.fillOpacity;

/**
 * A shape layer's own stroke, re-drawn from its path: Photoshop draws it over the layers clipped
 * to the shape (they clip to the fill), although it is also baked into the layer's pixels.
 */
export function drawShapeStroke(
  ctx: RenderContext,
  node: LayerNode,
  target: Surface,
  content: Surface,
  mask: Uint8ClampedArray | null,
  atop = false,
): void {
  const st = node.vectorStroke;
  const vm = node.vectorMask;
  if (!st || !vm || vm.disabled) return;
  const width = st.width * ctx.scale;
  if (width <= 0) return;
  const pad = Math.ceil(width) + 2;
  const rect = { left: content.x - pad, top: content.y - pad, right: content.x + content.w + pad, bottom: content.y + content.h + pad };
  const w = rect.right - rect.left;
  const h = rect.bottom - rect.top;
  const raster = rasterizeVectorMask(vm, ctx.scale, rect);
  const fill = Float32Array.from(raster, (v) => v / 255);
  // The same band as the stroke effect's, from the path's anti-aliased edge.
  const dist = signedDistance(fill, w, h);
  const [lo, hi] = st.alignment === 'inside' ? [-width, 0] : st.alignment === 'outside' ? [0, width] : [-width / 2, width / 2];
  const cov = Float32Array.from(dist, (d) => bandCoverage(d, lo, hi));
  if (mask) {
    for (let y = 0; y < content.h; y++) {
      for (let x = 0; x < content.w; x++) cov[(y + pad) * w + x + pad] *= mask[y * content.w + x] / 255;
    }
  }
  const hex = st.color;
  const rgb: RGB = [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
  paint(target, { x: rect.left, y: rect.top, w, h, alpha: fill, excludedChannels: node.excludedChannels }, cov, rgb, st.opacity * nodeOpacity(node), st.blendMode, atop);
}
