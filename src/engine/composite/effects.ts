import { drop, keep } from '../memory/drop';
import type { LayerEffectsInfo } from 'ag-psd';
import type { LayerNode } from '../types';
import { blendSurface, FILL_INSIDE, type BlendOptions } from './blend';
import { curveLut } from './adjust';
import { bandCoverage, bilinearMove, blur, blurInPlace, boxRadii, chamferDistance, effectKernels, erode, movedBlur, Scratch, shift, signedDistance, spreadMatte, wasmEffectPasses, type ClampedBlurKernel, type HeldArena } from './morphology';
import { inArena, type KernelExports } from '../raster/kernels';
import { keptChannels, wasmBlendMode } from '../raster/blend';
import { bevelCut, bevelLight, throughCurve } from './bevel';
import { effectOn, effectTiling, patternRows } from './pattern';
import { gradientRamp, rgbOf, type Gradient, type RGB } from './gradient';
import { gradientPixels } from './gradient-geometry';
import { rasterizeVectorMask } from './vector';
import { knownInk } from '../cache/ink';
import type { EffectContext } from './context';
import { createSurface, cropSurface, growRect, intersectRect, rectOf, type Surface } from './surface';
import { outputRect } from './resample';
import type { Bounds } from '../types';

/**
 * The gamma a layer's edges blend with: the document's "Blend Text Colors Using Gamma" (Photoshop
 * CC's 1.45; blend.ts textSpace) for text layers, undefined for the rest. Not for text set wholly in a
 * colour emoji font: its glyphs are pictures, not a text colour, and Photoshop blends them
 * linearly (webtoon-mobile-ui-example.psd's 🤣, AppleColorEmoji: the plain blend gives its
 * pixels to the level, the text gamma up to 19 levels off).
 */
export function textGammaOf(gamma: number | undefined, node: Pick<LayerNode, 'type' | 'text'>): number | undefined {
  if (node.type !== 'Text' || gamma === undefined || gamma === 1) return undefined;
  const text = node.text;
  const emoji = !!text && [text.font, ...(text.runs ?? []).map((run) => run.font)].every((font) => /emoji/i.test(font));
  return emoji ? undefined : gamma;
}

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
const on: <T extends Effect>(e: T | undefined) => e is T = effectOn;
const list = <T extends Effect>(e: T[] | T | undefined): T[] => (Array.isArray(e) ? e : e ? [e] : []).filter(on);

const SUPPORTED = ['dropShadow', 'outerGlow', 'patternOverlay', 'gradientOverlay', 'solidFill', 'innerGlow', 'innerShadow', 'stroke', 'bevel', 'satin'] as const;

export function hasEffects(node: LayerNode): boolean {
  const fx = node.effects;
  if (!fx || fx.disabled) return false;
  return SUPPORTED.some((k) => list(fx[k] as Effect[] | Effect | undefined).length > 0);
}

/**
 * Effects that recolour the layer inside its own pixels (overlays, satin, inner glow and shadow,
 * inside strokes, an inner bevel): drawn within the layer's own composite, they keep its alpha
 * (docs/effects.md, Fidelity).
 */
export function hasInteriorEffects(node: LayerNode): boolean {
  const fx = node.effects;
  if (!hasEffects(node) || !fx) return false;
  const inner = ['patternOverlay', 'gradientOverlay', 'solidFill', 'satin', 'innerGlow', 'innerShadow'] as const;
  if (inner.some((k) => list(fx[k] as Effect[] | Effect | undefined).length > 0)) return true;
  if (list(fx.stroke).some((st) => st.position === 'inside')) return true;
  return list(fx.bevel).some((b) => (b.style ?? 'inner bevel') === 'inner bevel');
}

/**
 * Whether drawEffectsBelow may paint onto the target or keep it for later (glows and shadows under
 * the layer, strokes, or interior effects in modes of their own over a faded fill, which blend with
 * the backdrop: blendedColours). Without any, a unit drawn apart (the compositor's clipping group)
 * reads nothing of what lies below it until it is blended there.
 */
export function drawsBelow(node: LayerNode): boolean {
  const fx = node.effects;
  if (!hasEffects(node) || !fx) return false;
  if (list(fx.outerGlow).length || list(fx.dropShadow).length || list(fx.stroke).length) return true;
  return (node.fillOpacity ?? 1) < 1 && interiorModes(fx as LayerEffectsInfo);
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
  // A bevel's height field is the shape blurred by its size: it reads (and paints) the size out,
  // plus the soften blur. A stroke emboss blurs the stroke's band, which reaches the stroke's size out.
  const stroke = Math.max(0, ...list(fx.stroke).map((s) => px(s.size)));
  for (const b of list(fx.bevel)) m = Math.max(m, px(b.size) + px(b.soften) + (b.style === 'stroke emboss' ? stroke : 0));
  for (const t of list(fx.satin)) m = Math.max(m, px(t.size) + px(t.distance));
  return Math.ceil(m * scale) + 2;
}

/**
 * What a layer's effects are drawn from: its masked alpha, read over any rectangle the effects
 * need. Effects are bounded by the region they can touch (issue 25 §1): each paints only on the
 * part of the target (the canvas or strip being drawn) within its reach of the layer's pixels,
 * and computes its arrays over that part grown by what its kernel reads (blur radius, morphology
 * reach, a shadow's source shifted back by its offset), in tiles of at most TILE_AREA pixels. A
 * shadow 5,000 px away reads the rows and columns that land on the target after the offset, not
 * an array padded by 5,000 px on every side.
 */
export interface Shape {
  /** Where the masked alpha may be non-zero (output space): the layer's pixels as loaded. */
  extent: Bounds;
  /**
   * Where effects are drawn at all: the extent grown by the effects' margin (effectMargin), the
   * array every effect was drawn on before they were bounded. Nothing is painted outside it, and
   * running sums (blurs) over what is not zero far from the shape start at its corner, so that
   * where it fits on the target the output is the same to the bit.
   */
  frame: Bounds;
  /** The masked content alpha 0..1 over r (0 outside the layer's pixels), into `into` if given (as long). */
  alphaOver(r: Bounds, into?: Float32Array): Float32Array;
  /**
   * What the layer's own pixels cover, where it differs from alphaOver (a soft-filled shape, whose
   * effects trace its path): what overlays recolour, inner effects lie within and the content
   * covers over an outside stroke or a shadow. Absent: alphaOver.
   */
  fillOver?(r: Bounds): Float32Array;
  /**
   * fillOf reads each pixel by itself (no path drawn over the rectangle asked, which a layer past
   * the canvas with a vector mask has: pastCanvas): its values over any rectangle are those of a
   * larger one there, so a tile or a band of rows may read its own.
   */
  fillByPixel?: boolean;
  /** The layer's channel restrictions, which hold for its effects too. */
  excludedChannels?: number[];
  /** Text layers: the gamma their edges blend with, which holds for the effects drawn on them too. */
  gamma?: number;
  /**
   * Where alphaOver is the pixels' alpha alone (no mask or path): those pixels, each over its
   * rectangle, read in the kernels' memory by the effects drawn there (shadowInKernels,
   * strokesInKernels), then `pastCanvas` over the same array.
   */
  pixelSources?: readonly { rect: Bounds; content: Surface }[];
  /** With pixelSources: what alphaOver adds where the layer runs off the canvas (pastCanvas), if it does. */
  pastCanvas?: (r: Bounds, alpha: Float32Array) => void;
  /** With pastCanvas: the canvas and the bounds of the layers that run off it (OffCanvas), for tightShape. */
  offCanvas?: { canvas: Bounds; layers: Bounds[] };
  /**
   * A tightShape cut of a shape with pastCanvas: a rectangle holding every pixel whose alpha (on
   * the canvas and past it) is not 0, which may reach past the extent; nearShape cuts the arrays to it.
   */
  alphaReach?: Bounds;
}

/** A rectangle of float values (coverage, distances), output space. */
const widthOf = (r: Bounds) => r.right - r.left;
const heightOf = (r: Bounds) => r.bottom - r.top;
const areaOf = (r: Bounds) => widthOf(r) * heightOf(r);
const moved = (r: Bounds, dx: number, dy: number): Bounds => ({ left: r.left + dx, top: r.top + dy, right: r.right + dx, bottom: r.bottom + dy });
const unionOf = (a: Bounds, b: Bounds): Bounds => ({
  left: Math.min(a.left, b.left),
  top: Math.min(a.top, b.top),
  right: Math.max(a.right, b.right),
  bottom: Math.max(a.bottom, b.bottom),
});

/** Effects on a layer with no edge of its own (a whole-layer plane, a group not yet drawn): everywhere. */
export const EVERYWHERE: Bounds = { left: -(2 ** 30), top: -(2 ** 30), right: 2 ** 30, bottom: 2 ** 30 };

/**
 * A layer's masked alpha from its pixels (and mask), each a surface over its own rectangle; what
 * lies outside them reads 0. Several sources serve a layer whose effects read far apart (a far
 * shadow's source beside the layer under the target).
 */
export function shapeFrom(node: LayerNode, ctx: EffectContext, sources: ShapeSource[], frame?: Bounds): Shape | null {
  if (!sources.length) return null;
  const extent = sources.map((s) => s.rect).reduce(unionOf);
  const alphaOver = (r: Bounds, into?: Float32Array) => {
    const w = widthOf(r);
    const alpha = into ? into.fill(0) : new Float32Array(w * heightOf(r));
    // The layer's pixels alone (no mask, path or alpha-only source): read by the kernels.
    if (plain && alphaViaKernels(sources as NonNullable<Shape['pixelSources']>, r, alpha)) {
      if (past) pastCanvas(r, alpha, past, sourced);
      return alpha;
    }
    for (const { rect, content, mask } of sources) {
      const i = intersectRect(r, rect);
      if (!i) continue;
      const sw = widthOf(rect);
      const pixels = content?.data;
      // RGBA, or the alpha alone (alphaOnly): byte c·n + n − 1 of pixel c.
      const n = content && alphaOnly(content) ? 1 : 4;
      for (let y = i.top; y < i.bottom; y++) {
        let c = (y - rect.top) * sw + (i.left - rect.left);
        let o = (y - r.top) * w + (i.left - r.left);
        const end = o + (i.right - i.left);
        if (pixels && !mask) for (; o < end; o++, c++) alpha[o] = pixels[c * n + n - 1] / 255;
        else {
          for (; o < end; o++, c++) {
            let a = pixels ? pixels[c * n + n - 1] / 255 : 1;
            if (mask) a *= mask[c] / 255;
            alpha[o] = a;
          }
        }
      }
    }
    if (past) pastCanvas(r, alpha, past, sourced);
    return alpha;
  };
  // At one pixel of the loaded sources (0 outside them): the masked alpha, or the mask alone.
  const sourcedAt =
    (withContent: boolean) =>
    (x: number, y: number): number => {
      for (const { rect, content, mask } of sources) {
        if (x < rect.left || x >= rect.right || y < rect.top || y >= rect.bottom) continue;
        const c = (y - rect.top) * widthOf(rect) + (x - rect.left);
        const n = content && alphaOnly(content) ? 1 : 4;
        return (withContent && content ? content.data[c * n + n - 1] / 255 : 1) * (mask ? mask[c] / 255 : 1);
      }
      return 0;
    };
  const sourced = sourcedAt(true);
  const maskAt = sourcedAt(false);
  const past = offCanvas(node, ctx);
  const gamma = textGammaOf(ctx.compiled.textGamma, node) ?? 1;
  const path = tracedPath(node, sources);
  // A soft-filled shape: its path × its masks (the pixel mask read where the pixels were loaded,
  // and past the canvas from its edge as the alpha is), or its stored alpha where that is more;
  // the stored alpha kept for the fill.
  const pathOver = path
    ? (r: Bounds, into?: Float32Array) => {
        const w = widthOf(r);
        const alpha = into ? into.fill(0) : new Float32Array(w * heightOf(r));
        for (const { rect, mask } of sources) {
          const i = intersectRect(r, rect);
          if (!i) continue;
          const sw = widthOf(rect);
          for (let y = i.top; y < i.bottom; y++) {
            let c = (y - rect.top) * sw + (i.left - rect.left);
            let o = (y - r.top) * w + (i.left - r.left);
            for (const end = o + (i.right - i.left); o < end; o++, c++) alpha[o] = mask ? mask[c] / 255 : 1;
          }
        }
        if (past) pastCanvas(r, alpha, { ...past, path: undefined }, maskAt);
        const raster = rasterizeVectorMask(path, ctx.scale, r);
        // Never less than the stored alpha: a shape's own (vector) stroke centred on or outside
        // the path is in its pixels beyond the path, part of what its effects outline.
        const stored = alphaOver(r);
        for (let i = 0; i < alpha.length; i++) alpha[i] = Math.max(alpha[i] * (raster[i] / 255), stored[i]);
        drop(raster, stored);
        return alpha;
      }
    : null;
  // The kernels read RGBA (alphaInKernels, coveredBox): a source of the alpha alone draws through the passes.
  const plain = !path && !past?.path && sources.every((s) => s.content && !alphaOnly(s.content) && !s.mask);
  return {
    extent,
    frame: frame ?? growRect(extent, effectMargin(node, ctx.scale)),
    ...(pathOver ? { alphaOver: pathOver, fillOver: (r: Bounds) => alphaOver(r) } : { alphaOver }),
    ...(past?.path ? {} : { fillByPixel: true }),
    excludedChannels: node.excludedChannels,
    ...(gamma !== 1 ? { gamma } : {}),
    ...(plain ? { pixelSources: sources.map((s) => ({ rect: s.rect, content: s.content! })) } : {}),
    ...(plain && past ? { pastCanvas: (r: Bounds, alpha: Float32Array) => pastCanvas(r, alpha, past, sourced), offCanvas: { canvas: past.canvas, layers: past.layers } } : {}),
  };
}

/**
 * The path a shape layer's effects trace instead of its stored alpha, or null. psd-tools' tests
 * (test_effects.py, test_stroke_effects_xfail, on Photoshop's render of stroke-effects.psd): "a
 * shape layer's stroke is traced from its rasterized fill, and where that fill fades to transparent
 * the trace fades with it, so a stroke lands across an interior Photoshop leaves alone --
 * Photoshop strokes the path". Only where the fill can fade inside the path (node.softFill): a
 * solid fill's stored alpha is Photoshop's own rendering of the path, kept to the bit. Not for the
 * whole-layer plane ("Transparency Shapes Layer" off: sources without pixels).
 */
function tracedPath(node: LayerNode, sources: ShapeSource[]): NonNullable<LayerNode['vectorMask']> | null {
  const vm = node.vectorMask;
  if (node.type !== 'Shape' || !node.softFill || !vm || vm.disabled || node.children) return null;
  return sources.every((s) => s.content) ? vm : null;
}

/**
 * Where a layer runs off the canvas: the canvas (output space) and the layer's own bounds past it
 * (a group's: each shown layer's inside it), or null. The compiler keeps the pixels on the canvas
 * only (compiled/compile.ts), so its effects would trace the canvas's edge as the layer's.
 * Photoshop traces the layer: psd-tools' stroke-effect-transparent-shape.psd (a 4 px inset stroke
 * on a shape from (−1, −1) to (33, 33) on 32 × 32: three columns of stroke on the canvas) and
 * group-stroke-off-canvas.psd (a group's inset stroke: no band where the group goes on past the
 * canvas, a band where it ends at x = 0), test_effects.py, #804 and #808.
 */
interface OffCanvas {
  canvas: Bounds;
  layers: Bounds[];
  /** A layer's own vector mask: past the canvas the layer goes on as its path does. */
  path?: NonNullable<LayerNode['vectorMask']>;
  scale: number;
}

function offCanvas(node: LayerNode, ctx: EffectContext): OffCanvas | null {
  const canvas = outputRect({ left: 0, top: 0, right: ctx.compiled.width, bottom: ctx.compiled.height }, ctx.scale);
  const layers: Bounds[] = [];
  const visit = (n: LayerNode) => {
    if (n.visible === false) return;
    if (n.children) return n.children.forEach(visit);
    if (n.adjustment) return;
    const b = ctx.overrides.get(n.id)?.bounds ?? outputRect(n.bounds, ctx.scale);
    if (b.left < canvas.left || b.top < canvas.top || b.right > canvas.right || b.bottom > canvas.bottom) layers.push(b);
  };
  visit(node);
  if (!layers.length) return null;
  const vm = node.vectorMask;
  return { canvas, layers, scale: ctx.scale, ...(!node.children && vm && !vm.disabled ? { path: vm } : {}) };
}

/**
 * The masked alpha past the canvas, within the layer's bounds: the nearest pixel's on the canvas's
 * edge (the layer taken to go on as it leaves the canvas; its pixels there were not kept), and
 * where the layer has a vector mask, as far as its path goes (that pixel's alpha relative to the
 * path's coverage there, times the path's coverage here).
 */
