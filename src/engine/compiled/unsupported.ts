import type { Layer } from 'ag-psd';
import { colorLookupRefusal } from '../composite/color-lookup';
import { hasEffects } from '../composite/effects';
import { type ErrorDetail, unprocessable } from '../errors';
import { sizedEffects } from '../memory/kernel-reach';
import type { LayerNode } from '../types';

/**
 * Photoshop features the compositor does not model and that change pixels when set away from
 * their defaults. A template that uses one is refused at upload (422 naming the layer and the
 * feature) rather than rendered wrong in silence. Each rule fires only where the output is sure
 * to differ: at their no-op settings (Blend If 0–255, knockout at Fill 100 % Normal, clipped
 * layers all Normal) the feature changes nothing and the file compiles as before. Hidden layers
 * are left out: the template renders without them, as Photoshop's composite does.
 * What is only approximated, not refused, is listed in docs/fidelity.md.
 */
export function unmodelledFeatures(layers: LayerNode[], source: Map<LayerNode, Layer> = new Map()): ErrorDetail[] {
  const found: ErrorDetail[] = [];
  const note = (path: string, reason: string) => found.push({ path: `layers.${path}`, reason });
  const walk = (stack: LayerNode[], parent: string) => {
    // Bottom-up, as clipping reads: clipped layers belong to the first unclipped layer below.
    let base: LayerNode | undefined;
    const clippedTo = new Map<LayerNode, LayerNode[]>();
    for (const node of [...stack].reverse()) {
      if (!node.clipping) base = node;
      else if (base && base.visible && node.visible) clippedTo.set(base, [...(clippedTo.get(base) ?? []), node]);
    }
    for (const node of stack) {
      if (!node.visible) continue;
      const path = parent ? `${parent}/${node.name}` : node.name;
      const clipped = clippedTo.get(node) ?? [];
      for (const reason of nodeFeatures(node, clipped, source.get(node))) note(path, reason);
      if (node.children) walk(node.children, path);
    }
  };
  walk(layers, '');
  return found;
}

/** Refuses (422) a tree that uses a feature from unmodelledFeatures. */
export function refuseUnmodelled(layers: LayerNode[], source?: Map<LayerNode, Layer>): void {
  const found = unmodelledFeatures(layers, source);
  if (!found.length) return;
  const list = found.map((d) => `${d.reason} (layer "${d.path.slice('layers.'.length)}")`).join('; ');
  throw unprocessable(`The template uses Photoshop features the renderer cannot draw correctly: ${list}.`, found);
}

const normal = (mode: string) => mode === 'normal' || mode === 'pass through';

/** Whether everything in a group is Normal (groups Normal or pass-through), without adjustments or knockouts. */
const plainInside = (node: LayerNode): boolean =>
  (node.children ?? []).every((c) => !c.adjustment && !c.knockout && (c.blendMode === 'normal' || (c.type === 'Group' && c.blendMode === 'pass through')) && plainInside(c));

