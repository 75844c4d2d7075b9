import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate, walkLayers, type LayerOverrides } from '../../../src/engine';
import { psdFixture } from '../../helpers/fixtures';
import { recording } from '../../helpers/recording-bucket';
import { clearEngineCaches } from '../../../src/engine/cache';

/** Level and band of each layer or mask band read: alone (`px|mask/<id>/<k>/<b>`) or in a pack (`pack/<k>/<b>/<n>`, compiled/packs.ts). */
const bandReads = (reads: string[]) =>
  reads.flatMap((k) => {
    const m = /\/(?:px|mask)\/\d+\/(\d+)\/(\d+)$/.exec(k) ?? /\/pack\/(\d+)\/(\d+)\/\d+(?:-[0-9a-f]{8})?$/.exec(k);
    return m ? [{ level: m[1], band: m[2] }] : [];
  });


describe('renderTemplate', () => {
  it('outputs (round(W·s), round(H·s)) pixels, at least 1', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('agpsd-text-bug-1920.psd'));
    const img = await renderTemplate(env.FILES, compiled, { scale: 0.1 });
    expect([img.width, img.height]).toEqual([192, 123]);
    expect(img.data.length).toBe(192 * 123 * 4);
    const tiny = await renderTemplate(env.FILES, compiled, { scale: 0.0001 });
    expect([tiny.width, tiny.height]).toEqual([1, 1]);
    const up = await renderTemplate(env.FILES, await compileTemplate(env.FILES, await psdFixture('psdtools-blend-multiply.psd')), { scale: 2.5 });
    expect([up.width, up.height]).toEqual([160, 160]);
    // Upscaling interpolates: an opaque photo stays opaque up to its border.
    const photo = await compileTemplate(env.FILES, await psdFixture('pillow-hopper-photo.psd'));
    const big = await renderTemplate(env.FILES, photo, { scale: 3, background: 'transparent' });
    expect([big.data[3], big.data[big.data.length - 1]]).toEqual([255, 255]);
  });

  it('reads only the pyramid level at or above the scale, never full resolution for a small preview', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('agpsd-text-bug-1920.psd'));
    clearEngineCaches(); // bands (and packs) an earlier test read would not be read again
    const { bucket, reads } = recording(env.FILES);
    await renderTemplate(bucket, compiled, { scale: 0.3 });
    const levels = new Set(bandReads(reads).map((r) => r.level));
    expect([...levels]).toEqual(['1']);
    expect(reads.some((k) => k.endsWith('/composite') || k.endsWith('.psd'))).toBe(false);
  });

  it('renders a strip of rows identical to the same rows of the whole image', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    const full = await renderTemplate(env.FILES, compiled, { scale: 0.5 });
    const strip = await renderTemplate(env.FILES, compiled, { scale: 0.5, region: { top: 100, bottom: 140 } });
    expect([strip.width, strip.height]).toEqual([full.width, 40]);
    expect(strip.data).toEqual(full.data.subarray(100 * full.width * 4, 140 * full.width * 4));
  });

  it('keeps transparency with background "transparent" and flattens over white otherwise', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('agpsd-layer-mask.psd'));
    const clear = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent' });
    const alphas = new Set<number>();
    for (let i = 3; i < clear.data.length; i += 4) alphas.add(clear.data[i]);
    expect(alphas.has(0)).toBe(true);
    const flat = await renderTemplate(env.FILES, compiled, { scale: 1 });
    for (let i = 3; i < flat.data.length; i += 4) if (flat.data[i] !== 255) throw new Error('not flattened');
    const i0 = [...alphas].includes(0) ? clear.data.findIndex((_, i) => i % 4 === 3 && clear.data[i] === 0) - 3 : 0;
    expect([...flat.data.subarray(i0, i0 + 3)]).toEqual([255, 255, 255]);
  });

  it('applies overrides: hidden layers vanish, replacement pixels and recolours are drawn', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('pillow-hopper-photo.psd'));
    const hidden: LayerOverrides = new Map([...walkLayers(compiled.layers)].map((n) => [n.id, { visible: false }]));
    const none = await renderTemplate(env.FILES, compiled, { scale: 1, overrides: hidden });
    expect(none.data.every((v) => v === 255)).toBe(true);

    const red = { width: 2, height: 2, data: new Uint8ClampedArray([255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0, 0, 255]) };
    const top = compiled.layers[0];
    const replaced = await renderTemplate(env.FILES, compiled, {
      scale: 1,
      overrides: new Map([[top.id, { pixels: red, bounds: { left: 10, top: 10, right: 12, bottom: 12 } }]]),
    });
    const at = (10 * replaced.width + 10) * 4;
    expect([...replaced.data.subarray(at, at + 3)]).toEqual([255, 0, 0]);

    const recoloured = await renderTemplate(env.FILES, compiled, {
      scale: 1,
      overrides: new Map([[top.id, { color: { r: 0, g: 0, b: 255, a: 1 } }]]),
    });
    const mid = (64 * recoloured.width + 64) * 4;
    expect([...recoloured.data.subarray(mid, mid + 3)]).toEqual([0, 0, 255]);
  });
});