function pastCanvas(r: Bounds, alpha: Float32Array, past: OffCanvas, at: (x: number, y: number) => number): void {
  const { canvas, layers } = past;
  if (r.left >= canvas.left && r.top >= canvas.top && r.right <= canvas.right && r.bottom <= canvas.bottom) return;
  const w = widthOf(r);
  const clampX = (x: number) => Math.min(canvas.right - 1, Math.max(canvas.left, x));
  const clampY = (y: number) => Math.min(canvas.bottom - 1, Math.max(canvas.top, y));
  // Nothing of the layer past the canvas in r (a far shadow's source, read back by its offset).
  if (!layers.some((b) => intersectRect(b, r))) return;
  let path: ((x: number, y: number) => number) | null = null;
  if (past.path) {
    // The path over r and over r clamped to the canvas (its edge pixels), each on its own: not
    // over their union, which for an r 30,000 px off the canvas was 155 M floats (seed 11222 of
    // fuzz-session11.test.ts: a 7 × 1 document's 30,000 px shadow took 820 MB and 20 s).
    const C = { left: clampX(r.left), top: clampY(r.top), right: clampX(r.right - 1) + 1, bottom: clampY(r.bottom - 1) + 1 };
    const here = rasterizeVectorMask(past.path, past.scale, r);
    const edge = rasterizeVectorMask(past.path, past.scale, C);
    const cw = widthOf(C);
    path = (x, y) => (x >= r.left && x < r.right && y >= r.top && y < r.bottom ? here[(y - r.top) * w + (x - r.left)] : edge[(y - C.top) * cw + (x - C.left)]) / 255;
  }
  // One layer running off (a text): only its rows and columns are visited, the pixels that
  // `layers.some` passes (issue 25 §3: a satin's copies reach 38 rows past the canvas, each
  // pixel tested with a closure); several: every pixel of r, tested.
  const one = layers.length === 1 ? layers[0]! : null;
  const top = one ? Math.max(r.top, one.top) : r.top;
  const bottom = one ? Math.min(r.bottom, one.bottom) : r.bottom;
  const left = one ? Math.max(r.left, one.left) : r.left;
  const right = one ? Math.min(r.right, one.right) : r.right;
  for (let y = top; y < bottom; y++) {
    const rowOut = y < canvas.top || y >= canvas.bottom;
    if (one && !path) {
      // Without a path a run past the left or right edge is the one edge pixel's alpha (filled:
      // no pixel-by-pixel loop, which allocated a number a pixel until optimised: 140 KB a
      // request on the poster's headline); a row above or below the canvas reads, between the
      // runs, the pixel straight above or below each on the canvas.
      const cy = clampY(y);
      const row = (y - r.top) * w - r.left;
      const leftEnd = Math.min(right, canvas.left);
      const rightStart = Math.max(left, canvas.right);
      if (left < leftEnd) alpha.fill(at(canvas.left, cy), row + left, row + leftEnd);
      if (rowOut) for (let x = Math.max(left, canvas.left); x < Math.min(right, canvas.right); x++) alpha[row + x] = at(x, cy);
      if (rightStart < right) alpha.fill(at(canvas.right - 1, cy), row + rightStart, row + right);
      continue;
    }
    // The edge pixel read last in this row and its alpha: a row's pixels past the canvas's left or
    // right edge all read the same one (`at` is a pure lookup).
    let atX = NaN;
    let atA = 0;
    for (let x = left; x < right; x++) {
      if (!rowOut && x >= canvas.left && x < canvas.right) {
        x = Math.max(x, canvas.right - 1);
        continue;
      }
      if (!one && !layers.some((b) => x >= b.left && x < b.right && y >= b.top && y < b.bottom)) continue;
      const cx = clampX(x);
      const cy = clampY(y);
      if (cx !== atX) {
        atX = cx;
        atA = at(cx, cy);
      }
      let a = atA;
      if (path && a > 0) {
        const edge = path(cx, cy);
        a = edge > 0 ? Math.min(1, a / edge) * path(x, y) : 0;
      }
      alpha[(y - r.top) * w + (x - r.left)] = a;
    }
  }
}

/**
 * Where a shape's alpha comes from over `rect`: the pixels' alpha (content null: opaque, a whole
 * layer plane) times the mask (one byte a pixel of `rect`), if any.
 */
export interface ShapeSource {
  rect: Bounds;
  /** RGBA, or one byte a pixel: its alpha alone (alphaOnly; what a shape reads of a masked layer's pixels). */
  content: Surface | null;
  mask: Uint8ClampedArray | null;
}

/** Whether `s` holds one byte a pixel (a layer's alpha alone, for its effects' shape), not RGBA. */
export const alphaOnly = (s: Surface): boolean => s.data.length === s.w * s.h && s.w * s.h > 0;

/** The layer's masked alpha from its pixels over one rectangle: what every effect is drawn from. */
export function effectShape(ctx: EffectContext, node: LayerNode, content: Surface, mask: Uint8ClampedArray | null): Shape {
  return shapeFrom(node, ctx, [{ rect: rectOf(content), content, mask }])!;
}

/**
 * One way an effect touches the canvas: it paints within `paint` px of the shape (moved by
 * (dx, dy) when `moves`: a drop shadow), and a pixel it paints reads the shape moved by (dx, dy)
 * within `read` px of it (and, when it paints inside the shape, the shape there too).
 */
interface Pass {
  dx: number;
  dy: number;
  paint: number;
  read: number;
  moves?: boolean;
  /**
   * Paints the whole frame: a contour that lifts zero coverage (its curve off 0 at 0) paints
   * everywhere the arrays reach, which is the frame (Shape.frame).
   */
  everywhere?: boolean;
  /** Blurs what is not zero far from the shape (1 − alpha, a pillow's height): see Shape.frame. */
  inverted?: boolean;
  /**
   * A spread shadow's or glow's px read past `read` (spreadReach): its tiles' arrays reach this
   * much further past the edges tiles share, so that every tile is the one-tile draw (eachTile).
   */
  spread?: number;
}

const reach = (v: number) => Math.ceil(v) + 3;

/**
 * How far past `reach(size)` a shadow's or glow's body reads the alpha where the spread (spreadOf)
 * grows it before the blur (soften): ceil(spread) px, with room to spare. What it reads:
 * - the blur (size − spread; two box passes, boxRadii) reads the matte within floor(size − spread);
 * - a matte pixel (morphology.ts spreadMatte) reads its box maximum (ceil(spread + 1)) and the
 *   chamfer distance, which paints only below spread + 0.5: a path shorter than that from a seed
 *   (each ≥ −0.5; each step at least as long as it moves along either axis) stays within
 *   ceil(spread) of the pixel, each node's ratio reading its box maximum again: 2 · ceil(spread) + 1;
 * together at most reach(size) + ceil(spread) − 2. 0 without a spread.
 */
export const spreadReach = (spread: number): number => (spread > 0 ? Math.ceil(spread) : 0);

/** Every pass the node's effects make, output px (see Pass). */
function passesOf(ctx: EffectContext, node: LayerNode): Pass[] {
  const fx = node.effects as LayerEffectsInfo;
  const s = ctx.scale;
  const out: Pass[] = [];
  const at = (paint: number, read = paint, dx = 0, dy = 0, moves = false) => out.push({ dx, dy, paint, read, moves });
  for (const g of list(fx.outerGlow)) at(reach(px(g.size) * s));
  for (const d of list(fx.dropShadow)) {
    const [dx, dy] = offsetOf(ctx, d);
    at(reach(px(d.size) * s), reach(px(d.size) * s), dx, dy, true);
  }
  if (on(fx.patternOverlay) || list(fx.gradientOverlay).length || list(fx.solidFill).length) at(0);
  if (on(fx.satin)) {
    const { dx, dy } = satinOffset(ctx, fx.satin);
    const r = reach(px(fx.satin.size) * s);
    at(0, r, dx, dy);
    at(0, r, -dx, -dy);
  }
  if (on(fx.innerGlow)) at(0, reach(px(fx.innerGlow.size) * s));
  for (const d of list(fx.innerShadow)) {
    const [dx, dy] = offsetOf(ctx, d);
    at(0, reach(px(d.size) * s), dx, dy);
  }
  const strokes = list(fx.stroke).map((st) => px(st.size) * s);
  if (strokes.some((v) => v > 0)) at(reach(Math.max(...strokes)));
  if (on(fx.bevel)) at(reach(bevelReach(fx.bevel, fx, s)));
  return out;
}

/** The rectangle a pass paints on: the target within its reach of the (moved) shape. */
function paintRect(p: Pass, shape: Pick<Shape, 'extent' | 'frame'>, target: Bounds): Bounds | null {
  const around = p.moves ? moved(shape.extent, Math.floor(p.dx), Math.floor(p.dy)) : shape.extent;
  const r = intersectRect(target, shape.frame);
  if (p.everywhere) return r;
  return r && intersectRect(r, p.paint ? growRect(around, p.paint + 1) : around);
}

/** Where a pass reads the shape to paint `r` (its kernel's reach, shifted back by its offset). */
const readRect = (p: Pass, r: Bounds) => growRect(moved(r, -Math.floor(p.dx), -Math.floor(p.dy)), p.read + 1);

/**
 * The rectangles the node's effects read from its shape, drawing onto `target` with the shape
 * anywhere in `extent` (EVERYWHERE before the layer is loaded): what to load (layer pixels, a
 * mask, a group's children) for them, after `include` (the target itself, for the layer's own
 * pixels). Overlapping rectangles come merged; a far shadow's source stays apart from the rest.
 */
export function effectSources(ctx: EffectContext, node: LayerNode, target: Bounds, extent: Bounds = EVERYWHERE, include: Bounds[] = []): Bounds[] {
  const rects: Bounds[] = [...include];
  for (const p of passesOf(ctx, node)) {
    const r = paintRect(p, { extent, frame: EVERYWHERE }, target);
    if (!r) continue;
    rects.push(readRect(p, r));
    if (!p.moves && (p.dx || p.dy)) rects.push(growRect(r, 1));
  }
  // Merge those that overlap (into their bounding box) until none do; the first stays first.
  for (let merged = true; merged; ) {
    merged = false;
    for (let i = 0; i < rects.length && !merged; i++) {
      for (let j = i + 1; j < rects.length && !merged; j++) {
        if (!intersectRect(rects[i], rects[j])) continue;
        rects[i] = unionOf(rects[i], rects[j]);
        rects.splice(j, 1);
        merged = true;
      }
    }
  }
  return rects;
}

/** The most pixels one effect array covers; larger regions are drawn in tiles (issue 25 §1). */
export const TILE_AREA = 1 << 22;

/**
 * The tiles' limit for a shadow or glow with a spread (inner ones with a choke too): its spread
 * (morphology.ts spreadMatte) holds three arrays of the tile at once past the WASM passes (the
 * alpha, its peak and the chamfer field; five before issue 25 §1's cuts), 48 MB at TILE_AREA; a tile
 * of at most 2 M px holds them in 24. Its tiles are exact (eachTile), so where they fall does not
 * change a pixel.
 */
export const SPREAD_TILE_AREA = 1 << 21;

/** The limits eachTile draws with now (useEffectTileAreas); `side`: the least tile spread tiles are exact for. */
const tileAreas = { area: TILE_AREA, spread: SPREAD_TILE_AREA, side: 256 };

/**
 * Sets the tiles' limits (no arguments: back to TILE_AREA, SPREAD_TILE_AREA and tiles of at least
 * 256 px for exact spread tiles): for tests that draw an effect in many tiles and in one and
 * compare the pixels.
 */
export function useEffectTileAreas(area = TILE_AREA, spread = SPREAD_TILE_AREA, side = 256): void {
  Object.assign(tileAreas, { area, spread, side });
  drawing++;
}

/**
 * The effect arrays drawn: every float array an effect allocates (alpha, distances, blurs,
 * coverage; 4 bytes a pixel) covers at most its tile's rectangle grown by its reach, whose
 * pixels `largest` keeps (the tests and the bench read it; reset it to measure).
 */
export const effectArrays = { largest: 0, tiles: 0 };

/**
 * `r` cut into tiles whose arrays (each grown by `read` px) hold at most TILE_AREA pixels, in as
 * few tiles (the least pixels drawn) as that allows; one tile when it fits.
 */
export function tilesOf(r: Bounds, read: number, limit = TILE_AREA): Bounds[] {
  const w = widthOf(r);
  const h = heightOf(r);
  const MAX = 64;
  let best = { nx: Math.min(w, MAX), ny: Math.min(h, MAX), cost: Infinity };
  for (let nx = 1; nx <= Math.min(w, MAX); nx++) {
    for (let ny = 1; ny <= Math.min(h, MAX); ny++) {
      const area = (Math.ceil(w / nx) + 2 * read) * (Math.ceil(h / ny) + 2 * read);
      if (area > limit) continue;
      // More rows of tiles only draw more (each redraws its margins): the first that fits is best.
      if (nx * ny * area < best.cost) best = { nx, ny, cost: nx * ny * area };
      break;
    }
  }
  // A reach too long for any tile to fit (effects far past Photoshop's 250 px, or scaled up):
  // tiles about as wide as the reach, which keeps each array within a few times its square.
  if (best.cost === Infinity) best = { nx: Math.max(1, Math.min(w, Math.ceil(w / Math.max(64, read)))), ny: Math.max(1, Math.min(h, Math.ceil(h / Math.max(64, read)))), cost: 0 };
  const tiles: Bounds[] = [];
  for (let j = 0; j < best.ny; j++) {
    const top = r.top + Math.floor((h * j) / best.ny);
    const bottom = r.top + Math.floor((h * (j + 1)) / best.ny);
    for (let i = 0; i < best.nx; i++) {
      const left = r.left + Math.floor((w * i) / best.nx);
      const right = r.left + Math.floor((w * (i + 1)) / best.nx);
      if (right > left && bottom > top) tiles.push({ left, top, right, bottom });
    }
  }
  return tiles;
}

/**
 * The longest reach (read + spread, output px) drawn in exact spread tiles of `area`: a tile of
 * 256 px then fits with its arrays (at TILE_AREA, effect-reach.ts' MAX_EFFECT_READ). Past it the
 * tiles of `read` alone, as before (eachTile): exact ones would shrink to nothing.
 */
const spreadTileReach = (area: number) => (Math.sqrt(area) - tileAreas.side) / 2;

/** Draws a pass tile by tile: `draw` gets the tile and the rectangle its arrays cover. */
function eachTile(p: Pass, shape: Shape, target: Bounds, draw: (tile: Bounds, arrays: Bounds) => void): void {
  const r = paintRect(p, shape, target);
  if (!r) return;
  // A spread's tiles are exact (below) where a tile of 256 px fits with arrays reaching `far`,
  // and of SPREAD_TILE_AREA where one fits in that.
  const far = p.read + (p.spread ?? 0);
  const exact = !!p.spread && far + 1 <= spreadTileReach(tileAreas.area);
  const limit = exact && far + 1 <= spreadTileReach(tileAreas.spread) ? tileAreas.spread : tileAreas.area;
  // One tile when its arrays (cut to the frame) fit; else tiles sized as if nothing were cut.
  const whole = intersectRect(growRect(r, p.read + 1), shape.frame)!;
  if (areaOf(whole) <= limit) return drawTile(p, shape, r, arraysOf(p, shape, r), draw);
  if (!exact) {
    for (const tile of tilesOf(r, p.read + 1, limit)) drawTile(p, shape, tile, arraysOf(p, shape, tile), draw);
    return;
  }
  // A spread pixel reads past `read` (spreadReach): each tile's arrays reach `far` past the edges
  // it shares with other tiles, and are the one tile's (r's) arrays on r's own edges and within
  // them. A tile pixel's body then reads what the one tile's reads, within `far` of it, and is the
  // one tile's body (the box passes' running sums, which start at the arrays' corner, aside:
  // test/engine/composite/spread-tiles.test.ts compares every pixel). Where a spread reads past
  // MAX_EFFECT_READ the tiles of `read` alone (above), as before.
  const one = arraysOf(p, shape, r);
  for (const tile of tilesOf(r, far + 1, limit)) {
    const arrays = {
      left: tile.left === r.left ? one.left : Math.max(one.left, tile.left - far),
      top: tile.top === r.top ? one.top : Math.max(one.top, tile.top - far),
      right: tile.right === r.right ? one.right : Math.min(one.right, tile.right + far),
      bottom: tile.bottom === r.bottom ? one.bottom : Math.min(one.bottom, tile.bottom + far),
    };
    drawTile(p, shape, tile, arrays, draw);
  }
}

/** The rectangle a tile's arrays cover: the tile grown by the pass's reach. */
function arraysOf(p: Pass, shape: Shape, tile: Bounds): Bounds {
  // Within the frame: the arrays never reached past it (a bevel leaves their edge unlit).
  const arrays = intersectRect(growRect(tile, p.read), shape.frame)!;
  if (p.inverted) {
    // Start where the frame does (within the frame the kernels read nothing past it) unless
    // that more than doubles the arrays: the blurs' running sums then add what they always did.
    const { left, top } = shape.frame;
    if (left >= arrays.left - widthOf(arrays) && left <= arrays.left + 2) arrays.left = left;
    if (top >= arrays.top - heightOf(arrays) && top <= arrays.top + 2) arrays.top = top;
  }
  return arrays;
}

function drawTile(p: Pass, shape: Shape, tile: Bounds, arrays: Bounds, draw: (tile: Bounds, arrays: Bounds) => void): void {
  // Shifted sources take one more row and column (shiftedAlpha).
  effectArrays.largest = Math.max(effectArrays.largest, (widthOf(arrays) + 1) * (heightOf(arrays) + 1));
  effectArrays.tiles++;
  draw(tile, arrays);
}

/**
 * eachTile for an effect that paints inside the shape only (overlays, satin, inner glow and
 * shadow): each tile cut to where the layer's pixels cover anything (tightShape's extent), its
 * arrays' right and bottom edges with it. A personalised text's raster has empty margins (half
 * and more of its box on psdtools-layer-effects-all), over which these effects computed and
 * painted coverage 0, which blends to nothing in every mode (issue 25 §3). The same bytes: the
 * tiles are those of the whole shape (the same arrays' left and top, where an inverted pass's
 * running sums start), and each value a painted pixel reads lies before it in its row and column
 * or within the pass's reach after it, all kept; a pixel off the cut is one of alpha 0, which
 * every such effect multiplies its coverage by.
 */
