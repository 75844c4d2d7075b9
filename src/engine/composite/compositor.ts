import { drop, dropOwn, ownHere } from '../memory/drop';
import { BAND, levelBounds, levelFor } from '../compiled/pyramid';
import { kernels, kernelsNow, type KernelExports } from '../raster/kernels';
import { flattenOverWhite } from '../raster/pixels';
import { adjustmentMaskCache, backdropCache, resampledLayerCache, type AdjustmentMask } from '../cache';
import { loadLayerPixels, loadMaskPixels, loadPattern, prefix, type StripBuffers } from '../compiled/store';
import type { Bounds, CompiledTemplate, LayerNode, LayerOverrides, RenderOptions, RGBAImage, VectorMask } from '../types';
import { applyAdjustment } from './adjust';
import { blendSurface, fadeInto, fadeOntoClear, FILL_INSIDE, type BlendOptions } from './blend';
import { coveredExtent, drawEffectsAbove, drawEffectsBelow, drawsBelow, drawShapeStroke, effectMargin, effectSources, EVERYWHERE, hasEffects, hasInteriorEffects, knownCoveredBox, paintsInsideOnly, shapeFrom, textGammaOf, wholeColourOverlay, effectDrawing, recordBlends, blendAgain, type BlendRecord, type EffectBlend, type Shape, type ShapeSource } from './effects';
import { outputRect, resampleGray, resampleRGBA, resampleRGBAByRows } from './resample';
import {
  cloneSurface,
  copyRect,
  createSurface,
  cropSurface,
  growRect as grow,
  intersectRect,
  markOpaque,
  maskOver,
  multiplyMasks,
  opaqueArea,
  rectOf,
  unionRect,
  type MaskSurface,
  type Surface,
} from './surface';
import { hasKnockout, knockoutBlend, knockoutTarget, type KnockoutScope } from './knockout';
import type { BackdropStore, RenderContext } from './context';
import { effectKernels, gaussianBlurInPlace, gaussianReach } from './morphology';
import { effectPatternIds } from './pattern';
import { gradientFillSurface } from './gradient-fill';
import { rasterizeVectorMask } from './vector';
import { RENDER_VERSION } from './version';

/**
 * Re-composites a compiled template the way Photoshop does, at any scale, optionally only some
 * output rows. Layers come from the nearest pyramid level at or above the scale and are resampled
 * to the exact output grid; nothing at full resolution is held when rendering small.
 */
export function outputSize(compiled: CompiledTemplate, scale: number): { width: number; height: number } {
  return {
    width: Math.max(1, Math.round(compiled.width * scale)),
    height: Math.max(1, Math.round(compiled.height * scale)),
  };
}

export async function renderTemplate(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  options: RenderOptions & {
    backdrops?: BackdropStore;
    /**
     * A frame's strip buffers: the canvas is drawn into their kept 'canvas' buffer, so the image
     * returned is good until the next render with them (frame.ts copies it out first).
     */
    buffers?: StripBuffers;
    /**
     * An array to draw the canvas into when it holds at least the region's pixels (else a new
     * one is made): the image returned is then a view of its start. For a caller that keeps region
     * canvases from one request to the next (issue 25 §3: a fresh array per personalised
     * request, 354 KB on layer-effects-all, drove most of its garbage collection), and hands
     * each to one render at a time. Unlike `buffers`, the backdrop cache is used as ever.
     */
    canvas?: Uint8ClampedArray;
  },
): Promise<RGBAImage> {
  const scale = options.scale;
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`render scale must be > 0, got ${scale}`);
  const { width, height } = outputSize(compiled, scale);
  const top = Math.max(0, Math.min(height, Math.floor(options.region?.top ?? 0)));
  const bottom = Math.max(top, Math.min(height, Math.ceil(options.region?.bottom ?? height)));
  const left = Math.max(0, Math.min(width, Math.floor(options.region?.left ?? 0)));
  const right = Math.max(left, Math.min(width, Math.ceil(options.region?.right ?? width)));
  const level = levelFor(scale, compiled.levels);
  const ctx: RenderContext = {
    bucket,
    compiled,
    scale,
    level,
    factor: scale * 2 ** level,
    clip: { left, top, right, bottom },
    overrides: options.overrides ?? new Map(),
    patterns: new Map(),
    backdrops: options.backdrops,
    buffers: options.buffers,
  };
  await kernels(); // the blend kernels run in WASM once instantiated (once per isolate)
  options.buffers?.nextStrip(); // the last strip's layer surfaces are done with
  const bytes = (right - left) * (bottom - top) * 4;
  const kept = options.buffers ? options.buffers.clamped('canvas', bytes) : options.canvas && options.canvas.length >= bytes ? options.canvas.subarray(0, bytes) : null;
  const canvas = kept ? keptSurface(ctx.clip, kept) : createSurface(ctx.clip);
  await drawWithBackdrop(ctx, canvas);
  if (options.background !== 'transparent') await flattenOverWhite(canvas.data); // Photoshop's matte
  return { width: right - left, height: bottom - top, data: canvas.data };
}

/** A transparent surface over `r` in a kept buffer of its size (what createSurface gives, without a new array). */
function keptSurface(r: Bounds, data: Uint8ClampedArray): Surface {
  return { x: r.left, y: r.top, w: r.right - r.left, h: r.bottom - r.top, data: data.fill(0) };
}

const isVisible = (ctx: RenderContext, n: LayerNode) => ctx.overrides.get(n.id)?.visible ?? n.visible;

/** What a stack draws in one go: a layer and the layers clipped to it. */
export interface Unit {
  base: LayerNode;
  clipped: LayerNode[];
}

/** A stack (top first, as in the tree) as units, bottom-up. */
function unitsOf(nodes: LayerNode[]): Unit[] {
  const list = [...nodes].reverse();
  const units: Unit[] = [];
  for (let i = 0; i < list.length; i++) {
    const unit: Unit = { base: list[i], clipped: [] };
    while (i + 1 < list.length && list[i + 1].clipping) unit.clipped.push(list[++i]);
    units.push(unit);
  }
  return units;
}

async function drawUnit(ctx: RenderContext, { base, clipped }: Unit, canvas: Surface, atop = false): Promise<void> {
  if (!isVisible(ctx, base)) return;
  const shown = clipped.filter((n) => isVisible(ctx, n));
  try {
    if (shown.length || isolatesInterior(base)) await drawClipGroup(ctx, base, shown, canvas, atop);
    else await drawNode(ctx, base, canvas, atop);
  } catch (e) {
    throw LayerRenderError.wrap(e, base, shown);
  }
}

/**
 * A pixel, shape or text layer whose interior effects are composited with its content as one unit
 * (a clipping group of one): they recolour its semi-transparent edge within its alpha instead of
 * adding a second coverage, and the unit takes the layer's opacity (and a text layer's edge
 * gamma) once, as Photoshop composites a layer with effects (docs/fidelity.md). Kept to what that
 * unit draws as Photoshop does: Normal mode, no knockout or Blend If. Below Fill 100 % the
 * effects paint as if the layer covered its pixels wholly, then take its alpha ('relative' in
 * effects.ts); channel restrictions hold for the unit's blend (docs/effects.md).
 */
function isolatesInterior(node: LayerNode): boolean {
  if (node.type === 'Group' || node.adjustment) return false;
  // "Blend Interior Effects as Group" makes the unit in any mode (drawClipGroup).
  if (node.blendMode !== 'normal' && !node.blendInterior) return false;
  if (node.knockout || node.blendIf || node.transparencyShapes === false) return false;
  return hasInteriorEffects(node);
}

/**
 * A failure while drawing one layer, naming the layer and the features it uses, so that the
 * compile-time trial render (compile.ts) can refuse the template with a 422 that says what
 * could not be drawn. `cause` is the original error.
 */
export class LayerRenderError extends Error {
  override name = 'LayerRenderError';
  constructor(
    readonly layer: string,
    readonly features: string,
    override readonly cause: unknown,
  ) {
    super(`layer "${layer}" (${features}) could not be drawn: ${(cause as Error)?.message ?? cause}`);
  }

  /** The innermost layer wins: an error already naming one passes through unchanged. */
  static wrap(e: unknown, node: LayerNode, clipped: LayerNode[] = []): unknown {
    if (e instanceof LayerRenderError || !(e instanceof Error) || (e as { code?: unknown }).code) return e;
    return new LayerRenderError(node.name, featuresOf(node, clipped), e);
  }
}

/** The Photoshop features a layer uses, in words ("pass-through group, layer mask, …"). */
export function featuresOf(node: LayerNode, clipped: LayerNode[] = []): string {
  const f: string[] = [];
  if (node.type === 'Group') f.push(node.blendMode === 'pass through' ? 'pass-through group' : 'group');
  else if (node.adjustment) f.push(`${node.adjustment.type} adjustment`);
  else f.push(`${node.type.toLowerCase()} layer`);
  if (node.blendMode !== 'normal' && node.blendMode !== 'pass through') f.push(`blend mode ${node.blendMode}`);
  if (node.clipping) f.push('clipped');
  if (clipped.length) f.push(`${clipped.length} clipped layer${clipped.length > 1 ? 's' : ''}`);
  if (node.mask && !node.mask.disabled) f.push(node.mask.defaultColor === 255 ? 'layer mask (white outside)' : 'layer mask');
  if (node.vectorMask && !node.vectorMask.disabled) f.push('vector mask');
  if (hasEffects(node)) f.push('layer effects');
  if (node.blendIf) f.push('Blend If');
  if (node.knockout) f.push(`${node.knockout} knockout`);
  if (node.artboard) f.push('artboard');
  return f.join(', ');
}

/** Draws a stack (top first, as in the tree) bottom-up, grouping clipped layers with their base. */
async function drawStack(ctx: RenderContext, nodes: LayerNode[], canvas: Surface, atop = false): Promise<void> {
  await drawUnits(ctx, unitsOf(nodes), canvas, atop);
}

/**
 * The canvas (its bytes) the last in-place adjustment went onto (`inPlaceOnto`), and the canvas
 * an adjustment unit drawn straight after it may take as having no transparent pixel
 * (`knownOpaque`): an in-place adjustment keeps the alpha, and nothing else drew in between, so
 * adjustsInPlace's scan would find what the one before found. Each is compared by identity with
 * the canvas's own bytes, so another request interleaved at an await can only make the scan run.
 */
let inPlaceOnto: Uint8ClampedArray | null = null;
let knownOpaque: Uint8ClampedArray | null = null;

/** Units drawn bottom-up onto one canvas (a mockup's Curves then Hue/Saturation scan it once). */
async function drawUnits(ctx: RenderContext, units: Unit[], canvas: Surface, atop = false): Promise<void> {
  let opaque = false;
  for (const unit of units) {
    // Only a unit that is one adjustment and nothing else passes the knowledge on (a clipped
    // layer or anything else drawn in the unit could change the alpha after its adjustment).
    const lone = !!unit.base.adjustment && !unit.clipped.length;
    knownOpaque = opaque && lone ? canvas.data : null;
    inPlaceOnto = null;
    await drawUnit(ctx, unit, canvas, atop);
    opaque = lone && inPlaceOnto === canvas.data;
  }
  knownOpaque = inPlaceOnto = null;
}

/**
 * A visible pass-through group that drawGroup draws straight onto the canvas whatever the
 * request: no override of its own, full opacity and Fill, no knockout, Blend If or channel
 * restriction, no mask, no effects, not an artboard, nothing clipped to it. Drawing its
 * children's units in its place is the same drawing.
 */
const opensUp = (overrides: LayerOverrides, { base, clipped }: Unit) =>
  base.type === 'Group' &&
  !clipped.length &&
  !overrides.has(base.id) &&
  base.visible &&
  base.blendMode === 'pass through' &&
  base.opacity >= 1 &&
  base.fillOpacity >= 1 && // Fill fades a pass-through group's children as opacity does
  !base.knockout && // a knockout isolates it
  !base.blendIf && // so do Blend If and channel restrictions
  !base.excludedChannels?.length &&
  !base.artboard &&
  !base.children?.some(hasKnockout) && // a knockout inside reveals the canvas as the group found it
  (!base.mask || base.mask.disabled) &&
  (!base.vectorMask || base.vectorMask.disabled) &&
  !hasEffects(base);

/** The document's units drawn straight onto the canvas, bottom-up (groups opened up where exact). */
export function canvasUnits(overrides: LayerOverrides, nodes: LayerNode[]): Unit[] {
  return unitsOf(nodes).flatMap((u) => (opensUp(overrides, u) ? canvasUnits(overrides, u.base.children ?? []) : [u]));
}

const overridden = (overrides: LayerOverrides, node: LayerNode): boolean =>
  overrides.has(node.id) || (node.children?.some((c) => overridden(overrides, c)) ?? false);

/** Whether a request's overrides reach a unit (its base, a layer clipped to it, or anything inside). */
export const overriddenUnit = (overrides: LayerOverrides, u: Unit): boolean =>
  overridden(overrides, u.base) || u.clipped.some((n) => overridden(overrides, n));

/**
 * Draws the document, starting from a cached backdrop when this isolate has drawn it before:
 * everything below the lowest unit that a request overrides (itself or anything inside it) is
 * drawn from the template alone, so it is the same canvas for every request at this scale and
 * these rows. Units above read that canvas as any backdrop (blend modes, adjustments,
 * pass-through groups, clipping), so the result is bit-identical to drawing it all.
 */
