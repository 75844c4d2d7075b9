import type { Bounds, CompiledTemplate, LayerNode, LayerOverride, LayerOverrides, RGBAImage } from '../types';
import { effectMargin, hasEffects, shadowOffset } from './effects';
import { effectOn } from './pattern';
import { canvasUnits, fillFromPath, overriddenUnit } from './compositor';
import { growRect as grow, intersectRect, unionRect as union } from './surface';
import { tapReaders, type AxisWeights } from '../raster/resample';
import { knownInk } from '../cache/ink';

/**
 * Output pixels whose resize taps read a canvas pixel the overrides change (dirtyBounds at
 * `scale`), or null when none; `taps` null: the canvas is the output. The preview frames
 * (frame.ts, and the CMYK ink frame, composite/cmyk-ink.ts) redraw these, grown by sharpening's reach.
 */
export function changedOutput(
  compiled: CompiledTemplate,
  overrides: LayerOverrides,
  scale: number,
  taps: { rows: AxisWeights; columns: AxisWeights } | null,
): Bounds | null {
  const dirty = dirtyBounds(compiled, overrides, scale);
  if (!dirty || dirty.bottom <= dirty.top || dirty.right <= dirty.left) return null;
  if (!taps) return dirty;
  const rows = tapReaders(taps.rows, dirty.top, dirty.bottom);
  const columns = tapReaders(taps.columns, dirty.left, dirty.right);
  return rows && columns ? { top: rows.first, bottom: rows.end, left: columns.first, right: columns.end } : null;
}

/**
 * Where a request's overrides can change the picture: a rectangle in output pixels at `scale`
 * (the render's own grid, before any final resample), or null when nothing can differ from the
 * template drawn with `base` (default: no overrides; e.g. layers every print PDF of the template
 * draws as vector, hidden in its raster).
 *
 * The compositor draws the document as units (a layer and the layers clipped to it) bottom-up,
 * every operation after a unit per pixel (blend modes, masks, adjustments, clipping). So a unit
 * whose own paint changes only inside R leaves the canvas unchanged outside R, whatever lies
 * above it. R is what the unit can paint with and without the overrides: its layers' bounds (an
 * override's own bounds when it replaces the pixels), grown by layer effects, shape strokes and
 * the layer resampling's reach; an adjustment layer reaches the whole canvas.
 */
export function dirtyBounds(compiled: CompiledTemplate, overrides: LayerOverrides, scale: number, base: LayerOverrides = new Map()): Bounds | null {
  const nodes = new Map<number, LayerNode>();
  const index = (list: LayerNode[]) => list.forEach((n) => (nodes.set(n.id, n), index(n.children ?? [])));
  index(compiled.layers);
  // What the template itself has: no override at all (a switch sets every child's visibility).
  const asTemplate = (id: number): LayerOverride | undefined => base.get(id) ?? { visible: nodes.get(id)?.visible };
  const changed = new Map([...overrides].filter(([id, o]) => !sameOverride(o, asTemplate(id))));
  for (const [id, o] of base) if (!overrides.has(id) && !sameOverride(o, { visible: nodes.get(id)?.visible })) changed.set(id, o);
  if (!changed.size) return null;
  const canvas: Bounds = { left: 0, top: 0, right: Math.max(1, Math.round(compiled.width * scale)), bottom: Math.max(1, Math.round(compiled.height * scale)) };
  // Units as either drawing forms them (a group overridden in one is not opened up in either).
  const either = new Map([...base, ...overrides]);
  const at: ReachContext = { scale, canvas, globalAngle: compiled.globalAngle, changed, either };
  let dirty: Bounds | null = null;
  for (const unit of canvasUnits(either, compiled.layers)) {
    if (!overriddenUnit(changed, unit)) continue;
    const all = !changesInside(changed, unit.base);
    for (const reach of [reachOf(unit.base, overrides, at, all), reachOf(unit.base, base, at, all)]) {
      const r = reach && intersectRect(reach, canvas);
      if (r) dirty = dirty ? union(dirty, r) : r;
    }
  }
  return dirty;
}