function eachTileInside(p: Pass, shape: Shape, target: Bounds, draw: (tile: Bounds, arrays: Bounds) => void): void {
  const tight = tightShape(shape);
  if (!tight) return; // no pixel of the layer covers anything: nothing inside it to paint
  if (tight === shape) return eachTile(p, shape, target, draw);
  const covered = tight.alphaReach ?? tight.extent;
  eachTile(p, shape, target, (tile, arrays) => {
    const t = intersectRect(tile, covered);
    if (!t) return;
    // The arrays' right and bottom within the pass's reach of the covered pixels: within it of
    // the tile as well where the tile's arrays end there (t.right + p.read, as this cut was before).
    draw(t, { left: arrays.left, top: arrays.top, right: Math.min(arrays.right, covered.right + p.read), bottom: Math.min(arrays.bottom, covered.bottom + p.read) });
  });
}

/** Bevel tiles eachTileNear drew on arrays smaller than eachTile's (the tests read it). */
export const nearTiles = { cut: 0 };

/**
 * eachTile for a bevel or emboss (fx-text7: emboss, pillow emboss, outer bevel, stroke emboss, the
 * chisels; a smooth inner bevel, which lights only covered pixels, with `grow` 0): each tile cut
 * to the covered pixels (tightShape's box) grown by `grow`, at least `support` (the farthest the
 * height rises off them: the size, a chisel soft's blur, the soften, a stroke emboss's band, plus
 * 3: drawBevel's bound) for a style lit off them, and its arrays to that tile grown by `support`
 * on every side. The same bytes:
 * - before a covered pixel's support, every pass (box sums, distances clamped to 0) holds +0 and
 *   its running sums +0 in both arrays, so the sums a kept pixel reads start alike; every value
 *   a kept pixel reads, through every pass, lies within `support` of it: the same floats;
 * - a pixel the cut drops has height 0, or only the box sums' rounding left behind a covered
 *   pixel's run (well below 10⁻¹² here): its slopes light it by less than 10⁻⁶ with the light's
 *   altitude not within 0.6° of flat or 8° of overhead (drawBevel keeps those whole), which paints
 *   an alpha byte of 0 (paint rounds coverage · 255), nothing in every mode; an outer bevel lights
 *   only where the height passes RAISED (10⁻⁵).
 * Test fx-text7-bevel (all styles and techniques, soften, contours, strokes) against the whole
 * extent (useEffectKernels(false)).
 */
function eachTileNear(p: Pass, shape: Shape, target: Bounds, grow: number, support: number, draw: (tile: Bounds, arrays: Bounds) => void): void {
  const tight = tightShape(shape);
  if (!tight) return; // no pixel covers anything: a height of 0 everywhere, lit nowhere
  if (tight === shape) return eachTile(p, shape, target, draw);
  const near = growRect(tight.alphaReach ?? tight.extent, grow);
  eachTile(p, shape, target, (tile, arrays) => {
    const t = intersectRect(tile, near);
    if (!t) return;
    const cut = intersectRect(arrays, growRect(t, support))!;
    if (areaOf(cut) < areaOf(arrays)) nearTiles.cut++;
    draw(t, cut);
  });
}

/** `tile` in the coordinates of the arrays over `r` that hold it (0, 0 at r's corner). */
const within = (tile: Bounds, r: Bounds): Bounds => ({ left: tile.left - r.left, top: tile.top - r.top, right: tile.right - r.left, bottom: tile.bottom - r.top });

/** The values of `field` (over `from`) inside `to`. */
function crop(field: Float32Array, from: Bounds, to: Bounds): Float32Array {
  if (from.left === to.left && from.top === to.top && from.right === to.right && from.bottom === to.bottom) return field;
  const w = widthOf(to);
  const fw = widthOf(from);
  const out = new Float32Array(w * heightOf(to));
  for (let y = to.top; y < to.bottom; y++) {
    const s = (y - from.top) * fw + (to.left - from.left);
    out.set(field.subarray(s, s + w), (y - to.top) * w);
  }
  return out;
}

/** crop of a field made for this alone: dropped when the crop is a copy of part of it. */
function cropOwned(field: Float32Array, from: Bounds, to: Bounds): Float32Array {
  const cut = crop(field, from, to);
  if (cut !== field) drop(field);
  return cut;
}

/** The most values morphology's blur hands to WASM (its WASM_PIXELS); above it, it makes two arrays in TypeScript. */
const WASM_BLUR_PIXELS = 1 << 18;

const alphaOf = (shape: Shape, r: Bounds) => shape.alphaOver(r);
/** What the layer's pixels cover over r (Shape.fillOver): overlays, interiors, the content over a stroke. */
const fillOf = (shape: Shape, r: Bounds) => (shape.fillOver ? shape.fillOver(r) : shape.alphaOver(r));

/**
 * fillOf over `tile` within the arrays `r`: read over the tile alone where each pixel is read by
 * itself (pixelSources, fillByPixel: the layer's pixels and masks, and past the canvas its edge's),
 * else over r and cut to the tile as before (a path is drawn over the rectangle), the array over r
 * dropped once cut. Issue 25 §1: fx-heavy's inner glow read 8.9 MB over its arrays for a tile of
 * 2.2 MB, and left it to the collector through the drop shadows drawn after it.
 */
const fillWithin = (shape: Shape, r: Bounds, tile: Bounds) => (shape.pixelSources || (byPixel.on && shape.fillByPixel) ? fillOf(shape, tile) : cropOwned(fillOf(shape, r), r, tile));

/** Pixels an overlay's rows hold at once (its colours, and its fill made its coverage: 8 bytes a pixel). */
const OVERLAY_BAND_PIXELS = 1 << 18;

/** Whether fillWithin and eachOverlayBand read by pixel where they may, and the bands' size (useFillByPixel). */
const byPixel = { on: true, band: OVERLAY_BAND_PIXELS };

/**
 * Turns the reads by pixel off (false: fillWithin cuts the fill over the arrays, overlays draw
 * each tile whole) or sets the overlay bands' pixels: for tests that hold the two to the same bytes.
 */
export function useFillByPixel(on = true, band = OVERLAY_BAND_PIXELS): void {
  Object.assign(byPixel, { on, band });
  drawing++;
}

/**
 * `r` in bands of rows of at most OVERLAY_BAND_PIXELS where the shape's fill reads each pixel by
 * itself (fillByPixel), else r whole: an overlay's colours (gradientPixels, tilePattern: each
 * pixel's from its place alone) and fill are then each band's rows of r's, and paint blends pixel
 * by pixel, so the same bytes (issue 25 §1: the poster's gradient overlay held three arrays of a
 * 6,000 px band, about 10 MB, at once).
 */
function eachOverlayBand(shape: Shape, r: Bounds, draw: (band: Bounds) => void): void {
  const rows = byPixel.on && shape.fillByPixel ? Math.max(1, Math.floor(byPixel.band / Math.max(1, widthOf(r)))) : heightOf(r);
  for (let top = r.top; top < r.bottom; top += rows) draw({ ...r, top, bottom: Math.min(r.bottom, top + rows) });
}

/**
 * The shape's alpha (or 1 − alpha: `outside`) moved by (dx, dy) over `r`, bilinear with the very
 * arithmetic of morphology.ts `shift`: read from the rectangle the move brings there (one more
 * row and column for the bilinear taps), not from an array holding both.
 */
function shiftedAlpha(shape: Shape, r: Bounds, dx: number, dy: number, outside: boolean): { rect: Bounds; data: Float32Array } {
  const { fx, fy, read } = shiftSource(shape, r, dx, dy, outside);
  const source = read();
  const data = bilinearMove(source, widthOf(r), heightOf(r), fx, fy, true);
  if (data.buffer !== source.buffer) drop(source); // moved in the kernels: a copy came out
  return { rect: r, data };
}

/**
 * What moving the shape's alpha by (dx, dy) over `r` reads: the fractions of a pixel (fx, fy)
 * and `read`, which gives its alpha (or 1 − alpha: `outside`) over the rectangle the move
 * brings there and one more row and column (into `into` when given, as long).
 */
function shiftSource(shape: Shape, r: Bounds, dx: number, dy: number, outside: boolean) {
  const ix = Math.floor(dx);
  const iy = Math.floor(dy);
  const from = { left: r.left - ix - 1, top: r.top - iy - 1, right: r.right - ix, bottom: r.bottom - iy };
  const sources = kernelsOn ? shape.pixelSources : undefined;
  const read = (into?: Float32Array, held?: HeldArena) => {
    const k = held?.k as (KernelExports & Partial<ShadowKernels & InvertKernel>) | undefined;
    // In movedBlur's arena (into is in the kernels' memory): the alpha read there by alphaRect,
    // the very floats of alphaOver's loop (alphaViaKernels may not nest an arena here), and 1 − it
    // by oneMinus, the loop's f64 arithmetic. Issue 25 §3: an inner shadow's body over 482 × 185
    // read its source in 0.5 ms of JavaScript, more than the move and the four box passes took.
    if (held && into && sources && k?.alphaRect && k.oneMinus && into.buffer === k.memory.buffer) {
      alphaInKernels(k as KernelExports & ShadowKernels, held.f32, held.u8, sources, from, held.scratch, into.byteOffset);
      shape.pastCanvas?.(from, into);
      if (outside) k.oneMinus(into.byteOffset, into.length);
      alphaReads.held++;
      return into;
    }
    const src = shape.alphaOver(from, into);
    if (outside) for (let i = 0; i < src.length; i++) src[i] = 1 - src[i];
    return src;
  };
  // What alphaInKernels copies a source's rows into (the largest part of one the read meets).
  let scratch = 0;
  for (const s of sources ?? []) {
    const i = intersectRect(from, s.rect);
    if (i) scratch = Math.max(scratch, areaOf(i) * 4);
  }
  return { fx: dx - ix, fy: dy - iy, read, scratch };
}

/** The kernel shiftSource's inverted read takes in the kernels' memory (wasm/assembly/effects.ts). */
interface InvertKernel {
  oneMinus(ptr: number, n: number): void;
}

/** An inner shadow's or glow's body (1 − alpha, shadowBody) over `tile`, its arrays `r` or nearerStart's. */
function insideBody(shape: Shape, r: Bounds, tile: Bounds, dx: number, dy: number, size: number, spread: number): Float32Array {
  const near = spread <= 0 && size > 0 ? nearerStart(shape, r, dx, dy, size) : null;
  const from = near ?? r;
  return (spread <= 0 && size > 0 && clampedBody(shape, from, tile, dx, dy, size)) || cropOwned(shadowBody(shape, from, dx, dy, true, size, spread), from, tile);
}

/** How many inverted bodies clampedBody drew (tests). */
export const clampedBodies = { count: 0 };

/**
 * An inverted body over `tile` from arrays cut nearer than `from` on the top and/or left, where
 * the rows (columns) before the cut are all 1 − 0 through every pass: the box passes take the
 * cut's first row (column) as standing for every one before it (boxBlurClamped), which is the body
 * of an array reaching on for ever that way. Where `from` starts at least nearerStart's margin
 * before the covered pixels (moved), that is its body over the tile to the bit (nearerStart's
 * proof: every sum there is exact, a count of 1s and edge values, so it holds the exact sum of its
 * window wherever the array started). The cut's first row lies r0 + 1 before the first row the
 * moved alpha (its bilinear taps included) can make other than 1, so each pass's first row equals
 * every row before it, and before the tile. Issue 25 §3: psdtools-layer-effects-all's personalised
 * inner shadow blurred 482 × 185 values for a 341 × 47 tile, ~110 of the rows all 1.
 */
function clampedBody(shape: Shape, from: Bounds, tile: Bounds, dx: number, dy: number, size: number): Float32Array | null {
  if (!kernelsOn || size > 200 || !tightShape(shape)) return null;
  const covered = inkBoxes.get(shape);
  if (!covered) return null;
  const [r0] = boxRadii(size);
  const margin = 2 * Math.ceil(size) + 8;
  const ix = Math.floor(dx);
  const iy = Math.floor(dy);
  const axis = (start: number, ink: number, move: number, tileStart: number) => {
    // Only where `from` starts the margin before the ink (its body then is the unbounded one at the tile).
    if (start > Math.min(ink, ink + move) - margin) return start;
    return Math.max(start, Math.min(tileStart, ink + move - 1 - r0 - 1));
  };
  const cut = { left: axis(from.left, covered.left, ix, tile.left), top: axis(from.top, covered.top, iy, tile.top), right: from.right, bottom: from.bottom };
  if (cut.left === from.left && cut.top === from.top) return null;
  const w = widthOf(cut);
  const h = heightOf(cut);
  const k = effectKernels((w + 1) * (h + 1)) as (KernelExports & Partial<ClampedBlurKernel>) | undefined;
  if (!k?.boxBlurClamped) return null;
  const { fx, fy, read, scratch } = shiftSource(shape, cut, dx, dy, true);
  const n = w * h;
  const body = movedBlur(read, w, h, fx, fy, size, n <= 1 << 18 ? bodies.take('body', n) : undefined, scratch, { top: cut.top > from.top, left: cut.left > from.left });
  clampedBodies.count++;
  return crop(body, cut, tile);
}

/** How many inverted bodies nearerStart started nearer (tests). */
export const nearerStarts = { count: 0 };

/**
 * Where an inverted body's arrays (1 − alpha, inner shadow and softer inner glow) may start nearer
 * than `r`'s corner with the same floats over every pixel `r` holds past the cut (issue 25 §3): each box
 * pass's running sum (f64) of f32 values adds and takes away 1s, and near a cut edge values made of
 * counts of them (n ÷ (2r + 1), at most 24 + 2 · 8 significant bits for r < 128), all exact, so on
 * leaving the edge's band it is the exact sum of its window in both arrays; the band a pass spoils
 * grows by its radius, and no value other than 1 (alpha not 0, moved and tapped: `covered` moved by
 * the move, grown by 1) may lie within 2 · (r0 + r1) + 2 of the new corner. Null: keep `r`.
 */
function nearerStart(shape: Shape, r: Bounds, dx: number, dy: number, size: number): Bounds | null {
  if (size > 200) return null;
  if (!tightShape(shape)) return null;
  const covered = inkBoxes.get(shape);
  if (!covered) return null;
  const margin = 2 * Math.ceil(size) + 8;
  const ix = Math.floor(dx);
  const iy = Math.floor(dy);
  const left = Math.min(covered.left, covered.left + ix) - margin;
  const top = Math.min(covered.top, covered.top + iy) - margin;
  if (left <= r.left + 8 && top <= r.top + 8) return null;
  nearerStarts.count++;
  return { left: Math.max(r.left, left), top: Math.max(r.top, top), right: r.right, bottom: r.bottom };
}

/**
 * A shadow's body over `r`: the shape (or what lies outside it) moved by (dx, dy), grown by the
 * spread (output px, spreadOf) and blurred by the rest of the size, soften(shiftedAlpha(…)) to the bit. Without a spread
 * the move and the blur are one pass over one array the alpha is read into (morphology.ts
 * movedBlur: in WASM, no array per step).
 */
function shadowBody(shape: Shape, r: Bounds, dx: number, dy: number, outside: boolean, size: number, spread: number): Float32Array {
  if (spread > 0 || size <= 0) {
    const source = shiftedAlpha(shape, r, dx, dy, outside);
    return soften(source.data, widthOf(r), heightOf(r), size, spread, true);
  }
  const { fx, fy, read, scratch } = shiftSource(shape, r, dx, dy, outside);
  // Painted (and dropped) before the next body is made: one array serves them all, up to 1 MB.
  const n = areaOf(r);
  return movedBlur(read, widthOf(r), heightOf(r), fx, fy, size, n <= 1 << 18 ? bodies.take('body', n) : undefined, scratch);
}

const tightShapes = new WeakMap<Shape, Shape | null>();
/** Where tightShape found every alpha not 0 of the shape (its covered pixels, or their reach past the canvas). */
const inkBoxes = new WeakMap<Shape, Bounds>();
/** The box of a one-source shape's covered pixels (coveredBox), as tightShape found it. */
const coveredBoxes = new WeakMap<Shape, { content: Surface; box: Bounds | null }>();

/**
 * The box of `content`'s pixels whose alpha is not 0 (null: none is), where tightShape already
 * found it for `shape` (the layer's one source, these pixels); undefined where it did not.
 */
export function knownCoveredBox(shape: Shape, content: Surface): Bounds | null | undefined {
  const known = coveredBoxes.get(shape);
  return known && known.content === content ? known.box : undefined;
}

/**
 * The shape with its extent cut to the pixels whose alpha is not 0 (null: none is), for the
 * kernels' shadow and strokes: a text's raster has empty margins (a third of its box on the
 * poster's headline, half on psdtools-layer-effects-all), over which the arrays, blur, distance and
 * blends ran. The same bytes: the arrays' sums start at their corner with +0 (so the floats inside
 * are the same), and a pixel the cut leaves out lies beyond the effect's reach of every pixel of
 * the layer, where the shadow's coverage and the stroke's band are 0 to the byte (shadow-kernels
 * test, against the passes over the whole extent). The frame is kept (inner effects start there).
 * The shape itself where the kernels do not draw it (no pixelSources, or alpha past the canvas).
 */
