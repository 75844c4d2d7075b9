import { writePsdUint8Array, type AdjustmentLayer, type BlendMode, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { madeFixture } from '../../helpers/fixtures';
import { random, type Random } from './kit';

/**
 * Clipping masks stacked on groups and mixed with other clipping (made-clip-combos.psd, whose
 * composite test/fixtures/psd-made/make-i.mjs derives case by case), and random nestings of
 * groups, clipping and adjustment layers made with ag-psd: every valid combination renders (a
 * crash here is a 500 on a preview), at full size and scaled, whole and as a strip.
 */


describe('clipping masks mixed with groups and other clipping', () => {
  it('clipped to a group, several on a base in multiply, hidden base, adjustment in the stack, clipped group, group base, clipped pass-through group', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-clip-combos.psd'));
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const stored = (await loadStoredComposite(env.FILES, compiled))!;
    const off: string[] = [];
    for (let i = 0, p = 0; i < image.data.length; i += 4, p++) {
      const ours = [...image.data.subarray(i, i + 3)];
      const theirs = [...stored.subarray(i, i + 3)];
      if (ours.some((v, c) => Math.abs(v - theirs[c]) > 1)) off.push(`(${p % image.width}, ${Math.floor(p / image.width)}): ${ours} vs ${theirs}`);
    }
    expect(off.slice(0, 10)).toEqual([]);
  });
});


const W = 24;
const H = 16;
const MODES: BlendMode[] = ['normal', 'multiply', 'screen', 'overlay', 'difference', 'color dodge', 'hard mix', 'vivid light', 'luminosity', 'dissolve'];
const GROUP_MODES: BlendMode[] = ['pass through', 'pass through', 'normal', 'multiply', 'screen'];
const ADJUSTMENTS = (r: Random): AdjustmentLayer =>
  r.pick<() => AdjustmentLayer>([
    () => ({ type: 'invert' }),
    () => ({ type: 'posterize', levels: 2 + r.int(6) }),
    () => ({ type: 'threshold', level: 1 + r.int(254) }),
    () => ({ type: 'brightness/contrast', brightness: r.int(201) - 100, contrast: r.int(101) - 50, useLegacy: r.chance(0.5) }),
    () => ({ type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: r.int(361) - 180, saturation: r.int(201) - 100, lightness: r.int(201) - 100 } }),
    () => ({ type: 'levels', rgb: { shadowInput: r.int(60), highlightInput: 200 + r.int(56), shadowOutput: 0, highlightOutput: 255, midtoneInput: 0.5 + r.next() } }),
    () => ({ type: 'curves', rgb: [{ input: 0, output: 0 }, { input: 128, output: r.int(256) }, { input: 255, output: 255 }] }),
    () => ({ type: 'exposure', exposure: r.next() * 2 - 1, offset: 0, gamma: 1 }),
    () => ({ type: 'black & white' }),
    () => ({ type: 'photo filter', color: { r: 236, g: 138, b: 0 }, density: 0.25, preserveLuminosity: true }),
  ])();

function pixels(r: Random, w = W, h = H) {
  const [c1, c2] = [0, 1].map(() => [r.int(256), r.int(256), r.int(256)]);
  const alpha = r.pick([255, 255, 128, 0]);
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([...(x < w / 2 ? c1 : c2), y < h / 2 ? 255 : alpha], (y * w + x) * 4);
  return { width: w, height: h, data };
}

const quad = (points: number[][]) => ({
  open: false,
  operation: 'combine' as const,
  fillRule: 'even-odd' as const,
  knots: points.map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] })),
});

/**
 * Sometimes a layer mask (grey rectangle, black or white outside), opacity, clipping, hidden,
 * fill opacity, a drop shadow or a stroke, a vector mask, Blend If.
 */
