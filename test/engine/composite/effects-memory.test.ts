import { writePsdUint8Array, type Layer, type LayerEffectsInfo } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { useShapeAlphaApart } from '../../../src/engine/composite/compositor';
import { precise } from '../../../src/engine/composite/effects';
import { bilinearMove, blur, chamferDistance, gaussianBlurInPlace, gaussianReach, movedBlur, signedDistance } from '../../../src/engine/composite/morphology';
import { coverage, flatten, pathComponents, rasterizeVectorMask } from '../../../src/engine/composite/vector';
import type { Bounds, VectorMask } from '../../../src/engine/types';
import { firstDifference } from '../../helpers/pixels';
import { compileOrRefused, random, type Random } from './kit';

/**
 * Issue 25 §1 (fx-memory2): the print PDF of a 10,000² template with far-reaching effects held
 * arrays of (strip + 2 × reach) × 10,000 px at once. Each way of holding fewer is held here to
 * the one it replaces, to the bit: the signed distance with one seed map at a time and no
 * Float32 distances kept (nearestSeed), the distances (signed, chamfer) over a tile of their
 * arrays only, the precise glow over its distances, a one-component vector mask in one float
 * plane and, above a million pixels, in bands of rows, the moved shadow moved and blurred over
 * its own array above the WASM passes' size, and a
 * masked layer's shape read from its alpha alone with its RGBA cut to the target (compositor.ts
 * withEffects) on random documents, whole and in strips.
 */

// The signed distance as it was (two seed maps of Float32 + Int32, the uncovered side's array).
const INF = 1e20;
const EMPTY = 0.02;
function envelopeRef(f: Float64Array, out: Float64Array, v: Int32Array, z: Float64Array, len: number, arg: Int32Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -INF;
  z[1] = INF;
  for (let q = 1; q < len; q++) {
    let s = (f[q]! + q * q - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
    while (s <= z[k]!) {
      k--;
      s = (f[q]! + q * q - (f[v[k]!]! + v[k]! * v[k]!)) / (2 * q - 2 * v[k]!);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = INF;
  }
  k = 0;
  for (let q = 0; q < len; q++) {
    while (z[k + 1]! < q) k++;
    out[q] = (q - v[k]!) * (q - v[k]!) + f[v[k]!]!;
    arg[q] = v[k]!;
  }
}
function nearestSeedRef(seed: (i: number) => boolean, w: number, h: number) {
  const n = Math.max(w, h);
  const [f, out, z] = [new Float64Array(n), new Float64Array(n), new Float64Array(n + 1)];
  const [v, arg, v2] = [new Int32Array(n), new Int32Array(n), new Int32Array(n)];
  const d2 = new Float32Array(w * h);
  const at = new Int32Array(w * h);
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) f[y] = seed(y * w + x) ? 0 : INF;
    envelopeRef(f, out, v, z, h, arg);
    for (let y = 0; y < h; y++) {
      d2[y * w + x] = out[y]!;
      at[y * w + x] = arg[y]!;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) f[x] = d2[y * w + x]!;
    envelopeRef(f, out, v, z, w, arg);
    for (let x = 0; x < w; x++) v2[x] = at[y * w + x]!;
    for (let x = 0; x < w; x++) {
      d2[y * w + x] = out[x]!;
      at[y * w + x] = out[x]! >= INF ? -1 : v2[arg[x]!]! * w + arg[x]!;
    }
  }
  return { d2, at };
}
function toSquareRef(i: number, s: number, w: number): number {
  const dx = Math.max(0, Math.abs((i % w) - (s % w)) - 0.5);
  const dy = Math.max(0, Math.abs(Math.floor(i / w) - Math.floor(s / w)) - 0.5);
  return Math.sqrt(dx * dx + dy * dy);
}
function signedDistanceRef(a: Float32Array, w: number, h: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) if (a[i]! > EMPTY && a[i]! < 1 - EMPTY) out[i] = 0.5 - a[i]!;
  const across = (c: Float32Array, sign: number) => {
    const any = nearestSeedRef((i) => c[i]! > EMPTY, w, h);
    const half = nearestSeedRef((i) => c[i]! >= 0.5, w, h);
    for (let i = 0; i < c.length; i++) {
      if (c[i]! > EMPTY) continue;
      const s = any.at[i]!;
      const q = half.at[i]!;
      const nearest = s < 0 ? 1e6 : c[s]! >= 1 - EMPTY ? toSquareRef(i, s, w) : Math.sqrt(any.d2[i]!) + 0.5 - c[s]!;
      out[i] = sign * (q < 0 ? nearest : Math.min(nearest, Math.sqrt(half.d2[i]!) + 0.5 - c[q]!));
    }
  };
  across(a, 1);
  across(a.map((v) => 1 - v), -1);
  return out;
}