function tightShape(shape: Shape): Shape | null {
  if (!kernelsOn || !shape.pixelSources) return shape;
  // Past the canvas the alpha is the edge's (pastCanvas), within the bounds of the layers that run off it.
  const off = shape.pastCanvas ? shape.offCanvas : undefined;
  if (shape.pastCanvas && !off) return shape;
  let cut = tightShapes.get(shape);
  if (cut !== undefined) return cut;
  let box: Bounds | null = null;
  for (const { rect, content } of shape.pixelSources) {
    // A drawn text's ink was found where it was drawn (cache/ink.ts): the same box, without a scan.
    const known = knownInk(content.data, widthOf(rect), heightOf(rect));
    const b = known === undefined ? coveredBox(rect, content.data) : known && moved(known, rect.left, rect.top);
    if (b) box = box ? unionOf(box, b) : b;
  }
  const only = shape.pixelSources.length === 1 ? shape.pixelSources[0]! : null;
  const c = only && rectOf(only.content);
  if (only && c && only.rect.left === c.left && only.rect.top === c.top && only.rect.right === c.right && only.rect.bottom === c.bottom) coveredBoxes.set(shape, { content: only.content, box });
  if (!off) cut = box ? { ...shape, extent: intersectRect(shape.extent, box) ?? box } : null;
  else {
    // Past the canvas, the alpha is not 0 only beside the edges the covered pixels on the canvas
    // touch, out to the bounds of the layers running off it (`reach`, which may pass the extent:
    // a template layer's pixels stop at the canvas). The tiles are the extent's cut to it: where
    // the untouched shape's tiles are, less what lies beyond the effect's reach of any alpha not 0
    // (painted 0 there); the arrays are cut to `reach` (nearShape), every alpha not 0 kept.
    const reach = box && pastReach(box, off);
    const extent = reach && intersectRect(shape.extent, reach);
    cut = !reach ? null : extent ? { ...shape, extent, alphaReach: reach } : shape;
  }
  tightShapes.set(shape, cut);
  const ink = off ? cut?.alphaReach : box;
  if (ink) inkBoxes.set(shape, ink);
  return cut;
}

/**
 * A box holding every pixel of the shape whose alpha is not 0, on the canvas and past it (null:
 * none is), where the layer's pixels alone make that alpha and the kernels are on (tightShape cut
 * it); undefined where it is not known.
 */
export function coveredExtent(shape: Shape): Bounds | null | undefined {
  const tight = tightShape(shape);
  if (tight === shape) return undefined;
  return tight && (tight.alphaReach ?? tight.extent);
}

/**
 * Whether every effect drawEffectsAbove draws for the node paints inside its shape only (the
 * overlays, satin, inner glow and shadow, which multiply their coverage by its alpha): no stroke
 * and no bevel, which paint past it. Its own composite is then transparent wherever its alpha is 0.
 */
export function paintsInsideOnly(node: LayerNode): boolean {
  const fx = node.effects as LayerEffectsInfo | undefined;
  return !fx || (!list(fx.stroke).length && !list(fx.bevel).length);
}

/**
 * `box` (the covered pixels) with the pixels pastCanvas makes not 0: past an edge of the canvas
 * that the covered pixels on the canvas reach, out to the bounds of the layers that run off it
 * (pastCanvas gives a pixel there the alpha at its nearest pixel on the canvas, which is 0 unless
 * that pixel lies in `box` on the canvas).
 */
function pastReach(box: Bounds, off: { canvas: Bounds; layers: Bounds[] }): Bounds {
  const k = intersectRect(box, off.canvas);
  if (!k || !off.layers.length) return box;
  const b = off.layers.reduce(unionOf);
  const c = off.canvas;
  return unionOf(box, {
    left: k.left <= c.left ? Math.min(k.left, b.left) : k.left,
    top: k.top <= c.top ? Math.min(k.top, b.top) : k.top,
    right: k.right >= c.right ? Math.max(k.right, b.right) : k.right,
    bottom: k.bottom >= c.bottom ? Math.max(k.bottom, b.bottom) : k.bottom,
  });
}

/**
 * A tile's arrays (`r`) cut to where the pass reads the (tight) shape: within its reach of the
 * moved extent. Every value they lose is 0, before the first the sums start at +0 either way and
 * past the last the passes read 0 where they were: the tile's floats are the same (a tile of the
 * redrawn rectangle grows its arrays by the reach past the tile, twice the reach past the shape).
 */
function nearShape(r: Bounds, shape: Shape, p: Pass): Bounds {
  // Past the canvas the alpha goes on beyond the extent (pastCanvas): the arrays stay, unless
  // tightShape found how far it does (alphaReach).
  if (!kernelsOn || (shape.pastCanvas && !shape.alphaReach)) return r;
  const near = growRect(moved(shape.alphaReach ?? shape.extent, Math.floor(p.dx), Math.floor(p.dy)), p.read + 1);
  return intersectRect(r, near) ?? r;
}

/**
 * The arrays `r` of a satin copy (the shape moved by (dx, dy)) cut to its moved covered pixels
 * grown by `read` + 1 (nearShape's rectangle), and the tile it paints: every value they lose is 0
 * through every box pass.
 */
function nearCopy(r: Bounds, covered: Bounds, tile: Bounds, dx: number, dy: number, read: number): Bounds {
  const near = unionOf(growRect(moved(covered, Math.floor(dx), Math.floor(dy)), read + 1), tile);
  return intersectRect(r, near) ?? r;
}

/** The rectangle of the pixels (RGBA over `rect`, as alphaOver reads them) whose alpha is not 0, or null. */
function coveredBox(rect: Bounds, data: Uint8ClampedArray): Bounds | null {
  const w = widthOf(rect);
  const h = heightOf(rect);
  if (!w || !h) return rect;
  // In the kernels' memory where they are ready and it fits the arena (a personalised text cut to
  // the redrawn rectangle: ~0.4 ms of JavaScript a poster headline in workerd, 0.01 in WASM).
  const k = effectKernels(w * h);
  if (k && data.length >= w * h * 4) {
    return inArena(k, (k, arena) => {
      const ptr = arena.alloc(w * h * 4);
      const out = arena.alloc(16);
      const u8 = arena.u8();
      u8.set(data.subarray(0, w * h * 4), ptr);
      k.inkBox(ptr, w, h, out);
      const [left, top, right, bottom] = new Int32Array(u8.buffer, out, 4);
      return left! < 0 ? null : { left: rect.left + left!, top: rect.top + top!, right: rect.left + right!, bottom: rect.top + bottom! };
    });
  }
  if (data.byteOffset % 4) return rect;
  const words = new Uint32Array(data.buffer, data.byteOffset, w * h);
  const rowEmpty = (y: number) => {
    for (let i = y * w, end = i + w; i < end; i++) if (words[i]! >= 0x1000000) return false;
    return true;
  };
  let top = 0;
  while (top < h && rowEmpty(top)) top++;
  if (top === h) return null;
  let bottom = h;
  while (rowEmpty(bottom - 1)) bottom--;
  let left = w;
  let right = 0;
  for (let y = top; y < bottom; y++) {
    const row = y * w;
    let x = 0;
    while (x < left && words[row + x]! < 0x1000000) x++;
    left = Math.min(left, x);
    let e = w;
    while (e > right && words[row + e - 1]! < 0x1000000) e--;
    right = Math.max(right, e);
  }
  return { left: rect.left + left, top: rect.top + top, right: rect.left + right, bottom: rect.top + bottom };
}

/** The kernels shadowInKernels calls (wasm/assembly/effects.ts). */
interface ShadowKernels {
  alphaRect(rgba: number, w: number, h: number, out: number, stride: number): void;
  coveragePixels(cov: number, stride: number, w: number, h: number, out: number, rgb: number): void;
  coveragePixelsWithin(cov: number, stride: number, w: number, h: number, out: number, rgb: number, held: number): void;
  coverageAlpha(cov: number, stride: number, w: number, h: number, out: number, held: number): void;
}

let kernelsOn = true;
/** Bumped by every switch that changes how effects are drawn (tests): see effectDrawing. */
let drawing = 0;

/**
 * How effects are drawn now, as a number that a switch of theirs (useEffectKernels, morphology.ts
 * useWasmEffectPasses) changes: part of the keys of units kept drawn (compositor.ts keptUnitKey),
 * so that a test comparing two ways of drawing draws both.
 */
export const effectDrawing = () => `${drawing}.${wasmEffectPasses()}`;

/** Turns shadowInKernels and strokesInKernels off (true: on): for tests that hold them to the passes they stand for. */
export function useEffectKernels(on: boolean): void {
  kernelsOn = on;
  drawing++;
}

/** How many tiles shadowInKernels and strokesInKernels drew (the tests read it). */
export const effectKernelDraws = { tiles: 0 };

/**
 * The alpha of the layer's pixels over `r`, as alphaOver reads it, into the float array at `out`
 * in the kernels' memory (r's width a row; zero where no pixel is): each source's bytes copied to
 * `scratch` (room for the largest) and read there by alphaRect.
 */
function alphaInKernels(fx: ShadowKernels, f32: Float32Array, u8: Uint8Array, sources: NonNullable<Shape['pixelSources']>, r: Bounds, scratch: number, out: number): void {
  const stride = widthOf(r);
  f32.fill(0, out >> 2, (out >> 2) + stride * heightOf(r));
  for (const s of sources) {
    const i = intersectRect(r, s.rect);
    if (!i) continue;
    const iw = widthOf(i);
    const sw = widthOf(s.rect);
    for (let y = i.top; y < i.bottom; y++) {
      const c = ((y - s.rect.top) * sw + (i.left - s.rect.left)) * 4;
      u8.set(s.content.data.subarray(c, c + iw * 4), scratch + (y - i.top) * iw * 4);
    }
    fx.alphaRect(scratch, iw, heightOf(i), out + ((i.top - r.top) * stride + (i.left - r.left)) * 4, stride);
  }
}

/** The fewest pixels alphaViaKernels reads (below, the JavaScript loop's call is cheaper than a visit to the kernels). */
const KERNEL_ALPHA_PIXELS = 1 << 12;

/**
 * shapeFrom's alphaOver of a shape made of the layer's pixels alone, in the kernels (alphaRect:
 * each byte ÷ 255 as f32, sources in order, zero where none is), into `alpha` (zeros over r): the
 * same floats as the JavaScript loop, which was the largest self time left in a personalised
 * layer-effects-all request's render in workerd (2 % of its samples, fx-text7). False where the
 * kernels do not read it (off, not ready, over their bound, under KERNEL_ALPHA_PIXELS, or `alpha`
 * in their memory: never from inside an arena, which inArena would reset).
 */
function alphaViaKernels(sources: NonNullable<Shape['pixelSources']>, r: Bounds, alpha: Float32Array): boolean {
  const n = areaOf(r);
  if (!kernelsOn || n < KERNEL_ALPHA_PIXELS) return false;
  let most = 0;
  for (const s of sources) {
    const i = intersectRect(r, s.rect);
    if (i) most = Math.max(most, areaOf(i));
  }
  const k = effectKernels(n + most) as (KernelExports & Partial<ShadowKernels>) | undefined;
  // Not into the kernels' own memory: a caller inside an arena (movedBlur's read) holds it.
  if (!k?.alphaRect || !k.coveragePixels || alpha.buffer === k.memory.buffer) return false;
  const fx = k as KernelExports & ShadowKernels;
  inArena(k, (_k, arena) => {
    const out = arena.alloc(n * 4);
    const scratch = arena.alloc(Math.max(1, most) * 4);
    const f32 = arena.f32();
    alphaInKernels(fx, f32, arena.u8(), sources, r, scratch, out);
    alpha.set(f32.subarray(out >> 2, (out >> 2) + n));
  });
  alphaReads.count++;
  return true;
}

/** How many alphas alphaViaKernels read, and shiftSource in movedBlur's arena (`held`; the tests read them). */
export const alphaReads = { count: 0, held: 0 };

/** A colour's bytes as paint stores them (a Uint8ClampedArray: clamped, halves to even). */
const colourBytes = new Uint8ClampedArray(3);

/**
 * A drop shadow without a spread, contour or knockout drawn in the kernels' memory, the same bytes
 * as shadowBody, then paint of its colour (not over the layer's own composite) and its blend: the
 * alpha read from the layer's pixels (`pixelSources`), the move and the blur, the shadow's pixels
 * made from the coverage, blended onto the canvas's pixels there, which alone are copied back.
 * Before, the alpha was read and the pixels made by loops in JavaScript, the body copied out and
 * the pixels and canvas copied in again for the blend (issue 25 §3: a personalised text's shadow
 * is redrawn each request). False, drawing nothing, where it cannot (no kernels, a mode the blend
 * kernel leaves to the TypeScript, arrays over the kernels' bound, a shape with masks or a path).
 */
function shadowInKernels(canvas: Surface, tile: Bounds, r: Bounds, shape: Shape, dx: number, dy: number, size: number, color: RGB, fade: number, mode: string, atop: boolean, after?: (body: Float32Array) => void): boolean {
  const sources = kernelsOn ? shape.pixelSources : undefined;
  const id = wasmBlendMode(mode);
  const w = widthOf(r);
  const h = heightOf(r);
  const n = (w + 1) * (h + 1);
  const k = sources && id >= 0 ? (effectKernels(n) as (KernelExports & Partial<ShadowKernels>) | undefined) : undefined;
  if (!k?.coveragePixels || !k.alphaRect) return false;
  const t = intersectRect(tile, rectOf(canvas));
  if (!t || fade <= 0) return true; // blendSurface draws nothing there
  const ix = Math.floor(dx);
  const iy = Math.floor(dy);
  // shiftSource's rectangle: one more row and column above and left for the bilinear taps.
  const from = { left: r.left - ix - 1, top: r.top - iy - 1, right: r.right - ix, bottom: r.bottom - iy };
  const [r0, r1] = boxRadii(size);
  const tw = widthOf(t);
  const th = heightOf(t);
  colourBytes[0] = color[0];
  colourBytes[1] = color[1];
  colourBytes[2] = color[2];
  const rgb = colourBytes[0] | (colourBytes[1] << 8) | (colourBytes[2] << 16);
  const keep = keptChannels(shape.excludedChannels);
  const fx = k as KernelExports & ShadowKernels;
  return inArena(k, (k, arena) => {
    const src = arena.alloc(n * 4); // the alpha to move; then the canvas's pixels under the tile
    const a = arena.alloc(w * h * 4); // the body
    const b = arena.alloc(n * 4); // the layer's pixels; the blur's scratch; then the shadow's pixels
    const sums = arena.alloc(w * 8);
    const f32 = arena.f32();
    const u8 = arena.u8();
    alphaInKernels(fx, f32, u8, sources!, from, b, src);
    // Past the canvas: the edge's alpha where the layer goes on (no allocation in the kernels' memory).
    shape.pastCanvas?.(from, f32.subarray(src >> 2, (src >> 2) + n));
    k.shiftBilinear(src, a, w, h, dx - ix, dy - iy);
    k.boxBlur(a, b, sums, w, h, r0, r1);
    // A glow's range and contour, pixel by pixel over the body where it lies (as over its copy).
    after?.(f32.subarray(a >> 2, (a >> 2) + w * h));
    canvasIntoKernels(u8, src, canvas, t);
    fx.coveragePixels(a + ((t.top - r.top) * w + (t.left - r.left)) * 4, w, tw, th, b, rgb);
    recordPixels(u8, b, t, fade, id, atop, keep);
    k.blendPixels(src, b, 0, tw * th, fade, id, atop ? 1 : 0, keep, 0);
    effectKernelDraws.tiles++;
    kernelsOntoCanvas(u8, src, canvas, t);
    return true;
  });
}

/**
 * A blend an effect made onto its target, to be made again over another backdrop (compositor.ts
 * keeps a layer's blends: keptLayerKey): the effect's RGBA over `rect` as blendPixels took it
 * (`mode` its kernel id, `keep` the kept channels), or blendSurface's arguments.
 */
export type EffectBlend =
  | { rect: Bounds; pixels: Uint8Array; fade: number; mode: number; atop: boolean; keep: number }
  | { surface: Surface; fade: number; mode: string; options: BlendOptions };

/**
 * The blends effects make while recording (recordBlends): each made from the layer alone, or
 * `readsTarget` when one read the target for more than the blend (a paint within the layer's own
 * composite, a backdrop kept for a stroke's or interior effect's own mode): those cannot be made
 * again from the record. `bytes`: what the kept pixels hold.
 */
export interface BlendRecord<Other = never> {
  /** In order; a caller may add blends of its own (`Other`) between the effects'. */
  blends: Array<EffectBlend | Other>;
  bytes: number;
  readsTarget: boolean;
}

let recording: BlendRecord<unknown> | null = null;

/** Runs `draw` (synchronous: no other render's effects interleave) with its effects' blends recorded into `into`. */
export function recordBlends(into: BlendRecord<unknown>, draw: () => void): void {
  const saved = recording;
  recording = into;
  try {
    draw();
  } finally {
    recording = saved;
  }
}

/** Records the blend of the pixels at `at` in the kernels' memory (tw × th over `t`), as blendPixels takes them. */
function recordPixels(u8: Uint8Array, at: number, t: Bounds, fade: number, mode: number, atop: boolean, keep: number): void {
  if (!recording) return;
  const pixels = u8.slice(at, at + widthOf(t) * heightOf(t) * 4);
  recording.blends.push({ rect: t, pixels, fade, mode, atop, keep });
  recording.bytes += pixels.byteLength;
}

/** Marks the blends being recorded as reading the target beyond their blend. */
function readsTarget(): void {
  if (recording) recording.readsTarget = true;
}

/** Makes a recorded blend again onto `canvas` (whose rectangle holds its own): the same bytes as when it was recorded over the same pixels. */
export function blendAgain(canvas: Surface, b: EffectBlend): void {
  if ('surface' in b) return blendSurface(canvas, b.surface, null, b.fade, b.mode, b.options);
  const t = b.rect;
  const tw = widthOf(t);
  const n = tw * heightOf(t);
  const k = effectKernels(2 * n);
  if (!k) throw new Error('blendAgain: the kernels are not ready'); // they drew it: they are
  inArena(k, (k, arena) => {
    const under = arena.alloc(n * 4);
    const pixels = arena.alloc(n * 4);
    const u8 = arena.u8();
    u8.set(b.pixels, pixels);
    canvasIntoKernels(u8, under, canvas, t);
    k.blendPixels(under, pixels, 0, n, b.fade, b.mode, b.atop ? 1 : 0, b.keep, 0);
    kernelsOntoCanvas(u8, under, canvas, t);
  });
}

