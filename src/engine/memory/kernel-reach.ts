/**
 * How far a template's kernels read, in document px: its layer effects' blurs and spreads and its
 * masks' feathers. Apart from effect-reach.ts (which needs the effect tiles' size) so that the
 * memory budget can ask it without importing the compositor.
 */
import { effectOn } from '../composite/pattern';
import type { LayerNode } from '../types';

/** The effects whose size reaches past the layer, by their key in ag-psd's effects, with the names errors give them. */
const EFFECT_NAMES: Record<string, string> = {
  dropShadow: 'drop shadow',
  innerShadow: 'inner shadow',
  outerGlow: 'outer glow',
  innerGlow: 'inner glow',
  bevel: 'bevel',
  satin: 'satin',
  stroke: 'stroke',
};

/** Each effect of `node` that is on, among EFFECT_NAMES (one key may hold several, as strokes do). */
export function* sizedEffects(node: LayerNode): Generator<{ key: string; name: string; effect: Record<string, unknown> }> {
  const fx = node.effects as Record<string, unknown> | undefined;
  if (!fx || fx.disabled) return;
  for (const [key, name] of Object.entries(EFFECT_NAMES)) {
    const value = fx[key];
    for (const effect of (Array.isArray(value) ? value : value ? [value] : []) as Array<Record<string, unknown>>) {
      if (effectOn(effect)) yield { key, name, effect };
    }
  }
}

const px = (v: unknown) => (v && typeof v === 'object' && 'value' in v ? Number((v as { value: unknown }).value) || 0 : 0);

/**
 * The farthest an effect of `node` reads, in document px, and which: a blur or spread over its
 * size (a shadow's or a satin's distance only moves what it reads), a bevel's size and soften
 * (and a stroke emboss's stroke).
 */
export function effectKernel(node: LayerNode): { effect: string; px: number } | null {
  let worst: { effect: string; px: number } | null = null;
  const effects = [...sizedEffects(node)];
  const strokeSize = Math.max(0, ...effects.filter((e) => e.key === 'stroke').map((s) => px(s.effect.size)));
  for (const { key, name, effect: e } of effects) {
    let reach = px(e.size);
    if (key === 'bevel') reach += px(e.soften) + (e.style === 'stroke emboss' ? strokeSize : 0);
    if (!worst || reach > worst.px) worst = { effect: name, px: reach };
  }
  return worst;
}

/**
 * The farthest any layer's kernels read, in document px: its effects (effectKernel) and the
 * feather of its pixel and vector masks. A layer the template hides (or a group it hides) is never
 * drawn unless the request shows it: with `showsHidden` false (mayShowHidden) it is left out.
 * Kept per layer tree (a compiled template's is made once).
 */
export function templateReach(layers: LayerNode[], showsHidden = true): number {
  const kept = showsHidden ? reachOfTree : reachOfShown;
  let reach = kept.get(layers);
  if (reach !== undefined) return reach;
  reach = 0;
  const walk = (nodes: LayerNode[]) => {
    for (const node of nodes) {
      if (!showsHidden && node.visible === false) continue;
      reach = Math.max(reach!, effectKernel(node)?.px ?? 0, node.mask?.feather ?? 0, node.vectorMask?.feather ?? 0);
      if (node.children) walk(node.children);
    }
  };
  walk(layers);
  kept.set(layers, reach);
  return reach;
}
const reachOfTree = new WeakMap<LayerNode[], number>();
const reachOfShown = new WeakMap<LayerNode[], number>();

/**
 * Whether a request's `data` (not validated yet) could show a layer the template hides: a command
 * with `visible` other than false, or a switch (personalise/overrides.ts buildOverrides).
 * Anything unreadable counts as could.
 */
export function mayShowHidden(data: unknown): boolean {
  if (data === undefined || data === null) return false;
  if (typeof data !== 'object') return true;
  return Object.values(data).some((command) => {
    if (!command || typeof command !== 'object') return true;
    const { type, visible } = command as { type?: unknown; visible?: unknown };
    return type === 'switch' || (visible !== undefined && visible !== false);
  });
}