/** Coverage fields: noise, soft discs, hard shapes, and values on the thresholds (0.02, 0.5, 0.98 and their neighbours). */
function field(r: Random, w: number, h: number, kind: number): Float32Array {
  const a = new Float32Array(w * h);
  const [cx, cy, rad] = [r.next() * w, r.next() * h, r.next() * Math.max(w, h) * 0.4];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      a[y * w + x] =
        kind === 0
          ? r.next()
          : kind === 1
            ? Math.max(0, Math.min(1, rad - Math.hypot(x - cx, y - cy)))
            : kind === 2
              ? r.chance(0.6) ? 0 : r.chance(0.5) ? 1 : r.next()
              : r.pick([0, 0, 0.02, 0.98, 1, 0.5, 0.0199999, 0.98000001, 0.49999, 0.020001]);
    }
  }
  return a;
}

const same = (a: ArrayLike<number>, b: ArrayLike<number>) => a.length === b.length && Array.prototype.every.call(a, (v: number, i: number) => Object.is(v, b[i]));

describe('fewer effect arrays at once, the same floats', () => {
  it('signedDistance (one seed map at a time, distances worked out again) gives the floats of two maps held with their distances', () => {
    const r = random(2513);
    for (let t = 0; t < 160; t++) {
      const big = t % 20 === 19;
      const w = 1 + r.int(big ? 420 : 48);
      const h = 1 + r.int(big ? 330 : 48);
      const a = field(r, w, h, t % 4);
      expect(same(signedDistance(a, w, h), signedDistanceRef(a, w, h)), `case ${t} (${w}×${h})`).toBe(true);
    }
  });

  it('signedDistance and chamferDistance over a part of the arrays give that part of the whole', () => {
    const r = random(808);
    for (let t = 0; t < 60; t++) {
      const big = t % 12 === 11; // above the WASM passes' size: the TypeScript chamfer
      const w = 1 + r.int(big ? 600 : 70);
      const h = 1 + r.int(big ? 480 : 70);
      const a = field(r, w, h, t % 4);
      const [left, top] = [r.int(w), r.int(h)];
      const to: Bounds = { left, top, right: left + 1 + r.int(w - left), bottom: top + 1 + r.int(h - top) };
      const cut = (f: Float32Array) => {
        const tw = to.right - to.left;
        const o = new Float32Array(tw * (to.bottom - to.top));
        for (let y = to.top; y < to.bottom; y++) o.set(f.subarray(y * w + to.left, y * w + to.right), (y - to.top) * tw);
        return o;
      };
      expect(same(signedDistance(a, w, h, to), cut(signedDistanceRef(a, w, h))), `signed ${t}`).toBe(true);
      expect(same(chamferDistance(a, w, h, to), cut(chamferDistance(a, w, h))), `chamfer ${t}`).toBe(true);
    }
  });

  it('a Gaussian over zeros before its values by more than its reach, and past the part read by more than it, gives that part of the whole (the feathered mask cut)', () => {
    const r = random(1999);
    for (let t = 0; t < 40; t++) {
      const sigma = r.pick([0.5, 0.6, 2.5, 6, 13.7, 25]);
      const R = gaussianReach(sigma);
      const [W, H] = [40 + r.int(260), 40 + r.int(200)];
      // Values (a mask less its default: signed) in a block; zero elsewhere.
      const b = { left: r.int(W), top: r.int(H), right: 0, bottom: 0 };
      b.right = b.left + 1 + r.int(W - b.left);
      b.bottom = b.top + 1 + r.int(H - b.top);
      const whole = new Float32Array(W * H);
      for (let y = b.top; y < b.bottom; y++) for (let x = b.left; x < b.right; x++) whole[y * W + x] = r.int(256) - r.pick([0, 255, 128]);
      // The part read, and the array cut as featheredMask cuts it.
      const p = { left: r.int(W), top: r.int(H), right: 0, bottom: 0 };
      p.right = p.left + 1 + r.int(W - p.left);
      p.bottom = p.top + 1 + r.int(H - p.top);
      const a = { left: Math.max(0, b.left - R), top: Math.max(0, b.top - R), right: Math.min(W, p.right + R), bottom: Math.min(H, p.bottom + R) };
      const want = gaussianBlurInPlace(whole.slice(), W, H, sigma);
      const aw = Math.max(0, a.right - a.left);
      const ah = Math.max(0, a.bottom - a.top);
      const cut = new Float32Array(aw * ah);
      for (let y = a.top; y < a.bottom; y++) cut.set(whole.subarray(y * W + a.left, y * W + a.right), (y - a.top) * aw);
      gaussianBlurInPlace(cut, aw, ah, sigma);
      for (let y = p.top; y < p.bottom; y++) {
        for (let x = p.left; x < p.right; x++) {
          const got = x >= a.left && y >= a.top && x < a.right && y < a.bottom ? cut[(y - a.top) * aw + x - a.left]! : 0;
          if (!Object.is(got, want[y * W + x])) expect([t, x, y, got], 'the same float').toEqual([t, x, y, want[y * W + x]]);
        }
      }
    }
  });

  it('the precise glow over its distances gives the array it made beside them', () => {
    const r = random(77);
    for (let t = 0; t < 24; t++) {
      const [w, h] = [5 + r.int(60), 5 + r.int(60)];
      const a = field(r, w, h, 1 + (t % 3));
      const [size, spread, inward] = [1 + r.int(20), r.pick([0, 30, 100]), r.chance(0.5)];
      const d = signedDistanceRef(a, w, h);
      const plateau = (size * spread) / 100;
      const want = new Float32Array(d.length);
      for (let i = 0; i < d.length; i++) {
        const x = Math.max(0, inward ? -d[i]! : d[i]!);
        want[i] = x <= plateau ? 1 : x >= size ? 0 : 1 - (x - plateau) / (size - plateau);
      }
      expect(same(precise(a, w, h, size, spread, inward), want), `case ${t}`).toBe(true);
    }
  });

  it('a vector mask drawn from its first component’s coverage gives the bytes of the zeroed plane it was combined into', () => {
    const r = random(4242);
    const ops = ['combine', 'subtract', 'intersect', 'exclude', undefined] as const;
    for (let t = 0; t < 600; t++) {
      const paths = Array.from({ length: 1 + r.int(4) }, (_, p) => ({
        open: r.chance(0.15),
        operation: p === 0 && r.chance(0.6) ? ('combine' as const) : r.pick(ops),
        fillRule: r.pick(['even-odd', 'non-zero'] as const),
        knots: Array.from({ length: r.int(6) }, () => {
          const [x, y] = [r.next() * 90 - 15, r.next() * 90 - 15];
          return r.chance(0.5) ? [x + r.next() * 12, y, x, y, x - r.next() * 12, y + 3] : [x, y, x, y, x, y];
        }),
      }));
      const vm = { paths, invert: r.chance(0.3), fillStartsWithAllPixels: r.chance(0.15) } as unknown as VectorMask;
      const left = r.int(50) - 25;
      const top = r.int(50) - 25;
      const rect: Bounds = { left, top, right: left + r.int(80), bottom: top + r.int(80) };
      const scale = r.pick([1, 0.5, 1.7, 0.37]);
      expect(firstDifference(rasterizeVectorMask(vm, scale, rect), twoPlanes(vm, scale, rect)), `case ${t}`).toBe(-1);
    }
  });

  it('a vector mask above a million pixels drawn in bands of rows gives the bytes of the whole plane', () => {
    const r = random(31337);
    const ops = ['combine', 'subtract', 'intersect', 'exclude', undefined] as const;
    for (let t = 0; t < 6; t++) {
      const [W, H] = r.pick([[1500, 800], [3100, 700], [1100, 1300]]);
      const paths = Array.from({ length: 1 + r.int(3) }, (_, p) => ({
        open: false,
        operation: p === 0 ? ('combine' as const) : r.pick(ops),
        fillRule: r.pick(['even-odd', 'non-zero'] as const),
        // Long edges across every band, short curves within one, points past the plane.
        knots: Array.from({ length: 3 + r.int(8) }, () => {
          const [x, y] = [r.next() * (W + 400) - 200, r.next() * (H + 400) - 200];
          return r.chance(0.5) ? [x + r.next() * 300, y - 40, x, y, x - r.next() * 300, y + 90] : [x, y, x, y, x, y];
        }),
      }));
      const vm = { paths, invert: r.chance(0.3), fillStartsWithAllPixels: r.chance(0.15) } as unknown as VectorMask;
      const rect: Bounds = { left: -r.int(30), top: -r.int(30), right: W, bottom: H };
      expect(firstDifference(rasterizeVectorMask(vm, 1, rect), twoPlanes(vm, 1, rect)), `case ${t}`).toBe(-1);
    }
  });

  it('a moved shadow above the WASM passes’ size blurred over itself gives blur(bilinearMove(…))', () => {
    const [w, h] = [620, 450]; // (w + 1) × (h + 1) > 2^18: the TypeScript path
    const r = random(9);
    const src = Float32Array.from({ length: (w + 1) * (h + 1) }, (_, i) => ((i % 37) * (i % 11) > 60 ? 1 : r.next()));
    for (const [fx, fy, radius] of [[0.25, 0.5, 7], [0, 0, 30], [0.9, 0.1, 2], [0.5, 0.5, 0]]) {
      const moved = bilinearMove(src, w, h, fx!, fy!);
      // Moved over its own array (satin's and the shadows' copies): the floats of a second one.
      expect(same(bilinearMove(src.slice(), w, h, fx!, fy!, true), moved), `over ${fx} ${fy}`).toBe(true);
      const want = blur(moved, w, h, radius!);
      expect(same(movedBlur(() => src.slice(), w, h, fx!, fy!, radius!), want), `${fx} ${fy} ${radius}`).toBe(true);
    }
  });
});