function options(r: Random): Partial<Layer> {
  const o: Partial<Layer> = {};
  if (r.chance(0.3)) {
    const w = 2 + r.int(W - 2);
    const h = 2 + r.int(H - 2);
    const v = r.pick([0, 255, 128]);
    o.mask = { left: r.int(W - w + 1), top: r.int(H - h + 1), imageData: { width: w, height: h, data: new Uint8ClampedArray(w * h * 4).fill(v) }, defaultColor: r.pick([0, 255]) };
    for (let i = 3; i < w * h * 4; i += 4) o.mask.imageData!.data[i] = 255;
  }
  if (r.chance(0.3)) o.opacity = r.int(256) / 255;
  if (r.chance(0.35)) o.clipping = true;
  if (r.chance(0.1)) o.hidden = true;
  if (r.chance(0.15)) o.fillOpacity = r.int(256) / 255;
  const px = (value: number) => ({ units: 'Pixels' as const, value });
  if (r.chance(0.1)) o.effects = { dropShadow: [{ enabled: true, size: px(2), distance: px(2), angle: 30, color: { r: 0, g: 0, b: 0 }, opacity: 0.5 }] };
  else if (r.chance(0.1)) o.effects = { stroke: [{ enabled: true, size: px(2), position: r.pick(['inside', 'outside', 'center'] as const), fillType: 'color', color: { r: 255, g: 0, b: 0 }, opacity: 1 }] };
  if (r.chance(0.1)) o.vectorMask = { paths: [quad([[2, 2], [20, 3], [18, 14], [3, 12]])] };
  if (r.chance(0.1)) o.blendingRanges = { compositeGrayBlendSource: [0, 40, 200, 255], compositeGraphBlendDestinationRange: [0, 0, 255, 255], ranges: [] };
  return o;
}

function layer(r: Random, depth: number, i: number): Layer {
  const kind = depth > 2 ? r.pick(['pixels', 'adjustment']) : r.pick(['pixels', 'pixels', 'adjustment', 'adjustment', 'group', 'fill']);
  const name = `${kind} ${depth}.${i}`;
  if (kind === 'group') {
    const n = r.int(5);
    const group: Layer = { name, blendMode: r.pick(GROUP_MODES), ...options(r), children: Array.from({ length: n }, (_, j) => layer(r, depth + 1, j)) };
    // Blend If on a pass-through group is not drawn, so upload refuses it (compiled/unsupported.ts).
    if (group.blendMode === 'pass through') delete group.blendingRanges;
    return group;
  }
  if (kind === 'adjustment') return { name, adjustment: ADJUSTMENTS(r), blendMode: r.chance(0.2) ? r.pick(MODES) : 'normal', ...options(r) };
  const w = 4 + r.int(W - 4);
  const h = 4 + r.int(H - 4);
  const base: Layer = { name, left: r.int(W - w + 1), top: r.int(H - h + 1), imageData: pixels(r, w, h), blendMode: r.pick(MODES), ...options(r) };
  if (kind === 'fill') base.vectorFill = { type: 'color', color: { r: r.int(256), g: r.int(256), b: r.int(256) } };
  return base;
}

describe('random nestings of groups, clipping and adjustments', () => {
  it.each(Array.from({ length: 40 }, (_, i) => 1000 + i))('seed %i renders, whole, scaled and as a strip', async (seed) => {
    const r = random(seed);
    const children: Layer[] = [{ name: 'bg', left: 0, top: 0, imageData: pixels(r) }];
    for (let i = 0, n = 2 + r.int(5); i < n; i++) children.push(layer(r, 0, i));
    const compiled = await compileTemplate(env.FILES, writePsdUint8Array({ width: W, height: H, children }));
    for (const scale of [1, 0.5, 1.5]) {
      const image = await renderTemplate(env.FILES, compiled, { scale });
      expect(image.data.length).toBe(image.width * image.height * 4);
    }
    const strip = await renderTemplate(env.FILES, compiled, { scale: 1, region: { top: 5, bottom: 11 } });
    expect(strip.height).toBe(6);
  });
});