/** The canvas's pixels over `t` (within it) copied into the kernels' memory at `at`, `t`'s rows one after another. */
function canvasIntoKernels(u8: Uint8Array, at: number, canvas: Surface, t: Bounds): void {
  const rowBytes = widthOf(t) * 4;
  for (let y = t.top; y < t.bottom; y++) {
    const di = ((y - canvas.y) * canvas.w + (t.left - canvas.x)) * 4;
    u8.set(canvas.data.subarray(di, di + rowBytes), at + (y - t.top) * rowBytes);
  }
}

/** canvasIntoKernels' rows at `at` copied back onto the canvas over `t`. */
function kernelsOntoCanvas(u8: Uint8Array, at: number, canvas: Surface, t: Bounds): void {
  const rowBytes = widthOf(t) * 4;
  for (let y = t.top; y < t.bottom; y++) {
    const di = ((y - canvas.y) * canvas.w + (t.left - canvas.x)) * 4;
    canvas.data.set(u8.subarray(at + (y - t.top) * rowBytes, at + (y - t.top + 1) * rowBytes), di);
  }
}

/** The shadow bodies' array (shadowBody), kept from one to the next (issue 25 §3: no garbage per request). */
const bodies = new Scratch();

/**
 * The pixels `paint` blends, reused from one call to the next up to PAINT_SCRATCH_BYTES (paint is
 * synchronous, and blends them before it returns): no garbage per effect (issue 25 §3).
 */
let paintPixels = new Uint8ClampedArray(0);
const PAINT_SCRATCH_BYTES = 1 << 20;

function paintScratch(bytes: number): Uint8ClampedArray {
  if (bytes > PAINT_SCRATCH_BYTES) return new Uint8ClampedArray(bytes);
  if (paintPixels.length < bytes) paintPixels = keep(new Uint8ClampedArray(bytes));
  return paintPixels.subarray(0, bytes);
}

/**
 * An effect's opacity: a number (as it fades, alpha), or its own and its layer's apart. In the
 * "special eight" modes (blend.ts FILL_INSIDE: the dodges, burns, difference, vivid and linear
 * light, hard mix) an effect's own opacity pulls its colour toward the mode's neutral colour, as
 * Fill does there, and only the layer's opacity fades it (photocraft's models, calibrated on
 * Photoshop's composites: "effects and fill opacity fade the color toward the mode's neutral color
 * rather than lowering alpha"; docs/effects.md, "Effects in the special eight modes").
 */
type Opacity = number | { effect: number; layer: number };
const fxOpacity = (effect: number | undefined, layer: number, byDefault = 1): Opacity => ({ effect: effect ?? byDefault, layer });

/** [the Fill that goes into the blend (undefined: none), the opacity that fades] of an effect in `mode`. */
function split(opacity: Opacity, mode: string | undefined): [number | undefined, number] {
  if (typeof opacity === 'number') return [undefined, opacity];
  if (opacity.effect < 1 && mode && Object.hasOwn(FILL_INSIDE, mode)) return [opacity.effect, opacity.layer];
  return [undefined, opacity.effect * opacity.layer];
}

/** How an effect's pixels blend: the layer's channel restrictions and, for overlays, its text gamma. */
type PaintStyle = Pick<Shape, 'excludedChannels' | 'gamma'>;

/**
 * Blends a coverage map (0..1) of one colour, or of per-pixel colours (over `r`), onto the canvas
 * inside `r`; the coverage covers `from` (r, or the larger rectangle an effect's arrays cover).
 * `overlay`: a colour, gradient or pattern overlay, which recolours the layer and so blends its
 * edges as the layer does (text layers: with Photoshop's text gamma).
 */
function paint(
  canvas: Surface,
  r: Bounds,
  style: PaintStyle,
  coverage: Float32Array,
  color: RGB | Uint8ClampedArray,
  opacity: Opacity,
  mode: string | undefined,
  atop: boolean,
  overlay = false,
  from: Bounds = r,
  inLayer: InLayer = false,
): void {
  if (inLayer === 'relative') return paintRelative(canvas, r, style as Shape, coverage, color, opacity, mode, overlay, from);
  const [fill, fade] = split(opacity, mode);
  // One colour, no Fill inside the mode, no text gamma (blendSurface takes none atop): made and
  // blended in the kernels' memory (paintInKernels).
  if (fill === undefined && paintInKernels(canvas, r, style, { coverage, from }, color, fade, mode ?? 'normal', atop || inLayer, inLayer, overlay)) return;
  const w = widthOf(r);
  const fw = widthOf(from);
  // Every byte is written below, and blendSurface only reads it: scratch serves.
  const data = paintScratch(w * heightOf(r) * 4);
  const solid = !(color instanceof Uint8ClampedArray);
  if (solid && data.length) {
    // One colour: stored once (as bytes, clamped as ever), then copied word by word.
    data[0] = color[0];
    data[1] = color[1];
    data[2] = color[2];
    const words = new Uint32Array(data.buffer, data.byteOffset, data.length >> 2);
    words.fill(words[0]);
  }
  for (let y = 0, o = 0; y < heightOf(r); y++) {
    // Into the layer's own composite: the coverage relative to the layer's alpha there.
    let held = ((y + r.top - canvas.y) * canvas.w + (r.left - canvas.x)) * 4 + 3;
    let i = (y + r.top - from.top) * fw + (r.left - from.left);
    if (solid && !inLayer) {
      for (let x = 0; x < w; x++, i++, o += 4) data[o + 3] = coverage[i] * 255;
      continue;
    }
    for (let x = 0; x < w; x++, i++, o += 4, held += 4) {
      if (!solid) {
        data[o] = color[o];
        data[o + 1] = color[o + 1];
        data[o + 2] = color[o + 2];
      }
      if (!inLayer) data[o + 3] = coverage[i] * 255;
      else {
        const a = canvas.data[held];
        data[o + 3] = a ? Math.min(1, (coverage[i] * 255) / a) * 255 : 0;
      }
    }
  }
  const surface = { x: r.left, y: r.top, w: widthOf(r), h: heightOf(r), data };
  const options = { fill, atop: atop || !!inLayer, excludedChannels: style.excludedChannels, textGamma: overlay ? style.gamma : undefined };
  if (inLayer) readsTarget(); // the alpha relative to the target's
  else if (recording) {
    // The scratch pixels are painted over by the next paint: a copy of them.
    recording.blends.push({ surface: { ...surface, data: data.slice() }, fade, mode: mode ?? 'normal', options });
    recording.bytes += data.byteLength;
  }
  blendSurface(canvas, surface, null, fade, mode ?? 'normal', options);
  drop(data); // past the scratch's size: made for this paint (drop keeps the scratch)
}

/** How many paints paintInKernels drew, over the canvas and within the layer's composite, with the fill read there, and in more than one strip (a fill read, a coverage copied in) (the tests read it). */
export const paintKernelDraws = { over: 0, within: 0, read: 0, strips: 0, coverageStrips: 0, colours: 0 };

/**
 * paint of one colour in the kernels' memory, the same bytes: the coverage's rows over the canvas
 * copied in (or, for an overlay's fill, read there from the layer's pixels by alphaInKernels, as
 * alphaOver reads them), the pixels made there by coveragePixels (paint's Uint8ClampedArray stores
 * of the colour and coverage · 255) or, into the layer's own composite (`within`),
 * coveragePixelsWithin (the coverage relative to the composite's alpha), the canvas's pixels
 * blended by blendPixels as blendSurfaceWasm blends them (no mask; a text gamma only atop, where
 * blendSurfaceWasm takes none), and only they copied back. Before, JavaScript loops read the alpha
 * and made the pixels and blendSurface copied them in again: paint and the alpha read were the
 * largest self times of a personalised layer-effects-all line's request in workerd (11 % and 4 %
 * of the Worker's samples; the background's colour overlay repainted over the redrawn rectangle,
 * fx-text7). False, painting nothing, where the kernels do not (switched off, not ready, over
 * their bound, a mode the blend kernel leaves to the TypeScript, a text gamma over the canvas).
 */
function paintInKernels(
  canvas: Surface,
  r: Bounds,
  style: PaintStyle,
  cover: { coverage: Float32Array; from: Bounds } | { shape: Shape },
  color: RGB | Uint8ClampedArray,
  fade: number,
  mode: string,
  atop: boolean,
  within: boolean,
  overlay: boolean,
): boolean {
  if (!kernelsOn || (overlay && !atop && (style.gamma ?? 1) !== 1)) return false;
  const sources = 'shape' in cover ? cover.shape.pixelSources : undefined;
  if ('shape' in cover && !sources) return false;
  const id = wasmBlendMode(mode);
  if (id < 0) return false;
  const t = intersectRect(r, rectOf(canvas));
  // In strips of up to PAINT_STRIP_PIXELS (a whole 800 × 640 background's colour overlay is 512 Ki px):
  // each pixel's paint and blend read only that pixel.
  const tw = t ? widthOf(t) : 0;
  const rows = t ? Math.min(heightOf(t), Math.max(1, Math.floor(PAINT_STRIP_PIXELS / tw))) : 0;
  const k = effectKernels(rows * tw) as (KernelExports & Partial<ShadowKernels>) | undefined;
  if (!k?.coveragePixels || !k.coveragePixelsWithin || !k.alphaRect || !k.coverageAlpha) return false;
  if (!t || fade <= 0) return true; // blendSurface draws nothing there
  // Per-pixel colours (over r, as paint indexes them) or one colour.
  const colours = color instanceof Uint8ClampedArray ? color : null;
  if (!colours) {
    colourBytes[0] = color[0];
    colourBytes[1] = color[1];
    colourBytes[2] = color[2];
  }
  const rgb = colourBytes[0] | (colourBytes[1] << 8) | (colourBytes[2] << 16);
  const rw = widthOf(r);
  const keep = keptChannels(style.excludedChannels);
  const fx = k as KernelExports & ShadowKernels;
  return inArena(k, (k, arena) => {
    const most = rows * tw;
    const cov = arena.alloc(most * 4);
    const pixels = arena.alloc(most * 4); // the layer's pixels (alphaInKernels' scratch), then the effect's
    const under = arena.alloc(most * 4);
    const f32 = arena.f32();
    const u8 = arena.u8();
    const rowBytes = tw * 4;
    for (let top = t.top; top < t.bottom; top += rows) {
      const strip = { left: t.left, top, right: t.right, bottom: Math.min(t.bottom, top + rows) };
      const th = heightOf(strip);
      const n = th * tw;
      if ('shape' in cover) {
        alphaInKernels(fx, f32, u8, sources!, strip, pixels, cov);
        cover.shape.pastCanvas?.(strip, f32.subarray(cov >> 2, (cov >> 2) + n));
      }
      for (let y = 0; y < th; y++) {
        if ('coverage' in cover) {
          const fw = widthOf(cover.from);
          const i = (top + y - cover.from.top) * fw + (t.left - cover.from.left);
          f32.set(cover.coverage.subarray(i, i + tw), (cov >> 2) + y * tw);
        }
        const di = ((top + y - canvas.y) * canvas.w + (t.left - canvas.x)) * 4;
        u8.set(canvas.data.subarray(di, di + rowBytes), under + y * rowBytes);
        if (colours) {
          const ci = ((top + y - r.top) * rw + (t.left - r.left)) * 4;
          u8.set(colours.subarray(ci, ci + rowBytes), pixels + y * rowBytes);
        }
      }
      if (colours) fx.coverageAlpha(cov, tw, tw, th, pixels, within ? under : 0);
      else if (within) fx.coveragePixelsWithin(cov, tw, tw, th, pixels, rgb, under);
      else fx.coveragePixels(cov, tw, tw, th, pixels, rgb);
      if (within) readsTarget(); // the alpha relative to the target's
      else recordPixels(u8, pixels, strip, fade, id, atop, keep);
      k.blendPixels(under, pixels, 0, n, fade, id, atop ? 1 : 0, keep, 0);
      kernelsOntoCanvas(u8, under, canvas, strip);
    }
    paintKernelDraws[within ? 'within' : 'over']++;
    if ('shape' in cover) paintKernelDraws.read++;
    if (rows < heightOf(t)) paintKernelDraws['shape' in cover ? 'strips' : 'coverageStrips']++;
    if (colours) paintKernelDraws.colours++;
    return true;
  });
}

/** The most pixels paintInKernels makes and blends at once (three arrays of 4 bytes a pixel: 768 KB). */
const PAINT_STRIP_PIXELS = 1 << 16;

/**
 * Where an interior effect paints in its layer's own composite (drawn apart, the clipping-group
 * unit): `false` over it with its own coverage; `true` (Fill 100 %) recolouring it within its
 * alpha; `'relative'` (Fill below 100 %) over it as if the layer covered its pixels wholly: the
 * composite's alpha taken relative to the layer's, the effect painted over it at its coverage
 * relative to the layer's, the alpha times the layer's again (docs/effects.md: with the unit then
 * blended over the backdrop this is the backdrop lerped to the effect over the content at Fill,
 * by the layer's alpha, for Normal-mode effects).
 */
export type InLayer = boolean | 'relative';

function paintRelative(canvas: Surface, r: Bounds, shape: Shape, coverage: Float32Array, color: RGB | Uint8ClampedArray, opacity: Opacity, mode: string | undefined, overlay: boolean, from: Bounds): void {
  readsTarget();
  const w = widthOf(r);
  const h = heightOf(r);
  const alpha = shape.alphaOver(r);
  const relative = new Float32Array(w * h);
  const fw = widthOf(from);
  for (let y = 0, p = 0; y < h; y++) {
    let i = (y + r.top - from.top) * fw + (r.left - from.left);
    let held = ((y + r.top - canvas.y) * canvas.w + (r.left - canvas.x)) * 4 + 3;
    for (let x = 0; x < w; x++, p++, i++, held += 4) {
      const a = alpha[p];
      if (a <= 0) continue;
      relative[p] = Math.min(1, coverage[i] / a);
      canvas.data[held] = Math.min(255, canvas.data[held] / a);
    }
  }
  // An effect in a mode of its own blends with the content as its Fill leaves it over the backdrop
  // (photocraft's calibration: "a fill-0 layer with a Color Dodge bevel lightens the backdrop"):
  // its colours as the mode gives them there, painted Normal.
  const [fill, fade] = split(opacity, mode);
  const own = mode && mode !== 'normal' && mode !== 'dissolve' ? blendedColours(canvas, shape, r, color, mode, true, fill) : null;
  paint(canvas, r, shape, relative, own ?? color, own ? fade : opacity, own ? 'normal' : mode, false, overlay);
  for (let y = 0, p = 0; y < h; y++) {
    let held = ((y + r.top - canvas.y) * canvas.w + (r.left - canvas.x)) * 4 + 3;
    for (let x = 0; x < w; x++, p++, held += 4) if (alpha[p] > 0) canvas.data[held] = canvas.data[held] * alpha[p];
  }
  drop(alpha, relative, own);
}

function globalAngle(ctx: EffectContext, e: { useGlobalLight?: boolean; angle?: number }): number {
  return lightAngle(e, ctx.compiled.globalAngle);
}

/** An effect's light angle (degrees): the document's global light unless the effect says otherwise. */
const lightAngle = (e: { useGlobalLight?: boolean; angle?: number }, documentAngle: number | undefined): number =>
  e.useGlobalLight !== false && documentAngle !== undefined ? documentAngle : (e.angle ?? 120);

/**
 * A shadow's move at `scale` (output px, as `shift` takes it): its distance along the light's
 * angle, in whole document pixels, halves rounded away from zero (photocraft's calibration on
 * Photoshop's composites: "5 at 120° moves 3 across and 4 down"; the cosine's last bit must not
 * decide it: 5·cos 60° is 2.4999999999999996 in floating point). Also where composite/dirty.ts
 * finds a personalised shadow's reach.
 */
export function shadowOffset(d: { useGlobalLight?: boolean; angle?: number; distance?: { value: number } }, documentAngle: number | undefined, scale: number): [number, number] {
  const angle = (lightAngle(d, documentAngle) * Math.PI) / 180;
  const dist = px(d.distance);
  return [wholePixels(-Math.cos(angle) * dist) * scale, wholePixels(Math.sin(angle) * dist) * scale];
}

/** v to the nearest whole number, halves (to within 1e-9) away from zero. */
const wholePixels = (v: number) => Math.sign(v) * Math.floor(Math.abs(v) + 0.5 + 1e-9) || 0;

const offsetOf = (ctx: EffectContext, d: Parameters<typeof shadowOffset>[0]) => shadowOffset(d, ctx.compiled.globalAngle, ctx.scale);

type Satin = NonNullable<LayerEffectsInfo['satin']>;
/**
 * How far each of the satin's two copies moves (output px): its distance along its angle in whole
 * document pixels, as a shadow's offset (photocraft's satin, fitted on Photoshop's composite of
 * psd-tools' layer_effects.psd; psdtools-layer-effects-all.psd's Satin line 60.95 → 61.00 dB,
 * docs/effects.md "photocraft's bevel, glow and satin calibrations").
 */
function satinOffset(ctx: EffectContext, satin: Satin): { dx: number; dy: number } {
  const angle = ((satin.angle ?? 19) * Math.PI) / 180;
  const dist = px(satin.distance);
  return { dx: wholePixels(Math.cos(angle) * dist) * ctx.scale, dy: wholePixels(-Math.sin(angle) * dist) * ctx.scale };
}

/**
 * How far a bevel reads and paints past the shape: its height field is the shape blurred by its
 * size, plus the soften blur; a stroke emboss blurs the stroke's band, which reaches the stroke's
 * size out.
 */
