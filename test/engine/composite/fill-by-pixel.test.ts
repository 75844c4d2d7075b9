import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { useEffectTileAreas, useFillByPixel } from '../../../src/engine/composite/effects';
import { blackToWhiteOverlay } from './gradient-overlay-fixture';
import { bytesMovedByBands, maskByKind, softLayerCase } from './kit';

/**
 * Issue 25 §1: where a layer's fill is read pixel by pixel (its pixels and masks; not a vector
 * mask running off the canvas, whose path is drawn over the rectangle asked), an inner glow's or
 * inner shadow's fill is read over its tile alone, not over the tile's arrays and cut, and a
 * gradient overlay is drawn in bands of rows (three arrays of a 6,000 px band at once before). The
 * pixels are those of the reads over the whole rectangle, every byte.
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });

function makeCase(seed: number): { psd: Uint8Array; scale: number } {
  const { rnd, int, W, H, lw, lh, left, top, data } = softLayerCase(seed);
  const colour = () => ({ r: int(0, 255), g: int(0, 255), b: int(0, 255) });
  const effects: LayerEffectsInfo = { ...blackToWhiteOverlay(int(0, 359)) };
  const g = effects.gradientOverlay![0]!;
  g.type = (['linear', 'radial', 'angle', 'reflected', 'diamond'] as const)[int(0, 4)];
  g.blendMode = rnd() < 0.5 ? 'normal' : 'multiply';
  g.opacity = 0.4 + rnd() * 0.6;
  g.scale = 0.3 + rnd() * 1.2;
  g.align = rnd() < 0.7;
  if (rnd() < 0.7) {
    effects.innerGlow = { enabled: true, present: true, blendMode: 'normal', color: colour(), opacity: 0.5 + rnd() / 2, size: px(int(2, 30)), choke: px(int(0, 60)), technique: rnd() < 0.7 ? 'softer' : 'precise', range: 0.5, source: rnd() < 0.5 ? 'edge' : 'center' } as LayerEffectsInfo['innerGlow'];
  }
  if (rnd() < 0.7) {
    effects.innerShadow = [{ enabled: true, present: true, blendMode: 'multiply', color: colour(), opacity: 0.5 + rnd() / 2, size: px(int(2, 30)), choke: px(int(0, 40)), distance: px(int(0, 25)), angle: int(-180, 180), useGlobalLight: false }];
  }
  const layer: Layer = { name: 'soft', left, top, imageData: { width: lw, height: lh, data }, effects };
  maskByKind(layer, seed % 3, int, rnd);
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(int(120, 240)) };
  const psd = writePsdUint8Array({ width: W, height: H, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
  return { psd, scale: [1, 0.77, 1.6][seed % 3]! };
}

afterEach(() => {
  useFillByPixel();
  useEffectTileAreas();
});

const SEEDS = 24;

describe('fills read by pixel and overlays in bands of rows (issue 25 §1)', () => {
  it('random inner glows, inner shadows and gradient overlays: every byte the same as the reads over the whole rectangle', async () => {
    const moved: string[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { psd, scale } = makeCase(seed);
      const compiled = await compileTemplate(env.FILES, psd);
      moved.push(...(await bytesMovedByBands(compiled, scale, 700 + seed * 37, seed)));
    }
    expect(moved).toEqual([]);
  }, 180_000);
});