async function drawWithBackdrop(ctx: RenderContext, canvas: Surface): Promise<void> {
  const units = canvasUnits(ctx.overrides, ctx.compiled.layers);
  let cut = units.findIndex((u) => overriddenUnit(ctx.overrides, u));
  if (cut < 0) cut = units.length;
  // The units below the cut follow from the tree alone; the last one's id guards the count.
  // Columns are named only when narrower than the canvas (the keys of whole rows are as before).
  const { width, height } = outputSize(ctx.compiled, ctx.scale);
  const keyOf = (r: Bounds) =>
    `${prefix(ctx.compiled.hash)}backdrop/r${RENDER_VERSION}/${ctx.scale}/${r.top}-${r.bottom}${r.left > 0 || r.right < width ? `/c${r.left}-${r.right}` : ''}/${cut}/${units[cut - 1]?.base.id}`;
  if (cut > 0 && ctx.backdrops) {
    const key = keyOf(ctx.clip);
    const held = await ctx.backdrops.get(key, canvas.data.byteLength);
    if (held) canvas.data.set(held);
    else {
      await drawUnits(ctx, units.slice(0, cut), canvas);
      await ctx.backdrops.set(key, canvas.data);
    }
  } else if (cut > 0 && ctx.buffers) {
    // A frame drawn in strips keeps no backdrops: its strips would pass through backdropCache
    // (12 MB) each pushing out the one before, a copy of every strip for the last two kept
    // (100 MB of copies for a 5,000² preview, issue 25 §1).
    await drawUnits(ctx, units.slice(0, cut), canvas);
  } else if (cut > 0) {
    // A canvas small enough to keep is kept whole and cut to the clip, so requests whose
    // rectangles differ (a preview redrawing only what its overrides reach) share one backdrop.
    const kept = width * height * 4 <= backdropCache.maxEntryBytes ? { left: 0, top: 0, right: width, bottom: height } : ctx.clip;
    const key = keyOf(kept);
    const held = backdropCache.get(key);
    const direct = kept.top === ctx.clip.top && kept.bottom === ctx.clip.bottom && kept.left === ctx.clip.left && kept.right === ctx.clip.right;
    const backdrop = held ? null : direct ? canvas : createSurface(kept);
    if (backdrop) {
      await drawUnits(ctx, units.slice(0, cut), backdrop);
      backdropCache.set(key, backdrop === canvas ? canvas.data.slice() : backdrop.data, backdrop.data.byteLength);
    }
    const whole = held ?? (backdrop !== canvas ? backdrop!.data : null);
    if (whole) copyRect(whole, kept, canvas);
  }
  await drawUnits(ctx, units.slice(cut), canvas);
}

/**
 * A clipping group ("blend clipped layers as group"): the base's content and the clipped layers
 * are composited apart, clipped ones source-atop so the base's shape limits them; the base's
 * interior effects and its shape stroke then go over the whole (as Photoshop draws them), and
 * the result goes onto the canvas with the base's blend mode and opacity.
 */
async function drawClipGroup(ctx: RenderContext, base: LayerNode, clipped: LayerNode[], canvas: Surface, atop = false) {
  if (base.adjustment) return drawAdjustmentClipGroup(ctx, base, clipped, canvas, atop);
  if (await hidingEffects(ctx, base, canvas, (inner, target) => drawClipGroup(ctx, inner, clipped, target, atop))) return;
  if (base.blendClipped === false && base.type !== 'Group' && !hasEffects(base)) return drawClippedApart(ctx, base, clipped, canvas, atop);
  // The base's blending options are the clipping group's: its mode, opacity, Blend If, channels,
  // and a text base's edge gamma (its edges are the group's).
  const mode = base.blendMode === 'pass through' ? 'normal' : base.blendMode;
  const options = { atop, blendIf: base.blendIf, excludedChannels: base.excludedChannels, textGamma: textGammaOf(ctx.compiled.textGamma, base) };
  // A unit that reads nothing of the canvas, drawn before over this target: only blended again.
  const keep = keptUnitKey(ctx, base, clipped, canvas, atop);
  const held = keep ? backdropCache.get(keep) : undefined;
  const kept = held && keptUnits.get(held);
  if (kept) {
    unitShortcutDraws.kept++;
    if (kept.group) blendWithGamma(canvas, kept.group, null, kept.opacity, mode, options, kept.covered);
    return;
  }
  // A layer with nothing on the target (no pixels or effects there: a unit beside a personalised
  // preview's dirty rectangle) and nothing clipped to it leaves its group transparent, which
  // blends to nothing: no group to allocate and blend.
  const own = base.type === 'Group' ? null : await withEffects(ctx, base, rectOf(canvas));
  if (own && !own.content && !own.shape && !clipped.length) {
    if (keep) keepUnit(keep, { group: null, opacity: 0, covered: null });
    return;
  }
  const group = createSurface(unitArea(rectOf(canvas), base, clipped, own));
  const inner: LayerNode = { ...base, opacity: 1, blendMode: 'normal' };
  // "Blend Interior Effects as Group" (Adobe: the layer's blend mode applies to its interior
  // effects, and its Fill to them with its pixels): the unit is drawn as at Fill 100 % and
  // blended with the layer's mode at opacity × Fill. Not with clipped layers, which a base's
  // Fill leaves alone.
  const asGroup = !!base.blendInterior && !clipped.length && base.type !== 'Group';
  const fill = asGroup ? 1 : base.fillOpacity;
  // The base's pixel alpha × masks over the group, where its Fill or its knockout needs it.
  let baseShape: Uint8ClampedArray | null = null;
  // Whether the group already holds the base's Fill (Blend Interior Effects as Group, split below).
  let faded = false;
  // A box holding every pixel of the group that is not transparent (null: none is), where known.
  let covered: Bounds | null | undefined;
  // Clipped layers knock out to the base (the clipping group is drawn apart, so no deeper).
  const drawClipped = async () => {
    const knock = clipped.some(hasKnockout) ? cloneSurface(group) : null;
    await inScope(ctx, knock ? { shallow: knock, deep: knock } : undefined, async () => {
      for (const node of clipped) {
        if (!baseShape || base.fillOpacity >= 1) {
          await drawNode(ctx, node, group, true);
          continue;
        }
        // Below Fill 100 % the base's pixels still shape what is clipped to it (Fill 0 % shows
        // the clipped layers alone): drawn over the group, kept inside the base's pixel alpha.
        await drawInside(ctx, node, group, baseShape);
      }
    });
  };
  if (!own && passThroughApart(base)) {
    // A pass-through group as a clipping base: composited apart over the backdrop (drawApart),
    // the backdrop taken back out; its clipped layers go onto that.
    const apart = await drawApart(ctx, base, canvas);
    takeBackdropOut(group, apart.after, canvas, apart.own);
    const mask = await layerMask(ctx, base, rectOf(group));
    if (mask) for (let p = 0; p < mask.length; p++) group.data[p * 4 + 3] = (group.data[p * 4 + 3] * mask[p] + 127) / 255;
  } else if (!own) {
    await drawNode(ctx, inner, group);
  } else {
    const { content, mask, shape } = own;
    if (shape) await loadEffectPatterns(ctx, base);
    if (shape) drawEffectsBelow(ctx, base, canvas, shape, atop);
    if (content && (fill < 1 || base.knockout)) baseShape = shapeOver(group, content, mask);
    // Where the unit is not transparent when its effects paint inside its pixels alone (a text
    // under overlays, satin, inner glow or shadow): its pixels' covered box, as the effects found
    // it (effects.ts coveredExtent; a personalised text's raster has empty margins). Its content
    // and the unit are blended over it only: alpha 0 blends to nothing, the same bytes.
    // A colour overlay recolouring the whole unit (effects.ts wholeColourOverlay): the unit is its
    // colour at the pixels' alpha, drawn so (a picture under a 100 % colour overlay: its colours
    // neither blended in nor painted over, issue 25 §3).
    const colour = unitShortcuts && content && shape && !mask && !clipped.length && !base.knockout && !base.vectorStroke && fill >= 1 && base.fillOpacity >= 1 ? wholeColourOverlay(inner, shape) : null;
    // Its pixels all known opaque (a placed JPEG), their box is their rectangle: not scanned for.
    if (shape && !clipped.length && !base.knockout && !base.vectorStroke && paintsInsideOnly(base)) covered = colour && content && opaqueWhole(content) ? rectOf(content) : coveredExtent(shape);
    if (content && colour) colourAtAlpha(group, content, colour, covered ?? undefined);
    else if (content) blendSurface(group, content, mask, fill, 'normal', {}, covered ?? undefined);
    await drawClipped();
    // The stroke is baked into the base's pixels: redrawn over what is clipped to it, it recolours
    // the group within its alpha (at Fill 100 %) instead of adding a second coverage where a mask
    // leaves the edge partly covered.
    const within = !base.knockout && fill >= 1;
    const stroke = content && base.vectorStroke ? () => drawShapeStroke(ctx, inner, group, content, mask, false, within) : undefined;
    // The group is the base's own composite (from transparency, clipped layers atop): at Fill
    // 100 % its interior effects recolour it within its alpha, below it they paint over it
    // relative to the base's alpha (docs/effects.md, Fidelity).
    // "Blend Interior Effects as Group" below Fill 100 %: the overlays, satin and inner glow are
    // grouped with the content and faded by the Fill with it; the inner shadows, strokes and bevel
    // then paint over the faded unit as if the layer covered its pixels wholly (Adobe's list of
    // the effects the option covers; photocraft's compositor draws it so).
    const split = asGroup && shape && !base.knockout && base.fillOpacity < 1;
    if (shape) drawEffectsAbove(ctx, inner, group, shape, false, stroke, base.knockout ? false : fill >= 1 ? true : 'relative', split ? 'grouped' : 'all', !!colour);
    else stroke?.();
    if (split) {
      const d = group.data;
      for (let i = 3; i < d.length; i += 4) d[i] = d[i] * base.fillOpacity;
      drawEffectsAbove(ctx, inner, group, shape, false, undefined, 'relative', 'rest');
    }
    faded = !!split;
    clipped = [];
  }
  if (clipped.length) await drawClipped();
  if (base.knockout && baseShape) {
    // A knocking-out base takes its clipping group through (composite/knockout.ts): the hole is
    // the base's shape, and the group paints onto the target inside it with its own alpha
    // relative to that shape (a base at Fill 0 % with nothing clipped over it: a clean hole).
    const paint = cloneSurface(group);
    const d = paint.data;
    for (let p = 0; p < baseShape.length; p++) d[p * 4 + 3] = baseShape[p] ? Math.min(255, (d[p * 4 + 3] * 255) / baseShape[p]) : 0;
    const scope = ctx.knockout ?? (await rootKnockout(ctx));
    knockoutBlend(canvas, knockoutTarget(scope, base), paint, baseShape, base.opacity, mode, options, true);
    drop(paint.data, group.data);
  } else {
    const opacity = asGroup && !faded ? base.opacity * base.fillOpacity : base.opacity;
    blendWithGamma(canvas, group, null, opacity, mode, options, covered);
    // The group is read no more here: kept as it is (blends only read it), else given back now
    // (a strip of the poster's print PDF made a 4 MB group for its band: 21 MB a page, issue 25 §1).
    if (keep) keepUnit(keep, { group, opacity, covered });
    else drop(group.data);
  }
  // The base's own content, mask and shape sources, made for this unit alone (drawLayer's).
  if (own) doneWith(ctx, own.content?.data, own.mask, ...own.sources.flatMap((s) => [s.content?.data, s.mask]));
}

/** Whether every pixel of `s` is known opaque (markOpaque over its whole rectangle). */
function opaqueWhole(s: Surface): boolean {
  const o = opaqueArea(s.data);
  return !!o && o.left <= 0 && o.top <= 0 && o.right >= s.w && o.bottom >= s.h;
}

/**
 * A unit (transparent, `group`) holding `content` recoloured wholly by `colour` (effects.ts
 * wholeColourOverlay): the colour at each pixel's alpha where that is not 0 (what the content's
 * blend and the overlay painted within it store), over `within` (the covered box) when given.
 * Where the content is known opaque (markOpaque: a placed JPEG), the unit is too.
 */
function colourAtAlpha(group: Surface, content: Surface, colour: Uint8ClampedArray, within?: Bounds): void {
  const both = intersectRect(rectOf(group), rectOf(content));
  const r = both && within ? intersectRect(both, within) : both;
  unitShortcutDraws.coloured++;
  if (!r) return;
  const words = new Uint32Array(group.data.buffer, group.data.byteOffset, group.w * group.h);
  const rgb = (colour[0]! | (colour[1]! << 8) | (colour[2]! << 16)) >>> 0;
  const opaque = opaqueArea(content.data);
  // The known-opaque pixels in canvas coordinates, within r: filled a row at a time.
  const o = opaque && intersectRect(r, { left: content.x + opaque.left, top: content.y + opaque.top, right: content.x + opaque.right, bottom: content.y + opaque.bottom });
  const d = content.data;
  const solid = (rgb | 0xff000000) >>> 0;
  for (let y = r.top; y < r.bottom; y++) {
    const row = (y - group.y) * group.w - group.x;
    const from = (y - content.y) * content.w - content.x;
    const inside = o && y >= o.top && y < o.bottom;
    for (let x = r.left; x < r.right; x++) {
      if (inside && x === o.left) {
        words.fill(solid, row + o.left, row + o.right);
        x = o.right - 1;
        continue;
      }
      const a = d[(from + x) * 4 + 3]!;
      if (a) words[row + x] = (rgb | (a << 24)) >>> 0;
    }
  }
  if (o) markOpaque(group.data, { left: o.left - group.x, top: o.top - group.y, right: o.right - group.x, bottom: o.bottom - group.y });
}

/**
 * Clipping-group units kept between requests (issue 25 §3). A text with interior effects
 * (overlays, satin, inner shadow, an inner bevel) is composited apart from transparency, its
 * effects drawn into its own unit, and only then blended onto the canvas: the unit reads nothing
 * of what lies below it. When a request changes what lies below (a never-seen picture under
 * psdtools-layer-effects-all's eleven texts redraws the whole canvas), it is the same pixels as the
 * last time this isolate drew it over the same target, and only its blend onto the new backdrop is
 * done again: the same bytes, as the blend reads the kept unit as it read the one just drawn.
 * Kept in backdropCache (what is kept to redraw a canvas quickly: content-addressed keys, its byte
 * budget, counted and made room in by makeRoom, emptied with the engine's caches), its pixels there
 * and the rest of the unit here by them.
 */