/** Overrides that draw the same: the same object, or the same visibility and nothing else. */
function sameOverride(a: LayerOverride, b: LayerOverride | undefined): boolean {
  if (a === b) return true;
  if (!b) return false;
  const onlyVisible = (o: LayerOverride) => Object.keys(o).every((k) => k === 'visible');
  return onlyVisible(a) && onlyVisible(b) && a.visible === b.visible;
}


/** Template pixels → output pixels, outward. */
const scaled = (r: Bounds, s: number): Bounds => ({
  left: Math.floor(r.left * s),
  top: Math.floor(r.top * s),
  right: Math.ceil(r.right * s),
  bottom: Math.ceil(r.bottom * s),
});

/** Layer resampling (area filter, one spare level row each side) and rounding: a few pixels. */
const RESAMPLE_REACH = 3;

/** What reachOf measures with: the output grid, and what changes (dirtyBounds' `changed`, units as `either` forms them). */
interface ReachContext {
  scale: number;
  canvas: Bounds;
  globalAngle: number | undefined;
  changed: LayerOverrides;
  either: LayerOverrides;
}

/** Whether `changed` reaches `node` itself or anything inside it (not only layers clipped to it). */
const changesInside = (changed: LayerOverrides, node: LayerNode) => overriddenUnit(changed, { base: node, clipped: [] });

/**
 * The rectangle a node can paint on (output pixels), or null when it paints nothing; of a group
 * not changed as a whole (`all` false), only what its changed units can paint.
 */
function reachOf(node: LayerNode, overrides: LayerOverrides, at: ReachContext, all: boolean, byInk = true): Bounds | null {
  const { scale, canvas, globalAngle } = at;
  // A hidden layer or group paints nothing, nor does anything clipped to it (the compositor's drawUnit):
  // e.g. the same text layer personalised in every hidden variant group of a template.
  if (!(overrides.get(node.id)?.visible ?? node.visible)) return null;
  if (node.adjustment) return canvas;
  // "Transparency Shapes Layer" off: effects and a knockout cover the whole layer plane.
  if (node.transparencyShapes === false && (hasEffects(node) || node.knockout)) return canvas;
  // A shape drawn from its fill and path (a soft vector mask, or no stored pixels): its fill
  // reaches wherever its vector mask lets it.
  if (fillFromPath(node) && !overrides.get(node.id)?.pixels) return canvas;
  let r: Bounds | null = null;
  const add = (b: Bounds | null) => {
    if (b) r = r ? union(r, b) : b;
  };
  if (node.type === 'Group') {
    // A group composites its units per pixel, and then itself per pixel (opacity, mask, blend
    // mode: the same with and without the overrides), so, as on the canvas, only the units inside
    // it that a change reaches can change it: a name in a group with a full-canvas matte changes
    // only where the name reaches. Unless all of it counts (it changes itself, or is inside or the
    // base of what does), or its effects read its whole alpha (or an artboard paints its
    // bounds): then all it holds.
    const whole = all || at.changed.has(node.id) || hasEffects(node) || !!node.artboard;
    // A group's own effects may paint as far as its arrays reach, which its layers' bounds make.
    const inner = byInk && !hasEffects(node);
    if (whole) for (const child of node.children ?? []) add(reachOf(child, overrides, at, true, inner));
    else {
      for (const unit of canvasUnits(at.either, node.children ?? [])) {
        if (overriddenUnit(at.changed, unit)) add(reachOf(unit.base, overrides, at, !changesInside(at.changed, unit.base), inner));
      }
    }
    if (node.artboard) add(grow(scaled(node.artboard.bounds, scale), RESAMPLE_REACH));
  } else {
    const override = overrides.get(node.id);
    // New pixels paint only where they are not transparent, and effects reach out from there (a
    // drawn text's box is its line boxes, taller than its glyphs); a shape's stroke follows its path.
    if (override?.pixels && override.bounds) add(node.vectorStroke ? override.bounds : inkOf(override.pixels, override.bounds));
    // Its own ink: resampled, clear pixels beside it take its alpha as far as one template pixel
    // reaches (enlarged: `scale` pixels), and none past its stored box's reach.
    else if (byInk && paintsByOwnInk(node, override)) add(intersectRect(grow(scaled(node.alphaBounds!, scale), RESAMPLE_REACH + Math.ceil(scale)), grow(scaled(node.bounds, scale), RESAMPLE_REACH)));
    else {
      add(grow(scaled(node.bounds, scale), RESAMPLE_REACH));
      if (node.pixelBounds) add(grow(scaled(node.pixelBounds, scale), RESAMPLE_REACH));
    }
    // A shape's stroke is drawn from its path, which may lie outside the stored pixels.
    if (node.vectorStroke) r = r && grow(r, Math.ceil(node.vectorStroke.width * scale) + RESAMPLE_REACH);
    // A vector mask only takes away; so does a pixel mask.
  }
  if (r && hasEffects(node)) r = dropShadowReach(node, r, scale, globalAngle).reduce(union, grow(r, effectMargin(paintingOutside(node), scale)));
  return r;
}

