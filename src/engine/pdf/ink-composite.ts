/**
 * A CMYK document's layer stack composited in ink (issue 20, "Keep original colours"; docs/pdf.md,
 * "CMYK templates"): where a request changes a CMYK template, Photoshop would composite the
 * document in CMYK, so the print PDF does too instead of converting the RGB render.
 *
 * Photoshop blends a CMYK document per channel on the values as it stores them (inverted, 255 = no
 * ink), with the same formulas as RGB: Multiply on stored values darkens, i.e. in ink
 * 1 − (1 − a)(1 − b). So the stack is drawn with the engine's own kernel (composite/blend.ts) on
 * two RGBA surfaces that share the alpha: stored C, M, Y in one, stored K (three times) in the
 * other; every separable mode is per channel, so the pair is exactly a four-channel composite.
 *
 * Layers' pixels are their own CMYK channels read from the PSD (ag-psd converts nothing here:
 * parsePsd keeps the compressed channels). A personalised layer's content is the request's
 * override, drawn by the engine in RGBA: its colour is converted to ink by the caller (a
 * `cmyk(…)` colour exactly), its alpha kept. Adjustment layers whose kind Photoshop applies to
 * each ink (Invert, Levels, Curves, Posterize, Brightness/Contrast: composite/adjust.ts
 * cmykChannelLuts) change the stored C, M, Y and K beneath them by their tables, as psd-tools'
 * composite does, held to Photoshop's merged images of its *_cmyk documents (docs/colour.md).
 * Layer effects in the colour kinds (shadows, glows, colour overlays, satin, bevels and colour
 * strokes) are drawn on the inks when asked (InkOptions.effectInk: previews and print PDFs). What this does not model (other effects,
 * other adjustment kinds, non-separable modes (Hue, Saturation, Color and Luminosity only when
 * asked: InkOptions) and dissolve, Blend If, feathered masks, knockouts, artboards, …) is left out
 * of the stack and its reach reported, so the caller falls back there.
 */
import type { Layer, LayerRawDataChannel } from 'ag-psd';
import { cmykChannelLuts, type AdjustmentInCmyk } from '../composite/adjust';
import { blendSurface, fadeInto, SEPARABLE } from '../composite/blend';
import { drawEffectsAbove, drawEffectsBelow, effectMargin, effectSources, EVERYWHERE, hasEffects, hasInteriorEffects, shapeFrom } from '../composite/effects';
import type { EffectContext } from '../composite/context';
import { rgbOf } from '../composite/gradient';
import { fillFromPath } from '../composite/compositor';
import { cloneSurface, growRect, intersectRect, multiplyMasks, rectOf, unionRect, type Surface } from '../composite/surface';
import { rasterizeVectorMask } from '../composite/vector';
import { channelRows } from '../psd/channels';
import { parsePsd } from '../psd/parse';
import { pixelMaskSource } from '../psd/tree';
import { commandFor, parseColor, type PersonalisationData } from '../personalise';
import type { Bounds, CompiledTemplate, LayerNode, LayerOverride, LayerOverrides } from '../types';
import { requestedCmyk } from './output';

/** Stored C, M, Y (+ alpha) and stored K (×3, + the same alpha) over one rectangle. */
interface InkSurface {
  cmy: Surface;
  k: Surface;
  /** A canvas nothing is drawn on yet (every byte 0): blendInk copies a plain first layer onto it. */
  blank?: boolean;
}

/**
 * A personalised layer's content in ink: 4 bytes a pixel (C, M, Y, K, 0 = no ink) for the
 * override's `pixels`, or one ink for a recolour (`color`). Null: not known, fall back.
 */
export type OverrideInk = (node: LayerNode, override: LayerOverride) => Uint8Array | null;

export interface InkComposite {
  /** The rectangle composited (template pixels). */
  area: Bounds;
  /** Its pixels as ink (C, M, Y, K; 0 = no ink), 4 bytes a pixel, composited over paper. */
  ink: Uint8Array;
  /** The composite's alpha, one byte a pixel. */
  alpha: Uint8Array;
  /** One byte a pixel: 1 where something the ink compositor does not model reaches. */
  unmodelled: Uint8Array;
}

export interface InkLayers {
  /**
   * The stack over `area` (inside the canvas) with `overrides`, personalised content from
   * `content`. Each `lane` (a stack composited strip after strip, top to bottom) keeps its own
   * ZIP channel readers, which only go forward: two lanes over the same strips inflate each
   * channel once each, not once a strip.
   */
  composite(area: Bounds, overrides: LayerOverrides, content: OverrideInk, lane?: number): InkComposite;
  /**
   * Whether every layer shown with `overrides` is modelled (no reach anywhere), found without
   * reading pixels: a preview takes the ink path only for a whole stack it models.
   */
  models(overrides: LayerOverrides, content: OverrideInk): boolean;
}

export interface InkOptions {
  /**
   * The non-separable modes and Dissolve composited in ink (previews, composite/cmyk-ink.ts)
   * rather than left to the fallback. Photoshop blends the stored C, M, Y (the CMY complement)
   * with the RGB formulas and takes K from the backdrop (hue, saturation, color) or the source
   * (luminosity); Darker and Lighter Color take one operand whole, K included, comparing
   * lum(CMY)·K on stored values (psd-tools test_blend.py PHOTOSHOP_CMYK, #781). Dissolve is drawn
   * as the RGB path draws it (the same noise on both surfaces). Print PDFs keep them as a reach.
   */
  nonSeparable?: boolean;
  /**
   * Layer effects drawn on the inks: drop shadows, outer and inner glows and shadows, colour
   * overlays and colour strokes in separable modes, each effect's colour as ink through this
   * conversion (sRGB, as the compiled tree holds it, to ink 0..255: the document's profile for
   * previews, the page's output conversion for print PDFs, effectInkThrough), or its own CMYK
   * where the parse kept it (docs/colour.md "Layer effects in ink"). Absent: effects are a reach.
   */
  effectInk?: (rgb: readonly number[]) => number[];
}

/** The non-separable modes composited in ink with InkOptions.nonSeparable: whose K each keeps, or a whole operand selected. */
const INK_NON_SEPARABLE: Record<string, 'backdrop' | 'source' | 'darker' | 'lighter'> = {
  hue: 'backdrop',
  saturation: 'backdrop',
  color: 'backdrop',
  luminosity: 'source',
  'darker color': 'darker',
  'lighter color': 'lighter',
};

/**
 * The layer stack of `psd` (a CMYK document; the compiled tree `compiled` is its own) ready to
 * composite in ink, or null when it cannot be read.
 */