describe('strip rendering', () => {
  it('reads only the row bands a strip needs', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('agpsd-text-bug-1920.psd'));
    clearEngineCaches();
    const { bucket, reads } = recording(env.FILES);
    await renderTemplate(bucket, compiled, { scale: 1, region: { top: 0, bottom: 64 } });
    const bands = new Set(bandReads(reads).map((r) => r.band));
    expect([...bands]).toEqual(['0']);
  });
});

describe('layer styles', () => {
  it('draws a group\'s own effects over its composited children', async () => {
    const { writePsdUint8Array } = await import('ag-psd');
    const blue = new Uint8ClampedArray(8 * 8 * 4);
    for (let i = 0; i < blue.length; i += 4) blue.set([0, 0, 255, 255], i);
    const bytes = writePsdUint8Array({
      width: 16,
      height: 16,
      children: [
        {
          name: 'group',
          opened: true,
          effects: { solidFill: [{ enabled: true, present: true, color: { r: 255, g: 0, b: 0 }, opacity: 1, blendMode: 'normal' }] },
          children: [{ name: 'square', top: 4, left: 4, bottom: 12, right: 12, imageData: { width: 8, height: 8, data: blue } }],
        },
      ],
    });
    const compiled = await compileTemplate(env.FILES, bytes);
    const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const at = (x: number, y: number) => [...img.data.subarray((y * 16 + x) * 4, (y * 16 + x) * 4 + 3)];
    expect(at(8, 8)).toEqual([255, 0, 0]);
    expect(at(1, 1)).toEqual([255, 255, 255]);
  });

  it('clips an artboard to its rectangle over its background colour', async () => {
    const { writePsdUint8Array } = await import('ag-psd');
    const red = new Uint8ClampedArray(16 * 16 * 4);
    for (let i = 0; i < red.length; i += 4) red.set([255, 0, 0, 255], i);
    const small = red.slice(0, 2 * 2 * 4);
    const bytes = writePsdUint8Array({
      width: 16,
      height: 16,
      children: [
        {
          name: 'Artboard 1',
          artboard: { rect: { top: 2, left: 2, bottom: 10, right: 12 }, backgroundType: 4, color: { r: 0, g: 0, b: 255 } },
          children: [{ name: 'dot', top: 4, left: 4, bottom: 6, right: 6, imageData: { width: 2, height: 2, data: small } }],
        },
      ],
    });
    const compiled = await compileTemplate(env.FILES, bytes);
    const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const at = (x: number, y: number) => [...img.data.subarray((y * 16 + x) * 4, (y * 16 + x) * 4 + 3)];
    expect(at(4, 4)).toEqual([255, 0, 0]);
    expect(at(8, 8)).toEqual([0, 0, 255]);
    expect(at(14, 14)).toEqual([255, 255, 255]);
  });
});

describe('an adjustment drawn in place', () => {
  // compositor.ts adjustsInPlace: over a canvas without transparent pixels, an adjustment in normal
  // mode at 100 % with no mask is applied straight to the canvas instead of to a copy blended back
  // source-atop; these are the bytes that blend gives, WASM kernel or TypeScript loop.
  it('gives the bytes of the adjusted copy blended back source-atop', async () => {
    const { applyAdjustment } = await import('../../../src/engine/composite/adjust');
    const { blendSurface } = await import('../../../src/engine/composite/blend');
    const { kernels } = await import('../../../src/engine/raster/kernels');
    await kernels();
    const w = 97;
    const h = 61;
    const canvas = new Uint8ClampedArray(w * h * 4);
    let seed = 7;
    const next = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 255;
    for (let i = 0; i < canvas.length; i++) canvas[i] = next();
    for (let i = 3; i < canvas.length; i += 4) canvas[i] = 1 + (canvas[i] % 255); // partial alpha, never 0
    const adjustments = [
      { type: 'curves', rgb: [{ input: 0, output: 0 }, { input: 96, output: 80 }, { input: 176, output: 196 }, { input: 255, output: 255 }] },
      { type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: 8, saturation: 18, lightness: -12 } },
      { type: 'levels', rgb: { shadowInput: 10, highlightInput: 240, shadowOutput: 0, highlightOutput: 255, midtoneInput: 1.2 } },
      { type: 'invert' },
    ] as Parameters<typeof applyAdjustment>[0][];
    for (const adj of adjustments) {
      const inPlace = canvas.slice();
      expect(applyAdjustment(adj, inPlace)).toBe(true);
      const blended = { x: 0, y: 0, w, h, data: canvas.slice() };
      const after = { x: 0, y: 0, w, h, data: canvas.slice() };
      applyAdjustment(adj, after.data);
      for (let i = 3; i < after.data.length; i += 4) after.data[i] = 255;
      blendSurface(blended, after, null, 1, 'normal', { atop: true });
      expect(inPlace).toEqual(blended.data);
    }
  });
});
