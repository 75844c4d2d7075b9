/**
 * Nested isolated groups share their outermost composite (compositor.ts drawStackOnClear): a
 * bottom group drawn straight onto its parent's transparent surface and faded there is the same
 * bytes as its own surface blended on (blend.ts fadeOntoClear), and each level no longer holds a
 * surface of the whole strip (probe nest-10, issue 25 §1).
 */
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { blendSurface, fadeOntoClear } from '../../../src/engine/composite/blend';
import { renderTemplate, useGroupsOnClear } from '../../../src/engine/composite/compositor';
import { createSurface } from '../../../src/engine/composite/surface';
import { StripBuffers } from '../../../src/engine/compiled/store';
import { dropped } from '../../../src/engine/memory/drop';
import { useWasmBlending } from '../../../src/engine/raster/blend';
import { kernels } from '../../../src/engine/raster/kernels';

/** Every alpha byte with colour bytes that vary, in a 256 × 4 surface. */
function everyAlpha(): Uint8ClampedArray {
  const data = new Uint8ClampedArray(256 * 4 * 4);
  for (let p = 0; p < 256 * 4; p++) data.set([(p * 7) & 255, (p * 31 + 5) & 255, 255 - (p & 255), p & 255], p * 4);
  return data;
}

const OPACITIES = [0, 1 / 255, 0.1, 0.3 * 0.7, 0.5, 0.95, 0.95 * 0.8, 127 / 255, 128 / 255, 0.999, 1, ...Array.from({ length: 64 }, (_, i) => (i * 4 + 1) / 255)];

describe('fadeOntoClear', () => {
  for (const wasm of [true, false]) {
    it(`leaves what a Normal blend onto transparency leaves, for every alpha and opacity (${wasm ? 'WASM kernel' : 'TypeScript loop'})`, async () => {
      await kernels();
      useWasmBlending(wasm);
      try {
        for (const opacity of OPACITIES) {
          const src = { x: 3, y: 5, w: 256, h: 4, data: everyAlpha() };
          const clear = createSurface({ left: 3, top: 5, right: 259, bottom: 9 });
          blendSurface(clear, src, null, opacity, 'normal', { fill: 1 });
          fadeOntoClear(src.data, opacity);
          expect(src.data, `opacity ${opacity}`).toEqual(clear.data);
        }
      } finally {
        useWasmBlending(true);
      }
    });
  }
});

const SIDE = 300;

const fill = (w: number, h: number, rgba: (x: number, y: number) => number[]) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set(rgba(x, y), i);
  return { width: w, height: h, data };
};

/**
 * A soft full-canvas layer under `levels` nested groups (Normal at 95 %, one at Fill 60 %, one
 * Multiply and one masked: those two composited apart as before), each with a small layer and a
 * layer clipped to it, as probe nest-10 is made.
 */
function nested(levels: number): Uint8Array {
  let node: Layer = { name: 'Inner', left: 0, top: 0, imageData: fill(SIDE, SIDE, (x, y) => [x & 255, y & 255, (x * y) & 255, (x + y) % 7 ? 255 : (x * 3) & 255]) };
  for (let i = 0; i < levels; i++) {
    const dot: Layer = { name: `Dot ${i}`, left: 17 * i, top: 13 * i, imageData: fill(60, 60, () => [i * 20, 255 - i * 20, 100, 200]) };
    const clipped: Layer = { name: `Clipped ${i}`, left: 17 * i + 20, top: 13 * i, clipping: true, blendMode: 'multiply', imageData: fill(80, 40, () => [200, 90, 40, 255]) };
    node = {
      name: `Group ${i}`,
      opened: true,
      blendMode: i === 3 ? 'multiply' : 'normal',
      opacity: 0.95,
      ...(i === 2 ? { fillOpacity: 0.6 } : {}),
      ...(i === 5 ? { mask: { left: 40, top: 40, right: 200, bottom: 220, defaultColor: 0, imageData: fill(160, 180, (x) => [x, x, x, 255]) } } : {}),
      children: [node, dot, clipped],
    };
  }
  return writePsdUint8Array({ width: SIDE, height: SIDE, children: [node] }, { generateThumbnail: false });
}

describe('nested groups on one surface', () => {
  it('draw the same pixels as a surface a group, whole and in strips, and make fewer composites', async () => {
    const compiled = await compileTemplate(env.FILES, nested(8));
    const backdrops = { get: async () => null, set: async () => {} };
    const whole = () => renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent', backdrops });
    const strips = async () => {
      const buffers = new StripBuffers(1 << 20);
      const out = new Uint8ClampedArray(SIDE * SIDE * 4);
      for (let top = 0; top < SIDE; top += 37) {
        const bottom = Math.min(SIDE, top + 37);
        const image = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent', region: { top, bottom }, buffers });
        out.set(image.data.subarray(0, SIDE * (bottom - top) * 4), top * SIDE * 4);
      }
      buffers.release();
      return out;
    };
    const runs: Record<string, { whole: Uint8ClampedArray; strips: Uint8ClampedArray; dropped: number }> = {};
    for (const on of [false, true]) {
      useGroupsOnClear(on);
      try {
        const before = dropped.bytes;
        const w = (await whole()).data.slice();
        runs[String(on)] = { whole: w, strips: await strips(), dropped: dropped.bytes - before };
      } finally {
        useGroupsOnClear(true);
      }
    }
    expect(runs.true.whole).toEqual(runs.false.whole);
    expect(runs.true.strips).toEqual(runs.false.strips);
    expect(runs.true.strips).toEqual(runs.true.whole);
    // Apart: a composite of the canvas (360 KB) for each of the eight levels; on one surface,
    // those under the Multiply and the masked level still have their own (three levels in all).
    expect(runs.false.dropped - runs.true.dropped).toBeGreaterThanOrEqual(5 * SIDE * SIDE * 4);
  });
});