export function inkLayers(psd: Uint8Array, compiled: CompiledTemplate, options: InkOptions = {}): InkLayers | null {
  let layers: Map<number, Layer>;
  let depth: number;
  try {
    const doc = parsePsd(psd);
    depth = doc.bitsPerChannel ?? 8;
    layers = layersById(doc.children ?? []);
  } catch {
    return null;
  }
  const readers = new Map<string, KeptRows>();
  const pool = new Map<number, Uint8ClampedArray[]>();
  return {
    composite(area, overrides, content, lane = 0) {
      const ctx: Context = { compiled, layers, depth, overrides, content, area, unmodelled: [], readers, lane, options, pool };
      const canvas = blankSurface(ctx, area);
      drawStack(ctx, compiled.layers, canvas, false);
      const out = { area, ...toInk(canvas), unmodelled: reach(ctx.unmodelled, area) };
      give(ctx, canvas);
      return out;
    },
    models(overrides, content) {
      const area = { left: 0, top: 0, right: compiled.width, bottom: compiled.height };
      const ctx: Context = { compiled, layers, depth, overrides, content, area, unmodelled: [], readers, lane: 0, options, pool };
      return modelsStack(ctx, compiled.layers);
    },
  };
}

/** drawStack's and drawClipGroup's refusals over a stack, without drawing: false at the first one. */
function modelsStack(ctx: Context, nodes: LayerNode[]): boolean {
  for (const { base, shown } of shownUnits(ctx, nodes)) {
    if (shown.length && !base.adjustment && (base.children || base.fillOpacity < 1 || base.blendClipped === false)) return false;
    for (const n of [base, ...shown]) {
      if (unmodelled(ctx, n)) return false;
      if (n.children && !modelsStack(ctx, n.children)) return false;
    }
  }
  return true;
}

/** sRGB RGBA → ink (0 = none) for `pixels` pixels: a document's profile (previews) or a PDF's output conversion. */
export type InkConvert = (src: Uint8Array | Uint8ClampedArray, dst: Uint8Array, pixels: number) => void;

/**
 * InkOptions.effectInk through `convert`: an effect's colour as the compiled tree holds it (sRGB,
 * rounded) to ink 0..255, the same conversion as the personalised content's (requestInks).
 */
export const effectInkThrough =
  (convert: InkConvert) =>
  (rgb: readonly number[]): number[] => {
    const ink = new Uint8Array(4);
    convert(Uint8Array.from([...rgb.slice(0, 3).map((v) => Math.round(v)), 255]), ink, 1);
    return [...ink];
  };

/**
 * Personalised layers' content as ink (an OverrideInk for one request): the engine's RGBA through
 * the output conversion `convert`, a `cmyk(…)` colour as given (docs/pdf.md "Vector colours").
 * Text is drawn in the one colour its command gives, so every pixel of it takes that ink (its
 * anti-aliased edges too, whose unpremultiplied RGB is no longer exactly the colour); other
 * pixels take it where they are exactly the colour the engine drew from it, as vector fills are
 * matched. Once per override.
 */
export function requestInks(convert: InkConvert, data: PersonalisationData | undefined): OverrideInk {
  const known = new WeakMap<LayerOverride, Uint8Array | null>();
  return (node, override) => {
    let ink = known.get(override);
    if (ink !== undefined) return ink;
    const command = commandFor(data, node.name) as { type?: string; color?: unknown } | undefined;
    const exact = requestedCmyk(command?.color);
    const exactInk = exact && Uint8Array.from(exact, (v) => Math.round(v * 2.55));
    const drawn = exact && parseColor(`cmyk(${exact.join(',')})`);
    const rgb = drawn && !('error' in drawn) ? drawn : undefined;
    if (override.pixels) {
      const { data: px, width, height } = override.pixels;
      ink = new Uint8Array(width * height * 4);
      if (exactInk && command?.type === 'text') for (let p = 0; p < ink.length; p += 4) ink.set(exactInk, p);
      else {
        convert(px, ink, width * height);
        if (exactInk && rgb) {
          for (let p = 0; p < px.length; p += 4) if (px[p] === rgb.r && px[p + 1] === rgb.g && px[p + 2] === rgb.b) ink.set(exactInk, p);
        }
      }
    } else if (override.color) {
      const { r, g, b } = override.color;
      ink = new Uint8Array(4);
      if (exactInk && rgb && rgb.r === r && rgb.g === g && rgb.b === b) ink.set(exactInk);
      else convert(Uint8Array.of(r, g, b, 255), ink, 1);
    } else ink = null;
    known.set(override, ink);
    return ink;
  };
}

/** Ids as the compiler numbers layers (psd/tree.ts buildTree): ag-psd's order, depth first. */
function layersById(children: Layer[]): Map<number, Layer> {
  const out = new Map<number, Layer>();
  let next = 0;
  const walk = (list: Layer[]) => {
    for (const layer of list) {
      out.set(next++, layer);
      if (layer.children) walk(layer.children);
    }
  };
  walk(children);
  return out;
}

interface Context {
  compiled: CompiledTemplate;
  layers: Map<number, Layer>;
  depth: number;
  overrides: LayerOverrides;
  content: OverrideInk;
  /** The rectangle composited. */
  area: Bounds;
  /** Rectangles the stack drawn here is not Photoshop's in. */
  unmodelled: Bounds[];
  /** Inside a clipping group: its base's pixels' rectangle, which bounds what clipped layers reach. */
  within?: Bounds;
  /** ZIP channels' readers by lane, layer and channel id. */
  readers: Map<string, KeptRows>;
  lane: number;
  options: InkOptions;
  /** Surface buffers given back (by byte length), taken again by the next strips: one request's composites allocate a strip's worth, not one a layer a strip. */
  pool: Map<number, Uint8ClampedArray[]>;
}

interface KeptRows {
  rows: { next(): Uint8Array };
  /** The row `rows.next()` returns next. */
  y: number;
}

/**
 * Rows `first`, `first + 1`, … of channel `id` of a `width` × `height` rectangle (channelRows).
 * Raw and RLE channels seek; a ZIP channel cannot, so its reader is kept and goes on from where
 * the last strip left it (started anew only for rows above it).
 */
function rowsOf(ctx: Context, nodeId: number, layer: Layer, id: number, width: number, height: number, fill: number, first: number): { next(): Uint8Array } {
  const channel = channelOf(layer, id);
  const large = layer.rawData?.large ?? false;
  if (channel?.compression !== 2 && channel?.compression !== 3) return channelRows(channel, width, height, large, fill, first, ctx.depth);
  const key = `${ctx.lane}:${nodeId}:${id}`;
  let kept = ctx.readers.get(key);
  if (!kept || kept.y > first) {
    kept = { rows: channelRows(channel, width, height, large, fill, 0, ctx.depth), y: 0 };
    ctx.readers.set(key, kept);
  }
  const reader = kept;
  for (; reader.y < first; reader.y++) reader.rows.next();
  return {
    next() {
      reader.y++;
      return reader.rows.next();
    },
  };
}

