import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { madeFixture } from '../../helpers/fixtures';
import { blackToWhiteOverlay } from './gradient-overlay-fixture';

/**
 * How far a gradient overlay spans on a box that is not square (issue 25 §2, docs/fidelity.md
 * "Gradient geometry on boxes that are not square"). The rule, from Adobe's own Photoshop
 * Generator code (adobe-research/svgObjectModelGenerator, svgOMGeneratorUtils.js
 * computeLinearGradientCoordinates and toGradient), from libpsd's gradient overlay (Graphest,
 * 2006) and from Photoshop's composite of psdtools-layer-effects-all.psd (87° over 600 × 60): the
 * line through the centre of the box along the angle, out to the nearer pair of the box's edges,
 * times the scale about the centre; not the box's shorter side at every angle (psd2svg), not its
 * projection corner to corner. A reflected gradient runs that line's half from the centre (the
 * start colour) to either end (the end colour). The linear ends then sit in the pixels they fall
 * in (docs/effects.md, "The linear ramp's ends").
 */

type Style = 'linear' | 'reflected';
type Box = { left: number; top: number; w: number; h: number };

/** A black → white overlay on an opaque box in a white canvas 8 px larger each way. */
function documentWith(box: Box, angle: number, style: Style, scale: number): { psd: Uint8Array } {
  const pixels = { width: box.w, height: box.h, data: new Uint8ClampedArray(box.w * box.h * 4) };
  for (let i = 0; i < box.w * box.h; i++) pixels.data.set([255, 0, 0, 255], i * 4);
  const fx = blackToWhiteOverlay(angle);
  Object.assign(fx.gradientOverlay![0], { type: style, scale });
  const layer: Layer = { name: 'box', left: box.left, top: box.top, imageData: pixels, effects: fx };
  const W = box.left + box.w + 8;
  const H = box.top + box.h + 8;
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(255) };
  return { psd: writePsdUint8Array({ width: W, height: H, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false }) };
}

// The default ramp (smoothness 100 %, sampled at 4096 steps) at t, in 8-bit levels.
const eased = (t: number) => {
  const u = Math.round(Math.max(0, Math.min(1, t)) * 4095) / 4095;
  return Math.round((u / 2 + (3 * u * u) / 2 - u * u * u) * 255);
};

/** The rule above, worked out independently of the engine: each pixel's place t on the ramp. */
function expectedT(box: Box, angle: number, style: Style, scale: number) {
  const rad = (angle * Math.PI) / 180;
  const dx = Math.cos(rad);
  const dy = -Math.sin(rad);
  const cx = box.left + box.w / 2;
  const cy = box.top + box.h / 2;
  // Out to the nearer pair of edges along the angle.
  const across = Math.min(Math.abs(dx) > 1e-9 ? box.w / Math.abs(dx) : Infinity, Math.abs(dy) > 1e-9 ? box.h / Math.abs(dy) : Infinity);
  const half = (across * scale) / 2;
  const pixel = (v: number) => Math.floor(v + 1e-9) + 0.5;
  if (style === 'reflected') {
    // The centre half a pixel right and down, the end at the centre of the pixel it falls in
    // (photocraft's layout, gradient-geometry.ts reflectedEnds).
    const sx = cx + 0.5;
    const sy = cy + 0.5;
    const ex = pixel(cx + half * dx) - sx;
    const ey = pixel(cy + half * dy) - sy;
    return (x: number, y: number) => Math.abs(((x + 0.5 - sx) * ex + (y + 0.5 - sy) * ey) / (ex * ex + ey * ey));
  }
  const x0 = pixel(cx - half * dx);
  const y0 = pixel(cy - half * dy);
  const ex = pixel(cx + half * dx) - x0;
  const ey = pixel(cy + half * dy) - y0;
  return (x: number, y: number) => ((x + 0.5 - x0) * ex + (y + 0.5 - y0) * ey) / (ex * ex + ey * ey);
}

/** The largest difference (levels) over the box between the render and the rule. */
async function worst(box: Box, angle: number, style: Style = 'linear', scale = 1) {
  const { psd } = documentWith(box, angle, style, scale);
  const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, psd), { scale: 1 });
  const t = expectedT(box, angle, style, scale);
  let most = 0;
  for (let y = box.top; y < box.top + box.h; y++) {
    for (let x = box.left; x < box.left + box.w; x++) most = Math.max(most, Math.abs(frame.data[(y * frame.width + x) * 4] - eased(t(x, y))));
  }
  const at = (x: number, y: number) => frame.data[(y * frame.width + x) * 4];
  return { most, at };
}