interface KeptUnit {
  /** The unit's composite (null: nothing on the target). */
  group: Surface | null;
  opacity: number;
  covered: Bounds | null | undefined;
}
const keptUnits = new WeakMap<Uint8ClampedArray, KeptUnit>();

/**
 * The largest unit kept: a quarter of backdropCache's budget (a few hundred KB for a text at
 * 800 px; a large template's full-width band under an overlay: large-poster's 'Band', 1,500 ×
 * 225 at its 6,000 px canvas's quarter scale, 1.35 MB, whose gradient overlay cost ~17 ms of a
 * never-seen picture's 20 ms render below it when it was not kept, issue 25 §3).
 */
const KEPT_UNIT_BYTES = backdropCache.budget / 4;

function keepUnit(key: string, unit: KeptUnit): void {
  const data = unit.group?.data ?? new Uint8ClampedArray(0);
  if (data.byteLength > KEPT_UNIT_BYTES) return;
  keptUnits.set(data, unit);
  // The group is read no more here: kept as it is (its blends only read it).
  backdropCache.set(`${key}`, data, Math.max(64, data.byteLength));
}

/**
 * The key a clipping-group unit is kept under between requests (KeptUnit), or null when it
 * is not kept: only a unit drawn from the template alone that reads nothing of the canvas before
 * its blend. A layer of its own (nothing clipped to it, not a group or adjustment), not overridden,
 * not clipped itself, with no knockout (which reads what lies below) and no effect drawn under it
 * (drawsBelow: glows, shadows, strokes, interior modes over a faded fill blend with the canvas),
 * drawn over the whole target of an ordinary render (not strips, whose rows each pass once, nor a
 * caller's own backdrop store). The target is in the key: the unit covers its frame within it.
 */
function keptUnitKey(ctx: RenderContext, base: LayerNode, clipped: LayerNode[], canvas: Surface, atop: boolean): string | null {
  if (!unitShortcuts || atop || clipped.length || ctx.buffers || ctx.backdrops) return null;
  if (base.type === 'Group' || base.adjustment || base.knockout || !hasEffects(base) || drawsBelow(base) || ctx.overrides.has(base.id)) return null;
  return keyOfUnit(ctx, base, canvas);
}

let unitShortcuts = true;
/** Bumped by every switch here that changes how a unit is drawn (tests): a unit drawn before is not kept for after. */
let drawing = 0;

/** How many units were blended again from a kept unit, drawn as a colour at their pixels' alpha (colourAtAlpha), and layers drawn again from their kept blends (the tests read it). */
export const unitShortcutDraws = { kept: 0, coloured: 0, blends: 0 };

/** Turns kept units and colourAtAlpha off (true: on): for tests that hold them to drawing each unit whole (none is kept meanwhile). */
export function useUnitShortcuts(on: boolean): void {
  unitShortcuts = on;
}

/**
 * Where a layer's unit (drawClipGroup's group) can hold anything on the target: its pixels there
 * and, with effects, the frame they paint within (effects.ts Shape.frame: the interior effects,
 * strokes and bevel drawn into the group never paint past it). A personalised preview's target is
 * the whole redrawn rectangle, which a unit above or beside the change often only touches
 * (psdtools-layer-effects-all: a neighbouring line's 28 rows of a 140-row rectangle, issue 25 §3):
 * the group, its blend onto the canvas and its allocation went over all of it. The same bytes: the
 * rest of the group stayed transparent, which blends to nothing. The whole target where something
 * else draws into the group (clipped layers, a pass-through or group base, a shape's stroke redrawn
 * from its path) or a knockout reads it.
 */
function unitArea(target: Bounds, base: LayerNode, clipped: LayerNode[], own: { content: Surface | null; shape: Shape | null } | null): Bounds {
  if (!own || clipped.length || base.knockout || base.vectorStroke) return target;
  const reach = own.shape ? intersectRect(target, own.shape.frame) : null;
  const pixels = own.content ? intersectRect(target, rectOf(own.content)) : null;
  const area = reach && pixels ? { left: Math.min(reach.left, pixels.left), top: Math.min(reach.top, pixels.top), right: Math.max(reach.right, pixels.right), bottom: Math.max(reach.bottom, pixels.bottom) } : (reach ?? pixels);
  return area ?? target;
}

/**
 * A pass-through group drawn as a clipping base by drawApart: without effects, artboard, mask,
 * knockout (its own or inside) and at Fill 100 % (otherwise drawn isolated, as before).
 */
const passThroughApart = (base: LayerNode) =>
  base.type === 'Group' &&
  base.blendMode === 'pass through' &&
  base.fillOpacity >= 1 &&
  !base.knockout &&
  !base.artboard &&
  !hasEffects(base) &&
  !(base.children ?? []).some(hasKnockout);

/** A layer's pixel alpha × its mask (one byte per content pixel), over `target`'s rectangle. */
function shapeOver(target: Surface, content: Surface, mask: Uint8ClampedArray | null): Uint8ClampedArray {
  const shape = new Uint8ClampedArray(target.w * target.h);
  const r = intersectRect(rectOf(target), rectOf(content));
  if (!r) return shape;
  for (let y = r.top; y < r.bottom; y++) {
    for (let x = r.left; x < r.right; x++) {
      const i = (y - content.y) * content.w + (x - content.x);
      const a = content.data[i * 4 + 3];
      shape[(y - target.y) * target.w + (x - target.x)] = mask ? (a * mask[i] + 127) / 255 : a;
    }
  }
  return shape;
}

/**
 * "Blend Clipped Layers as Group" off (the base's Blending Options). Adobe: the option "applies
 * the blending mode of the base layer to all layers in the clipping mask"; off, it "maintains the
 * original blending mode and appearance of each layer", the base's mode affecting "just the base".
 * So nothing is composited apart: the base is drawn onto the canvas as any layer (its mode,
 * opacity, fill, Blend If apply to it alone), then each clipped layer is drawn onto that canvas
 * with its own mode and opacity, and kept only inside the base's shape, its pixel alpha × masks
 * (not its opacity or fill, which shape nothing):
 *   canvas ← lerp(canvas, canvas with the clipped layer drawn, shape of the base).
 * Knockouts in the clipped layers reveal the canvas as the base left it (shallow).
 */
async function drawClippedApart(ctx: RenderContext, base: LayerNode, clipped: LayerNode[], canvas: Surface, atop: boolean) {
  await drawNode(ctx, base, canvas, atop);
  const content = await layerContent(ctx, base, rectOf(canvas));
  if (!content) return;
  const shape = shapeOver(canvas, content, await layerMask(ctx, base, rectOf(content)));
  const scope = clipped.some(hasKnockout) ? await inPlaceScope(ctx, canvas) : undefined;
  await inScope(ctx, scope, async () => {
    for (const node of clipped) await drawInside(ctx, node, canvas, shape, atop);
  });
  doneWith(ctx, content.data);
}

/** Draws `node` onto `target`, kept inside `shape` (one byte per pixel of `target`). */
async function drawInside(ctx: RenderContext, node: LayerNode, target: Surface, shape: Uint8ClampedArray, atop = false) {
  const after = cloneSurface(target);
  await drawNode(ctx, node, after, atop);
  fadeInto(target, after, shape, 1);
}

/**
 * blendSurface, with a text layer's gamma (options.textGamma) on its pixels' own coverage only: the
 * layer's opacity and Fill fade the gamma-blended pixels in linearly. The gamma is about the
 * glyphs' anti-aliased edges; through it a Fill of 98.8 % left 6 levels of a grey backdrop inside
 * a black glyph (1.5 linearly), and Photoshop's composite of psdtools-layer-effects-all.psd
 * ("Inner Glow", those glyphs under a screen glow) is 4 levels darker there than that: 48.93 →
 * 49.54 dB. A Fill that acts inside the blend (the special eight, FILL_INSIDE) stays there.
 */
function blendWithGamma(
  canvas: Surface,
  src: Surface,
  mask: Uint8ClampedArray | null,
  opacity: number,
  mode: string,
  options: BlendOptions,
  covered?: Bounds | null,
): void {
  const opaque = opaqueArea(src.data);
  if (opaque && isPlainNormal(mask, opacity, mode, options)) return blendOverOpaque(canvas, src, opaque);
  const fillInside = Object.hasOwn(FILL_INSIDE, mode);
  const fade = opacity * (fillInside ? 1 : (options.fill ?? 1));
  const r = (options.textGamma ?? 1) !== 1 && fade < 1 ? intersectRect(rectOf(canvas), rectOf(src)) : null;
  if (!r) {
    // Only over src's covered pixels (`covered`: its box of alpha not 0, where the effects found
    // it; a text's raster has empty margins, 308×64 of 402×163 on the poster's headline):
    // elsewhere its alpha is 0, which every blend passes over. The same bytes, fewer pixels
    // copied into the kernel and back.
    if (covered === null) return;
    return blendSurface(canvas, src, mask, opacity, mode, options, covered);
  }
  const before = cropSurface(canvas, r);
  const after = cloneSurface(before);
  blendSurface(after, src, mask, 1, mode, fillInside ? options : { ...options, fill: undefined });
  fadeInto(before, after, null, fade);
  pasteInto(canvas, before);
}

/**
 * Whether a blend is plain normal: opacity and Fill 100 %, no mask, Blend If, kept channels, text
 * gamma or clipping. An opaque source pixel then lands as it is (the kernel and the loop copy it).
 */
function isPlainNormal(mask: Uint8ClampedArray | null, opacity: number, mode: string, options: BlendOptions): boolean {
  return mode === 'normal' && opacity === 1 && !mask && (options.fill ?? 1) === 1 && (options.textGamma ?? 1) === 1 && !options.atop && !options.blendIf?.length && !options.excludedChannels?.length;
}

/**
 * A plain normal blend of `src`, whose pixels inside `opaque` (its own coordinates, markOpaque)
 * are all opaque: those are copied onto the canvas row by row, the rest (the rows above and below,
 * the columns beside) blended as before. The same bytes as blending it whole (exported for its test).
 */
export function blendOverOpaque(canvas: Surface, src: Surface, opaque: Bounds): void {
  const r = intersectRect(rectOf(canvas), rectOf(src));
  if (!r) return;
  // The opaque rectangle in canvas coordinates, within what is drawn.
  const o = intersectRect(r, { left: src.x + opaque.left, top: src.y + opaque.top, right: src.x + opaque.right, bottom: src.y + opaque.bottom });
  if (!o) return blendSurface(canvas, src, null, 1, 'normal');
  const rows = (top: number, bottom: number): Surface => ({ x: src.x, y: top, w: src.w, h: bottom - top, data: src.data.subarray((top - src.y) * src.w * 4, (bottom - src.y) * src.w * 4) });
  if (o.top > r.top) blendSurface(canvas, rows(r.top, o.top), null, 1, 'normal');
  if (o.bottom < r.bottom) blendSurface(canvas, rows(o.bottom, r.bottom), null, 1, 'normal');
  // The columns beside the opaque ones, over its rows: narrow copies of the source, blended.
  for (const [left, right] of [[r.left, o.left], [o.right, r.right]] as const) {
    if (right > left) blendSurface(canvas, cropSurface(src, { left, top: o.top, right, bottom: o.bottom }), null, 1, 'normal');
  }
  const bytes = (o.right - o.left) * 4;
  // Rows as wide as both the source and the canvas lie end to end in both: one copy (a picture
  // over the whole canvas, 800 calls of ~0.1 µs fewer).
  const whole = o.right - o.left === src.w && src.w === canvas.w ? o.bottom - o.top : 1;
  for (let y = o.top; y < o.bottom; y += whole) {
    const s = ((y - src.y) * src.w + (o.left - src.x)) * 4;
    canvas.data.set(src.data.subarray(s, s + bytes * whole), ((y - canvas.y) * canvas.w + (o.left - canvas.x)) * 4);
  }
}

/** Writes `part` (a surface within `s`) back into `s`: copyRect's way back. */
function pasteInto(s: Surface, part: Surface): void {
  const w = part.w * 4;
  for (let y = 0; y < part.h; y++) s.data.set(part.data.subarray(y * w, (y + 1) * w), ((part.y + y - s.y) * s.w + (part.x - s.x)) * 4);
}

/**
 * Photoshop's "Layer Mask Hides Effects" and "Vector Mask Hides Effects" (Blending Options): the
 * layer and its effects are drawn from the layer without that mask (so a stroke follows the
 * pixels' edge, not the mask's), then the mask hides the whole, effects included, as it would a
 * pass-through group: canvas ← lerp(canvas, canvas with the layer drawn, mask). Masks without the
 * setting still shape the effects as usual. Draws and answers true when the node uses either.
 * A shape layer's vector mask is its own path (baked into its pixels), so it is left alone here.
 */
async function hidingEffects(
  ctx: RenderContext,
  node: LayerNode,
  canvas: Surface,
  draw: (inner: LayerNode, target: Surface) => Promise<void>,
): Promise<boolean> {
  if (node.adjustment || !hasEffects(node)) return false;
  const pixel = !!node.mask && !node.mask.disabled && !!node.mask.hidesEffects;
  const vm = node.vectorMask;
  const vector = !!vm && !vm.disabled && !!vm.hidesEffects && !(node.type === 'Shape' && node.hasPixels && !fillFromPath(node));
  if (!pixel && !vector) return false;
  const inner: LayerNode = { ...node, mask: pixel ? undefined : node.mask, vectorMask: vector ? undefined : vm };
  const outer: LayerNode = { ...node, mask: pixel ? node.mask : undefined, vectorMask: vector ? vm : undefined };
  const after = cloneSurface(canvas);
  await draw(inner, after);
  fadeInto(canvas, after, await layerMask(ctx, outer, rectOf(canvas)), 1);
  return true;
}

async function drawNode(ctx: RenderContext, node: LayerNode, canvas: Surface, atop = false): Promise<void> {
  try {
    if (await hidingEffects(ctx, node, canvas, (inner, target) => drawNode(ctx, inner, target, atop))) return;
    if (node.type === 'Group') return await drawGroup(ctx, node, canvas, atop);
    if (node.adjustment) return await drawAdjustment(ctx, node, canvas);
    await drawLayer(ctx, node, canvas, atop);
  } catch (e) {
    throw LayerRenderError.wrap(e, node);
  }
}