function bevelReach(b: Bevel, fx: LayerEffectsInfo, scale: number): number {
  const stroke = Math.max(0, ...list(fx.stroke).map((s) => px(s.size)));
  return (px(b.size) + px(b.soften) + (b.style === 'stroke emboss' ? stroke : 0)) * scale;
}

/**
 * How far (output px) a shadow's or glow's spread or choke (a percentage of its size) grows the
 * shape: whole pixels of the document, as Photoshop draws it. In agpsd-effects.psd a drop shadow
 * of size 5 at 2 % (0.1 px) is Photoshop's size-5 blur of the unspread shape to 0.14 % of
 * coverage RMS (0.98 % with the 0.1 px spread drawn: a thinner blur and a grown edge).
 */
const spreadOf = (e: { size?: { value: number }; choke?: { value: number } }, scale: number) =>
  Math.round((px(e.size) * Math.max(0, Math.min(100, px(e.choke)))) / 100) * scale;

/** Shadow/glow body: the spread (output px, spreadOf) grows the shape, the rest of the size blurs it. */
function soften(alpha: Float32Array, w: number, h: number, size: number, spread: number, owned = false): Float32Array {
  const radius = size - spread;
  // A new array either way (blur makes its own): `alpha` stays as it was, unless the caller
  // hands it over (`owned`: made for this and read no more; a large spread is then grown over it).
  const a = spread > 0 ? spreadMatte(alpha, w, h, spread, owned) : alpha;
  if (owned && a !== alpha) drop(alpha);
  // Larger than the WASM passes take, blur's TypeScript would make two more arrays (issue 25 §1):
  // blurred over itself (blurInPlace: the same floats) when no one else reads it.
  if (radius > 0 && a.length > WASM_BLUR_PIXELS && (owned || a !== alpha)) return blurInPlace(a, w, h, radius);
  if (radius <= 0) return a === alpha && !owned ? alpha.slice() : a;
  const blurred = blur(a, w, h, radius);
  if (owned || a !== alpha) drop(a);
  return blurred;
}

/**
 * Glow body, "precise" technique: Adobe describes it as a distance measurement (where "softer"
 * blurs), for hard-edged mattes such as type. Full strength out to the spread (choke %) of the
 * size from the anti-aliased edge, then falling linearly with the Euclidean distance to nothing
 * at the size: outward from the shape (outer glow) or inward from its edge (inner glow).
 */
export function precise(alpha: Float32Array, w: number, h: number, size: number, spreadPercent: number, inward: boolean, to?: Bounds): Float32Array {
  // Over `to` (within w × h) only, when given: the part of the arrays a tile paints (signedDistance).
  const d = signedDistance(alpha, w, h, to);
  const plateau = (size * Math.max(0, Math.min(100, spreadPercent))) / 100;
  // Over the distances themselves (each read once, before it is written): no second array.
  for (let i = 0; i < d.length; i++) {
    const x = Math.max(0, inward ? -d[i] : d[i]);
    d[i] = x <= plateau ? 1 : x >= size ? 0 : 1 - (x - plateau) / (size - plateau);
  }
  return d;
}

export function drawEffectsBelow(ctx: EffectContext, node: LayerNode, canvas: Surface, shape: Shape, atop: boolean): void {
  const fx = node.effects as LayerEffectsInfo;
  const s = ctx.scale;
  const target = rectOf(canvas);
  // How much of its own coverage the layer will paint over its glows and shadows (Fill, lifted by overlays).
  const cover = list(fx.outerGlow).length || list(fx.dropShadow).length ? contentAlpha(node) / Math.max(node.opacity, 1e-6) : 1;
  for (const g of list(fx.outerGlow).reverse()) {
    const size = px(g.size) * s;
    const spreads = (g as { technique?: string }).technique !== 'precise' ? spreadReach(spreadOf(g, s)) : 0;
    const pass = { dx: 0, dy: 0, paint: reach(size), read: reach(size), everywhere: liftsZero(g.contour, g.range ?? 0.5), spread: spreads };
    // The softer glow without a spread is a blur of the alpha alone: cut to the pixels that cover
    // anything as the kernels' shadow is (tightShape, nearShape; issue 25 §3: a personalised
    // text's raster has empty margins, over which it blurred zeros). The same bytes: the arrays
    // lose only values that are 0 through every box pass, before the first of which the sums
    // start at +0 either way, and a pixel the tiles lose lies beyond the blur's reach of every
    // alpha not 0 (coverage 0, which paints nothing unless the range and contour lift 0: not cut then).
    const softer = (g as { technique?: string }).technique !== 'precise';
    const cut = softer && spreadOf(g, s) === 0 && !pass.everywhere ? tightShape(shape) : shape;
    if (!cut) continue; // no pixel of the layer covers anything: its glow paints nothing
    // Then, with a colour blended as the kernels blend (no Fill in its mode, no knockout), the
    // whole glow in the kernels' memory as the shadow is (shadowInKernels, moved by nothing):
    // the alpha read, blurred, its range and contour applied, its pixels made and blended there.
    const [fill, fade] = split(fxOpacity(g.opacity, node.opacity), g.blendMode ?? 'screen');
    const inKernels = cut !== shape && size > 0 && fill === undefined && !(cover < 1) && !(g as { gradient?: Gradient }).gradient;
    const shaped = (body: Float32Array) => {
      applyRange(body, g.range);
      applyContour(body, g.contour);
    };
    eachTile(pass, cut, target, (tile, arrays) => {
      const r = cut === shape ? arrays : nearShape(arrays, cut, pass);
      if (inKernels && shadowInKernels(canvas, tile, r, shape, 0, 0, size, rgbOf(g.color), fade, g.blendMode ?? 'screen', atop, shaped)) return;
      const alpha = alphaOf(shape, r);
      // ag-psd reads the technique (GlwT) of outer glows too, though its type leaves it out.
      const w = widthOf(r);
      const h = heightOf(r);
      // Only the tile is painted, and what follows goes pixel by pixel: the body over the tile
      // (the precise distances measured there only; issue 25 §1), the same values.
      const precisely = (g as { technique?: string }).technique === 'precise';
      const body = precisely ? precise(alpha, w, h, size, px(g.choke), false, within(tile, r)) : cropOwned(soften(alpha, w, h, size, spreadOf(g, s), true), r, tile);
      if (precisely) drop(alpha); // soften took it over (and dropped it or made the body of it)
      applyRange(body, g.range);
      applyContour(body, g.contour);
      // An outer glow never shows through a faded fill: within the layer only the backdrop the
      // Fill leaves (knockOut, as "Layer Knocks Out Drop Shadow" does; photocraft's calibration on
      // Aspose's FillOpacitySample.psd). At Fill 100 % nothing changes.
      if (cover < 1) {
        const filled = cropOwned(fillOf(shape, r), r, tile);
        knockOut(body, filled, cover);
        drop(filled);
      }
      const graded = glowGradient(g, body);
      if (graded) paint(canvas, tile, shape, graded.coverage, graded.colors, fxOpacity(g.opacity, node.opacity), g.blendMode ?? 'screen', atop, false, tile);
      else paint(canvas, tile, shape, body, rgbOf(g.color), fxOpacity(g.opacity, node.opacity), g.blendMode ?? 'screen', atop, false, tile);
      drop(body, graded?.coverage, graded?.colors);
    });
  }
  for (const d of list(fx.dropShadow).reverse()) {
    const [dx, dy] = offsetOf(ctx, d);
    const size = px(d.size) * s;
    const pass = { dx, dy, paint: reach(size), read: reach(size), moves: true, everywhere: liftsZero(d.contour), spread: spreadReach(spreadOf(d, s)) };
    // Without a spread, contour or knockout: the whole shadow in the kernels' memory (same bytes).
    const [fill, fade] = split(fxOpacity(d.opacity, node.opacity), d.blendMode ?? 'multiply');
    const inKernels =
      spreadOf(d, s) === 0 && size > 0 && fill === undefined && !(d.layerConceals !== false && cover < 1) && !contourLut(d.contour) && !!shape.pixelSources;
    const tight = inKernels ? tightShape(shape) : shape;
    if (!tight) continue; // no pixel of the layer covers anything: its shadow paints nothing
    eachTile(pass, tight, target, (tile, r) => {
      if (inKernels && shadowInKernels(canvas, tile, nearShape(r, tight, pass), shape, dx, dy, size, rgbOf(d.color), fade, d.blendMode ?? 'multiply', atop)) return;
      const body = shadowBody(shape, r, dx, dy, false, size, spreadOf(d, s));
      applyContour(body, d.contour);
      if (d.layerConceals !== false && cover < 1) {
        const filled = fillOf(shape, r);
        knockOut(body, filled, cover);
        drop(filled);
      }
      paint(canvas, tile, shape, body, rgbOf(d.color), fxOpacity(d.opacity, node.opacity), d.blendMode ?? 'multiply', atop, false, r);
      drop(body); // not the bodies' scratch (drop keeps it)
    });
  }
  // What the layer's strokes in modes of their own, and its interior effects over a faded fill,
  // blend with: the target under the layer as it stands now (after its glows and shadows).
  const strokes = list(fx.stroke).filter((st) => px(st.size) * s > 0);
  if (strokes.some((st) => ownMode(st)) || ((node.fillOpacity ?? 1) < 1 && interiorModes(fx))) {
    const r = paintRect({ dx: 0, dy: 0, paint: strokes.length ? reach(Math.max(...strokes.map((st) => px(st.size) * s))) : 0, read: 0 }, shape, target);
    if (r) backdrops.set(shape, { from: canvas, backdrop: cropSurface(canvas, r) });
    readsTarget();
  }
  drawStrokes(ctx, node, canvas, shape, atop, false, 'under');
}

type Glow = NonNullable<LayerEffectsInfo['outerGlow']>;

/**
 * A glow filled with a gradient (its 'Grad' in place of a colour): the gradient runs along the
 * glow, not across the canvas. Where the glow's strength (after its range and contour, relative to
 * the layer's `alpha` for an inner glow) is v, its colour is the gradient at 1 − v, so the first
 * stop hugs the edge, and it is opaque from v = range² on (coverage min(1, v ÷ range²), times the
 * gradient's own opacity there). photocraft's paint_glow (effects.rs), measured on Photoshop's
 * composite of its corpus file outer-glow-gradient.psd (1.4/255 mean, against bands across the
 * canvas) and psd-tools' layer_params.psd. A glow's gradient has no angle, style or Reverse.
 * Null for a colour glow. `body` and the result cover the same rectangle.
 */
function glowGradient(g: Glow, body: Float32Array, alpha?: Float32Array): { coverage: Float32Array; colors: Uint8ClampedArray } | null {
  const gradient = (g as { gradient?: Gradient }).gradient;
  if (!gradient) return null;
  const method = (g as { interpolationMethod?: string }).interpolationMethod ?? (gradient as { interpolationMethod?: string }).interpolationMethod;
  const built = gradientRamp(gradient, { method });
  if (!built) return null;
  const { rgba: ramp, steps } = built;
  const range = Math.max(0.01, Math.min(1, g.range ?? 0.5));
  const gain = 1 / (range * range);
  const coverage = new Float32Array(body.length);
  const colors = new Uint8ClampedArray(body.length * 4);
  for (let i = 0; i < body.length; i++) {
    const a = alpha ? alpha[i] : 1;
    if (a <= 0) continue;
    const v = Math.max(0, Math.min(1, body[i] / a));
    const k = Math.round((1 - v) * (steps - 1)) * 4;
    colors.set(ramp.subarray(k, k + 4), i * 4);
    coverage[i] = a * Math.min(1, v * gain) * (ramp[k + 3] / 255);
  }
  return { coverage, colors };
}

/** Whether any interior effect blends in a mode of its own (paintRelative blends it with the backdrop kept). */
function interiorModes(fx: LayerEffectsInfo): boolean {
  const own = (mode: string | undefined, byDefault: string) => (mode ?? byDefault) !== 'normal';
  const overlays = [...list(fx.solidFill), ...list(fx.gradientOverlay), ...(on(fx.patternOverlay) ? [fx.patternOverlay] : [])];
  return (
    overlays.some((o) => own(o.blendMode, 'normal')) ||
    (on(fx.satin) && own(fx.satin.blendMode, 'multiply')) ||
    (on(fx.innerGlow) && own(fx.innerGlow.blendMode, 'screen')) ||
    list(fx.innerShadow).some((d) => own(d.blendMode, 'multiply')) ||
    list(fx.bevel).some((b) => own(b.highlightBlendMode, 'screen') || own(b.shadowBlendMode, 'multiply')) ||
    list(fx.stroke).some((st) => st.position === 'inside' && own(st.blendMode, 'normal'))
  );
}

/**
 * A stroke in a mode of its own (not Normal or Dissolve), which the mode's blend needs a backdrop
 * for: 'knockout' (Overprint off, Photoshop's default) blends with what lies under the layer, so
 * it knocks out the layer's content and the strokes listed below it within its band; 'overprint'
 * blends with what lies under it there (docs/effects.md, "Stroke blend modes and Overprint").
 */
function ownMode(st: Stroke): 'knockout' | 'overprint' | null {
  const mode = st.blendMode ?? 'normal';
  if (mode === 'normal' || mode === 'dissolve') return null;
  return (st as { overprint?: boolean }).overprint ? 'overprint' : 'knockout';
}

/**
 * The target under a layer whose strokes blend in their own modes, as it stood after the layer's
 * shadows and glows (drawEffectsBelow, before any stroke and the content), over where its strokes
 * paint; `from` is that target (the canvas), which a layer drawn as a unit of its own (the
 * compositor's clipping group) is not.
 */
const backdrops = new WeakMap<Shape, { from: Surface; backdrop: Surface }>();

/**
 * An effect's colours over `tile` once blended in its own mode: its colour (opaque: a gradient's or
 * pattern's alpha is in the coverage) blended with what it lies on, painted Normal these take the
 * mode's result over whatever its coverage covers. `over` false: the backdrop under the layer (a
 * stroke knocking out, `ownMode`); true: that backdrop with what is drawn on `canvas` over it, where
 * `canvas` is the layer's own unit (drawn from transparency: the layer and the strokes below, or
 * its content faded by its Fill); on the canvas itself the effect blends in its mode as it paints
 * (null). Null too where no backdrop was kept over `tile` (drawEffectsBelow).
 */
function blendedColours(canvas: Surface, shape: Shape, tile: Bounds, color: RGB | Uint8ClampedArray, mode: string, over: boolean, fill?: number): Uint8ClampedArray | null {
  const held = backdrops.get(shape);
  const r = held && intersectRect(tile, rectOf(held.backdrop));
  if (!held || !r || r.left !== tile.left || r.top !== tile.top || r.right !== tile.right || r.bottom !== tile.bottom) return null;
  if (over && held.from === canvas) return null;
  readsTarget();
  const under = cropSurface(held.backdrop, tile);
  if (over) {
    const above = cropSurface(canvas, tile);
    blendSurface(under, above, null, 1, 'normal');
    drop(above.data);
  }
  const paint = createSurface(tile);
  const d = paint.data;
  if (color instanceof Uint8ClampedArray) {
    for (let o = 0; o < d.length; o += 4) {
      d[o] = color[o];
      d[o + 1] = color[o + 1];
      d[o + 2] = color[o + 2];
      d[o + 3] = 255;
    }
  } else if (d.length) {
    // One colour: the first pixel, then its four bytes as one word over the rest (a typed
    // array's set per pixel from a plain array was most of an inner glow's time; issue 25 §3).
    d[0] = color[0];
    d[1] = color[1];
    d[2] = color[2];
    d[3] = 255;
    const words = new Uint32Array(d.buffer, d.byteOffset, d.length >> 2);
    words.fill(words[0]);
  }
  blendSurface(under, paint, null, 1, mode, { fill });
  drop(paint.data);
  return under.data;
}

/**
 * "Layer Knocks Out Drop Shadow" (on by default): within the layer's coverage a the shadow gives
 * way to the backdrop where the layer's Fill f leaves it showing, so at Fill 0 the shadow shows
 * beside the layer and not under it (Adobe: it "controls the drop shadow's visibility in a
 * semitransparent layer"; psd-tools' test_drop_shadow.py: "the shadow only setup the knockout
 * switch exists for"). A pixel is a·(fL + (1 − f)B) + (1 − a)·(shadow over B): the shadow under
 * the content at (1 − a) ÷ (1 − fa) of its coverage. At Fill 100 % nothing changes: cutting the
 * shadow by a there lowered psdtools-layer-effects-all.psd by 2.0 dB and agpsd-effects.psd by 0.1
 * (their soft edges show the shadow uncut under them).
 */
function knockOut(body: Float32Array, alpha: Float32Array, fill: number): void {
  for (let i = 0; i < body.length; i++) {
    const a = alpha[i];
    if (a > 0) body[i] *= a >= 1 ? 0 : (1 - a) / (1 - fill * a);
  }
}

/** Whether nothing (coverage 0) comes out painted after a glow's range and a contour. */
function liftsZero(contour: { curve?: Array<{ x: number; y: number }> } | undefined, range?: number): boolean {
  const zero = new Float32Array(1);
  if (range !== undefined) applyRange(zero, range);
  applyContour(zero, contour);
  return Math.round(zero[0] * 255) > 0;
}

/** An effect's contour as a table (null: linear, which changes nothing). */
const contourLut = (contour: { curve?: Array<{ x: number; y: number }> } | undefined) => curveLut(contour?.curve?.map((p) => ({ input: p.x, output: p.y })));