describe('gradient span on boxes that are not square', () => {
  it('at 0° a wide box spans its whole width, not its height', async () => {
    // 48 × 8: black at the box's first column, half-way 24 px in. The shorter side (psd2svg's
    // rule) would put the whole ramp within 8 px of the middle.
    const r = await worst({ left: 4, top: 4, w: 48, h: 8 }, 0);
    expect(r.most).toBeLessThanOrEqual(1);
    expect(r.at(4, 6)).toBe(0);
    expect(r.at(28, 6)).toBe(128);
  });

  it('at 90° a tall box spans its whole height, bottom to top', async () => {
    // 8 × 48: the end colour (white) reached at the top row, the start (black) below the bottom.
    const r = await worst({ left: 4, top: 4, w: 8, h: 48 }, 90);
    expect(r.most).toBeLessThanOrEqual(1);
    expect(r.at(6, 4)).toBe(255);
    expect(r.at(6, 28)).toBe(128);
  });

  it('at 30° on a wide box the line ends at the nearer edges (top and bottom): 20 px, not 57 or 10', async () => {
    // 60 × 10: 10 / sin 30° = 20 < 60 / cos 30° = 69.3. The projection corner to corner would be
    // 60 cos 30° + 10 sin 30° = 57 px; the shorter side 10 px.
    const r = await worst({ left: 4, top: 4, w: 60, h: 10 }, 30);
    expect(r.most).toBeLessThanOrEqual(1);
    // On the middle row the ramp runs 20 / cos 30° = 23 px: black 12 px left of the centre, white 12 px right.
    expect(r.at(34 - 13, 9)).toBe(0);
    expect(r.at(34 + 13, 9)).toBe(255);
  });

  it('at 60° on a wide box too: 10 / sin 60° = 11.5 px along the line', async () => {
    const r = await worst({ left: 4, top: 4, w: 60, h: 10 }, 60);
    expect(r.most).toBeLessThanOrEqual(1);
  });

  it('Scale above 100 % stretches the span about the centre: 150 % of 40 px is 60 px', async () => {
    // The ends 10 px beyond each side: the box's first column already at t = 10 / 60.
    const r = await worst({ left: 12, top: 4, w: 40, h: 8 }, 0, 'linear', 1.5);
    expect(r.most).toBeLessThanOrEqual(1);
    expect(r.at(12, 6)).toBe(eased(10 / 60));
    expect(r.at(32, 6)).toBe(128);
  });

  it('a reflected gradient starts at the centre and reaches the end colour at the nearer edges', async () => {
    // 48 × 8 at 0°: black in the middle, white at both sides (the half-span 24 px); at 90° on the
    // same box the half-span is 4 px (half the height).
    const wide = await worst({ left: 4, top: 4, w: 48, h: 8 }, 0, 'reflected');
    expect(wide.most).toBeLessThanOrEqual(1);
    expect(wide.at(27, 6)).toBeLessThan(8);
    expect(wide.at(4, 6)).toBeGreaterThan(245);
    expect(wide.at(51, 6)).toBeGreaterThan(245);
    const across = await worst({ left: 4, top: 4, w: 48, h: 8 }, 90, 'reflected');
    expect(across.most).toBeLessThanOrEqual(1);
  });

  it('made-ab-gradient-span.psd (make-ab.mjs: the five cases above in one document) renders to its merged image', async () => {
    // Its merged image is worked out from the rule in make-ab.mjs; what is left is the 4096-sample
    // ramp against the exact curve (a level at most).
    const compiled = await compileTemplate(env.FILES, await madeFixture('made-ab-gradient-span.psd'));
    const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const stored = (await loadStoredComposite(env.FILES, compiled))!;
    let most = 0;
    for (let i = 0; i < image.data.length; i += 4) for (let c = 0; c < 3; c++) most = Math.max(most, Math.abs(image.data[i + c] - stored[i + c]));
    expect(most).toBeLessThanOrEqual(1);
  });
});