async function drawLayer(ctx: RenderContext, node: LayerNode, canvas: Surface, atop: boolean): Promise<void> {
  // A layer with effects drawn from the template alone, drawn before over this target: its blends made again (LayerBlend).
  const keep = keptLayerKey(ctx, node, canvas, atop);
  const held = keep ? backdropCache.get(keep) : undefined;
  const blends = held && keptBlends.get(held);
  if (blends) {
    unitShortcutDraws.blends++;
    for (const b of blends) {
      if ('content' in b) blendWithGamma(canvas, b.content, b.mask, b.opacity, b.mode, b.options, b.covered);
      else blendAgain(canvas, b);
    }
    return;
  }
  const { content, mask, shape, sources } = await withEffects(ctx, node, rectOf(canvas));
  if (!content && !shape) {
    if (keep) keepBlends(keep, { blends: [], bytes: 0, readsTarget: false });
    return;
  }
  try {
    await drawLayerWith(ctx, node, canvas, atop, keep, content, mask, shape);
  } finally {
    // What withEffects made for this layer alone goes now, not when the collector next runs
    // (issue 25 §1: six size-250 shadows left 394 MB of such arrays in workerd's process).
    doneWith(ctx, content?.data, mask, ...sources.flatMap((s) => [s.content?.data, s.mask]));
  }
}

/**
 * A layer's arrays read no more once it is blended: what its draw made for itself is dropped
 * (dropOwn), and a strip's lent surfaces go back to its buffers (StripBuffers.giveBack) for the
 * strip's next layers, instead of each layer of a print strip taking its own until the strip ends.
 */
function doneWith(ctx: RenderContext, ...arrays: (ArrayBufferView | null | undefined)[]): void {
  dropOwn(...arrays);
  if (ctx.buffers) for (const array of arrays) ctx.buffers.giveBack(array);
}

/** drawLayer once the layer's content, mask and shape are loaded. */
async function drawLayerWith(ctx: RenderContext, node: LayerNode, canvas: Surface, atop: boolean, keep: string | null, content: Surface | null, mask: Uint8ClampedArray | null, shape: Shape | null): Promise<void> {
  const whole = node.transparencyShapes === false;
  // What it blends onto the canvas, recorded to be kept when each is made from the layer alone.
  const record: BlendRecord<LayerBlend> | null = keep ? { blends: [], bytes: 0, readsTarget: false } : null;
  const effects = (draw: () => void) => (record ? recordBlends(record, draw) : draw());
  if (shape) await loadEffectPatterns(ctx, node);
  if (shape) effects(() => drawEffectsBelow(ctx, node, canvas, shape, atop));
  const options = {
    atop,
    textGamma: textGammaOf(ctx.compiled.textGamma, node),
    blendIf: node.blendIf,
    excludedChannels: node.excludedChannels,
    fill: node.fillOpacity,
  };
  if (!content) {
    // Only the effects of pixels off the target (a far shadow's source) reach it.
  } else if (node.knockout) {
    const scope = ctx.knockout ?? (await rootKnockout(ctx));
    if (whole) {
      // The hole is the whole layer (× masks): the layer's pixels spread over the canvas.
      const area = createSurface(rectOf(canvas));
      blendSurface(area, content, null, 1, 'normal');
      const areaMask = await layerMask(ctx, node, rectOf(area));
      knockoutBlend(canvas, knockoutTarget(scope, node), area, areaMask, node.opacity, node.blendMode, options, true);
      drop(area.data);
    } else knockoutBlend(canvas, knockoutTarget(scope, node), content, mask, node.opacity, node.blendMode, options);
  } else {
    const covered = shape ? knownCoveredBox(shape, content) : undefined;
    blendWithGamma(canvas, content, mask, node.opacity, node.blendMode, options, covered);
    // Copies: the content and mask may be arrays a later render draws into.
    if (record) {
      record.blends.push({ content: { ...content, data: content.data.slice() }, mask: mask && mask.slice(), opacity: node.opacity, mode: node.blendMode, options, covered });
      record.bytes += content.data.byteLength + (mask?.byteLength ?? 0);
    }
  }
  // A shape's own stroke stays above its overlays: redrawn from its path over them.
  const stroke = content && node.vectorStroke ? () => drawShapeStroke(ctx, node, canvas, content, mask, atop) : undefined;
  if (shape) effects(() => drawEffectsAbove(ctx, node, canvas, shape, atop, stroke));
  if (!keep || !record || record.readsTarget || !keepBlends(keep, record)) dropRecord(record);
}

/** The copies a record made (effects.ts BlendRecord, content's below) when they are not kept. */
function dropRecord(record: BlendRecord<LayerBlend> | null): void {
  for (const b of record?.blends ?? []) {
    if ('pixels' in b) drop(b.pixels);
    else if ('surface' in b) drop(b.surface.data);
    else drop(b.content.data, b.mask);
  }
}

/**
 * A layer's blend onto the canvas, kept to be made again over another backdrop (keptLayerKey):
 * an effect's (effects.ts EffectBlend) or its content's (blendWithGamma's arguments).
 */
type LayerBlend = EffectBlend | { content: Surface; mask: Uint8ClampedArray | null; opacity: number; mode: string; options: BlendOptions; covered: Bounds | null | undefined };

/**
 * Layers drawn onto the canvas with effects (a drop shadow, an outer glow, strokes, an emboss),
 * kept between requests as the blends they made (issue 25 §3): each blend's pixels come from the
 * layer alone (its shadow's, glow's, stroke's, bevel's colours and coverage; its content), so
 * over a new backdrop (a never-seen picture under the texts) making them again, in order, over
 * the new canvas is the same bytes as drawing the layer, without its blurs, distances and maps.
 * Not kept when an effect read the canvas for more than its blend (effects.ts BlendRecord). In
 * backdropCache as kept units are (keepUnit), an empty array there standing for the list here.
 */
const keptBlends = new WeakMap<Uint8ClampedArray, Array<EffectBlend | LayerBlend>>();

/** Keeps the record's blends under `key`; whether it did. */
function keepBlends(key: string, record: BlendRecord<LayerBlend>): boolean {
  if (record.bytes > KEPT_UNIT_BYTES || !record.blends.every(madeAgainInKernels)) return false;
  const marker = new Uint8ClampedArray(0);
  keptBlends.set(marker, record.blends);
  backdropCache.set(key, marker, Math.max(64, record.bytes));
  return true;
}

/**
 * Whether blendAgain can make `b` again: a blend recorded from the kernels' memory is made again
 * there, its pixels and the canvas under them side by side, which effectKernels refuses above
 * its size (agpsd-effects' 'drop shadow': a 664 × 300 blend, 797 KB, with its content's over
 * 1 MB, kept once KEPT_UNIT_BYTES was raised, then not made again). Not kept, such a layer is
 * drawn whole: the same bytes.
 */
const madeAgainInKernels = (b: EffectBlend | LayerBlend): boolean => !('rect' in b) || !!effectKernels(2 * (b.rect.right - b.rect.left) * (b.rect.bottom - b.rect.top));

/**
 * The key a layer's blends are kept under (LayerBlend), or null when they are not: a layer with
 * effects drawn from the template alone (not overridden), not clipped, with no knockout (which
 * reads what lies below) and no shape stroke (redrawn within the layer), in an ordinary render
 * (as keptUnitKey).
 */
function keptLayerKey(ctx: RenderContext, node: LayerNode, canvas: Surface, atop: boolean): string | null {
  if (!unitShortcuts || atop || ctx.buffers || ctx.backdrops) return null;
  if (node.knockout || node.vectorStroke || node.transparencyShapes === false || !hasEffects(node) || ctx.overrides.has(node.id)) return null;
  return `${keyOfUnit(ctx, node, canvas)}/blends`;
}

/** What a unit's keys say: the template, render version, how effects are drawn, scale, the layer (and what its callers may vary of it) and the target. */
const keyOfUnit = (ctx: RenderContext, node: LayerNode, canvas: Surface) =>
  `${prefix(ctx.compiled.hash)}unit/r${RENDER_VERSION}/${drawing}.${effectDrawing()}/${ctx.scale}/${node.id}/${node.opacity},${node.fillOpacity},${node.blendMode},${node.mask ? 1 : 0}${node.vectorMask ? 1 : 0}/${canvas.x},${canvas.y},${canvas.w}x${canvas.h}`;

/**
 * A layer's pixels over the target (null: none there) with its mask, and, when it has effects,
 * the shape they are drawn from: its pixels over the target and wherever else its effects read
 * (effects.ts effectSources: a far shadow's source), each loaded over its own rectangle.
 */
async function withEffects(ctx: RenderContext, node: LayerNode, target: Bounds) {
  const effects = hasEffects(node);
  const [main, ...far] = effects ? effectSources(ctx, node, target, EVERYWHERE, [target]) : [target];
  let content = await layerContent(ctx, node, main);
  if (!effects) return { content, mask: content ? await layerMask(ctx, node, rectOf(content)) : null, shape: null, sources: [] as ShapeSource[] };
  // A masked layer's shape reads only its pixels' alpha (× the mask) around the target, and its
  // own blend only the target (issue 25 §1: a print strip's rows grown by a 250 px effect's reach,
  // and a far shadow's or satin's sources, were held as RGBA while the effects drew): the alpha
  // alone (one byte a pixel, the same values shapeFrom reads) for the shape, and the RGBA cut to
  // the target for the blend, with the mask made over the whole rectangle and cut the same way.
  // Not for a layer without a mask (its shape's sources go to the kernels as RGBA: pixelSources),
  // nor with a shape stroke (drawShapeStroke measures its band over the content's rectangle).
  const shapeOnly = alphaApart && masked(node);
  const sources: ShapeSource[] = [];
  let mask: Uint8ClampedArray | null = null;
  if (content) {
    const rect = rectOf(content);
    const kept = intersectRect(rect, target) ?? { left: target.left, top: target.top, right: target.left, bottom: target.top };
    if (shapeOnly && !node.vectorStroke && areaOf(rect) >= 2 * areaOf(kept)) {
      // Split before the mask is made: the whole RGBA is not held beside the mask's arrays. An
      // opaque colour fill's alpha is 255 throughout: no pixels at all, as shapeContent gives a far
      // source (a source without content reads alpha 1; issue 25 §1: fx-heavy's shapes held 3.2 MB
      // of 255s each beside their masks).
      const alpha = opaqueColourFill(ctx, node) ? null : alphaChannel(content);
      const whole = content;
      content = cropSurface(content, kept);
      ownHere(content.data);
      doneWith(ctx, whole.data); // split into the two above
      const wholeMask = await layerMask(ctx, node, rect);
      sources.push({ rect, content: alpha, mask: wholeMask });
      mask = wholeMask && cropMask(wholeMask, rect, kept);
    } else {
      mask = await layerMask(ctx, node, rect);
      sources.push({ rect, content, mask });
    }
  }
  for (const r of far) {
    const more = await shapeContent(ctx, node, r, shapeOnly);
    if (more) sources.push({ rect: more.rect, content: more.content, mask: await layerMask(ctx, node, more.rect) });
  }
  if (!sources.length) return { content, mask, shape: null, sources };
  const shape = node.transparencyShapes === false ? await wholeLayerShape(ctx, node, target) : shapeFrom(node, ctx, sources);
  return { content, mask, shape, sources };
}

const areaOf = (r: Bounds) => (r.right - r.left) * (r.bottom - r.top);

let alphaApart = true;

/** Turns withEffects' alpha-only shape sources and cut content off (true: on): for tests that hold them to the RGBA they replace. */
export function useShapeAlphaApart(on: boolean): void {
  alphaApart = on;
  drawing++;
}

/**
 * The layer's pixels over `clip` for its shape alone: when `alphaOnly`, their alpha alone (the
 * bytes layerContent's would hold), made without the RGBA where that is known (a colour fill, the
 * stored rows at the output's grid), else taken from it and the RGBA dropped here, before its
 * mask is made.
 */
async function shapeContent(ctx: RenderContext, node: LayerNode, clip: Bounds, alphaOnly: boolean): Promise<{ rect: Bounds; content: Surface | null } | null> {
  const loaded = (content: Surface | null) => content && { rect: rectOf(content), content };
  if (!alphaOnly) return loaded(await layerContent(ctx, node, clip));
  const override = ctx.overrides.get(node.id);
  const fill = colourFillAlpha(ctx, node);
  if (fill !== null) {
    // Opaque: no pixels at all (a source without content reads alpha 1, as 255 ÷ 255 is), unless
    // the shape's effects trace its path only where its pixels were loaded (effects.ts tracedPath).
    if (opaqueColourFill(ctx, node, fill)) {
      return { rect: { left: clip.left, top: clip.top, right: Math.max(clip.left, clip.right), bottom: Math.max(clip.top, clip.bottom) }, content: null };
    }
    const surface = createSurface(clip, 1);
    surface.data.fill(fill);
    return loaded({ ...surface, data: ownHere(surface.data) });
  }
  if (!override?.pixels && !fillFromPath(node) && atLevelGrid(ctx)) {
    if (!node.hasPixels || !node.pixelBounds) return null;
    const surface = await storedRowsByBand(levelBounds(node.pixelBounds, ctx.level), clip, 4, (rows) => loadLayerPixels(ctx.bucket, ctx.compiled, node, ctx.level, rows, ctx.buffers), undefined, true);
    if (surface && override?.color) for (let i = 0; i < surface.data.length; i++) surface.data[i] = surface.data[i]! * override.color.a;
    return loaded(surface);
  }
  const content = await layerContent(ctx, node, clip);
  const alpha = content && alphaChannel(content);
  doneWith(ctx, content?.data); // its alpha taken
  return loaded(alpha);
}