/** Buffers of one length the pool keeps at most. */
const POOLED = 6;

/** A surface over `r` from the pool (its bytes whatever they were: the caller writes every pixel), else a new one. */
function taken(ctx: Context, r: Bounds): Surface {
  const w = Math.max(0, r.right - r.left);
  const h = Math.max(0, r.bottom - r.top);
  return { x: r.left, y: r.top, w, h, data: ctx.pool.get(w * h * 4)?.pop() ?? new Uint8ClampedArray(w * h * 4) };
}

/** An ink surface over `r` whose every pixel the caller writes. */
const pooledSurface = (ctx: Context, r: Bounds): InkSurface => ({ cmy: taken(ctx, r), k: taken(ctx, r) });

/** A blank canvas over `r` (every byte 0). */
function blankSurface(ctx: Context, r: Bounds): InkSurface {
  const s = pooledSurface(ctx, r);
  s.cmy.data.fill(0);
  s.k.data.fill(0);
  s.blank = true;
  return s;
}

/** A copy of `s`. */
function copyOf(ctx: Context, s: InkSurface): InkSurface {
  const out = pooledSurface(ctx, rectOf(s.cmy));
  out.cmy.data.set(s.cmy.data);
  out.k.data.set(s.k.data);
  return out;
}

/** Gives `s`'s buffers back to the pool: `s` is read no more. */
function give(ctx: Context, s: InkSurface): void {
  for (const { data } of [s.cmy, s.k]) {
    const free = ctx.pool.get(data.length) ?? ctx.pool.set(data.length, []).get(data.length)!;
    if (free.length < POOLED) free.push(data);
  }
}
const visible = (ctx: Context, n: LayerNode) => ctx.overrides.get(n.id)?.visible ?? n.visible;

/** A stack's visible layers bottom-up (the tree is top first), each with its visible clipped layers. */
function* shownUnits(ctx: Context, nodes: LayerNode[]): Generator<{ base: LayerNode; shown: LayerNode[] }> {
  const list = [...nodes].reverse();
  for (let i = 0; i < list.length; i++) {
    const base = list[i];
    const clipped: LayerNode[] = [];
    while (i + 1 < list.length && list[i + 1].clipping) clipped.push(list[++i]);
    if (visible(ctx, base)) yield { base, shown: clipped.filter((n) => visible(ctx, n)) };
  }
}

/** A stack (top first, as in the tree), bottom-up, a layer with the layers clipped to it. */
function drawStack(ctx: Context, nodes: LayerNode[], canvas: InkSurface, atop: boolean): void {
  for (const { base, shown } of shownUnits(ctx, nodes)) {
    if (shown.length) drawClipGroup(ctx, base, shown, canvas, atop);
    else drawNode(ctx, base, canvas, atop);
  }
}

/**
 * Clipped layers source-atop over the base's content, the whole with the base's mode and opacity
 * (composite/compositor.ts drawClipGroup). A base with effects (inkEffects): its effects below go
 * onto the canvas, its interior ones over the group within its alpha (below Fill 100 %, nothing
 * clipped: relative to it), as Photoshop draws them over the clipping group; a layer with
 * interior effects is drawn so with nothing clipped (drawWithEffects).
 */
function drawClipGroup(ctx: Context, base: LayerNode, clipped: LayerNode[], canvas: InkSurface, atop: boolean): void {
  if (base.adjustment && !unmodelled(ctx, base)) return drawAdjustmentClipGroup(ctx, base, clipped, canvas, atop);
  if (base.children || (clipped.length && base.fillOpacity < 1) || base.blendClipped === false || unmodelled(ctx, base)) {
    for (const n of [base, ...clipped]) leaveOut(ctx, extent(ctx, n));
    return;
  }
  const fx = hasEffects(base) ? inkEffects(ctx, base) : null;
  // The effects read the base's pixels as far as they reach around the area.
  const content = layerContent(ctx, base, fx ? growRect(ctx.area, effectMargin(base, 1)) : ctx.area);
  if (!content) return;
  const mask = layerMask(ctx, base, rectOf(content.cmy));
  const rctx = effectContext(ctx);
  const shape = fx && shapeFrom(base, rctx, [{ rect: rectOf(content.cmy), content: content.cmy, mask }]);
  if (fx && shape) {
    canvas.blank = false;
    drawEffectsBelow(rctx, fx.cmy, canvas.cmy, shape, atop);
    drawEffectsBelow(rctx, fx.k, canvas.k, shape, atop);
  }
  const group = blankSurface(ctx, ctx.area);
  blendInk(group, content, mask, base.fillOpacity, 'normal');
  // What is clipped reaches no further than the base's pixels.
  const within = ctx.within;
  ctx.within = rectOf(content.cmy);
  // The shape reads the content: kept until the effects are drawn.
  if (!shape) give(ctx, content);
  for (const node of clipped) drawNode(ctx, node, group, true, false);
  ctx.within = within;
  if (fx && shape) {
    const inLayer = base.fillOpacity >= 1 ? true : 'relative';
    drawEffectsAbove(rctx, { ...fx.cmy, opacity: 1, blendMode: 'normal' }, group.cmy, shape, false, undefined, inLayer);
    drawEffectsAbove(rctx, { ...fx.k, opacity: 1, blendMode: 'normal' }, group.k, shape, false, undefined, inLayer);
    give(ctx, content);
  }
  blendInk(canvas, group, null, base.opacity, base.blendMode, { atop });
  give(ctx, group);
}

/** Leaves `rect` to the caller's fallback (only as far as the clipping base around it reaches). */
function leaveOut(ctx: Context, rect: Bounds): void {
  const r = ctx.within ? intersectRect(rect, ctx.within) : rect;
  if (r) ctx.unmodelled.push(r);
}