/** rasterizeVectorMask as it was: every component combined into a float plane of zeros (or ones). */
function twoPlanes(vm: VectorMask, scale: number, r: Bounds): Uint8ClampedArray {
  const acc = new Float32Array((r.right - r.left) * (r.bottom - r.top));
  const components = pathComponents(vm.paths);
  const firstOp = components[0]?.[0]?.operation;
  if (vm.fillStartsWithAllPixels || firstOp === 'subtract' || firstOp === 'intersect') acc.fill(1);
  for (const component of components) {
    const drawn = component.filter((p) => p.knots.length >= 2);
    if (!drawn.length) continue;
    const first = component[0]!;
    const cov = coverage(drawn.map((p) => flatten(p.knots, !p.open, scale)), first.fillRule === 'even-odd', r);
    const op = first.operation ?? 'combine';
    for (let i = 0; i < acc.length; i++) {
      const a = acc[i]!;
      const b = Math.min(1, cov[i]!);
      acc[i] = op === 'subtract' ? a * (1 - b) : op === 'intersect' ? a * b : op === 'exclude' ? a + b - 2 * a * b : a + b - a * b;
    }
  }
  const out = new Uint8ClampedArray(acc.length);
  for (let i = 0; i < acc.length; i++) out[i] = (vm.invert ? 1 - acc[i]! : acc[i]!) * 255;
  return out;
}