/** layerContent's colour fill's alpha byte: 255 everywhere, times a recolour's alpha (clamped as there); null when the layer is no colour fill. */
function colourFillAlpha(ctx: RenderContext, node: LayerNode): number | null {
  const override = ctx.overrides.get(node.id);
  if (override?.pixels || !fillFromPath(node) || (node.fillGradient && !node.fillColor)) return null;
  const a = new Uint8ClampedArray([255]);
  if (override?.color) a[0] = a[0]! * override.color.a;
  return a[0]!;
}

/**
 * A colour fill of alpha 255 whose shape reads no pixels of it (not a soft-filled shape, whose
 * effects trace its path where its pixels were loaded). `fill`: colourFillAlpha's answer, when the
 * caller has it already.
 */
function opaqueColourFill(ctx: RenderContext, node: LayerNode, fill = colourFillAlpha(ctx, node)): boolean {
  return fill === 255 && !(node.type === 'Shape' && node.softFill);
}

/** The alpha bytes of an RGBA surface, one a pixel (effects.ts alphaOnly: what a shape reads of it). */
function alphaChannel(s: Surface): Surface {
  const data = ownHere(new Uint8ClampedArray(s.w * s.h));
  const d = s.data;
  for (let i = 0; i < data.length; i++) data[i] = d[i * 4 + 3]!;
  return { x: s.x, y: s.y, w: s.w, h: s.h, data };
}

/** A mask over `from` (one byte a pixel) cut to `to`, within it. */
function cropMask(mask: Uint8ClampedArray, from: Bounds, to: Bounds): Uint8ClampedArray {
  const w = to.right - to.left;
  const fw = from.right - from.left;
  const out = ownHere(new Uint8ClampedArray(w * (to.bottom - to.top)));
  for (let y = to.top; y < to.bottom; y++) {
    const s = (y - from.top) * fw + (to.left - from.left);
    out.set(mask.subarray(s, s + w), (y - to.top) * w);
  }
  return out;
}

/**
 * "Transparency Shapes Layer" off. Adobe: on (the default) it restricts "layer effects and
 * knockouts to opaque areas of the layer"; off, it "applies these effects throughout the layer".
 * A Photoshop layer has no edge of its own (an unbounded plane, transparent where unpainted), so
 * the effects' shape is that whole plane × the layer's masks, which still shape it: opaque
 * wherever the effects read (effects.ts effectSources), an unbounded extent.
 * An overlay then covers the whole canvas, a drop shadow lies everywhere under the layer, and
 * strokes and inner effects follow only the masks' edges.
 */
async function wholeLayerShape(ctx: RenderContext, node: LayerNode, target: Bounds): Promise<Shape> {
  const sources: ShapeSource[] = [];
  for (const rect of effectSources(ctx, node, target)) sources.push({ rect, content: null, mask: await layerMask(ctx, node, rect) });
  // Its frame (Shape.frame) as when the plane was an array: the target grown by three margins.
  return { ...shapeFrom(node, ctx, sources, grow(target, 3 * effectMargin(node, ctx.scale)))!, extent: EVERYWHERE };
}

async function drawGroup(ctx: RenderContext, node: LayerNode, canvas: Surface, atop: boolean): Promise<void> {
  const children = node.children ?? [];
  const effects = hasEffects(node);
  const knocks = children.some(hasKnockout);
  // A pass-through group's Fill fades what its children draw as its opacity does: Photoshop
  // renders psd-tools' knockout-none-passthrough.psd (blue in a pass-through group at Fill 50 %
  // over red) as (127, 0, 128), the blue at half. A knockout on it isolates it: "when knockout is
  // set, the pass-through blend mode stops mattering" (knockout-deep-passthrough.psd renders as
  // knockout-deep-normal.psd), so it takes the isolated path below, as Normal.
  const fade = node.opacity * node.fillOpacity;
  // Blend If or channel restrictions weigh the group's own composite against what is below it,
  // so they isolate it, as Normal: for children all Normal (no adjustment) that is the same
  // drawing as in place (compiled/unsupported.ts refuses the others).
  const weighs = !!node.blendIf || !!node.excludedChannels?.length;
  if (node.blendMode === 'pass through' && atop && !effects && !node.artboard && !knocks && !node.knockout && !weighs) {
    // Clipped, a pass-through group is still not isolated: its children blend onto the clipping
    // stack (the base and the layers clipped below), each inside the base's shape, so a multiply
    // or an adjustment in it reaches the base; opacity, Fill and mask fade the result in.
    const after = cloneSurface(canvas);
    await drawStack(ctx, children, after, true);
    fadeInto(canvas, after, await layerMask(ctx, node, rectOf(canvas)), fade);
    drop(after.data); // read no more (see the isolated path's drop below)
    return;
  }
  if (node.blendMode === 'pass through' && !atop && !effects && !node.artboard && !node.knockout && !weighs) {
    const mask = await layerMask(ctx, node, rectOf(canvas));
    if ((node.fillOpacity < 1 || ctx.adjustmentsApart) && !knocks && children.some(holdsAdjustment)) {
      const apart = await drawApart(ctx, node, canvas);
      fadeInto(canvas, apart.after, mask, fade);
      drop(apart.after.data, apart.own.data);
      return;
    }
    // Shallow knockouts inside reveal the canvas as the group found it; deep ones go on down.
    const scope = knocks ? await inPlaceScope(ctx, canvas) : undefined;
    if (fade >= 1 && !mask) return inScope(ctx, scope, () => drawStack(ctx, children, canvas));
    const after = cloneSurface(canvas);
    await inScope(ctx, scope, () => drawStack(ctx, children, after));
    fadeInto(canvas, after, mask, fade);
    drop(after.data);
    return;
  }
  // Isolated: the children composited apart (with room for the group's effects), then blended.
  // They start from transparency, which is as deep as a knockout inside can reach.
  // Drawn over the canvas and wherever the group's effects read (a far shadow's source apart).
  const [main, ...far] = effects ? effectSources(ctx, node, rectOf(canvas), EVERYWHERE, [rectOf(canvas)]) : [rectOf(canvas)];
  const made: Surface[] = [];
  const composite = async (r: Bounds) => {
    const layer = createSurface(r);
    made.push(layer);
    await inScope(ctx, knocks ? { shallow: null, deep: null } : undefined, async () => {
      if (node.artboard) await drawArtboard(ctx, node.artboard, children, layer);
      else await drawStackOnClear(ctx, children, layer);
    });
    return layer;
  };
  const layer = await composite(main);
  const mask = await layerMask(ctx, node, rectOf(layer));
  const mode = node.blendMode === 'pass through' ? 'normal' : node.blendMode;
  let shape: Shape | null = null;
  if (effects) {
    const sources: ShapeSource[] = [{ rect: main, content: layer, mask }];
    for (const r of far) {
      const more = await composite(r);
      sources.push({ rect: r, content: more, mask: await layerMask(ctx, node, r) });
    }
    // Its frame (Shape.frame) as when the group was drawn on the canvas grown by the margin.
    shape = shapeFrom(node, ctx, sources, grow(rectOf(canvas), 2 * effectMargin(node, ctx.scale)));
  }
  if (shape) {
    await loadEffectPatterns(ctx, node);
    drawEffectsBelow(ctx, node, canvas, shape, atop);
  }
  // A group's Fill fades its composite as a layer's fades its pixels (not its effects), in the
  // special eight modes inside the blend; a knocking-out group takes its composite through.
  const options = { atop, blendIf: node.blendIf, excludedChannels: node.excludedChannels, fill: node.fillOpacity };
  if (node.knockout) {
    const scope = ctx.knockout ?? (await rootKnockout(ctx));
    knockoutBlend(canvas, knockoutTarget(scope, node), layer, mask, node.opacity, mode, options);
  } else blendSurface(canvas, layer, mask, node.opacity, mode, options);
  if (shape) drawEffectsAbove(ctx, node, canvas, shape, atop);
  // The group's composites (made here, read by nobody after its blend and effects) go now, not at
  // V8's next collection: each open level of nested groups made one the size of the strip, per
  // strip. Ten levels (Photoshop's most) with a clipped layer on each made 613 MB of them for a
  // 4,000² print PDF, and workerd was killed under 128 MB (probe27, issue 25 §1).
  drop(...made.map((m) => m.data));
}

/**
 * drawStack onto `layer`, a surface nothing is drawn on yet (an isolated group's composite). A
 * bottom unit that is itself a plain isolated group (fadesOntoClear) draws its children straight
 * onto `layer` and is faded there, instead of onto a surface of its own blended on afterwards:
 * that surface would start as transparent as `layer` is, over the same rectangle, and a Normal
 * blend onto transparency keeps each pixel's colour and takes its alpha × opacity (blend.ts
 * fadeOntoClear), the same bytes. Nested groups each held a surface of the whole strip while their
 * children drew: ten levels (Photoshop's most) with a clipped layer on each held ten 4 MB surfaces
 * of a 4,000 px print strip at once, and its print PDF passed the 96 MB budget in workerd (probe
 * nest-10, issue 25 §1). Now the nest's bottom groups share the one surface.
 */
async function drawStackOnClear(ctx: RenderContext, nodes: LayerNode[], layer: Surface): Promise<void> {
  const units = unitsOf(nodes);
  const bottom = units[0];
  if (!bottom || !groupsOnClear || !fadesOntoClear(ctx, bottom)) return drawUnits(ctx, units, layer);
  const group = bottom.base;
  try {
    await drawStackOnClear(ctx, group.children ?? [], layer);
    fadeOntoClear(layer.data, group.opacity * group.fillOpacity);
  } catch (e) {
    throw LayerRenderError.wrap(e, group);
  }
  await drawUnits(ctx, units.slice(1), layer);
}

let groupsOnClear = true;
/** Turns drawStackOnClear's shared surface off (true: on): for tests that hold it to a surface a group. */
export function useGroupsOnClear(on: boolean): void {
  groupsOnClear = on;
}

/**
 * A unit drawGroup would composite as an isolated Normal group and blend with nothing but its
 * opacity and Fill: visible, nothing shown clipped to it, no effects, mask, knockout (its own or
 * its children's, which would change what they reveal), Blend If, channel restriction or artboard.
 */
const fadesOntoClear = (ctx: RenderContext, { base, clipped }: Unit): boolean =>
  base.type === 'Group' &&
  base.blendMode === 'normal' &&
  isVisible(ctx, base) &&
  !clipped.some((n) => isVisible(ctx, n)) &&
  !hasEffects(base) &&
  !masked(base) &&
  !base.knockout &&
  !base.blendIf &&
  !base.excludedChannels?.length &&
  !base.artboard &&
  !(base.children ?? []).some(hasKnockout);

/** Whether a node is, or holds, an adjustment layer. */
const holdsAdjustment = (node: LayerNode): boolean => !!node.adjustment || (node.children?.some(holdsAdjustment) ?? false);

/**
 * A pass-through group that Photoshop composites apart though over its backdrop: at Fill below
 * 100 %, or with layers clipped to it. psd-tools (composite.py `_get_group`: "adjustments don't
 * pass-through layers if the group layer has clip layers or its fill attribute is not 100")
 * holds this to Photoshop's composites of its passthrough_fill_adjustment, _fill_blendmode,
 * _clipping_mask_adjustment and _clipping_mask_blendmode documents. Its layers blend onto the
 * backdrop as in any pass-through group (`after`: a multiply inside multiplies what is below the
 * group), but an adjustment inside changes only what the group's own layers cover so far (`own`:
 * the layers composited from transparency, whose alpha is that coverage).
 */
async function drawApart(ctx: RenderContext, node: LayerNode, canvas: Surface): Promise<{ after: Surface; own: Surface }> {
  const after = cloneSurface(canvas);
  const own = createSurface(rectOf(canvas));
  const saved = ctx.adjustmentsApart;
  ctx.adjustmentsApart = true;
  try {
    for (const unit of unitsOf(node.children ?? [])) {
      if (!isVisible(ctx, unit.base)) continue;
      if (unit.base.adjustment) {
        const before = cloneSurface(after);
        await drawUnit(ctx, unit, after);
        const covered = new Uint8ClampedArray(own.w * own.h);
        for (let p = 0; p < covered.length; p++) covered[p] = own.data[p * 4 + 3];
        fadeInto(before, after, covered, 1);
        after.data.set(before.data);
        continue;
      }
      await drawUnit(ctx, unit, after);
      await drawUnit(ctx, unit, own);
    }
  } finally {
    ctx.adjustmentsApart = saved;
  }
  return { after, own };
}

/**
 * The group's own composite from drawApart: where its layers cover (alpha ag, `own`), the colour
 * that composited over the backdrop gives `after`, the backdrop taken back out:
 * C = (after·a_after − backdrop·a_b·(1 − ag)) / ag, premultiplied.
 */
function takeBackdropOut(group: Surface, after: Surface, backdrop: Surface, own: Surface): void {
  const g = group.data;
  const a = after.data;
  const b = backdrop.data;
  const o = own.data;
  for (let i = 0; i < g.length; i += 4) {
    const ag = o[i + 3] / 255;
    if (ag <= 0) {
      g[i] = g[i + 1] = g[i + 2] = g[i + 3] = 0;
      continue;
    }
    const aa = a[i + 3] / 255;
    const ab = (b[i + 3] / 255) * (1 - ag);
    for (let c = 0; c < 3; c++) g[i + c] = (a[i + c] * aa - b[i + c] * ab) / ag;
    g[i + 3] = o[i + 3];
  }
}

/** Draws with `scope` as what knockouts reveal (unchanged when undefined). */
async function inScope<T>(ctx: RenderContext, scope: KnockoutScope | undefined, draw: () => Promise<T>): Promise<T> {
  const saved = ctx.knockout;
  if (scope) ctx.knockout = scope;
  try {
    return await draw();
  } finally {
    ctx.knockout = saved;
  }
}

/**
 * The document's Background layer alone (null when the document has none, or it is hidden):
 * what a deep knockout reveals, and any knockout outside groups. Drawn once per render.
 */
