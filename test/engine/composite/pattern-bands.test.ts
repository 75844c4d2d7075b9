import type { Layer, LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { useEffectTileAreas, useFillByPixel } from '../../../src/engine/composite/effects';
import { writeShapeBurst } from '../psd/kit';
import { bytesMovedByBands, maskByKind, softLayerCase } from './kit';

/**
 * Issue 25 §1: a pattern overlay is drawn in bands of rows as the gradient overlay is
 * (eachOverlayBand), and a pattern or gradient stroke (not a shapeburst, not in a mode of its own)
 * makes its colours in bands of the tile's rows, its coverage and distances over the tile whole. A
 * pattern's colours are each pixel's from its place alone (tilePattern, turned or not, shrunk or
 * not), so every byte is that of the tiles drawn whole: random layers (plain, pixel-masked,
 * vector-masked, on and off the canvas), patterns of any size and transparency at random scales,
 * angles and phases, strokes of every position, fill and a few modes, at scales 1, 0.77 and 1.6.
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });
const ID = 'fe3e3000-0000-4000-8000-00000000b0d5';

function makeCase(seed: number): { psd: Uint8Array; scale: number } {
  const { rnd, int, W, H, lw, lh, left, top, data } = softLayerCase(seed);
  const tw = int(1, 23);
  const th = int(1, 19);
  const tile = new Uint8Array(tw * th * 4);
  const opaque = rnd() < 0.4;
  for (let i = 0; i < tile.length; i++) tile[i] = (i & 3) === 3 && opaque ? 255 : int(0, 255);
  const ref = { name: 'tile', id: ID };
  const mode = () => (['normal', 'normal', 'multiply', 'screen', 'dissolve'] as const)[int(0, 4)];
  const effects: LayerEffectsInfo = {};
  if (rnd() < 0.8) {
    effects.patternOverlay = {
      enabled: true,
      present: true,
      blendMode: mode(),
      opacity: 0.4 + rnd() * 0.6,
      pattern: ref,
      scale: [0.37, 0.5, 1, 1.3, 0.8][int(0, 4)]!,
      align: rnd() < 0.7,
      phase: { x: int(-20, 20), y: int(-20, 20) },
      ...(rnd() < 0.4 ? { angle: int(-180, 180) } : {}),
    } as LayerEffectsInfo['patternOverlay'];
  }
  const strokes = [];
  for (let k = int(rnd() < 0.2 ? 0 : 1, 2); k > 0; k--) {
    const kind = int(0, 3);
    const base = { enabled: true, present: true, position: (['inside', 'outside', 'center'] as const)[int(0, 2)], blendMode: rnd() < 0.25 ? mode() : 'normal', opacity: 0.5 + rnd() / 2, size: px(int(1, 24)) };
    if (kind <= 1) strokes.push({ ...base, fillType: 'pattern', pattern: { ...ref, phase: { x: int(-9, 9), y: int(-9, 9) } } });
    else if (kind === 2) {
      const style = (['linear', 'radial', 'reflected', 'shapeburst'] as const)[int(0, 3)];
      strokes.push({
        ...base,
        fillType: 'gradient',
        gradient: {
          type: 'solid',
          name: 'g',
          smoothness: 1,
          style,
          angle: int(-180, 180),
          colorStops: [0, 1].map((location) => ({ color: { r: int(0, 255), g: int(0, 255), b: int(0, 255) }, location, midpoint: 0.5 })),
          opacityStops: [0, 1].map((location) => ({ opacity: 0.3 + rnd() * 0.7, location, midpoint: 0.5 })),
        },
      });
    } else strokes.push({ ...base, fillType: 'color', color: { r: int(0, 255), g: int(0, 255), b: int(0, 255) } });
  }
  if (strokes.length) effects.stroke = strokes as LayerEffectsInfo['stroke'];
  const layer: Layer = { name: 'patterned', left, top, imageData: { width: lw, height: lh, data }, effects, referencePoint: { x: left + int(0, 9), y: top + int(0, 9) } };
  maskByKind(layer, seed % 3, int, rnd);
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(int(120, 240)) };
  // writeShapeBurst: ag-psd cannot write a Shape Burst stroke (the others go through as they are).
  const psd = writeShapeBurst({ width: W, height: H, patterns: [{ ...ref, x: 0, y: 0, bounds: { x: 0, y: 0, w: tw, h: th }, data: tile }], children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] } as never);
  return { psd, scale: [1, 0.77, 1.6][seed % 3]! };
}

afterEach(() => {
  useFillByPixel();
  useEffectTileAreas();
});

const SEEDS = 30;

describe('pattern overlays and pattern and gradient strokes in bands of rows (issue 25 §1)', () => {
  it('random patterns and strokes: every byte that of the tiles drawn whole', async () => {
    const moved: string[] = [];
    let drawn = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { psd, scale } = makeCase(seed);
      const compiled = await compileTemplate(env.FILES, psd);
      moved.push(...(await bytesMovedByBands(compiled, scale, 500 + seed * 37, seed)));
      drawn += 2;
    }
    expect(drawn).toBe(2 * SEEDS);
    expect(moved).toEqual([]);
  }, 300_000);
});