/**
 * Whether the template's own pixels of `node` paint only where their alpha is not 0 (and its
 * effects only within their reach of there), so that the box of that alpha found at compile
 * (alphaBounds) stands for the layer as the new pixels' ink does (inkOf): its stored bounds may
 * hold clear rows and columns (a text's line box above and below its glyphs), which redrew as
 * much more of a personalised preview around it (issue 25 §3: large-mockup's 'Title' redrew 91
 * output rows where 75 hold all it changes). A pixel of alpha 0 blends to nothing unless
 * resampling lends it its neighbours' alpha (within a template pixel of the ink: reachOf grows
 * by that), and a shadow's blur or a stroke's band is made from the alpha. Not for what may paint
 * past it: a recolour or new pixels, a shape's stroke from its path, a knockout, effects other
 * than strokes and drop shadows whose contour leaves 0 at 0 (a glow's range, a gloss contour,
 * interior effects reading the outside), nor a layer in a group with effects (byInk false),
 * whose arrays its layers' bounds make.
 */
function paintsByOwnInk(node: LayerNode, override: LayerOverride | undefined): boolean {
  if (!node.alphaBounds || !node.hasPixels || override?.pixels || override?.color || node.vectorStroke || node.knockout) return false;
  if (!hasEffects(node)) return true;
  const fx = node.effects!;
  const shown = <T extends { enabled?: boolean; present?: boolean }>(e: T[] | T | undefined): T[] => (Array.isArray(e) ? e : e ? [e] : []).filter(effectOn);
  if (INK_UNBOUND_EFFECTS.some((k) => shown(fx[k]).length)) return false;
  // As dropShadowReach: a contour that lifts zero coverage paints everywhere the arrays reach.
  return shown(fx.dropShadow).every((d) => {
    const start = d.contour?.curve?.[0];
    return !start || (start.x === 0 && start.y === 0);
  });
}

/** Effects paintsByOwnInk does not take as painting within their reach of the layer's alpha. */
const INK_UNBOUND_EFFECTS = ['outerGlow', 'patternOverlay', 'gradientOverlay', 'solidFill', 'innerGlow', 'innerShadow', 'bevel', 'satin'] as const;

/**
 * The node with only the effects effectMargin should grow its reach by: not its drop shadows (their
 * reach is taken by their direction, dropShadowReach), nor, on a layer, the effects that paint
 * inside its pixels only (inner shadow, inner glow, satin; the overlays add no margin). Those read
 * the alpha as far as their size and distance (the arrays, Shape.frame, reach that far), but each
 * multiplies its coverage by the layer's alpha, which is 0 past the layer's pixels, and coverage 0
 * blends to nothing in every mode (effects.ts eachTileInside draws only the covered pixels for
 * that reason). Issue 25 §3: a personalised line under an inner shadow of size 41 and distance 20
 * redrew its layer's box grown by 61 px on every side (psdtools-layer-effects-all: 176 rows for a
 * 48-row line). A group keeps them: its effects' arrays are made from the redrawn rectangle
 * (compositor.ts drawGroup), so how far it reaches changes what they start from.
 */