async function documentBackground(ctx: RenderContext): Promise<Surface | null> {
  if (ctx.background === undefined) {
    const bottom = ctx.compiled.layers[ctx.compiled.layers.length - 1];
    ctx.background = null;
    if (bottom?.background && isVisible(ctx, bottom)) {
      const surface = createSurface(ctx.clip);
      // Photoshop's Background takes no blending options; a file that gives it a knockout
      // anyway must not have it knock out to itself.
      await drawNode(ctx, { ...bottom, knockout: undefined }, surface);
      ctx.background = surface;
    }
  }
  return ctx.background;
}

/**
 * What knockouts reveal inside layers drawn in place onto `canvas` (a pass-through group, layers
 * clipped apart): shallow ones the canvas as it is now, deep ones what they reveal outside.
 */
async function inPlaceScope(ctx: RenderContext, canvas: Surface): Promise<KnockoutScope> {
  return { shallow: cloneSurface(canvas), deep: ctx.knockout ? ctx.knockout.deep : await documentBackground(ctx) };
}

async function rootKnockout(ctx: RenderContext): Promise<KnockoutScope> {
  const background = await documentBackground(ctx);
  return { shallow: background, deep: background };
}

/** An artboard: its background, its layers over it, nothing outside its rectangle. */
async function drawArtboard(ctx: RenderContext, artboard: NonNullable<LayerNode['artboard']>, children: LayerNode[], layer: Surface) {
  const s = ctx.scale;
  const r = {
    left: Math.round(artboard.bounds.left * s),
    top: Math.round(artboard.bounds.top * s),
    right: Math.round(artboard.bounds.right * s),
    bottom: Math.round(artboard.bounds.bottom * s),
  };
  const inside = intersectRect(r, rectOf(layer));
  if (!inside) return;
  const d = layer.data;
  if (artboard.background) {
    const c = [1, 3, 5].map((i) => parseInt(artboard.background!.slice(i, i + 2), 16));
    for (let y = inside.top; y < inside.bottom; y++) {
      for (let x = inside.left, o = ((y - layer.y) * layer.w + (x - layer.x)) * 4; x < inside.right; x++, o += 4) {
        d[o] = c[0];
        d[o + 1] = c[1];
        d[o + 2] = c[2];
        d[o + 3] = 255;
      }
    }
  }
  await drawStack(ctx, children, layer);
  for (let y = layer.y; y < layer.y + layer.h; y++) {
    for (let x = layer.x, o = (y - layer.y) * layer.w * 4; x < layer.x + layer.w; x++, o += 4) {
      if (y < inside.top || y >= inside.bottom || x < inside.left || x >= inside.right) d[o + 3] = 0;
    }
  }
}

let boxedAdjustments = true;

/** Turns drawBoxedAdjustment off (true: on): every adjustment then clones the canvas and blends it whole through its mask, for tests that hold the box to that. */
export function useBoxedAdjustments(on: boolean): void {
  boxedAdjustments = on;
  drawing++;
}

/** Adjustment layers change what is beneath them; mask, opacity and mode fade the change in. */
async function drawAdjustment(ctx: RenderContext, node: LayerNode, canvas: Surface): Promise<void> {
  if (adjustsInPlace(node, canvas)) {
    applyAdjustment(node.adjustment!, canvas.data);
    inPlaceOnto = canvas.data;
    return;
  }
  const adj = node.adjustment!;
  // null: not asked; undefined: nothing masks it here.
  const boxed = boxedAdjustments && perPixelAdjustment(adj) && masked(node) ? await adjustmentMask(ctx, node, rectOf(canvas)) : null;
  if (boxed) return drawBoxedAdjustment(node, canvas, boxed);
  const mask = boxed === undefined ? null : await layerMask(ctx, node, rectOf(canvas));
  const after = cloneSurface(canvas);
  if (!applyAdjustment(adj, after.data)) return;
  const d = after.data;
  for (let i = 3; i < d.length; i += 4) d[i] = 255;
  // Blend If weighs the adjusted pixels (this layer) against the unadjusted (underlying) ones.
  blendSurface(canvas, after, mask, node.opacity * node.fillOpacity, node.blendMode, {
    atop: true,
    blendIf: node.blendIf,
    excludedChannels: node.excludedChannels,
  });
}

/**
 * A per-pixel adjustment under a mask, worked out only within the box where the mask is not 0
 * and blended there: where the mask hides it, the adjusted colour is blended in with no weight,
 * as a transparent src would be (a Hue/Saturation masked to a strip of a full-canvas picture;
 * issue 25 §3). The adjusted copy is the box's pixels alone, not a clone of the canvas. Where
 * the mask is 255 over canvas pixels that are all opaque, a plain adjustment (normal, 100 %, no
 * Blend If or channel restriction) blends as a copy: source-atop at weight 1 puts the adjusted
 * colour ((c/255)·255 rounds back to c) and keeps the alpha, 255; those rows are copied and the
 * rest of the box blended. Same bytes.
 */
function drawBoxedAdjustment(node: LayerNode, canvas: Surface, { data: mask, box, full }: AdjustmentMask): void {
  const w = box.right - box.left, h = box.bottom - box.top, rowBytes = w * 4;
  if (w <= 0 || h <= 0) return;
  const opacity = node.opacity * node.fillOpacity;
  const plain = full && node.blendMode === 'normal' && opacity === 1 && !node.blendIf?.length && !node.excludedChannels?.length;
  const part = boxScratch(rowBytes * h);
  const at = (y: number) => (y * canvas.w + box.left) * 4;
  // A box as wide as the canvas is one run of its rows.
  if (w === canvas.w) part.set(canvas.data.subarray(at(box.top), at(box.bottom)));
  else for (let y = box.top; y < box.bottom; y++) part.set(canvas.data.subarray(at(y), at(y) + rowBytes), (y - box.top) * rowBytes);
  const seen = plain ? startInputAnd() : undefined;
  if (!applyAdjustment(node.adjustment!, part)) return;
  // An adjustment keeps alpha: the copy's is the canvas's.
  const copies = plain && (opaqueInput(seen, w * h) || opaqueWithin(part, w, full));
  const src: Surface = { x: canvas.x + box.left, y: canvas.y + box.top, w, h, data: part };
  const options = { atop: true, blendIf: node.blendIf, excludedChannels: node.excludedChannels };
  if (!copies) {
    for (let i = 3; i < part.length; i += 4) part[i] = 255;
    // Blend If weighs the adjusted pixels (this layer) against the unadjusted (underlying) ones.
    blendSurface(canvas, src, mask, opacity, node.blendMode, options);
    return;
  }
  // Copied: the canvas is opaque there, and so is the adjusted copy (an adjustment keeps alpha).
  const fw = (full.right - full.left) * 4;
  if (fw === canvas.w * 4) canvas.data.set(part.subarray(full.top * w * 4, full.bottom * w * 4), at(box.top + full.top));
  else {
    for (let y = full.top; y < full.bottom; y++) {
      const from = (y * w + full.left) * 4;
      canvas.data.set(part.subarray(from, from + fw), at(box.top + y) + full.left * 4);
    }
  }
  // The rest of the box, blended with the adjusted copy's alpha 255: above and below the copied
  // rows, and beside them.
  for (const r of [
    { left: 0, top: 0, right: w, bottom: full.top },
    { left: 0, top: full.bottom, right: w, bottom: h },
    { left: 0, top: full.top, right: full.left, bottom: full.bottom },
    { left: full.right, top: full.top, right: w, bottom: full.bottom },
  ]) {
    if (r.right <= r.left || r.bottom <= r.top) continue;
    for (let y = r.top; y < r.bottom; y++) for (let i = (y * w + r.left) * 4 + 3; i < (y * w + r.right) * 4; i += 4) part[i] = 255;
    const within = { left: src.x + r.left, top: src.y + r.top, right: src.x + r.right, bottom: src.y + r.bottom };
    blendSurface(canvas, src, mask, opacity, node.blendMode, options, within);
  }
}

/**
 * The adjusted copy of a masked adjustment's box, in one array kept per isolate (every byte of it
 * is written from the canvas before it is read, and drawBoxedAdjustment is synchronous, so no two
 * renders share it at once): a new array per masked adjustment was ~2.7 MB of garbage a request
 * on psdtools-adjust-hue-saturation's full-canvas redraw (four masked adjustments at 800×800),
 * which workerd pays for in allocation and collections. Kept up to KEPT_BOX_BYTES (a larger box
 * gets a new array, as before).
 */
const KEPT_BOX_BYTES = 4 * 1024 * 1024;
let keptBox: Uint8ClampedArray | undefined;
/** Lets the collector have the kept box array (a large request plans its memory: frame.ts makeRoomForFrame). */
export function releaseBoxScratch(): void {
  keptBox = undefined;
}

/** Bytes of the kept box array (frame.ts makeRoomForFrame counts it). */
export const keptBoxBytes = () => keptBox?.byteLength ?? 0;

function boxScratch(bytes: number): Uint8ClampedArray {
  if (bytes > KEPT_BOX_BYTES) return new Uint8ClampedArray(bytes);
  if (!keptBox || keptBox.length < bytes) keptBox = new Uint8ClampedArray(Math.min(KEPT_BOX_BYTES, Math.ceil(bytes / 65536) * 65536));
  return keptBox.subarray(0, bytes);
}

/** The adjustment kernels' running AND of their input words and its count (KernelExports inputAnd, inputPixels). */
type InputAnd = Pick<KernelExports, 'inputAnd' | 'inputPixels'>;

/** Resets the adjustment kernels' AND of their input words; undefined when the kernels are not ready. */
function startInputAnd(): InputAnd | undefined {
  const k = kernelsNow();
  if (!k) return undefined;
  k.inputAnd.value = -1;
  k.inputPixels.value = 0;
  return k;
}

/**
 * Whether the adjustment kernels have been given exactly `pixels` pixels since startInputAnd
 * (the box: applyAdjustment ran one that ANDs them, not the TypeScript) and all were opaque: then so is any part
 * of the box, without looking at its pixels again (opaqueWithin, ~1 ms a request on
 * psdtools-adjust-hue-saturation's four boxes in Node, the kernel's AND ~0.02 ms).
 */
function opaqueInput(seen: InputAnd | undefined, pixels: number): boolean {
  return !!seen && seen.inputPixels.value === pixels && seen.inputAnd.value >>> 24 === 255;
}

/**
 * Whether every pixel of `full` (pixels of the box from 0) is opaque in `part`, the box's copy
 * (`w` pixels a row). A row's words are ANDed and its alpha looked at once: no branch a pixel, and
 * `full`'s ends in locals, not read from the object on each pixel.
 */
function opaqueWithin(part: Uint8ClampedArray, w: number, full: Bounds): boolean {
  if (part.byteOffset % 4 !== 0) return false;
  const words = new Int32Array(part.buffer, part.byteOffset, part.length >> 2);
  const left = full.left, right = full.right, bottom = full.bottom;
  for (let y = full.top; y < bottom; y++) {
    let all = -1;
    for (let i = y * w + left, end = y * w + right; i < end; i++) all &= words[i]!;
    if (all >>> 24 !== 255) return false;
  }
  return true;
}

/**
 * Whether a render keeps what it draws from the template alone per isolate (adjustment masks,
 * resampled layers): a preview (frame.ts), not a print page drawn in strips (StripBuffers) or with
 * a backdrop store (pdf/prepare.ts, the compile's trial renders), whose rectangles come once.
 */
const keepsDrawn = (ctx: RenderContext) => !ctx.buffers && !ctx.backdrops;

/**
 * An adjustment layer's mask (layerMask) over `r`, cut to the box (surface coordinates from 0)
 * where it is not 0, with a rectangle where it is 255, kept per isolate (adjustmentMaskCache): it
 * follows from the template, the render scale and `r` alone, so a personalised preview that
 * redraws the frame under masked adjustments resamples each mask once, not per request.
 * Undefined when nothing masks (layerMask gives null); the box is empty when the mask is 0
 * everywhere over `r`.
 */
async function adjustmentMask(ctx: RenderContext, node: LayerNode, r: Bounds): Promise<AdjustmentMask | undefined> {
  const which = `${node.mask && !node.mask.disabled ? 'p' : ''}${node.vectorMask && !node.vectorMask.disabled ? 'v' : ''}`;
  const key = `${prefix(ctx.compiled.hash)}adjustment-mask/${ctx.scale}/${ctx.level}/${node.id}${which}/${r.left},${r.top},${r.right},${r.bottom}`;
  // Previews only: a print page's strips (and the compile's trial renders) ask each rectangle once.
  const keep = keepsDrawn(ctx);
  const held = keep ? adjustmentMaskCache.get(key) : undefined;
  if (held) return held;
  const mask = await layerMask(ctx, node, r);
  if (!mask) return undefined;
  const w = r.right - r.left;
  const box = nonZeroBox(mask, w, r.bottom - r.top);
  const bw = box.right - box.left;
  const data = new Uint8ClampedArray(bw * (box.bottom - box.top));
  for (let y = box.top; y < box.bottom; y++) data.set(mask.subarray(y * w + box.left, y * w + box.right), (y - box.top) * bw);
  const value = { data, box, full: fullRect(data, bw, box.bottom - box.top) };
  if (keep) adjustmentMaskCache.set(key, value, data.byteLength + 64);
  return value;
}

/**
 * A rectangle of a w × h mask where it is 255 everywhere, or null: the longest run of 255 in any
 * row, grown up and down over the rows that are 255 all along it. Not the largest such rectangle
 * in general, but the whole of a rectangular mask's inside.
 */
function fullRect(mask: Uint8ClampedArray, w: number, h: number): Bounds | null {
  let best = 0, row = -1, left = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0, o = y * w; x < w; ) {
      if (mask[o + x] !== 255) {
        x++;
        continue;
      }
      let e = x;
      while (e < w && mask[o + e] === 255) e++;
      if (e - x > best) [best, row, left] = [e - x, y, x];
      x = e;
    }
  }
  if (row < 0) return null;
  const right = left + best;
  const all = (y: number) => {
    for (let x = left, o = y * w; x < right; x++) if (mask[o + x] !== 255) return false;
    return true;
  };
  let top = row, bottom = row + 1;
  while (top > 0 && all(top - 1)) top--;
  while (bottom < h && all(bottom)) bottom++;
  return { left, top, right, bottom };
}