/** `unit`: a stack's own layer (not one clipped to another), which a layer with interior effects is drawn as (compositor.ts isolatesInterior). */
function drawNode(ctx: Context, node: LayerNode, canvas: InkSurface, atop: boolean, unit = true): void {
  if (unmodelled(ctx, node)) {
    leaveOut(ctx, extent(ctx, node));
    return;
  }
  if (node.adjustment) return drawAdjustment(ctx, node, canvas);
  if (node.children && hasEffects(node)) return drawGroupWithEffects(ctx, node, canvas, atop);
  if (node.children) {
    const mask = layerMask(ctx, node, ctx.area);
    if (node.blendMode === 'pass through') {
      // Not isolated: the children blend onto the canvas; opacity and mask fade the result in.
      if (node.opacity >= 1 && !mask) return drawStack(ctx, node.children, canvas, atop);
      const after = copyOf(ctx, canvas);
      drawStack(ctx, node.children, after, atop);
      fadeInto(canvas.cmy, after.cmy, mask, node.opacity);
      fadeInto(canvas.k, after.k, mask, node.opacity);
      canvas.blank = false;
      give(ctx, after);
      return;
    }
    const layer = blankSurface(ctx, ctx.area);
    drawStack(ctx, node.children, layer, false);
    blendInk(canvas, layer, mask, node.opacity, node.blendMode, { atop, fill: node.fillOpacity });
    give(ctx, layer);
    return;
  }
  if (hasEffects(node)) return drawWithEffects(ctx, node, canvas, atop, unit);
  const content = layerContent(ctx, node);
  if (!content) return;
  const mask = layerMask(ctx, node, rectOf(content.cmy));
  blendInk(canvas, content, mask, node.opacity, node.blendMode, { atop, fill: node.fillOpacity });
  give(ctx, content);
}

/**
 * A layer with effects, as composite/compositor.ts draws one (drawLayer; a layer with interior
 * effects as a unit of its own, drawClipGroup), with the RGB path's effect geometry (composite/
 * effects.ts) drawn on each ink surface: Photoshop composites a CMYK document's effects in CMYK,
 * the effect's colour as ink blended on the stored values by the same formulas (psd-tools'
 * composite draws effect and fill colours in the document's channels, a 'CMYC' colour as its
 * stored values, paint.py _get_color). The coverage is the same on both surfaces, so their alpha
 * stays shared; only the colour differs (stored C, M, Y on one, stored K on the other).
 */
function drawWithEffects(ctx: Context, node: LayerNode, canvas: InkSurface, atop: boolean, unit: boolean): void {
  // The layer and its interior effects as one unit (Normal mode: inkEffects): a clipping group of
  // one. A layer clipped to another draws them onto the group, as the RGB path does.
  if (unit && hasInteriorEffects(node)) return drawClipGroup(ctx, node, [], canvas, atop);
  const fx = inkEffects(ctx, node)!;
  const rctx = effectContext(ctx);
  // What the effects read: the layer's pixels as far as they reach around the area.
  const content = layerContent(ctx, node, growRect(ctx.area, effectMargin(node, 1)));
  if (!content) return;
  const mask = layerMask(ctx, node, rectOf(content.cmy));
  const shape = shapeFrom(node, rctx, [{ rect: rectOf(content.cmy), content: content.cmy, mask }])!;
  canvas.blank = false;
  drawEffectsBelow(rctx, fx.cmy, canvas.cmy, shape, atop);
  drawEffectsBelow(rctx, fx.k, canvas.k, shape, atop);
  blendInk(canvas, content, mask, node.opacity, node.blendMode, { atop, fill: node.fillOpacity });
  drawEffectsAbove(rctx, fx.cmy, canvas.cmy, shape, atop);
  drawEffectsAbove(rctx, fx.k, canvas.k, shape, atop);
  give(ctx, content); // the shape reads it: given back once the effects are drawn
}

/** What composite/effects.ts reads of a render (full size: previews composite at scale 1). */
function effectContext(ctx: Context): EffectContext {
  const { compiled, overrides } = ctx;
  return { compiled, overrides, scale: 1, patterns: new Map() };
}

/**
 * A group with effects, as composite/compositor.ts drawGroup draws one: its children composited
 * apart (a pass-through group too) over the area and wherever the effects read (a far shadow's
 * source apart: effectSources), the effects drawn from that composite's alpha below and above it,
 * the composite blended with the group's mask, opacity, Fill and mode (a group's interior effects
 * are not a unit of their own). Not over the area grown by the effects' whole reach: an inner
 * shadow 30,000 px away asked for 60,000² px there and ended the runtime (fuzz-modes seed 8020).
 */
function drawGroupWithEffects(ctx: Context, node: LayerNode, canvas: InkSurface, atop: boolean): void {
  const fx = inkEffects(ctx, node)!;
  const rctx = effectContext(ctx);
  const area = ctx.area;
  const sources = effectSources(rctx, node, area, EVERYWHERE, [area]).map((rect) => {
    ctx.area = rect;
    const layer = blankSurface(ctx, rect);
    drawStack(ctx, node.children!, layer, false);
    ctx.area = area;
    return { rect, layer, mask: layerMask(ctx, node, rect) };
  });
  const [main] = sources;
  const shape = shapeFrom(node, rctx, sources.map(({ rect, layer, mask }) => ({ rect, content: layer.cmy, mask })), growRect(area, 2 * effectMargin(node, 1)))!;
  canvas.blank = false;
  drawEffectsBelow(rctx, fx.cmy, canvas.cmy, shape, atop);
  drawEffectsBelow(rctx, fx.k, canvas.k, shape, atop);
  const mode = node.blendMode === 'pass through' ? 'normal' : node.blendMode;
  blendInk(canvas, main.layer, main.mask, node.opacity, mode, { atop, fill: node.fillOpacity });
  drawEffectsAbove(rctx, fx.cmy, canvas.cmy, shape, atop);
  drawEffectsAbove(rctx, fx.k, canvas.k, shape, atop);
  for (const { layer } of sources) give(ctx, layer); // the shape reads them: given back once the effects are drawn
}

/**
 * The effects drawn on the inks (InkOptions.effectInk): each kind's colours, as [colour key, mode
 * key, the colour when absent (effects.ts: black, a bevel's highlight white)].
 */
const INK_EFFECTS: Record<string, Array<[string, string, number[]?]>> = {
  dropShadow: [['color', 'blendMode']],
  outerGlow: [['color', 'blendMode']],
  innerShadow: [['color', 'blendMode']],
  innerGlow: [['color', 'blendMode']],
  solidFill: [['color', 'blendMode']],
  satin: [['color', 'blendMode']],
  stroke: [['color', 'blendMode']],
  gradientOverlay: [['', 'blendMode']],
  bevel: [
    ['highlightColor', 'highlightBlendMode', [255, 255, 255]],
    ['shadowColor', 'shadowBlendMode'],
  ],
};

/**
 * A gradient (an overlay's, a stroke's) interpolated the classic way, which is linear in the
 * document's channels (psd-tools' paint.py interpolates a CMYK document's gradient stops on its
 * stored values); the other methods work in an RGB space of their own, and noise gradients draw
 * random colours: neither is known in CMYK.
 */