function paintingOutside(node: LayerNode): LayerNode {
  const fx = node.effects;
  if (!fx) return node;
  const inside = node.type === 'Group' ? {} : { innerShadow: undefined, innerGlow: undefined, satin: undefined };
  return { ...node, effects: { ...fx, dropShadow: undefined, ...inside } };
}

/**
 * Where each drop shadow of `node` can paint, with the layer's paint within `ink`: a shadow is
 * the alpha moved by its offset and blurred by its size, and the compositor paints it only within
 * reach(size) + 1 of the moved extent (effects.ts paintRect), so a shadow cast 18 px down reaches
 * 18 px less upward than effectMargin's size + distance on every side. A contour that lifts zero
 * coverage paints everywhere the arrays reach: those keep effectMargin's symmetric reach.
 */
function dropShadowReach(node: LayerNode, ink: Bounds, scale: number, globalAngle: number | undefined): Bounds[] {
  const fx = node.effects!;
  const shadows = (Array.isArray(fx.dropShadow) ? fx.dropShadow : fx.dropShadow ? [fx.dropShadow] : []).filter((d) => d.enabled !== false);
  return shadows.map((d) => {
    const start = d.contour?.curve?.[0];
    if (start && (start.x !== 0 || start.y !== 0)) return grow(ink, effectMargin({ ...node, effects: { dropShadow: [d] } }, scale));
    const [ox, oy] = shadowOffset(d, globalAngle, scale);
    const dx = Math.floor(ox);
    const dy = Math.floor(oy);
    const moved = { left: ink.left + dx, top: ink.top + dy, right: ink.right + dx, bottom: ink.bottom + dy };
    // reach(size) = ceil(size) + 3 and one more (paintRect), plus a pixel for the resampling's rounding.
    return grow(moved, Math.ceil((d.size?.value ?? 0) * scale) + 5);
  });
}

/** Where `pixels`, placed at `at`, are not transparent (output pixels), or null when nowhere. */
export function inkOf(pixels: RGBAImage, at: Bounds): Bounds | null {
  const { width, height, data } = pixels;
  // Found already where the pixels were made (a drawn text: cache/ink.ts).
  const known = knownInk(data, width, height);
  if (known !== undefined) return known && { left: at.left + known.left, top: at.top + known.top, right: at.left + known.right, bottom: at.top + known.bottom };
  // A pixel a 32-bit word: alpha is its high byte on the little-endian machines Workers run on
  // (an unaligned view is copied to an aligned one first; text and pictures come aligned).
  const aligned = data.byteOffset % 4 === 0 ? data : data.slice();
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, width * height);
  const INK = 0x1000000; // a word at or above it has a non-zero alpha
  // A row's words OR-ed together have a non-zero alpha when any of them has: no branch a pixel.
  const rowInked = (y: number) => {
    let any = 0;
    for (let i = y * width, end = i + width; i < end; i++) any |= words[i]!;
    return any >>> 0 >= INK;
  };
  let top = 0;
  while (top < height && !rowInked(top)) top++;
  if (top === height) return null;
  let bottom = height - 1;
  while (!rowInked(bottom)) bottom--;
  // Each row read only as far as the ink found so far: from the left up to `left`, from the right down to `right`.
  let left = width;
  let right = -1;
  for (let y = top; y <= bottom; y++) {
    const row = y * width;
    let x = 0;
    while (x < left && words[row + x]! < INK) x++;
    if (x < left) left = x;
    x = width - 1;
    while (x > right && words[row + x]! < INK) x--;
    if (x > right) right = x;
  }
  return { left: at.left + left, top: at.top + top, right: at.left + right + 1, bottom: at.top + bottom + 1 };
}