/** The smallest box (surface coordinates from 0) holding every non-zero value of a w × h mask; empty (right = left) when there is none. */
function nonZeroBox(mask: Uint8ClampedArray, w: number, h: number): { left: number; top: number; right: number; bottom: number } {
  let left = w, top = h, right = 0, bottom = 0;
  for (let y = 0, o = 0; y < h; y++, o += w) {
    let x0 = 0;
    while (x0 < w && mask[o + x0] === 0) x0++;
    if (x0 === w) continue;
    let x1 = w;
    while (mask[o + x1 - 1] === 0) x1--;
    if (y < top) top = y;
    bottom = y + 1;
    if (x0 < left) left = x0;
    if (x1 > right) right = x1;
  }
  return top < bottom ? { left, top, right, bottom } : { left: 0, top: 0, right: 0, bottom: 0 };
}

/**
 * Adjustments that change nothing but the colours they compute, and never refuse after starting:
 * applyAdjustment returns false (draws nothing) only for other kinds, before touching a pixel.
 */
const IN_PLACE_ADJUSTMENTS = new Set(['curves', 'levels', 'hue/saturation', 'brightness/contrast', 'invert', 'posterize', 'exposure', 'threshold', 'channel mixer', 'black & white']);

/** An adjustment that maps each RGB pixel on its own (not one worked out on a CMYK document's inks). */
function perPixelAdjustment(adj: NonNullable<LayerNode['adjustment']>): boolean {
  return IN_PLACE_ADJUSTMENTS.has(adj.type) && !(adj as { inCmyk?: unknown }).inCmyk;
}

/**
 * Whether the adjustment can go straight onto the canvas: normal mode at 100 % opacity and fill,
 * no mask, Blend If or channel restriction, over a canvas with no transparent pixel. Then the
 * blend of the adjusted copy (source-atop, its alpha 1) puts every adjusted colour where it was
 * ((c/255)·255 rounds back to c) and keeps the canvas alpha: the same bytes without the copy and
 * the blend (a personalised preview's rectangle under two adjustments: two copies and blends of
 * it a request; issue 25 §3, docs/performance.md "Large templates").
 */
function adjustsInPlace(node: LayerNode, canvas: Surface): boolean {
  const known = knownOpaque === canvas.data;
  knownOpaque = null;
  const adj = node.adjustment!;
  if (!perPixelAdjustment(adj)) return false;
  if (node.blendMode !== 'normal' || node.opacity * node.fillOpacity !== 1) return false;
  if (node.blendIf?.length || node.excludedChannels?.length) return false;
  if ((node.mask && !node.mask.disabled) || (node.vectorMask && !node.vectorMask.disabled)) return false;
  // Where the canvas is transparent the blend leaves its colour unadjusted (atop skips it).
  const d = canvas.data;
  if (known) return true;
  const words = d.byteOffset % 4 === 0 ? new Uint32Array(d.buffer, d.byteOffset, d.length >> 2) : null;
  if (!words) return false;
  for (let i = 0; i < words.length; i++) if (words[i]! < 0x1000000) return false;
  return true;
}

/**
 * Layers clipped to an adjustment layer: the adjustment's shape is its mask (everywhere when it has
 * none), so it changes the canvas itself and the clipped layers go over the changed canvas; the
 * whole is faded in through the mask at the base's opacity, like the rest of a clipping group.
 */
async function drawAdjustmentClipGroup(ctx: RenderContext, base: LayerNode, clipped: LayerNode[], canvas: Surface, atop = false) {
  const after = cloneSurface(canvas);
  await drawAdjustment(ctx, { ...base, opacity: base.fillOpacity, fillOpacity: 1, mask: undefined, vectorMask: undefined }, after);
  for (const node of clipped) await drawNode(ctx, node, after, atop);
  fadeInto(canvas, after, await layerMask(ctx, base, rectOf(canvas)), base.opacity);
}

/**
 * The pixel mask blurred by its feather (a Gaussian of that radius). Outside its pixels a mask is
 * its default colour, so the mask less that colour is zero there and is blurred over `r` and the
 * pixels within reach of it only, the colour added back: not over `r` grown by 3σ on every side,
 * which for Photoshop's largest feather (1,000 px) is (w + 6,000) × (h + 6,000) floats three times
 * over (test/engine/psd/fuzz-modes.test.ts: a 24 × 16 document took 20 s).
 */
async function featheredMask(ctx: RenderContext, node: LayerNode, r: Bounds): Promise<Uint8ClampedArray | null> {
  const m = node.mask!;
  const sigma = m.feather! * ctx.scale;
  const reach = grow(r, Math.ceil(sigma * 3));
  // The mask's own pixels within reach (the stored rows they were read from dropped with them).
  let surf: MaskSurface | null = await featherSource(ctx, node, reach);
  // Nothing within reach: the default colour over r (null for white, which masks nothing).
  if (!surf && m.defaultColor === 255) return null;
  const w = r.right - r.left;
  const out = new Uint8ClampedArray(w * (r.bottom - r.top)).fill(m.defaultColor);
  if (!surf) return out;
  // The blur over r ∪ the pixels, cut where that is the same to the bit (issue 25 §1: at a print
  // strip a 250 px feather's array is the read rectangle grown by 750 px each side): left of and
  // above the pixels by more than the blur's reach the array is zero and stays +0 through every
  // pass, and right of and below r by more than it nothing reaches r. What is cut off r reads 0.
  const all = unionRect(r, rectOf(surf));
  const R = gaussianReach(sigma);
  const cut = { left: Math.max(all.left, surf.x - R), top: Math.max(all.top, surf.y - R), right: Math.min(all.right, r.right + R), bottom: Math.min(all.bottom, r.bottom + R) };
  // Within the canvas, also the pixels grown by the reach (within reach of r): each box pass is
  // cut at a's edge and spreads the pixels past them, which the next passes read. Cut at the
  // pixels, a strip whose reach ended there came out lighter than the same rows drawn whole (33
  // levels at scale 45, vector-mask-feather-strips.test.ts). Not past the canvas, as the whole
  // canvas's rows never were.
  const spread = intersectRect(intersectRect(grow(rectOf(surf), R), grow(r, R)) ?? EMPTY, blurFrame(ctx, node));
  const a = spread && cut.right > cut.left && cut.bottom > cut.top ? unionRect(cut, spread) : spread ?? cut;
  // Empty: the pixels lie right of or below r by more than twice the reach (a feather under a
  // pixel has none), where r stays wholly in the zeros before them.
  if (a.right <= a.left || a.bottom <= a.top) return out;
  const aw = a.right - a.left;
  const raw = new Float32Array(aw * (a.bottom - a.top));
  const s = intersectRect(a, rectOf(surf));
  for (let y = s ? s.top : 0; s && y < s.bottom; y++) {
    const at = (y - a.top) * aw - a.left;
    const from = (y - surf.y) * surf.w - surf.x;
    for (let x = s.left; x < s.right; x++) raw[at + x] = surf.data[from + x]! - m.defaultColor;
  }
  surf = null; // not held through the blur
  // Over `raw` itself (issue 25 §1): gaussianBlur's floats without its two copies of the array.
  const blurred = gaussianBlurInPlace(raw, aw, a.bottom - a.top, sigma);
  const i = intersectRect(r, a);
  for (let y = i ? i.top : 0; i && y < i.bottom; y++) {
    const from = (y - a.top) * aw - a.left;
    const to = (y - r.top) * w - r.left;
    for (let x = i.left; x < i.right; x++) out[to + x] = blurred[from + x]! + m.defaultColor;
  }
  return out;
}

/** A feathered pixel mask's pixels over `reach` (output space), or null: none there. */
async function featherSource(ctx: RenderContext, node: LayerNode, reach: Bounds): Promise<MaskSurface | null> {
  const m = node.mask!;
  const px = m.hasPixels ? await loadMaskPixels(ctx.bucket, ctx.compiled, node, ctx.level, levelRows(ctx, reach)) : null;
  return px ? resampleGray(px.data, px.bounds, ctx.factor, reach, m.defaultColor) : null;
}

async function loadEffectPatterns(ctx: RenderContext, node: LayerNode): Promise<void> {
  for (const id of effectPatternIds(node)) if (!ctx.patterns.has(id)) ctx.patterns.set(id, await loadPattern(ctx.bucket, ctx.compiled, id));
}

/** Level rows an output rectangle draws on (one spare row each side for the area filter). */
const levelRows = (ctx: RenderContext, r: Bounds) => ({
  top: Math.floor(r.top / ctx.factor) - 1,
  bottom: Math.ceil(r.bottom / ctx.factor) + 1,
});

/**
 * A solid-colour shape drawn from its fill and path instead of its stored pixels. A shape layer is
 * a fill clipped by its vector mask, and Photoshop stores only the fill inside the path: with a
 * vector-mask density below 100 % or a feather the fill shows beyond the path (at 1 − density),
 * and a record with no pixels at all (an empty rectangle) still draws its shape (psd-tools corpus:
 * layer_mask_data.psd, mask-parameters-no-real-channel.psd, vector-mask2.psd, transparentbg.psd,
 * adjustment-fillers.psd; docs/fidelity.md). Not a shape with a stroke, which its pixels hold.
 */
export function fillFromPath(node: LayerNode): boolean {
  if (node.type !== 'Shape') return false;
  // A shape without fill or stroke (psd/tree.ts, at Fill 0): its path is what its effects trace
  // and its overlays fill, whatever its stored pixels hold (an empty record, or the fill).
  if (node.shapeStyle?.fill === false && !node.shapeStyle.stroke && !!node.vectorMask && node.fillOpacity === 0) return true;
  // A gradient fill whose record stores no pixels (16- and 32-bit documents): composite/gradient-fill.ts.
  if (node.fillGradient && !node.hasPixels) return node.shapeStyle?.fill !== false && !node.shapeStyle?.stroke && !node.vectorStroke;
  if (!node.fillColor || node.shapeStyle?.fill === false || node.shapeStyle?.stroke || node.vectorStroke) return false;
  if (!node.hasPixels) return true;
  const vm = node.vectorMask;
  return !!vm && !vm.disabled && ((vm.density ?? 1) < 1 || (vm.feather ?? 0) > 0);
}

/** The layer's own pixels in output space (override, recolour, stored, or its fill: fillFromPath), cut to `clip`. */
export async function layerContent(ctx: RenderContext, node: LayerNode, clip: Bounds): Promise<Surface | null> {
  const override = ctx.overrides.get(node.id);
  let surface: Surface | null = null;
  if (!override?.pixels && fillFromPath(node) && node.fillGradient && !node.fillColor) {
    // A gradient fill drawn from its settings; a vector mask (layerMask) gives it its shape.
    surface = gradientFillSurface(ctx, node.fillGradient, clip, node.vectorMask);
    ownHere(surface?.data);
  } else if (!override?.pixels && fillFromPath(node)) {
    // The fill everywhere: its vector mask (layerMask) gives it its shape.
    surface = createSurface(clip);
    ownHere(surface.data);
    const c = [1, 3, 5].map((i) => parseInt((node.fillColor ?? '#000000').slice(i, i + 2), 16));
    const d = surface.data;
    for (let i = 0; i < d.length; i += 4) {
      d[i] = c[0];
      d[i + 1] = c[1];
      d[i + 2] = c[2];
      d[i + 3] = 255;
    }
  } else if (override?.pixels && override.bounds) {
    const b = override.bounds;
    const src = override.pixels;
    const full: Surface = { x: b.left, y: b.top, w: src.width, h: src.height, data: src.data };
    const r = intersectRect(rectOf(full), clip);
    if (!r) return null;
    // Wholly inside the clip and not recoloured: the override's own pixels (content is only read).
    if (!override.color && r.left === full.x && r.top === full.y && r.right === full.x + full.w && r.bottom === full.y + full.h) return full;
    surface = createSurface(r);
    ownHere(surface.data);
    for (let y = r.top; y < r.bottom; y++) {
      const s = ((y - full.y) * full.w + (r.left - full.x)) * 4;
      surface.data.set(full.data.subarray(s, s + surface.w * 4), (y - r.top) * surface.w * 4);
    }
    // An opaque picture placed past the clip (a fill placement larger than the canvas) stays
    // opaque where it was, in the cut's own pixels: drawn plain, those rows are copied (blendOverOpaque).
    const opaque = !override.color && opaqueArea(src.data);
    const kept = opaque && intersectRect(r, { left: full.x + opaque.left, top: full.y + opaque.top, right: full.x + opaque.right, bottom: full.y + opaque.bottom });
    if (kept) markOpaque(surface.data, { left: kept.left - r.left, top: kept.top - r.top, right: kept.right - r.left, bottom: kept.bottom - r.top });
  } else if (atLevelGrid(ctx)) {
    if (!node.hasPixels || !node.pixelBounds) return null;
    surface = await storedRowsByBand(levelBounds(node.pixelBounds, ctx.level), clip, 4, (rows) => loadLayerPixels(ctx.bucket, ctx.compiled, node, ctx.level, rows, ctx.buffers), ctx.buffers);
  } else if (!override && keepsDrawn(ctx)) {
    // The template's own pixels at this scale over this rectangle: the same every request, kept
    // (resampledLayerCache) for previews and handed out read-only, as every caller uses a layer's content.
    const key = `${prefix(ctx.compiled.hash)}resampled/${ctx.scale}/${ctx.level}/${node.id}/${clip.left},${clip.top},${clip.right},${clip.bottom}`;
    const held = resampledLayerCache.get(key);
    if (held) return held;
    const px = await loadLayerPixels(ctx.bucket, ctx.compiled, node, ctx.level, levelRows(ctx, clip));
    const made = px && resampleRGBA(px.data, px.bounds, ctx.factor, clip);
    if (made) resampledLayerCache.set(key, made, made.data.byteLength + 64);
    return made;
  } else if (ctx.factor < 1 && node.hasPixels && node.pixelBounds) {
    surface = await shrunkByBand(ctx, node, clip);
  } else {
    // Through the strip's buffers when there are: the rows are resampled before the next read.
    const px = await loadLayerPixels(ctx.bucket, ctx.compiled, node, ctx.level, levelRows(ctx, clip), ctx.buffers);
    if (!px) return null;
    surface = resampleRGBA(px.data, px.bounds, ctx.factor, clip);
    ownHere(surface?.data);
  }
  if (surface && override?.color) {
    const { r, g, b, a } = override.color;
    const d = surface.data;
    for (let i = 0; i < d.length; i += 4) {
      d[i] = r;
      d[i + 1] = g;
      d[i + 2] = b;
      d[i + 3] = d[i + 3] * a;
    }
  }
  return surface;
}