/** A random document of masked layers (pixel masks, feathered or not, vector masks, fill shapes) with effects reaching far (satin, far shadows, glows, strokes). */
function document(seed: number) {
  const r = random(seed);
  const [W, H] = [20 + r.int(120), 20 + r.int(120)];
  const px = (value: number) => ({ units: 'Pixels' as const, value });
  const rgb = () => ({ r: r.int(256), g: r.int(256), b: r.int(256) });
  const image = (w: number, h: number, f: (x: number, y: number) => number[]) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set(f(x, y), (y * w + x) * 4);
    return { width: w, height: h, data };
  };
  const children: Layer[] = [{ name: 'bg', left: 0, top: 0, imageData: image(W, H, (x, y) => [x * 3, y * 5, 90, 255]) }];
  for (let l = 0, n = 1 + r.int(3); l < n; l++) {
    const shape = r.chance(0.3);
    const layer: Layer = { name: `L${l}`, blendMode: r.pick(['normal', 'normal', 'multiply', 'screen'] as const), opacity: r.pick([1, 1, 0.6]) };
    if (shape) Object.assign(layer, { left: 0, top: 0, right: 0, bottom: 0, vectorFill: { type: 'color', color: rgb() } });
    else {
      const [lw, lh] = [1 + r.int(W + 40), 1 + r.int(H + 40)];
      Object.assign(layer, { left: r.int(W + 40) - 30, top: r.int(H + 40) - 30, imageData: image(lw, lh, (x, y) => [r.int(256), 90, 200, (x + y) % 5 === 0 ? 0 : (x * y) % 7 === 0 ? r.int(256) : 255]) });
    }
    const kind = shape ? r.pick(['vector', 'both']) : r.pick(['pixel', 'pixel', 'vector', 'both', 'none']);
    if (kind === 'pixel' || kind === 'both') {
      const [mw, mh] = [1 + r.int(W), 1 + r.int(H)];
      layer.mask = { left: r.int(W) - 10, top: r.int(H) - 10, imageData: image(mw, mh, (x, y) => { const v = (x * 13 + y * 7) % 256; return [v, v, v, 255]; }), defaultColor: r.pick([0, 255]), ...(r.chance(0.5) && { userMaskFeather: r.pick([0.5, 2.5, 6, 20]) }) };
    }
    if (kind === 'vector' || kind === 'both') {
      const knots = Array.from({ length: 3 + r.int(4) }, () => {
        const [x, y] = [r.int(W + 80) - 40, r.int(H + 80) - 40];
        return { linked: true, points: r.chance(0.4) ? [x - 9, y + 4, x, y, x + 9, y - 4] : [x, y, x, y, x, y] };
      });
      layer.vectorMask = { invert: r.chance(0.15), paths: [{ open: false, operation: 'combine', fillRule: r.pick(['even-odd', 'non-zero'] as const), knots }] };
    }
    const fx: LayerEffectsInfo = {};
    if (r.chance(0.6)) fx.dropShadow = [{ enabled: true, present: true, blendMode: 'multiply', opacity: 0.7, color: rgb(), size: px(r.int(30)), distance: px(r.pick([0, 5, 60, 200, 400])), angle: r.int(360) - 180, useGlobalLight: false, choke: px(r.pick([0, 0, 30])) }];
    if (r.chance(0.5)) fx.satin = { enabled: true, present: true, blendMode: 'multiply', opacity: 0.5, color: rgb(), size: px(1 + r.int(40)), distance: px(r.pick([3, 30, 90, 150])), angle: r.int(360) - 180, invert: r.chance(0.3), antialiased: true };
    if (r.chance(0.4)) fx.outerGlow = { enabled: true, present: true, blendMode: 'screen', opacity: 0.8, color: rgb(), size: px(1 + r.int(40)), choke: px(r.pick([0, 20])), range: 0.5, noise: 0, ...({ technique: r.pick(['softer', 'precise']) } as object) };
    if (r.chance(0.4)) fx.innerGlow = { enabled: true, present: true, blendMode: 'multiply', opacity: 0.6, color: rgb(), size: px(1 + r.int(40)), technique: r.pick(['softer', 'precise'] as const), choke: px(0), range: 0.5, source: r.pick(['edge', 'center'] as const) };
    if (r.chance(0.4)) fx.stroke = [{ enabled: true, present: true, size: px(1 + r.int(25)), position: r.pick(['outside', 'inside', 'center'] as const), fillType: 'color', color: rgb(), blendMode: 'normal', opacity: 1 }];
    if (Object.keys(fx).length) layer.effects = fx;
    children.push(layer);
  }
  return { bytes: writePsdUint8Array({ width: W, height: H, children }, { generateThumbnail: false }), height: H };
}

describe("a masked layer's shape from its alpha alone, its RGBA cut to the target", () => {
  it.each(Array.from({ length: 24 }, (_, i) => 5100 + i))('seed %i: the bytes of the RGBA sources, whole, in strips and at 0.5', async (seed) => {
    const { bytes, height } = document(seed);
    const compiled = await compileOrRefused(bytes, `seed ${seed}`);
    if (!compiled) return;
    const regions = [undefined, ...Array.from({ length: Math.ceil(height / 13) }, (_, i) => ({ top: i * 13, bottom: Math.min(height, i * 13 + 13) }))];
    for (const [scale, region] of [...regions.map((g) => [1, g] as const), [0.5, undefined] as const]) {
      const o = { scale, ...(region && { region }) };
      clearEngineCaches();
      const apart = await renderTemplate(env.FILES, compiled, o);
      useShapeAlphaApart(false);
      try {
        clearEngineCaches();
        const whole = await renderTemplate(env.FILES, compiled, o);
        expect(firstDifference(apart.data, whole.data), `seed ${seed} ${JSON.stringify(o)}`).toBe(-1);
      } finally {
        useShapeAlphaApart(true);
      }
    }
  }, 60_000);
});