/** An effect's contour (its falloff curve, 0..255 both ways) applied to a coverage map. */
function applyContour(cov: Float32Array, contour: { curve?: Array<{ x: number; y: number }> } | undefined): void {
  const lut = contourLut(contour);
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
 * The colour bytes (as paint stores them) of a layer's one colour overlay when it recolours the
 * whole of a unit made of the layer's pixels alone (no mask, Fill 100 %), else null: Normal at
 * 100 %, the layer's own channels all kept, no pattern or gradient overlay under it, and the
 * layer's own pixels for its fill (no traced path). Painted within the unit (drawEffectsAbove's
 * `inLayer` true) its coverage is the pixels' alpha A relative to the unit's, A: f32(A ÷ 255) · 255
 * ÷ A rounds to 1, the colour's alpha byte 255, and the blend atop at 100 % stores the colour, the
 * alpha A kept. So the unit is the colour at the pixels' alpha whatever their colours (the
 * compositor's clipping group then draws it so: no blend of the pixels, no overlay painted).
 */
export function wholeColourOverlay(node: LayerNode, shape: Shape): Uint8ClampedArray | null {
  const fx = node.effects as LayerEffectsInfo | undefined;
  if (!fx || shape.fillOver || shape.excludedChannels?.length || node.opacity !== 1) return null;
  const fills = list(fx.solidFill);
  if (fills.length !== 1 || on(fx.patternOverlay) || list(fx.gradientOverlay).length) return null;
  const f = fills[0]!;
  if ((f.blendMode ?? 'normal') !== 'normal' || (f.opacity ?? 1) !== 1) return null;
  return new Uint8ClampedArray(rgbOf(f.color));
}

/** The shape's alpha times the alpha bytes of per-pixel colours, in place: an overlay's coverage. */
function timesAlpha(alpha: Float32Array, colors: Uint8ClampedArray): Float32Array {
  for (let i = 0; i < alpha.length; i++) alpha[i] = alpha[i] * (colors[i * 4 + 3] / 255);
  return alpha;
}

/**
 * The effects over the content. `overOverlays` draws what sits between the overlays and the other
 * interior effects: a shape layer's own stroke, which Photoshop keeps above its fill overlays.
 * `part`: all of them, or those "Blend Interior Effects as Group" groups with the content under
 * its Fill ('grouped': the overlays, satin and inner glow, Adobe's list of the effects it covers,
 * as photocraft's compositor draws it) or the rest ('rest': inner shadows, strokes, bevel).
 */