function classic(e: Record<string, unknown>): boolean {
  const g = e.gradient as { type?: string; interpolationMethod?: string } | undefined;
  const method = (e.interpolationMethod as string | undefined) ?? g?.interpolationMethod ?? 'classic';
  return !!g && g.type !== 'noise' && method === 'classic';
}

/**
 * The inks the parse kept on the layer's own colour `own` (psd/color-modes.ts), when it is the
 * colour the tree holds (`held`, the same sRGB): the tree's effects can come from another reading
 * of the block (psd/records.ts), whose list need not line up with ag-psd's.
 */
function inkOf(own: { ink?: number[]; r?: number; g?: number; b?: number } | undefined, held: unknown): number[] | undefined {
  const h = held as { r?: number; g?: number; b?: number } | undefined;
  return own?.ink && h && own.r === h.r && own.g === h.g && own.b === h.b ? own.ink : undefined;
}

type InkEffects = { cmy: LayerNode; k: LayerNode };
/** inkEffects by the node's effects (a compiled tree's nodes outlive the strips). */
const KEPT_EFFECTS = new WeakMap<object, InkEffects | null>();

/**
 * The node twice, its effects' colours as stored C, M, Y (one surface) and stored K (the other),
 * or null where its effects are not drawn here: gradient and pattern overlays, a gradient or
 * pattern stroke, a glow filled with a gradient (effects.ts glowGradient draws its ramp in RGB), a
 * mode not separable (or Dissolve), and layers the RGB path draws otherwise
 * (masks that hide effects, knockouts, Blend Interior Effects as Group, interior effects outside
 * Normal mode). A colour's ink is its own where the parse kept it (psd/color-modes.ts), else the
 * sRGB the tree holds through the document's profile.
 */