function nodeFeatures(node: LayerNode, clipped: LayerNode[], layer: Layer | undefined): string[] {
  const out: string[] = [];
  const isBase = clipped.length > 0;
  // A colour lookup whose table is an ICC profile, or a file we cannot read, is not drawn.
  const lookup = node.adjustment && colorLookupRefusal(node.adjustment);
  if (lookup) out.push(lookup);
  const effects = hasEffects(node);
  // Shadows of any distance are drawn (Photoshop allows 30,000 px): effect arrays are bounded by
  // the part of the target each effect can paint on, in tiles (composite/effects.ts), so their
  // memory does not grow with the distance; no refusal here.
  // Knockout is drawn for plain layers only. Elsewhere it matters once the layer's Fill is below
  // 100 % or its mode is not Normal (at Fill 100 % Normal a knockout changes nothing).
  // Drawn (composite/compositor.ts): a group's (a pass-through one is isolated by it, as
  // Photoshop renders psd-tools' knockout-deep-passthrough.psd like knockout-deep-normal.psd),
  // and a layer's as a clipping base. Not an adjustment's, nor a group's as a clipping base.
  if (node.knockout && (node.fillOpacity < 1 || !normal(node.blendMode))) {
    if (node.type === 'Group' && isBase) out.push('knockout on a clipping base');
    else if (node.adjustment) out.push('knockout on an adjustment layer');
  }
  // A pass-through group drawn in its parent's stack (no effects, no artboard, not isolated as a
  // clipping base) with Blend If or a channel restriction is drawn isolated, as Normal
  // (composite/compositor.ts drawGroup): the same drawing only when everything in it is Normal
  // and nothing adjusts or knocks out.
  if (node.type === 'Group' && node.blendMode === 'pass through' && !effects && !node.artboard && !isBase && !plainInside(node)) {
    if (node.blendIf) out.push('Blend If on a pass-through group');
    if (node.excludedChannels?.length) out.push('channel restrictions on a pass-through group');
  }
  // "Blend Clipped Layers as Group" off: each clipped layer blends with its own mode onto the
  // canvas inside the base's shape (composite/compositor.ts drawClippedApart). Not for a group base, nor a base
  // with effects (where its interior effects go is not known): there it is drawn as if on, which
  // differs as soon as a mode or the base's opacity is not plain.
  if (node.blendClipped === false && isBase && !node.adjustment && (node.type === 'Group' || effects)) {
    if (!normal(node.blendMode) || node.opacity < 1 || clipped.some((c) => !normal(c.blendMode))) {
      out.push('"Blend Clipped Layers as Group" turned off');
    }
  }
  // "Transparency Shapes Layer" off: effects (and knockouts) fill the whole layer, not its shape.
  // Drawn for layers (composite/compositor.ts wholeLayerShape); a group's or a clipping base's are not.
  if (node.transparencyShapes === false && (node.type === 'Group' || isBase) && (effects || node.knockout)) {
    out.push('"Transparency Shapes Layer" turned off');
  }
  // "Vector Mask Hides Effects" on a shape layer: its path is baked into its pixels, so the
  // unmasked layer (its fill everywhere) the effects would come from is not at hand.
  const vm = node.vectorMask;
  if (vm?.hidesEffects && !vm.disabled && effects && node.type === 'Shape') {
    out.push('"Vector Mask Hides Effects" on a shape layer');
  }
  out.push(...effectsBeyondPhotoshop(node));
  return out;
}

/**
 * The largest values Photoshop's Layer Style dialog lets an effect take (px): sizes 250, a bevel's
 * soften 16, a shadow's distance 30,000 (a satin's distance, an offset like a shadow's, is drawn
 * at any length: test/engine/composite/fuzz-session11.test.ts). Photoshop never writes more; other
 * writers can, and a 30,000 px inner shadow blurred at that size held gigabytes at upload, a
 * 1,000 px emboss took 36 s on a 72 × 357 canvas (session 19 fuzz). Refused, not drawn.
 */
const MAX_EFFECT_PX = { size: 250, soften: 16, distance: 30_000 };

function effectsBeyondPhotoshop(node: LayerNode): string[] {
  const out: string[] = [];
  const px = (v: unknown) => (v && typeof v === 'object' && 'value' in v ? Number((v as { value: unknown }).value) : 0);
  for (const { key, name, effect: e } of sizedEffects(node)) {
    const over = (what: string, v: number, max: number) => {
      // NaN compares false: not a number Photoshop would write either.
      if (!(v <= max)) out.push(`${name} ${what} of ${v} px (Photoshop allows at most ${max} px)`);
    };
    over('size', px(e.size), MAX_EFFECT_PX.size);
    if (key === 'bevel') over('soften', px(e.soften), MAX_EFFECT_PX.soften);
    if (key === 'dropShadow' || key === 'innerShadow') over('distance', px(e.distance), MAX_EFFECT_PX.distance);
  }
  return out;
}
