import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { useEffectTileAreas, useFillByPixel } from '../../../src/engine/composite/effects';
import { seeded } from '../../../src/engine/composite/gradient';
import { maskByKind } from './kit';

/**
 * Pattern overlays and pattern strokes drawn in bands of rows give
 * every byte of the draw over the whole rectangle, for random patterns (with alpha, 1 × 1, odd
 * sizes), scales (shrunk: n × n samples; enlarged), angles, phases, linked or not, blend modes,
 * layers past the canvas, pixel and vector masks, Fill 0, clipped layers, and bands as small as a
 * row. The stored patterns are given alpha (ag-psd drops it when reading a PSD).
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });

function makeCase(seed: number): { psd: Uint8Array; scale: number; tile: Uint8Array } {
  const rnd = seeded(seed * 7919);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const W = int(90, 230);
  const H = int(90, 230);
  const tw = [1, 2, 7, 16, 23][int(0, 4)]!;
  const th = [1, 3, 5, 16, 19][int(0, 4)]!;
  const tile = new Uint8Array(tw * th * 4);
  const opaque = rnd() < 0.4;
  for (let i = 0; i < tile.length; i++) tile[i] = (i & 3) === 3 ? (opaque ? 255 : [0, 60, 255, 200, 255][int(0, 4)]!) : int(0, 255);
  const ref = { name: 'p', id: `review-bands-0000-0000-${String(seed).padStart(12, '0')}` };
  const patterns = [{ ...ref, x: 0, y: 0, bounds: { x: 0, y: 0, w: tw, h: th }, data: tile }];
  const layers: Layer[] = [];
  const count = int(1, 3);
  for (let n = 0; n < count; n++) {
    const lw = int(Math.round(W * 0.3), Math.round(W * 1.1));
    const lh = int(Math.round(H * 0.3), Math.round(H * 1.1));
    const left = int(-lw / 3, W - (2 * lw) / 3);
    const top = int(-lh / 3, H - (2 * lh) / 3);
    const data = new Uint8ClampedArray(lw * lh * 4);
    const f = 3 + rnd() * 25;
    const hard = rnd() < 0.3;
    for (let y = 0; y < lh; y++) {
      for (let x = 0; x < lw; x++) {
        const v = 0.5 + 0.5 * Math.sin(x / f) * Math.cos(y / (f * 0.6));
        data.set([int(0, 255), 90, 200, hard ? 255 : Math.round(255 * Math.min(1, v * 1.3))], (y * lw + x) * 4);
      }
    }
    const effects: LayerEffectsInfo = {};
    if (rnd() < 0.85) {
      effects.patternOverlay = {
        enabled: true,
        present: true,
        blendMode: (['normal', 'multiply', 'screen', 'overlay', 'difference'] as const)[int(0, 4)],
        opacity: rnd() < 0.3 ? 1 : 0.2 + rnd() * 0.8,
        scale: [1, 0.37, 0.125, 2.5, 0.8, 1.3][int(0, 5)],
        pattern: ref,
        phase: { x: int(-20, 20) + (rnd() < 0.3 ? 0.5 : 0), y: int(-20, 20) },
        align: rnd() < 0.6,
        ...(rnd() < 0.35 ? { angle: [30, -45, 90, 12.5][int(0, 3)] } : {}),
      } as LayerEffectsInfo['patternOverlay'];
    }
    if (rnd() < 0.5) {
      effects.stroke = [
        {
          enabled: true,
          present: true,
          position: (['inside', 'outside', 'center'] as const)[int(0, 2)],
          fillType: 'pattern',
          blendMode: rnd() < 0.5 ? 'normal' : 'multiply',
          opacity: 0.5 + rnd() / 2,
          size: px(int(1, 14)),
          pattern: { ...ref, phase: { x: int(-5, 5), y: int(-5, 5) } },
        } as never,
      ];
    }
    if (rnd() < 0.3) effects.gradientOverlay = [{ enabled: true, present: true, blendMode: 'multiply', opacity: 0.5, type: 'linear', angle: int(0, 359), scale: 1, align: true, gradient: { name: 'g', type: 'solid', smoothness: 1, colorStops: [{ color: { r: 200, g: 40, b: 60 }, location: 0, midpoint: 50 }, { color: { r: 40, g: 60, b: 200 }, location: 1, midpoint: 50 }], opacityStops: [{ opacity: 1, location: 0, midpoint: 50 }, { opacity: 1, location: 1, midpoint: 50 }] } } as never];
    if (rnd() < 0.3) effects.dropShadow = [{ enabled: true, present: true, blendMode: 'multiply', color: { r: 0, g: 0, b: 0 }, opacity: 0.6, size: px(int(2, 20)), choke: px(int(0, 30)), distance: px(int(0, 15)), angle: int(-180, 180), useGlobalLight: false } as never];
    const layer: Layer = { name: `l${n}`, left, top, imageData: { width: lw, height: lh, data }, effects, ...(rnd() < 0.2 ? { fillOpacity: 0 } : {}), ...(n > 0 && rnd() < 0.3 ? { clipping: true } : {}) };
    maskByKind(layer, int(0, 2), int, rnd, { least: 10, spread: 0.4 });
    layers.push(layer);
  }
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(int(100, 240)) };
  const psd = writePsdUint8Array({ width: W, height: H, patterns, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, ...layers] } as never, { noBackground: false });
  return { psd, scale: [1, 0.77, 1.6, 0.31, 0.5][seed % 5]!, tile };
}

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

afterEach(() => {
  useFillByPixel();
  useEffectTileAreas();
});

const SEEDS = 30;

describe('pattern overlays and strokes in bands of rows (issue 25 §1, patterns with alpha)', () => {
  it('random patterns: every byte the same as the draw over the whole rectangle, bands of 1 row to a few', async () => {
    const moved: string[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { psd, scale, tile } = makeCase(seed);
      const compiled = await compileTemplate(env.FILES, psd);
      // ag-psd reads a pattern's RGB alone (its alpha channel, index 25, is skipped: every pattern
      // compiles opaque); the stored pattern is given the tile's alpha, so alpha patterns are drawn.
      for (const p of compiled.patterns ?? []) await env.FILES.put(p.key, await deflateRaw(tile));
      for (const tiles of [[48 * 48, 48 * 48, 4], [2 ** 30, 2 ** 30, 8]] as const) {
        useEffectTileAreas(...tiles);
        useFillByPixel(false);
        clearEngineCaches();
        const whole = await renderTemplate(env.FILES, compiled, { scale });
        for (const band of [1, 97 + seed * 13]) {
          useFillByPixel(true, band);
          clearEngineCaches();
          const banded = await renderTemplate(env.FILES, compiled, { scale });
          expect([banded.width, banded.height]).toEqual([whole.width, whole.height]);
          let differ = 0;
          for (let i = 0; i < whole.data.length; i++) if (whole.data[i] !== banded.data[i]) differ++;
          if (differ) moved.push(`seed ${seed} (tiles ${tiles[0]}, band ${band}): ${differ} bytes`);
        }
      }
    }
    expect(moved).toEqual([]);
  }, 300_000);
});