export function drawEffectsAbove(
  ctx: EffectContext,
  node: LayerNode,
  canvas: Surface,
  shape: Shape,
  atop: boolean,
  overOverlays?: () => void,
  inLayer: InLayer = false,
  part: 'all' | 'grouped' | 'rest' = 'all',
  coloured = false,
): void {
  const grouped = part !== 'rest';
  const fx = node.effects as LayerEffectsInfo;
  const s = ctx.scale;
  const opacity = node.opacity;
  const target = rectOf(canvas);
  // Overlays, satin and the inner effects paint inside the shape only.
  const inside = (read: number, inverted = false): Pass => ({ dx: 0, dy: 0, paint: 0, read, inverted });

  const pattern = fx.patternOverlay;
  const tile = on(pattern) && pattern.pattern ? ctx.patterns.get(pattern.pattern.id) : null;
  if (grouped && on(pattern) && tile) {
    // Tiled from the document origin, or when linked with the layer from its effects reference
    // point, at its scale and phase; the pattern's own transparency thins the overlay.
    const turn = (pattern as { angle?: number }).angle ?? 0;
    const tiling = effectTiling(node, s, pattern.align !== false, pattern.phase, pattern.scale ?? 1, turn);
    // In bands of rows, as the gradient overlay: tilePattern's colours are each pixel's from its
    // place alone (issue 25 §1: a full-size layer's overlay held its colours and coverage over a
    // tile of 4 M px, 32 MB).
    eachTileInside(inside(0), shape, target, (t) => {
      const colorsOver = patternRows(tile, tiling, t.left, t.top, widthOf(t), heightOf(t));
      eachOverlayBand(shape, t, (r) => {
        const colors = colorsOver(r.top, r.bottom);
        const coverage = timesAlpha(fillOf(shape, r), colors);
        paint(canvas, r, shape, coverage, colors, fxOpacity(pattern.opacity, opacity), pattern.blendMode, atop, true, r, inLayer);
        drop(colors, coverage);
      });
    });
  }
  for (const g of grouped ? list(fx.gradientOverlay).reverse() : []) {
    eachTileInside(inside(0), shape, target, (tile) =>
      eachOverlayBand(shape, tile, (r) => {
        const colors = gradientPixels(g, r, ctx.scale, gradientBox(ctx, node, g.align));
        if (!colors) return;
        const coverage = timesAlpha(fillOf(shape, r), colors);
        paint(canvas, r, shape, coverage, colors, fxOpacity(g.opacity, opacity), g.blendMode, atop, true, r, inLayer);
        drop(colors, coverage);
      }),
    );
  }
  // `coloured`: the unit holds its colour overlay already (wholeColourOverlay).
  for (const f of grouped && !coloured ? list(fx.solidFill).reverse() : []) {
    eachTileInside(inside(0), shape, target, (r) => {
      const colour = rgbOf(f.color);
      const o = fxOpacity(f.opacity, opacity);
      // The fill read from the layer's pixels in the kernels' memory where it is their alpha alone.
      const [fill, fade] = split(o, f.blendMode);
      if (inLayer !== 'relative' && !shape.fillOver && fill === undefined && paintInKernels(canvas, r, shape, { shape }, colour, fade, f.blendMode ?? 'normal', atop || inLayer, inLayer, true)) return;
      const filled = fillOf(shape, r);
      paint(canvas, r, shape, filled, colour, o, f.blendMode, atop, true, r, inLayer);
      drop(filled);
    });
  }
  if (grouped) overOverlays?.();
  const satin = fx.satin;
  if (grouped && on(satin)) {
    // Two copies of the shape, blurred and pushed apart along the angle; their difference.
    const { dx, dy } = satinOffset(ctx, satin);
    const size = px(satin.size) * s;
    const lut = curveLut(satin.contour?.curve?.map((p) => ({ input: p.x, output: p.y })));
    const pass = inside(reach(size));
    // Where the layer's pixels cover anything (when known): each copy's arrays lose what lies
    // beyond the blur's reach of its moved alpha and of the tile (issue 25 §3).
    const covered = coveredExtent(shape);
    eachTileInside(pass, shape, target, (tile, r) => {
      // One copy blurred and cut to the tile before the other is read (issue 25 §1: at most one
      // copy of the read rectangle alive): moved and blurred in one pass (movedBlur: in the
      // kernels' memory, blur(bilinearMove(…)) to the bit, as shiftedAlpha then blur made it; a
      // copy larger than the WASM passes take is blurred over itself, as blurInPlace did).
      // Each copy's arrays are r cut to its moved alpha grown by the reach, and the tile: what
      // they lose is 0 through every box pass (the sums start at +0 either way, and no value the
      // tile reads is lost), so the same floats.
      const blurred = (mx: number, my: number) => {
        const near = covered ? nearCopy(r, covered, tile, mx, my, pass.read) : r;
        const w = widthOf(near);
        const h = heightOf(near);
        const { fx, fy, read, scratch } = shiftSource(shape, near, mx, my, false);
        // Into the shadow bodies' array (up to 1 MB, kept): only its cut to the tile is kept.
        const into = w * h <= 1 << 18 ? bodies.take('body', w * h) : undefined;
        const body = movedBlur(read, w, h, fx, fy, size, into, scratch);
        const cut = cropOwned(body, near, tile); // the bodies' scratch stays (drop keeps it)
        return cut === into ? cut.slice() : cut;
      };
      const a = blurred(dx, dy);
      const b = blurred(-dx, -dy);
      const alpha = fillOf(shape, tile);
      const cov = new Float32Array(alpha.length);
      for (let i = 0; i < cov.length; i++) {
        // Invert turns the difference over before the contour shapes it (photocraft's order;
        // agpsd-effects.psd's inverted satin 26.81 → 26.96 dB against the other way round).
        let v = Math.min(1, Math.abs(a[i] - b[i]));
        if (satin.invert) v = 1 - v;
        if (lut) v = throughCurve(lut, v);
        cov[i] = v * alpha[i];
      }
      drop(a, b, alpha);
      paint(canvas, tile, shape, cov, rgbOf(satin.color), fxOpacity(satin.opacity, opacity, 0.5), satin.blendMode ?? 'multiply', atop, false, tile, inLayer);
      drop(cov);
    });
  }
  const inner = fx.innerGlow;
  if (grouped && on(inner)) {
    const size = px(inner.size) * s;
    const spreads = inner.technique !== 'precise' ? spreadReach(spreadOf(inner, s)) : 0;
    const pass = { ...inside(reach(size), inner.technique !== 'precise'), everywhere: liftsZero(inner.contour, inner.range ?? 0.5), spread: spreads };
    eachTileInside(pass, shape, target, (tile, r) => {
      // Over the tile only (it alone is painted, and what follows goes pixel by pixel; the precise
      // distances measured there only: issue 25 §1), the same values. The softer body is what
      // lies outside the shape (1 − alpha) blurred: shadowBody moved by nothing (1 − alpha read
      // into the kernels' memory and blurred there, soften(1 − alpha) to the bit; issue 25 §3).
      const alpha = inner.technique === 'precise' ? alphaOf(shape, r) : null;
      const body = alpha ? precise(alpha, widthOf(r), heightOf(r), size, px(inner.choke), true, within(tile, r)) : insideBody(shape, r, tile, 0, 0, size, spreadOf(inner, s));
      drop(alpha);
      if (inner.source === 'center') for (let i = 0; i < body.length; i++) body[i] = 1 - body[i];
      const filled = fillWithin(shape, r, tile);
      applyRange(body, inner.range);
      applyContour(body, inner.contour);
      for (let i = 0; i < body.length; i++) body[i] = Math.min(1, body[i]) * filled[i];
      const graded = glowGradient(inner, body, filled);
      if (graded) paint(canvas, tile, shape, graded.coverage, graded.colors, fxOpacity(inner.opacity, opacity), inner.blendMode ?? 'screen', atop, false, tile, inLayer);
      else paint(canvas, tile, shape, body, rgbOf(inner.color), fxOpacity(inner.opacity, opacity), inner.blendMode ?? 'screen', atop, false, tile, inLayer);
      drop(body, filled, graded?.coverage, graded?.colors);
    });
  }
  if (part === 'grouped') return;
  for (const d of list(fx.innerShadow).reverse()) {
    const [dx, dy] = offsetOf(ctx, d);
    const size = px(d.size) * s;
    eachTileInside({ ...inside(reach(size), true), spread: spreadReach(spreadOf(d, s)) }, shape, target, (tile, r) => {
      // Only the tile is painted, and what follows the body goes pixel by pixel: over the tile
      // (issue 25 §3: the arrays reach the size past it on every side), the same values.
      const cov = insideBody(shape, r, tile, dx, dy, size, spreadOf(d, s));
      applyContour(cov, d.contour);
      const alpha = fillWithin(shape, r, tile);
      for (let i = 0; i < cov.length; i++) cov[i] *= alpha[i];
      drop(alpha);
      paint(canvas, tile, shape, cov, rgbOf(d.color), fxOpacity(d.opacity, opacity), d.blendMode ?? 'multiply', atop, false, tile, inLayer);
      drop(cov);
    });
  }
  drawStrokes(ctx, node, canvas, shape, atop, inLayer, 'over');
  const bevel = fx.bevel;
  if (on(bevel)) drawBevel(ctx, node, bevel, shape, canvas, opacity, atop, inLayer);
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
function drawStrokes(ctx: EffectContext, node: LayerNode, canvas: Surface, shape: Shape, atop: boolean, inLayer: InLayer, where: 'under' | 'over'): void {
  const fx = node.effects as LayerEffectsInfo;
  const all = list(fx.stroke).filter((st) => px(st.size) * ctx.scale > 0);
  if (!all.length) return;
  const under = strokesUnder(node, all);
  const strokes = all.filter((_, i) => under[i] === (where === 'under'));
  if (!strokes.length) return;
  // The stroke lies under the content: where the content will cover α of a pixel, the stroke's
  // share t of it is the rest of the pixel's, t ÷ (1 − α) of what the content leaves showing.
  const held = where === 'under' ? contentAlpha(node) : 0;
  const size = reach(Math.max(...all.map((st) => px(st.size) * ctx.scale)));
  const box = (align: boolean | undefined) => strokeGradientBox(ctx, node, align, all);
  const plain = kernelStrokes(node, [...strokes].reverse(), ctx.scale, inLayer);
  const tight = plain ? tightShape(shape) : shape;
  if (!tight) return; // no pixel of the layer covers anything: no band
  const pass = { dx: 0, dy: 0, paint: size, read: size };
  eachTile(pass, tight, rectOf(canvas), (tile, r) => {
    if (plain && strokesInKernels(canvas, tile, nearShape(r, tight, pass), shape, plain, held, atop)) return;
    const alpha = alphaOf(shape, r);
    // Over the tile only (it alone is painted; the band goes pixel by pixel): issue 25 §1.
    const dist = chamferDistance(alpha, widthOf(r), heightOf(r), within(tile, r));
    const own = !held ? null : shape.fillOver ? cropOwned(shape.fillOver(r), r, tile) : crop(alpha, r, tile);
    for (const st of [...strokes].reverse()) {
      const cov = strokeBand(st, dist, ctx.scale);
      if (own) {
        for (let i = 0; i < cov.length; i++) {
          if (!cov[i] || !own[i]) continue;
          const left = 1 - own[i] * held;
          cov[i] = left > 0 ? Math.min(1, cov[i] / left) : 1;
        }
      }
      // A gradient's or pattern's colours over rows of the tile (null: the stroke's colour). Past
      // a shapeburst (read off the distances) each pixel's colour is from its place alone, so with
      // no mode of its own (blendedColours reads the backdrop over the tile) they go in bands of
      // rows, as overlays do (eachOverlayBand), the coverage and the tile's distances whole: a
      // pattern stroke held its colours over a tile of 4 M px, 16 MB, and left each tile's to the
      // collector (issue 25 §1).
      const g = st.fillType === 'gradient' && st.gradient ? st.gradient : null;
      const burst = !!g && (g.style as string) === 'shapeburst';
      const pattern = !g && st.fillType === 'pattern' && st.pattern ? ctx.patterns.get(st.pattern.id) : undefined;
      // Linked with the layer unless the file says otherwise (Photoshop's default); the scale
      // is read from the record (psd/tree.ts: ag-psd drops it).
      const p = st.pattern as { linked?: boolean; phase?: { x: number; y: number }; scale?: number } | undefined;
      const patterned = pattern && patternRows(pattern, effectTiling(node, ctx.scale, p?.linked !== false, p?.phase, p?.scale ?? 1), tile.left, tile.top, widthOf(tile), heightOf(tile));
      const coloursOver = (r: Bounds): Uint8ClampedArray | null =>
        g ? (burst ? burstFill(st, dist, ctx.scale) : gradientPixels({ ...g, type: g.style ?? 'linear', gradient: g }, r, ctx.scale, box(g.align))) : patterned ? patterned(r.top, r.bottom) : null;
      // In a mode of its own: its colours as that mode gives them over what it blends with, painted Normal.
      const how = ownMode(st);
      const [fill, fade] = split(fxOpacity(st.opacity, node.opacity), st.blendMode);
      const tw = widthOf(tile);
      const paintOver = (r: Bounds) => {
        let color: RGB | Uint8ClampedArray = rgbOf(st.color);
        const colors = coloursOver(r);
        if (colors) {
          color = colors;
          // r is whole rows of the tile: its coverage from the tile's (r.top − tile.top) · tw on.
          for (let i = 0, at = (r.top - tile.top) * tw, n = colors.length >> 2; i < n; i++) cov[at + i] *= colors[i * 4 + 3] / 255;
        }
        let mode = st.blendMode;
        let opacity = fxOpacity(st.opacity, node.opacity);
        const blended = how && blendedColours(canvas, shape, r, color, mode!, how === 'overprint', fill);
        if (blended) {
          color = blended;
          mode = 'normal';
          opacity = fade;
        }
        // An inside stroke lies within the layer's shape: part of its composite (`inLayer`).
        paint(canvas, r, shape, cov, color, opacity, mode, atop, false, tile, st.position === 'inside' && inLayer);
        drop(blended || null, colors);
      };
      const banded = byPixel.on && !how && !burst && (!!g || !!pattern);
      const rows = banded ? Math.max(1, Math.floor(byPixel.band / Math.max(1, tw))) : heightOf(tile);
      for (let top = tile.top; top < tile.bottom; top += rows) paintOver({ ...tile, top, bottom: Math.min(tile.bottom, top + rows) });
      drop(cov);
    }
    drop(alpha, dist, own);
  });
}

/** A stroke strokesInKernels draws: its band (strokeLimits), colour bytes, opacity and blend mode's kernel id. */
interface KernelStroke {
  lo: number;
  hi: number;
  rgb: number;
  fade: number;
  id: number;
}

/**
 * The strokes (in the order drawStrokes paints them) as strokesInKernels draws them, or null when
 * one of them is not a plain stroke: a gradient or pattern fill, a mode of its own (ownMode), a
 * Fill the blend takes inside its mode, an inside stroke drawn into the layer's own composite, or
 * a mode the blend kernel leaves to the TypeScript.
 */
function kernelStrokes(node: LayerNode, strokes: Stroke[], scale: number, inLayer: InLayer): KernelStroke[] | null {
  if (!kernelsOn) return null;
  const out: KernelStroke[] = [];
  for (const st of strokes) {
    if ((st.fillType === 'gradient' && st.gradient) || (st.fillType === 'pattern' && st.pattern) || ownMode(st)) return null;
    if (st.position === 'inside' && inLayer) return null;
    const [fill, fade] = split(fxOpacity(st.opacity, node.opacity), st.blendMode);
    const id = wasmBlendMode(st.blendMode ?? 'normal');
    if (fill !== undefined || id < 0) return null;
    const [lo, hi] = strokeLimits(st, scale);
    const color = rgbOf(st.color);
    colourBytes[0] = color[0];
    colourBytes[1] = color[1];
    colourBytes[2] = color[2];
    out.push({ lo, hi, rgb: colourBytes[0] | (colourBytes[1] << 8) | (colourBytes[2] << 16), fade, id });
  }
  return out;
}

/** The kernels strokesInKernels calls besides ShadowKernels' (wasm/assembly/effects.ts). */
interface StrokeKernels extends ShadowKernels {
  strokePixels(dist: number, own: number, stride: number, w: number, h: number, lo: number, hi: number, held: number, out: number, rgb: number): void;
}

/**
 * drawStrokes' tile of plain strokes (kernelStrokes) drawn in the kernels' memory, the same bytes:
 * the alpha read from the layer's pixels, its chamfer distance, each stroke's band (relative to
 * what the content will leave showing when it lies under it: `held`) made into its pixels there
 * and blended onto the canvas's pixels of the tile, copied in once and back once. Before, the
 * alpha, the bands and the pixels were loops in JavaScript and each array was copied in and out
 * (issue 25 §3: the large mockup's outside stroke of a personalised text). False, drawing
 * nothing, where it cannot.
 */
function strokesInKernels(canvas: Surface, tile: Bounds, r: Bounds, shape: Shape, strokes: KernelStroke[], held: number, atop: boolean): boolean {
  const sources = shape.pixelSources;
  const w = widthOf(r);
  const h = heightOf(r);
  const pw = w + 4;
  const ph = h + 4;
  const k = sources ? (effectKernels(pw * ph) as (KernelExports & Partial<StrokeKernels>) | undefined) : undefined;
  if (!k?.strokePixels || !k.alphaRect) return false;
  const t = intersectRect(tile, rectOf(canvas));
  if (!t) return true; // blendSurface draws nothing there
  const tw = widthOf(t);
  const th = heightOf(t);
  const keep = keptChannels(shape.excludedChannels);
  const fx = k as KernelExports & StrokeKernels;
  return inArena(k, (k, arena) => {
    const alpha = arena.alloc(w * h * 4);
    const dist = arena.alloc(w * h * 4);
    // The layer's pixels; the distance passes' field; then the canvas's pixels and the stroke's.
    const d = arena.alloc(pw * ph * 8);
    const f32 = arena.f32();
    const u8 = arena.u8();
    alphaInKernels(fx, f32, u8, sources!, r, d, alpha);
    shape.pastCanvas?.(r, f32.subarray(alpha >> 2, (alpha >> 2) + w * h));
    k.chamferDistance(alpha, dist, d, w, h);
    const dst = d;
    const pixels = d + th * tw * 4;
    canvasIntoKernels(u8, dst, canvas, t);
    const at = ((t.top - r.top) * w + (t.left - r.left)) * 4;
    for (const st of strokes) {
      if (st.fade <= 0) continue;
      fx.strokePixels(dist + at, alpha + at, w, tw, th, st.lo, st.hi, held, pixels, st.rgb);
      recordPixels(u8, pixels, t, st.fade, st.id, atop, keep);
      k.blendPixels(dst, pixels, 0, tw * th, st.fade, st.id, atop ? 1 : 0, keep, 0);
    }
    kernelsOntoCanvas(u8, dst, canvas, t);
    effectKernelDraws.tiles++;
    return true;
  });
}

/**
 * Which of a layer's strokes (in list order, the first on top) are drawn under the layer's content
 * (with the effects below it, after the shadows and glows) rather than over it. psd-tools'
 * feathered-stroke.psd (Photoshop's render, its test_effects.py, #846): across a soft edge of alpha
 * a a pixel is aL + (1 − a)S for an outset stroke, with no backdrop left in it: the layer lies over
 * an opaque stroke, the stroke's band of 1 − a filling the rest of the pixel. Over the content (as
 * before) it left a(1 − a) of the backdrop and only a² of the layer. psdtools-layer-effects-all.psd's
 * Stroke line shows the same: the text at its raw alpha over pure white (docs/effects.md). On a layer
 * in another mode its content blends in that mode over the stroke (docs/effects.md, "Strokes
 * under layers in other modes"). Kept to a Normal (or knocking-out, `ownMode`) outside stroke on a
 * layer not in Dissolve, without knockout, Blend If or "Transparency Shapes Layer" off. And the strokes keep their list order where they
 * overlap (the first listed on top, whatever their positions): one drawn under is drawn before
 * every stroke drawn over, so a stroke goes under only when every stroke listed after it does too
 * or lies inside the shape (whose band meets an outside one only on the edge's partial pixels).
 */
function strokesUnder(node: LayerNode, strokes: Stroke[]): boolean[] {
  // In any mode but Dissolve: the layer's content blends in its mode over what lies under it, its
  // outside strokes included (photocraft's order, calibrated on Photoshop's composites: exterior
  // effects and outside strokes beneath, then the layer in its mode).
  const layer = node.blendMode !== 'dissolve' && !node.knockout && !node.blendIf && node.transparencyShapes !== false;
  const under = strokes.map(() => false);
  for (let i = strokes.length - 1; i >= 0; i--) {
    const st = strokes[i];
    const position = st.position ?? 'outside';
    if (position === 'inside') continue;
    // A stroke knocking out in a mode of its own paints Normal the colours its mode gives over the backdrop.
    if (!layer || position !== 'outside' || ((st.blendMode ?? 'normal') !== 'normal' && ownMode(st) !== 'knockout')) break;
    under[i] = true;
  }
  return under;
}

/**
 * The share of its masked alpha the layer's content will cover over the stroke drawn under it: its
 * opacity times its Fill, where overlays (which at Fill 0 still cover the layer wholly) lift the
 * Fill by their opacity.
 */
function contentAlpha(node: LayerNode): number {
  const fx = node.effects as LayerEffectsInfo;
  const overlays = [...list(fx.solidFill), ...list(fx.gradientOverlay), ...(on(fx.patternOverlay) ? [fx.patternOverlay] : [])];
  const cover = Math.max(0, ...overlays.map((o) => o.opacity ?? 1));
  const f = node.fillOpacity ?? 1;
  return node.opacity * (f + (1 - f) * cover);
}

/** Where a stroke's band lies, as distances outward from the edge (negative inside the shape). */
function strokeLimits(st: Stroke, scale: number): [number, number] {
  const size = px(st.size) * scale;
  const position = st.position ?? 'outside';
  return position === 'outside' ? [0, size] : position === 'inside' ? [-size, 0] : [-size / 2, size / 2];
}

/** A stroke's band (coverage 0..1): `size` px outside, inside or centred on the edge. */
function strokeBand(st: Stroke, dist: Float32Array, scale: number): Float32Array {
  const [lo, hi] = strokeLimits(st, scale);
  const cov = new Float32Array(dist.length);
  for (let i = 0; i < cov.length; i++) cov[i] = bandCoverage(dist[i], lo, hi);
  return cov;
}

/**
 * A Shape Burst gradient stroke's colours (the gradient's opacity in the alpha bytes, as
 * gradientPixels's): the ramp laid across the band by each pixel's distance from the layer's edge,
 * its start (0 %) at the band's outer side and its end (100 %) at its inner side, whatever the
 * position (outside: from the stroke's outer edge in to the layer's edge; inside: from the
 * layer's edge in; centred: across both). Photopea's stroke, written to match Photoshop, lays the
 * ramp over the same signed distance from the band's outer limit to its inner one, and its glows
 * put the same ramp's start at the glow's opaque side (docs/effects.md, "Shape Burst"). The angle,
 * scale and alignment of the gradient do not enter.
 */
function burstFill(st: Stroke, dist: Float32Array, scale: number): Uint8ClampedArray | null {
  const g = st.gradient;
  const built = g && gradientRamp(g as Gradient, { reverse: g.reverse, method: g.interpolationMethod });
  if (!built) return null;
  const { rgba: ramp, steps } = built;
  const [lo, hi] = strokeLimits(st, scale);
  const out = new Uint8ClampedArray(dist.length * 4);
  for (let i = 0; i < dist.length; i++) {
    const t = hi > lo ? Math.max(0, Math.min(1, (hi - dist[i]) / (hi - lo))) : 0;
    const k = Math.round(t * (steps - 1)) * 4;
    out.set(ramp.subarray(k, k + 4), i * 4);
  }
  return out;
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
function drawBevel(ctx: EffectContext, node: LayerNode, b: Bevel, shape: Shape, canvas: Surface, opacity: number, atop: boolean, inLayer: InLayer): void {
  const fx = node.effects as LayerEffectsInfo;
  const st = list(fx.stroke).find((x) => px(x.size) * ctx.scale > 0);
  if (b.style === 'stroke emboss' && !st) return;
  const curve = curveLut(b.contour?.curve?.map((p) => ({ input: p.x, output: p.y })));
  const globalAltitude = b.useGlobalLight !== false ? ctx.compiled.globalAltitude : undefined;
  const options = {
    gloss: b.useShape ? null : curve,
    contour: b.useShape ? curve : null,
    style: b.style,
    technique: b.technique,
    size: Math.max(1, bevelSize(b) * ctx.scale),
    depth: b.strength ?? 1,
    up: b.direction !== 'down',
    soften: px(b.soften) * ctx.scale,
    angle: globalAngle(ctx, b),
    altitude: globalAltitude ?? b.altitude ?? 30,
  };
  const far = reach(bevelReach(b, fx, ctx.scale));
  // A gloss contour can light the flat face outside the shape (emboss, pillow, outer bevel).
  const everywhere = !!options.gloss && b.style !== 'inner bevel' && b.style !== 'stroke emboss';
  // The tiles of a layer far larger than the canvas reuse their arrays: a size-250 outer bevel's
  // are 14 MB each (issue 25 §1). Small tiles (a text's) take the module's arrays, kept from one
  // bevel and request to the next (bevelLight and paint write every value they read).
  let own: Scratch | undefined;
  // A smooth inner bevel lights the alpha's blurred height only where the alpha is (bevelLight's
  // ALPHA place): its maps are 0 off the layer's covered pixels, and its tiles are cut to them;
  // the other styles' to where their height rises off them (eachTileNear, below).
  const chiselled = b.technique === 'chisel hard' || b.technique === 'chisel soft';
  const pass: Pass = { dx: 0, dy: 0, paint: far, read: far, everywhere };
  const draw = (tile: Bounds, r: Bounds) => {
    const w = widthOf(r);
    const h = heightOf(r);
    const scratch = w * h <= SHARED_BEVEL_PIXELS ? sharedBevel : (own ??= new Scratch());
    let alpha = shape.alphaOver(r, scratch.take('alpha', w * h));
    if (b.style === 'stroke emboss') {
      const distances = chamferDistance(alpha, w, h);
      alpha = strokeBand(st!, distances, ctx.scale);
      drop(distances);
    }
    // Large tiles light the tile alone, the height blurred over the alpha (bevel.ts bevelCut).
    const lit = bevelCut(w * h) ? tile : r;
    const light = bevelLight(alpha, w, h, options, scratch, lit === r ? undefined : within(tile, r));
    // The highlight is painted before the shadow is computed: one array serves both.
    const map = scratch.take('light', areaOf(lit));
    const inside = (b.style ?? 'inner bevel') === 'inner bevel' && inLayer;
    paint(canvas, tile, shape, light('highlight', map), rgbOf(b.highlightColor ?? { r: 255, g: 255, b: 255 }), fxOpacity(b.highlightOpacity, opacity, 0.75), b.highlightBlendMode ?? 'screen', atop, false, lit, inside);
    paint(canvas, tile, shape, light('shadow', map), rgbOf(b.shadowColor), fxOpacity(b.shadowOpacity, opacity, 0.75), b.shadowBlendMode ?? 'multiply', atop, false, lit, inside);
    drop(alpha); // a stroke emboss's band (the scratch's alpha stays: drop keeps it)
  };
  // How far the height rises off the covered pixels: bevelLight's reach (half the size for an
  // emboss or pillow), a chisel soft's blur over a quarter of the size, the soften, a stroke
  // emboss's band; the box passes' radii add up to less than each blur's radius.
  const st0 = st ? px(st.size) * ctx.scale : 0;
  const embossed = b.style === 'emboss' || b.style === 'pillow emboss';
  const rise = (embossed ? options.size / 2 : options.size) + (b.technique === 'chisel soft' ? options.size / 4 : 0);
  const support = Math.ceil(rise + options.soften + (b.style === 'stroke emboss' ? st0 : 0)) + 3;
  // A smooth inner bevel: tiles cut to the covered pixels (as eachTileInside's), arrays to them
  // grown by the support (eachTileInside kept their left and top where eachTile put them).
  // Every other style and technique lights nothing far from the covered pixels (eachTileNear),
  // unless its flat face is lit (a gloss contour lifting it, `everywhere`) or a Contour element
  // lifts the height's 0 (the height is then not 0 far off, and soften blurs it from the arrays' edge).
  const lifted = !!options.contour && options.contour[0] !== 0;
  const lz = Math.sin((options.altitude * Math.PI) / 180);
  if ((b.style ?? 'inner bevel') === 'inner bevel' && !chiselled) eachTileNear(pass, shape, rectOf(canvas), 0, support, draw);
  else if (everywhere || lifted || !(lz > 0.01) || !(lz >= 1 || lz < 0.99)) eachTile(pass, shape, rectOf(canvas), draw);
  else eachTileNear(pass, shape, rectOf(canvas), support, support, draw);
  // This bevel's own arrays (large tiles only) go now, not when the collector next runs.
  own?.clear();
}

/** drawBevel's arrays for tiles of up to SHARED_BEVEL_PIXELS (four arrays, 512 KB together at most). */
const sharedBevel = new Scratch();
const SHARED_BEVEL_PIXELS = 1 << 15;

/**
 * A bevel's size (document px). Emboss and pillow emboss split it across the edge in whole pixels,
 * the half rounded up: Photoshop's 41 px emboss (psdtools-layer-effects-all.psd) lights the
 * backdrop from 21 px outside the edge, as a 42 px one would.
 */
export function bevelSize(b: Pick<Bevel, 'style' | 'size'>): number {
  const size = px(b.size);
  return b.style === 'emboss' || b.style === 'pillow emboss' ? 2 * Math.ceil(size / 2) : size;
}

/**
 * The box a gradient overlay or gradient stroke spans: the box of the layer's non-zero alpha,
 * found at compile (compiled/alpha-box.ts), not its stored bounds, which may hold clear rows and
 * columns (docs/effects.md, "The box of the layer's alpha"). Found once for the whole layer, so a
 * strip or a redrawn rectangle draws the same ramp as the whole frame. Replaced pixels
 * (personalisation) and templates compiled before it keep the stored bounds.
 */
function gradientBox(ctx: EffectContext, node: LayerNode, align: boolean | undefined): Bounds {
  // "Align with Layer" off: the gradient spans the whole image, not the layer's content (Adobe's
  // layer style options; absent is on, Photoshop's default).
  if (align === false) return { left: 0, top: 0, right: ctx.compiled.width, bottom: ctx.compiled.height };
  return (!ctx.overrides.get(node.id)?.pixels && node.alphaBounds) || node.bounds;
}

/**
 * The box a gradient stroke spans: the layer's (gradientBox) grown on every side by the farthest
 * any of the layer's strokes reaches outside it (its size outside, half of it centred, none
 * inside), rounded up to whole document pixels, less one pixel, so the ramp runs across the
 * strokes' extent and not only the layer's. Measured on Photoshop's composites of psd-tools'
 * files (photocraft's layer-style code, read as reference data): a 4 px outside stroke around a
 * 22 px square runs its 90° gradient over 28 px (stroke-effects.psd), a 3 px one around 36 px of
 * type over 40 px (effect-stroke-gradient.psd); docs/effects.md, "Gradient strokes span the
 * strokes' extent, less a pixel". "Align with Layer" off spans the image, as for overlays.
 */
function strokeGradientBox(ctx: EffectContext, node: LayerNode, align: boolean | undefined, strokes: Stroke[]): Bounds {
  const b = gradientBox(ctx, node, align);
  if (align === false) return b;
  // The band's outer limit in document pixels (its size outside, half of it centred, 0 inside), less one.
  const grow = Math.ceil(Math.max(0, ...strokes.map((st) => strokeLimits(st, 1)[1]))) - 1;
  return grow > 0 ? { left: b.left - grow, top: b.top - grow, right: b.right + grow, bottom: b.bottom + grow } : b;
}

const nodeOpacity = (node: LayerNode) => node.opacity * node.fillOpacity;

/**
 * A shape layer's own stroke, re-drawn from its path: Photoshop draws it over the layers clipped
 * to the shape (they clip to the fill), although it is also baked into the layer's pixels.
 */
export function drawShapeStroke(
  ctx: EffectContext,
  node: LayerNode,
  target: Surface,
  content: Surface,
  mask: Uint8ClampedArray | null,
  atop = false,
  inLayer: InLayer = false,
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
  // Drawn Normal whatever its blend mode: psd-tools' stroke-blend-mode.psd (Photoshop's save, a
  // centred red stroke set to Multiply over a fill and a gradient; test_stroke_blend_mode.py, #940)
  // shows the band undarkened against the fill and the backdrop both.
  paint(target, rect, { excludedChannels: node.excludedChannels }, cov, rgb, st.opacity * nodeOpacity(node), 'normal', atop, false, rect, inLayer);
}
