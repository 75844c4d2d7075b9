import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { effectArrays, useEffectTileAreas } from '../../../src/engine/composite/effects';
import { seeded } from '../../../src/engine/composite/gradient';

/**
 * A spread shadow's or glow's pixel reads past the blur's reach (its matte's box maximum and
 * chamfer distance: effects.ts spreadReach), so tiles whose arrays reached only the blur's
 * reach past them were not the one-tile draw: 6 pixels moved by a level on a 5,000 × 3,750
 * preview when the tiles moved (020d7e3, reverted; session 22's review). Drawn in exact tiles,
 * random spread effects (sizes, spreads, offsets, odd boxes, layers over the canvas's edges, soft
 * and uneven alpha) come out the same in tiles a few dozen px wide as in one tile, every byte.
 */
const px = (value: number) => ({ units: 'Pixels' as const, value });

interface Case {
  psd: Uint8Array;
  scale: number;
  /** The farthest a spread pass reads (output px): read + spread. */
  far: number;
}

function makeCase(seed: number): Case {
  const rnd = seeded(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const W = int(200, 400);
  const H = int(200, 400);
  // The layer: soft, uneven blobs (peaks that differ, holes), or a hard box with soft corners;
  // anywhere from well inside to half off the canvas.
  const lw = int(Math.round(W * 0.5), Math.round(W * 0.95));
  const lh = int(Math.round(H * 0.5), Math.round(H * 0.95));
  const left = int(-lw / 2, W - lw / 2);
  const top = int(-lh / 2, H - lh / 2);
  const kind = int(0, 3);
  const fx = 5 + rnd() * 40;
  const fy = 5 + rnd() * 40;
  const data = new Uint8ClampedArray(lw * lh * 4);
  for (let y = 0; y < lh; y++) {
    for (let x = 0; x < lw; x++) {
      let a: number;
      if (kind === 0) {
        const v = 0.5 + 0.5 * Math.sin(x / fx) * Math.sin(y / fy) * Math.cos((x + y) / (3 * fx));
        const hole = (Math.floor(x / 17) + Math.floor(y / 13)) % 3 === 0 ? 0 : 1;
        a = 255 * v * v * hole;
      } else if (kind === 1) {
        a = 255 * Math.min(1, x / 4, y / 4, (lw - 1 - x) / 4, (lh - 1 - y) / 4);
      } else if (kind === 2) {
        a = ((x * 7 + y * 13) % 29) * 9 * (x > lw / 3 && y > lh / 4 ? 1 : 0.4);
      } else {
        // Dim noise with sparse bright dots: a box maximum an array's edge cuts falls far (the ratio
        // and so the spread's seeds then change: what tiles reaching the blur alone got wrong).
        a = rnd() < 0.004 ? 255 : int(4, 40);
      }
      data.set([int(0, 255), 90, 200, Math.round(Math.max(0, Math.min(255, a)))], (y * lw + x) * 4);
    }
  }
  // Mostly small beside the layer (many tiles each), now and then larger.
  const size = () => (rnd() < 0.8 ? int(2, 14) : int(15, 32));
  // High spreads half the time (a spread past half the size reads past the blur's reach).
  const choke = () => (rnd() < 0.6 ? int(50, 100) : int(1, 100));
  const colour = () => ({ r: int(0, 255), g: int(0, 255), b: int(0, 255) });
  const effects: LayerEffectsInfo = {};
  const sizes: Array<[number, number]> = [];
  const pick = rnd();
  if (pick < 0.6) {
    const [s, c] = [size(), choke()];
    sizes.push([s, c]);
    effects.dropShadow = [{ enabled: true, present: true, blendMode: 'multiply', color: colour(), opacity: 0.5 + rnd() / 2, size: px(s), choke: px(c), distance: px(int(0, 30)), angle: int(-180, 180), useGlobalLight: false }];
  }
  if (pick > 0.3) {
    const [s, c] = [size(), choke()];
    sizes.push([s, c]);
    effects.outerGlow = { enabled: true, present: true, blendMode: 'screen', color: colour(), opacity: 0.5 + rnd() / 2, size: px(s), choke: px(c), technique: 'softer', range: 0.5, noise: 0 } as LayerEffectsInfo['outerGlow'];
  }
  if (rnd() < 0.4) {
    const [s, c] = [size(), choke()];
    sizes.push([s, c]);
    effects.innerGlow = { enabled: true, present: true, blendMode: 'normal', color: colour(), opacity: 0.5 + rnd() / 2, size: px(s), choke: px(c), technique: 'softer', range: 0.5, source: rnd() < 0.5 ? 'edge' : 'center' } as LayerEffectsInfo['innerGlow'];
  }
  if (rnd() < 0.4) {
    const [s, c] = [size(), choke()];
    sizes.push([s, c]);
    effects.innerShadow = [{ enabled: true, present: true, blendMode: 'multiply', color: colour(), opacity: 0.5 + rnd() / 2, size: px(s), choke: px(c), distance: px(int(0, 20)), angle: int(-180, 180), useGlobalLight: false }];
  }
  const scale = [1, 1, 0.77, 1.6][int(0, 3)];
  // read = ceil(size) + 3, spread ≤ the size (whole document px, times the scale).
  const far = Math.max(...sizes.map(([s, c]) => Math.ceil(s * scale) + 3 + Math.ceil(Math.round((s * c) / 100) * scale)));
  const layer: Layer = { name: 'blobs', left, top, imageData: { width: lw, height: lh, data }, effects };
  const bg = { width: W, height: H, data: new Uint8ClampedArray(W * H * 4).fill(int(120, 240)) };
  const psd = writePsdUint8Array({ width: W, height: H, children: [{ name: 'Background', left: 0, top: 0, imageData: bg }, layer] }, { noBackground: false });
  return { psd, scale, far };
}

afterEach(() => useEffectTileAreas());

const SEEDS = 40;

describe('spread effects in tiles are the one-tile draw (issue 25 §1)', () => {
  it('random spread shadows and glows: every byte the same in tiles of a few px as in one tile', async () => {
    let tiled = 0;
    const moved: string[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { psd, scale, far } = makeCase(seed);
      const compiled = await compileTemplate(env.FILES, psd);
      useEffectTileAreas(2 ** 30, 2 ** 30, 8);
      clearEngineCaches();
      const one = await renderTemplate(env.FILES, compiled, { scale });
      // Tiles of 4–30 px for the farthest pass (wider for nearer ones), sized off its reach.
      const side = 2 * (far + 1) + 4 + ((seed * 7) % 27);
      useEffectTileAreas(side * side, side * side, 4);
      clearEngineCaches();
      effectArrays.tiles = 0;
      const cut = await renderTemplate(env.FILES, compiled, { scale });
      tiled += effectArrays.tiles;
      expect([cut.width, cut.height]).toEqual([one.width, one.height]);
      let differ = 0;
      for (let i = 0; i < one.data.length; i++) if (one.data[i] !== cut.data[i]) differ++;
      if (differ) moved.push(`seed ${seed} (scale ${scale}, far ${far}, ${effectArrays.tiles} tiles): ${differ} bytes`);
    }
    expect(moved).toEqual([]);
    // Many tiles were drawn (several a pass), not one each.
    expect(tiled).toBeGreaterThan(SEEDS * 8);
  }, 180_000);
});