function inkEffects(ctx: Context, n: LayerNode): InkEffects | null {
  const convert = ctx.options.effectInk;
  const fx = n.effects as Record<string, unknown> | undefined;
  if (!convert || !fx || n.adjustment || n.knockout || n.blendInterior || n.artboard) return null;
  if (n.mask?.hidesEffects || n.vectorMask?.hidesEffects) return null;
  // A layer's interior effects are a unit of its own only in Normal mode (isolatesInterior); a
  // group's never are.
  if (!n.children && hasInteriorEffects(n) && n.blendMode !== 'normal') return null;
  let kept = KEPT_EFFECTS.get(fx);
  if (kept !== undefined) return kept;
  const own = ctx.layers.get(n.id)?.effects as Record<string, unknown> | undefined;
  const cmy: Record<string, unknown> = { ...fx };
  const k: Record<string, unknown> = { ...fx };
  kept = { cmy: { ...n, effects: cmy as LayerNode['effects'] }, k: { ...n, effects: k as LayerNode['effects'] } };
  for (const [kind, value] of Object.entries(fx)) {
    if (kind === 'disabled' || kind === 'scale') continue;
    const list = (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown> | undefined>;
    const shown = list.filter((e) => e && typeof e === 'object' && e.enabled !== false && e.present !== false);
    if (!shown.length) continue;
    const colours = INK_EFFECTS[kind];
    const modelled =
      !!colours &&
      shown.every((e) => (kind !== 'stroke' || (e!.fillType ?? 'color') === 'color' || (e!.fillType === 'gradient' && classic(e!))) && (kind !== 'gradientOverlay' || classic(e!)) && !((kind === 'outerGlow' || kind === 'innerGlow') && e!.gradient) && colours.every(([, mode]) => Object.hasOwn(SEPARABLE, (e![mode] as string) ?? 'normal') && e![mode] !== 'dissolve'));
    if (!modelled) {
      kept = null;
      break;
    }
    const ownList = own?.[kind];
    const recolour = (stored: (ink: number[]) => number[]) =>
      list.map((e, i) => {
        if (!e || typeof e !== 'object') return e;
        const mine = (Array.isArray(ownList) ? ownList[i] : i === 0 ? ownList : undefined) as Record<string, { ink?: number[] } | undefined> | undefined;
        const out: Record<string, unknown> = { ...e };
        for (const [key, , absent] of colours) {
          if (!key) continue;
          const ink = inkOf(mine?.[key], e[key]) ?? convert(e[key] === undefined && absent ? absent : rgbOf(e[key]));
          const [r, g, b] = stored(ink);
          out[key] = { r, g, b };
        }
        const gradient = e.gradient as { colorStops?: Array<{ color?: unknown }> } | undefined;
        if (gradient?.colorStops && (kind === 'gradientOverlay' || e.fillType === 'gradient')) {
          // Classic interpolation is linear in the document's channels: the stops as stored values.
          const ownStops = (mine as { gradient?: { colorStops?: Array<{ color?: { ink?: number[] } }> } } | undefined)?.gradient?.colorStops;
          const colorStops = gradient.colorStops.map((stop, j) => {
            const [r, g, b] = stored(inkOf(ownStops?.[j]?.color, stop.color) ?? convert(rgbOf(stop.color)));
            return { ...stop, color: { r, g, b } };
          });
          out.gradient = { ...gradient, colorStops };
        }
        return out;
      });
    const one = (l: unknown[]) => (Array.isArray(value) ? l : l[0]);
    cmy[kind] = one(recolour((ink) => [255 - ink[0], 255 - ink[1], 255 - ink[2]]));
    k[kind] = one(recolour((ink) => [255 - ink[3], 255 - ink[3], 255 - ink[3]]));
  }
  KEPT_EFFECTS.set(fx, kept);
  return kept;
}

/**
 * The tables of an adjustment on the stored C, M, Y and K (null: that ink as it is; its channel
 * restrictions leave inks out), or null where it is not modelled: a kind Photoshop does not apply
 * ink by ink (Threshold, Hue/Saturation, …: not established, so the fallback), or a tree compiled
 * before `excludedInks` was kept (its restrictions unknown).
 */
function inkLuts(n: LayerNode): Array<Uint8Array | null> | null {
  const adj = n.adjustment as AdjustmentInCmyk | undefined;
  if (!adj?.excludedInks) return null;
  let luts = KEPT_LUTS.get(adj);
  if (luts === undefined) {
    luts = cmykChannelLuts(adj) ?? null;
    for (const c of adj.excludedInks) if (luts) luts[c] = null;
    KEPT_LUTS.set(adj, luts);
  }
  return luts;
}

const IDENTITY = Uint8Array.from({ length: 256 }, (_, v) => v);
/** Alpha 255 in a pixel read as one (little-endian) word. */
const OPAQUE = 0xff000000 | 0;

/** The pixels of `data` (4 bytes each, fresh surfaces: aligned) as words: R | G << 8 | B << 16 | A << 24. */
const words = (data: Uint8ClampedArray | Uint8Array) => new Uint32Array(data.buffer, data.byteOffset, data.byteLength >> 2);

/** inkLuts by adjustment (a compiled tree's nodes outlive the strips a preview composites). */
const KEPT_LUTS = new WeakMap<object, Array<Uint8Array | null> | null>();

/**
 * An adjustment layer changes what is beneath it, each stored ink through its table (Photoshop
 * adjusts a CMYK document channel by channel, the levels its dialogs show: psd-tools' composite,
 * 255 = no ink); mask, opacity and mode fade the change in, as composite/compositor.ts does in RGB.
 */
function drawAdjustment(ctx: Context, node: LayerNode, canvas: InkSurface): void {
  const luts = inkLuts(node)!;
  const mask = layerMask(ctx, node, rectOf(canvas.cmy));
  const opacity = node.opacity * node.fillOpacity;
  // Normal at full opacity, unmasked: the blend (source-atop, an opaque source) gives the adjusted
  // value exactly where the canvas has alpha and leaves the rest; done in place, no copy, no blend.
  if (node.blendMode === 'normal' && opacity === 1 && !mask) {
    adjustInks(canvas, luts, true);
    return;
  }
  const after = copyOf(ctx, canvas);
  adjustInks(after, luts, false);
  blendInk(canvas, after, mask, opacity, node.blendMode, { atop: true });
  give(ctx, after);
}

/**
 * Each stored ink of `s` through its table (null: as it is), alpha made 255; or, `covered`, only
 * where alpha > 0, alpha kept: what the Normal blend of the adjusted copy at full opacity,
 * source-atop, gives (test/engine/pdf/ink-shortcuts.test.ts). K's three copies are equal (every
 * step treats them alike).
 */
export function adjustInks(s: InkSurface, luts: Array<Uint8Array | null>, covered: boolean): void {
  const cmy = words(s.cmy.data);
  const k = words(s.k.data);
  const [c, m, y] = luts.slice(0, 3).map((t) => t ?? IDENTITY);
  const kk = luts[3] ?? IDENTITY;
  for (let i = 0; i < cmy.length; i++) {
    const v = cmy[i];
    if (covered && v < 0x1000000) continue; // alpha 0
    const a = covered ? v & OPAQUE : OPAQUE;
    cmy[i] = c[v & 255] | (m[(v >>> 8) & 255] << 8) | (y[(v >>> 16) & 255] << 16) | a;
    k[i] = kk[k[i] & 255] * 0x10101 + a;
  }
}

/**
 * Layers clipped to an adjustment layer (composite/compositor.ts drawAdjustmentClipGroup): the
 * adjustment at its Fill changes the canvas, the clipped layers go over that, and the whole is
 * faded in through the adjustment's masks at its opacity.
 */
function drawAdjustmentClipGroup(ctx: Context, base: LayerNode, clipped: LayerNode[], canvas: InkSurface, atop: boolean): void {
  const after = copyOf(ctx, canvas);
  drawAdjustment(ctx, { ...base, opacity: base.fillOpacity, fillOpacity: 1, mask: undefined, vectorMask: undefined }, after);
  for (const node of clipped) drawNode(ctx, node, after, atop, false);
  const mask = layerMask(ctx, base, rectOf(canvas.cmy));
  fadeInto(canvas.cmy, after.cmy, mask, base.opacity);
  fadeInto(canvas.k, after.k, mask, base.opacity);
  canvas.blank = false;
  give(ctx, after);
}

function blendInk(dst: InkSurface, src: InkSurface, mask: Uint8ClampedArray | null, opacity: number, mode: string, options: { atop?: boolean; fill?: number } = {}): void {
  if (dst.blank && mode === 'normal' && opacity === 1 && !mask && !options.atop && (options.fill ?? 1) === 1) return copyCovered(dst, src);
  dst.blank = false;
  const non = Object.hasOwn(INK_NON_SEPARABLE, mode) ? INK_NON_SEPARABLE[mode] : null;
  if (non === 'darker' || non === 'lighter') {
    // The whole operand chosen, as the blended colour Normal lays down: (1 − ab)·s + ab·B.
    const chosen = selectedOperand(dst, src, non === 'darker');
    blendSurface(dst.cmy, chosen.cmy, mask, opacity, 'normal', options);
    blendSurface(dst.k, chosen.k, mask, opacity, 'normal', options);
    return;
  }
  blendSurface(dst.cmy, src.cmy, mask, opacity, mode, options);
  // Hue, Saturation, Color, Luminosity blend C, M, Y; K is the source's (Normal) or the backdrop's,
  // laid down by Normal as the blended colour (1 − ab)·s + ab·b.
  blendSurface(dst.k, non === 'backdrop' ? withBackdropK(dst.k, src.k) : src.k, mask, opacity, non ? 'normal' : mode, options);
}

/**
 * `src` over a blank `dst` in Normal at full opacity, unmasked: the blend gives the source's pixel
 * where its alpha > 0 (opaque: copied; else colour s/255·255 = s, alpha a) and leaves 0 elsewhere
 * (test/engine/pdf/ink-shortcuts.test.ts holds it to the kernel).
 */
export function copyCovered(dst: InkSurface, src: InkSurface): void {
  dst.blank = false;
  const r = intersectRect(rectOf(dst.cmy), rectOf(src.cmy));
  if (!r) return;
  const [dc, dk, sc, sk] = [dst.cmy, dst.k, src.cmy, src.k].map((s) => words(s.data));
  const w = r.right - r.left;
  for (let y = r.top; y < r.bottom; y++) {
    let di = (y - dst.cmy.y) * dst.cmy.w + (r.left - dst.cmy.x);
    let si = (y - src.cmy.y) * src.cmy.w + (r.left - src.cmy.x);
    // A row covered throughout (an opaque ground's): copied whole.
    let bare = false;
    for (let i = si; i < si + w && !bare; i++) bare = sc[i] < 0x1000000;
    if (!bare) {
      dc.set(sc.subarray(si, si + w), di);
      dk.set(sk.subarray(si, si + w), di);
      continue;
    }
    for (let x = r.left; x < r.right; x++, di++, si++) {
      const v = sc[si];
      if (v < 0x1000000) continue; // alpha 0
      dc[di] = v;
      dk[di] = sk[si];
    }
  }
}

/** Calls `each(di, si, ab)` for every pixel `src` and `dst` share where `dst` has alpha ab > 0. */
function overlap(dst: Surface, src: Surface, each: (di: number, si: number, ab: number) => void): void {
  const r = intersectRect(rectOf(dst), rectOf(src));
  if (!r) return;
  const d = dst.data;
  for (let y = r.top; y < r.bottom; y++) {
    let di = ((y - dst.y) * dst.w + (r.left - dst.x)) * 4;
    let si = ((y - src.y) * src.w + (r.left - src.x)) * 4;
    for (let x = r.left; x < r.right; x++, di += 4, si += 4) if (d[di + 3] > 0) each(di, si, d[di + 3] / 255);
  }
}

/** A copy of `src` (a K surface) whose colour is (1 − ab)·s + ab·b against `dst`'s K. */
function withBackdropK(dst: Surface, src: Surface): Surface {
  const out = cloneSurface(src);
  const d = dst.data;
  const o = out.data;
  overlap(dst, src, (di, si, ab) => {
    o[si] = o[si + 1] = o[si + 2] = (1 - ab) * o[si] + ab * d[di];
  });
  return out;
}

/**
 * Copies of `src` whose colour is (1 − ab)·s + ab·B, B the backdrop or the source whole (K
 * included): the source where its lum(CMY)·K on stored values is lower (darker) or higher.
 */
function selectedOperand(dst: InkSurface, src: InkSurface, darker: boolean): InkSurface {
  const cmy = cloneSurface(src.cmy);
  const k = cloneSurface(src.k);
  const [bc, bk, sc, sk] = [dst.cmy.data, dst.k.data, cmy.data, k.data];
  const light = (c: Uint8ClampedArray, kk: Uint8ClampedArray, i: number) => ((0.3 * c[i] + 0.59 * c[i + 1] + 0.11 * c[i + 2]) * kk[i]) / 65025;
  overlap(dst.cmy, src.cmy, (di, si, ab) => {
    const ls = light(sc, sk, si);
    const lb = light(bc, bk, di);
    if (darker ? ls < lb : ls > lb) return; // B is the source: (1 − ab)·s + ab·s
    for (let c = 0; c < 3; c++) sc[si + c] = (1 - ab) * sc[si + c] + ab * bc[di + c];
    sk[si] = sk[si + 1] = sk[si + 2] = (1 - ab) * sk[si] + ab * bk[di];
  });
  return { cmy, k };
}

/** What this compositor leaves to the caller's fallback (see the file's comment). */
function unmodelled(ctx: Context, n: LayerNode): boolean {
  const override = ctx.overrides.get(n.id);
  const mode = n.blendMode === 'pass through' ? (n.children ? 'normal' : '') : n.blendMode;
  const inkMode = ctx.options.nonSeparable ? Object.hasOwn(SEPARABLE, mode) || Object.hasOwn(INK_NON_SEPARABLE, mode) : Object.hasOwn(SEPARABLE, mode) && mode !== 'dissolve';
  if (!inkMode) return true;
  if ((n.type === 'Adjustment' || n.adjustment) && !inkLuts(n)) return true;
  if ((hasEffects(n) && !inkEffects(ctx, n)) || n.artboard || n.knockout || n.blendIf || n.excludedChannels?.length) return true;
  if (n.transparencyShapes === false || n.vectorStroke) return true;
  // A pass-through group below Fill 100 % is composited apart over its backdrop, and a shape with a
  // soft vector mask (or no pixels) is drawn from its fill and path (composite/compositor.ts):
  // neither is what the stored channels drawn in place give.
  if (n.children && n.blendMode === 'pass through' && n.fillOpacity < 1) return true;
  if (fillFromPath(n)) return true;
  if (n.mask && !n.mask.disabled && (n.mask.feather ?? 0) > 0) return true;
  if (drawnVectorMask(n) && (n.vectorMask!.feather ?? 0) > 0) return true;
  if (n.children) return false;
  const layer = ctx.layers.get(n.id);
  // Layers the compiler adds (spot channels' previews) have no record of their own.
  if (!layer || (layer.name ?? '') !== n.name) return true;
  if (n.adjustment) return false;
  if (override?.pixels) return !override.bounds || !ctx.content(n, override);
  if (override?.color) return !ctx.content(n, override);
  return false;
}

/**
 * Where a left-out layer can change the composite: its pixels, and as far as its effects reach
 * around them; everywhere for groups, adjustments, shape strokes and effects on a layer whose
 * "Transparency Shapes" is off (they cover the whole plane).
 */
function extent(ctx: Context, n: LayerNode): Bounds {
  if (n.children || n.type === 'Adjustment' || n.vectorStroke || (hasEffects(n) && n.transparencyShapes === false)) return ctx.area;
  const o = ctx.overrides.get(n.id)?.bounds;
  const b = o ? unionRect(o, n.bounds) : n.bounds;
  return hasEffects(n) ? growRect(b, Math.ceil(effectMargin(n, 1)) + 2) : b;
}

const channelOf = (layer: Layer, id: number): LayerRawDataChannel | undefined => layer.rawData?.channels.find((c) => c.id === id);

/** A leaf's content over `over` (the area): the override's pixels in ink, else the PSD's own channels. */
function layerContent(ctx: Context, node: LayerNode, over: Bounds = ctx.area): InkSurface | null {
  const override = ctx.overrides.get(node.id);
  if (override?.pixels && override.bounds) {
    const ink = ctx.content(node, override)!;
    const { width: w } = override.pixels;
    const b = override.bounds;
    const r = intersectRect({ left: b.left, top: b.top, right: b.left + w, bottom: b.top + override.pixels.height }, over);
    if (!r) return null;
    const out = pooledSurface(ctx, r);
    const alpha = override.pixels.data;
    for (let y = r.top; y < r.bottom; y++) {
      for (let x = r.left, o = (y - r.top) * out.cmy.w * 4; x < r.right; x++, o += 4) {
        const i = ((y - b.top) * w + (x - b.left)) * 4;
        writeInk(out, o, ink[i], ink[i + 1], ink[i + 2], ink[i + 3], alpha[i + 3]);
      }
    }
    return out;
  }
  const layer = ctx.layers.get(node.id)!;
  const lb = { left: layer.left ?? 0, top: layer.top ?? 0, right: layer.right ?? 0, bottom: layer.bottom ?? 0 };
  const r = intersectRect(lb, over);
  if (!r) return null;
  const lw = lb.right - lb.left;
  const lh = lb.bottom - lb.top;
  const read = [0, 1, 2, 3, -1].map((id) => rowsOf(ctx, node.id, layer, id, lw, lh, 255, r.top - lb.top));
  // A recolour keeps the layer's alpha and takes the override's colour (and alpha) everywhere.
  const recolour = override?.color ? ctx.content(node, override)! : null;
  const scale = override?.color ? override.color.a : 1;
  const out = pooledSurface(ctx, r);
  const cmy = words(out.cmy.data);
  const kk = words(out.k.data);
  for (let y = r.top; y < r.bottom; y++) {
    const c = read[0].next();
    const m = read[1].next();
    const yy = read[2].next();
    const k = read[3].next();
    const a = read[4].next();
    if (recolour) {
      for (let x = r.left, o = (y - r.top) * out.cmy.w * 4; x < r.right; x++, o += 4) writeInk(out, o, recolour[0], recolour[1], recolour[2], recolour[3], a[x - lb.left] * scale);
      continue;
    }
    // Stored values as they are (255 = no ink): the surfaces hold stored values. One loop, no call
    // a pixel, a pixel written as one word (previews composite whole documents).
    interleave(cmy, kk, (y - r.top) * out.cmy.w, c, m, yy, k, a, r.left - lb.left, r.right - lb.left);
  }
  return out;
}

/** Planes' samples [from, end) as stored C, M, Y, alpha and K ×3, alpha words from `o` on (its own function: one set of types, optimised once). */
function interleave(cmy: Uint32Array, kk: Uint32Array, o: number, c: Uint8Array, m: Uint8Array, y: Uint8Array, k: Uint8Array, a: Uint8Array, from: number, end: number): void {
  for (let i = from; i < end; i++, o++) {
    const alpha = a[i] << 24;
    cmy[o] = c[i] | (m[i] << 8) | (y[i] << 16) | alpha;
    kk[o] = (k[i] * 0x10101) | alpha;
  }
}

function writeInk(s: InkSurface, o: number, c: number, m: number, y: number, k: number, a: number): void {
  writeStored(s, o, 255 - c, 255 - m, 255 - y, 255 - k, a);
}

function writeStored(s: InkSurface, o: number, c: number, m: number, y: number, k: number, a: number): void {
  const cmy = s.cmy.data;
  const kk = s.k.data;
  cmy[o] = c;
  cmy[o + 1] = m;
  cmy[o + 2] = y;
  cmy[o + 3] = a;
  kk[o] = kk[o + 1] = kk[o + 2] = k;
  kk[o + 3] = a;
}

/**
 * Whether the layer's vector mask is drawn here: a shape layer's pixels are Photoshop's own
 * rendering of its path (as composite/compositor.ts layerMask has it), other layers are masked.
 */
const drawnVectorMask = (n: LayerNode) => !!n.vectorMask && !n.vectorMask.disabled && !(n.type === 'Shape' && n.hasPixels);

/** The layer's pixel mask × vector mask over `r` (one byte a pixel), or null when nothing masks. */
function layerMask(ctx: Context, node: LayerNode, r: Bounds): Uint8ClampedArray | null {
  const pixel = pixelMask(ctx, node, r);
  if (!drawnVectorMask(node)) return pixel;
  const vm = node.vectorMask!;
  const vector = rasterizeVectorMask(vm, 1, r);
  return multiplyMasks(pixel, atDensity(vector, vm.density));
}

/** A mask at Photoshop's density d: 255 − (255 − m)·d. */
function atDensity(mask: Uint8ClampedArray, density: number | undefined): Uint8ClampedArray {
  if (density !== undefined && density < 1) for (let i = 0; i < mask.length; i++) mask[i] = 255 - (255 - mask[i]) * density;
  return mask;
}

/** The layer's pixel mask over `r` (one byte a pixel), its default colour outside its rectangle. */
function pixelMask(ctx: Context, node: LayerNode, r: Bounds): Uint8ClampedArray | null {
  if (!node.mask || node.mask.disabled) return null;
  const layer = ctx.layers.get(node.id);
  const source = layer && pixelMaskSource(layer);
  const w = r.right - r.left;
  const out = new Uint8ClampedArray(w * (r.bottom - r.top)).fill(node.mask.defaultColor);
  if (!layer || !source) return atDensity(out, node.mask.density);
  const m = source.mask;
  const mb = { left: m.left ?? 0, top: m.top ?? 0, right: m.right ?? 0, bottom: m.bottom ?? 0 };
  const cut = intersectRect(mb, r);
  if (!cut) return atDensity(out, node.mask.density);
  const mw = mb.right - mb.left;
  const rows = rowsOf(ctx, node.id, layer, source.real ? -3 : -2, mw, mb.bottom - mb.top, node.mask.defaultColor, cut.top - mb.top);
  for (let y = cut.top; y < cut.bottom; y++) {
    const row = rows.next();
    out.set(row.subarray(cut.left - mb.left, cut.right - mb.left), (y - r.top) * w + (cut.left - r.left));
  }
  return atDensity(out, node.mask.density);
}

/** The composite over paper (no ink where nothing is), as ink, and its alpha. */
function toInk(s: InkSurface): { ink: Uint8Array; alpha: Uint8Array } {
  const n = s.cmy.w * s.cmy.h;
  const out = new Uint8Array(n * 4);
  const alpha = new Uint8Array(n);
  const ink = words(out);
  const cmy = words(s.cmy.data);
  const k = words(s.k.data);
  const t = inkOverPaper();
  for (let i = 0; i < n; i++) {
    const v = cmy[i];
    const a = v >>> 24;
    alpha[i] = a;
    // Opaque: the ink is 255 − v (v ^ 255 a byte); else the table's (255 − v)·a/255, rounded.
    if (a === 255) ink[i] = ~((v & 0xffffff) | ((k[i] & 255) << 24));
    else {
      const row = a << 8;
      ink[i] = t[row | (v & 255)] | (t[row | ((v >>> 8) & 255)] << 8) | (t[row | ((v >>> 16) & 255)] << 16) | (t[row | (k[i] & 255)] << 24);
    }
  }
  return { ink: out, alpha };
}

/**
 * round((255 − v)·a/255) at [a << 8 | v]: a stored value v at alpha a over white paper, as ink
 * (v·a + 255·(1 − a) on stored values). Computed as the per-pixel arithmetic was, once (64 KB).
 */
let INK_OVER_PAPER: Uint8Array | undefined;
function inkOverPaper(): Uint8Array {
  if (!INK_OVER_PAPER) {
    INK_OVER_PAPER = new Uint8Array(256 * 256);
    for (let a = 0; a < 256; a++) for (let v = 0; v < 256; v++) INK_OVER_PAPER[(a << 8) | v] = Math.round((255 - v) * (a / 255));
  }
  return INK_OVER_PAPER;
}

/** One byte a pixel of `strip`: 1 inside any of `rects`. */
function reach(rects: Bounds[], strip: Bounds): Uint8Array {
  const w = strip.right - strip.left;
  const out = new Uint8Array(w * (strip.bottom - strip.top));
  for (const rect of rects) {
    const r = intersectRect(rect, strip);
    if (!r) continue;
    for (let y = r.top; y < r.bottom; y++) out.fill(1, (y - strip.top) * w + (r.left - strip.left), (y - strip.top) * w + (r.right - strip.left));
  }
  return out;
}