const atLevelGrid = (ctx: RenderContext) => Math.abs(ctx.factor - 1) < 1e-9;

/**
 * A layer's stored pixels shrunk to the output grid over `clip`, read one stored band at a time
 * into the resample's vertical pass (resampleRGBAByRows): the same bytes as resampling the rows
 * joined. A frame's strip of bench-8000's 5,000² preview (scale 0.625, its 8,000 px wide layers
 * read at level 0) joined ~335 rows into an 11 MB 'band rows' buffer beside the 8.2 MB band they
 * came from, and made a new 4.2 MB surface per layer, 140–165 MB a request (issue 25 §1). Through
 * the strip's buffers, a band too big for the band cache is inflated into their one 'band' buffer
 * (read in order: the next strip finds the band it starts in there) and the surface is one of
 * their pooled ones, given back once blended (doneWith).
 */
async function shrunkByBand(ctx: RenderContext, node: LayerNode, clip: Bounds): Promise<Surface | null> {
  const full = levelBounds(node.pixelBounds!, ctx.level);
  const rows = levelRows(ctx, clip);
  const sb = { ...full, top: Math.max(full.top, rows.top), bottom: Math.min(full.bottom, rows.bottom) };
  if (sb.bottom <= sb.top) return null;
  const read = async (y: number) => {
    const px = await loadLayerPixels(ctx.bucket, ctx.compiled, node, ctx.level, { top: y, bottom: Math.min(sb.bottom, (Math.floor(y / BAND) + 1) * BAND) }, ctx.buffers);
    if (!px) throw new Error(`compiled template: layer ${node.id} has no rows at ${y}`);
    return { data: px.data, top: px.bounds.top, bottom: px.bounds.bottom };
  };
  const buffers = ctx.buffers;
  const surface = (r: Bounds): Surface => {
    if (!buffers) return createSurface(r);
    return { x: r.left, y: r.top, w: r.right - r.left, h: r.bottom - r.top, data: buffers.surface((r.right - r.left) * (r.bottom - r.top) * 4) };
  };
  const made = await resampleRGBAByRows(sb, ctx.factor, clip, read, surface);
  if (!buffers) ownHere(made?.data); // the strips' pooled buffers are theirs
  return made;
}

/**
 * Stored pixels (`channels` a pixel, level bounds `full`) cut to `clip` when the level is the
 * output grid (factor 1): the rows resampleRGBA / resampleGray would copy, read one band at a
 * time straight into the surface instead of first joining every band the clip touches into one
 * buffer (two 256-row bands of a 10,000 px wide layer are 20 MB, issue 25 §1).
 */
async function storedRowsByBand(
  full: Bounds,
  clip: Bounds,
  channels: number,
  load: (rows: { top: number; bottom: number }) => Promise<{ data: Uint8Array; bounds: Bounds } | null>,
  /** A frame's strip buffers: the surface is one of their pooled ones (StripBuffers.surface). */
  buffers?: StripBuffers,
  /** The last channel alone (an RGBA layer's alpha: shapeContent), one byte a pixel. */
  last = false,
): Promise<Surface | null> {
  const r = intersectRect(full, clip);
  if (!r) return null;
  const out = last ? 1 : channels;
  const surface = buffers ? { x: r.left, y: r.top, w: r.right - r.left, h: r.bottom - r.top, data: buffers.surface((r.right - r.left) * (r.bottom - r.top) * out) } : createSurface(r, out);
  if (!buffers) ownHere(surface.data); // the strips' pooled buffers are theirs
  const rowBytes = surface.w * channels;
  for (let top = r.top; top < r.bottom; ) {
    const bottom = Math.min(r.bottom, (Math.floor(top / BAND) + 1) * BAND);
    const px = await load({ top, bottom });
    if (px) {
      const stride = (px.bounds.right - px.bounds.left) * channels;
      for (let y = top; y < bottom; y++) {
        const s = (y - px.bounds.top) * stride + (r.left - px.bounds.left) * channels;
        if (!last) surface.data.set(px.data.subarray(s, s + rowBytes), (y - r.top) * rowBytes);
        else for (let x = 0, o = (y - r.top) * surface.w; x < surface.w; x++) surface.data[o + x] = px.data[s + x * channels + channels - 1]!;
      }
    }
    top = bottom;
  }
  return surface;
}

/** Whether the layer has a mask layerMask draws (a pixel mask, or a vector mask its pixels do not already hold). */
function masked(node: LayerNode): boolean {
  const vm = node.vectorMask;
  return (!!node.mask && !node.mask.disabled) || (!!vm && !vm.disabled && !(node.type === 'Shape' && node.hasPixels && !fillFromPath(node)));
}

/** Pixel mask × vector mask over rectangle r (output space), or null when nothing masks. */
export async function layerMask(ctx: RenderContext, node: LayerNode, r: Bounds): Promise<Uint8ClampedArray | null> {
  let mask: Uint8ClampedArray | null = null;
  const m = node.mask;
  if (m && !m.disabled) {
    let surf: MaskSurface | null = null;
    // Feathered, the mask's pixels reach past its rectangle: blurred from what lies within reach
    // of r, even when r itself misses the rectangle (a strip, or a layer beside it).
    if (m.feather && m.feather * ctx.scale >= 0.5) mask = await featheredMask(ctx, node, r);
    else if (m.hasPixels && atLevelGrid(ctx)) {
      const rows = await storedRowsByBand(levelBounds(m.bounds, ctx.level), r, 1, (band) => loadMaskPixels(ctx.bucket, ctx.compiled, node, ctx.level, band, ctx.buffers));
      surf = rows && { ...rows, fill: m.defaultColor };
    } else if (m.hasPixels) {
      const px = await loadMaskPixels(ctx.bucket, ctx.compiled, node, ctx.level, levelRows(ctx, r), ctx.buffers);
      surf = px && resampleGray(px.data, px.bounds, ctx.factor, r, m.defaultColor);
    }
    if (surf) {
      mask = maskOver(surf, r);
      // The rows (or resampled mask) were made by this call for maskOver alone (createSurface):
      // read now, they go at once, not when workerd next collects (bench-8000's first print PDF
      // left 14.8 MB of them, issue 25 §1). The stored bands they were read from are not these.
      drop(surf.data);
    } else if (!mask && m.defaultColor !== 255) mask = new Uint8ClampedArray((r.right - r.left) * (r.bottom - r.top)).fill(m.defaultColor);
    if (mask && m.density !== undefined && m.density < 1) {
      for (let i = 0; i < mask.length; i++) mask[i] = 255 - (255 - mask[i]) * m.density;
    }
  }
  const vm = node.vectorMask;
  // Shape layers carry Photoshop's own rendering of their path in their pixels.
  if (vm && !vm.disabled && !(node.type === 'Shape' && node.hasPixels && !fillFromPath(node))) {
    const vector = vectorMaskOver(vm, ctx.scale, r, blurFrame(ctx, node));
    const both = multiplyMasks(mask, vector);
    // Their product is a new array: the two it was made from are read no more.
    if (both !== mask) drop(mask);
    if (both !== vector) drop(vector);
    mask = both;
  }
  // Made by this call for its caller alone, never kept or handed out by a cache (each call makes
  // its own; adjustmentMask and a kept layer's blends copy it): dropOwn frees it once the layer is
  // drawn (drawLayer, drawClipGroup), as it does a vector mask's raster (vector.ts).
  return ownHere(mask);
}

/** The vector mask over r, feathered (a Gaussian of that radius, drawn with a margin) and at its density. */
function vectorMaskOver(vm: VectorMask, scale: number, r: Bounds, canvas?: Bounds): Uint8ClampedArray {
  const sigma = (vm.feather ?? 0) * scale;
  const out = sigma >= 0.5 ? featheredPaths(vm, scale, r, sigma, canvas) : rasterizeVectorMask(vm, scale, r);
  const density = vm.density;
  if (density !== undefined && density < 1) for (let i = 0; i < out.length; i++) out[i] = 255 - (255 - out[i]) * density;
  return out;
}

/**
 * The vector mask over `r` blurred by its feather (a Gaussian of that radius). Outside the box of
 * its paths' points the raster is one value (nothing, or everything when inverted or subtracted
 * from all pixels), so the raster less that value is zero there and is blurred over `r` and the
 * part of the box within reach only, the value added back: not over `r` grown by 3σ on every side,
 * which for Photoshop's largest feather (1,000 px) is (w + 6,000) × (h + 6,000) floats three times
 * over, as it was for pixel masks (featheredMask).
 */
function featheredPaths(vm: VectorMask, scale: number, r: Bounds, sigma: number, canvas?: Bounds): Uint8ClampedArray {
  const spread = Math.ceil(sigma * 3); // at least the blur's reach (gaussianReach)
  const reach = grow(r, spread);
  const box = pathsBox(vm, scale);
  const near = box && intersectRect(box, reach);
  // Within the canvas, the box grown by the reach too: each of the blur's box passes is cut at
  // a's edge, and a pass spreads the raster past the box, which the next passes read. Cut at the
  // box, a strip whose reach ended there came out lighter than the same rows drawn whole
  // (made-vector-mask-feather.psd at scale 50 in strips of 327 rows: 35 levels). Not past the
  // canvas, as the whole canvas's rows never were (nor Photoshop's largest feather's 3,000 px).
  const spreadNear = box && canvas && intersectRect(intersectRect(grow(box, spread), reach) ?? EMPTY, canvas);
  const a = spreadNear ? unionRect(near ? unionRect(r, near) : r, spreadNear) : near ? unionRect(r, near) : r;
  // A pixel outside both the paths' box and `a` gives the value everywhere outside the box.
  const far = Math.min(a.left, box?.left ?? a.left) - 2;
  const outside = rasterizeVectorMask(vm, scale, { left: far, top: a.top, right: far + 1, bottom: a.top + 1 })[0]!;
  const aw = a.right - a.left;
  const raster = rasterizeVectorMask(vm, scale, a);
  const raw = new Float32Array(raster.length);
  for (let i = 0; i < raster.length; i++) raw[i] = raster[i]! - outside;
  const blurred = gaussianBlurInPlace(raw, aw, a.bottom - a.top, sigma);
  const w = r.right - r.left;
  const out = new Uint8ClampedArray(w * (r.bottom - r.top));
  for (let y = r.top; y < r.bottom; y++) {
    const from = (y - a.top) * aw + (r.left - a.left);
    for (let x = 0; x < w; x++) out[(y - r.top) * w + x] = blurred[from + x]! + outside;
  }
  return out;
}

const EMPTY: Bounds = { left: 0, top: 0, right: 0, bottom: 0 };

/**
 * The rectangle a feathered mask's blur is never taken past: the canvas at the render's scale
 * and, for a layer with effects, the rectangles its effects read for the whole canvas
 * (effectSources), cut to where its content can have pixels. Every rectangle the mask is asked
 * for, in a whole frame or a strip, lies within it (the content within the canvas; a strip's
 * effect sources within the canvas's, cut to the content; a shape whose transparency does not
 * shape its effects reads its sources uncut), so the blur reads the same pixels for a strip's
 * rows as for the whole frame's. The canvas alone was not that: a whole frame's effect source
 * past the canvas (a layer's last row rounded out at scale 2.3) had the blur run past the
 * canvas, a strip's did not, one level apart. Cut to the content, a small feathered shape with a
 * far shadow does not blur over the canvas grown by the shadow's distance.
 */
const blurFrame = (ctx: RenderContext, node: LayerNode): Bounds => {
  const { width, height } = outputSize(ctx.compiled, ctx.scale);
  const canvas = { left: 0, top: 0, right: width, bottom: height };
  if (!hasEffects(node)) return canvas;
  const own = node.transparencyShapes === false ? null : contentExtent(ctx, node);
  let frame = canvas;
  for (const rect of effectSources(ctx, node, canvas, EVERYWHERE, [canvas])) {
    const near = own ? intersectRect(rect, own) : rect;
    if (near) frame = unionRect(frame, near);
  }
  return frame;
};

/**
 * Where layerContent can give a layer pixels (output space), or null where it can anywhere (a
 * group, a fill or shape drawn from its path, over whatever it is asked for): an override's
 * pixels' bounds, else its stored pixels' level rectangle at the render's factor.
 */
function contentExtent(ctx: RenderContext, node: LayerNode): Bounds | null {
  const override = ctx.overrides.get(node.id);
  if (override?.pixels && override.bounds) return override.bounds;
  if (node.children || override?.pixels || fillFromPath(node) || !node.hasPixels || !node.pixelBounds) return null;
  return outputRect(levelBounds(node.pixelBounds, ctx.level), ctx.factor);
}

/** The box holding every knot and handle of the mask's paths, in pixels at `scale` (a Bézier stays inside its points' hull), or null without points. */
function pathsBox(vm: VectorMask, scale: number): Bounds | null {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const path of vm.paths) {
    for (const knot of path.knots) {
      for (let i = 0; i < 6; i += 2) {
        left = Math.min(left, knot[i]! * scale);
        right = Math.max(right, knot[i]! * scale);
        top = Math.min(top, knot[i + 1]! * scale);
        bottom = Math.max(bottom, knot[i + 1]! * scale);
      }
    }
  }
  if (!(right >= left)) return null;
  return { left: Math.floor(left) - 1, top: Math.floor(top) - 1, right: Math.ceil(right) + 1, bottom: Math.ceil(bottom) + 1 };
}
