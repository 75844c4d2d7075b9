import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { bandCache } from '../../../src/engine/cache';
import { putBlob } from '../../../src/engine/compiled/blob';
import { BAND } from '../../../src/engine/compiled/pyramid';
import { loadLayerPixels, pixelKey, StripBuffers } from '../../../src/engine/compiled/store';
import type { CompiledTemplate, LayerNode } from '../../../src/engine/types';

// A layer whose bands are above the band cache's largest entry (2 MB): 2,100 px × 256 rows × 4.
const WIDTH = 2100;
const HEIGHT = 600;
const value = (x: number, y: number, c: number) => (x * 7 + y * 13 + c * 61) & 255;

async function storeLayer(hash: string): Promise<void> {
  for (let b = 0; b * BAND < HEIGHT; b++) {
    const rows = Math.min(BAND, HEIGHT - b * BAND);
    const data = new Uint8Array(rows * WIDTH * 4);
    for (let y = 0; y < rows; y++) for (let x = 0; x < WIDTH; x++) for (let c = 0; c < 4; c++) data[(y * WIDTH + x) * 4 + c] = value(x, b * BAND + y, c);
    await putBlob(env.FILES, pixelKey(hash, 1, 0, b), data);
  }
}

const node = { id: 1, hasPixels: true, pixelBounds: { left: 0, top: 0, right: WIDTH, bottom: HEIGHT } } as LayerNode;

/** Reads strips inside one band (first rows, middle, last rows, one row, the short last band), a whole band, and two bands; checks their pixels. */
async function readStrips(compiled: CompiledTemplate, buffers?: StripBuffers) {
  const read: Uint8Array[] = [];
  for (const [top, bottom] of [[0, 104], [104, 208], [208, 256], [300, 301], [520, 600], [256, 512], [200, 300]]) {
    const px = await loadLayerPixels(env.FILES, compiled, node, 0, { top, bottom }, buffers);
    expect(px).not.toBeNull();
    const { data, bounds } = px!;
    expect(bounds.left).toBe(0);
    expect(bounds.right).toBe(WIDTH);
    expect(bounds.top).toBeLessThanOrEqual(top);
    expect(bounds.bottom).toBeGreaterThanOrEqual(bottom);
    expect(data.length).toBe((bounds.bottom - bounds.top) * WIDTH * 4);
    let wrong = 0;
    for (let y = top; y < bottom; y++) {
      for (let x = 0; x < WIDTH; x++) for (let c = 0; c < 4; c++) if (data[((y - bounds.top) * WIDTH + x) * 4 + c] !== value(x, y, c)) wrong++;
    }
    expect(wrong, `rows ${top}-${bottom}`).toBe(0);
    read.push(data);
  }
  return read;
}

describe('loadLayerPixels of bands too big for the band cache (issue 25 §1)', () => {
  it('inflates only the rows asked for, with the same pixels as the whole band', async () => {
    expect(WIDTH * BAND * 4).toBeGreaterThan(bandCache.maxEntryBytes);
    const hash = `store-test-${crypto.randomUUID()}`;
    await storeLayer(hash);
    const compiled = { hash } as CompiledTemplate;
    await readStrips(compiled);
    // A strip of a band holds its own rows only (104 of 256): the point of the range read.
    const strip = await loadLayerPixels(env.FILES, compiled, node, 0, { top: 104, bottom: 208 });
    expect(strip!.bounds).toEqual({ left: 0, right: WIDTH, top: 104, bottom: 208 });
  });

  it('reads them into the kept buffer of StripBuffers (no array per strip), with the same pixels', async () => {
    const hash = `store-test-${crypto.randomUUID()}`;
    await storeLayer(hash);
    const buffers = new StripBuffers();
    const read = await readStrips({ hash } as CompiledTemplate, buffers);
    // The strips of bands the band cache cannot hold land in one buffer, kept from strip to strip.
    const kept = read[0]!.buffer;
    expect(read.slice(1, 4).map((data) => data.buffer === kept)).toEqual([true, true, true]);
  });
});

/** The Uint8Arrays of `bytes` and more that `read` makes (not views of a buffer made elsewhere). */
async function bigArraysMade(bytes: number, read: () => Promise<unknown>): Promise<number> {
  const Real = globalThis.Uint8Array;
  let made = 0;
  globalThis.Uint8Array = class extends Real {
    constructor(...args: unknown[]) {
      super(...(args as [number]));
      if (!(args[0] instanceof ArrayBuffer) && this.byteLength >= bytes) made++;
    }
  } as Uint8ArrayConstructor;
  try {
    await read();
  } finally {
    globalThis.Uint8Array = Real;
  }
  return made;
}

describe('loadLayerPixels of rows across bands too big for the band cache, through StripBuffers (issue 25 §1)', () => {
  it('joins the rows asked for in the kept rows, the bands inflated in the kept band: no array of a band per strip, the same pixels', async () => {
    const hash = `store-test-${crypto.randomUUID()}`;
    await storeLayer(hash);
    const compiled = { hash } as CompiledTemplate;
    const buffers = new StripBuffers();
    // The first read sizes the kept rows (all 600) and the kept band.
    const first = await loadLayerPixels(env.FILES, compiled, node, 0, { top: 0, bottom: 600 }, buffers);
    const band = BAND * WIDTH * 4;
    // Strips resampled from level 0 (bench-8000's 5,000² preview) read two or three bands each:
    // each made a join and an array per band, 8 MB each there, left to the collector.
    const made = await bigArraysMade(band / 2, async () => {
      for (const [top, bottom] of [[250, 520], [500, 600], [200, 300]]) {
        const px = await loadLayerPixels(env.FILES, compiled, node, 0, { top, bottom }, buffers);
        expect(px!.data.buffer).toBe(first!.data.buffer);
        let wrong = 0;
        for (let y = top; y < bottom; y++) {
          for (let x = 0; x < WIDTH; x++) for (let c = 0; c < 4; c++) if (px!.data[((y - px!.bounds.top) * WIDTH + x) * 4 + c] !== value(x, y, c)) wrong++;
        }
        expect(wrong, `rows ${top}-${bottom}`).toBe(0);
      }
    });
    expect(made).toBe(0);
    // Without the buffers, as before: a new join (and the bands) every time.
    expect(await bigArraysMade(band / 2, () => loadLayerPixels(env.FILES, compiled, node, 0, { top: 250, bottom: 520 }))).toBeGreaterThan(0);
  });
});

describe('loadLayerPixels of bands the band cache could hold, through strip buffers with room for them (issue 25 §1)', () => {
  it('reads them into the layer\'s kept buffer, not the band cache, one band or several, with the same pixels', async () => {
    const hash = `store-test-${crypto.randomUUID()}`;
    const [width, height] = [300, 600];
    const narrow = { id: 2, hasPixels: true, pixelBounds: { left: 0, top: 0, right: width, bottom: height } } as LayerNode;
    for (let b = 0; b * BAND < height; b++) {
      const rows = Math.min(BAND, height - b * BAND);
      const data = new Uint8Array(rows * width * 4);
      for (let y = 0; y < rows; y++) for (let x = 0; x < width; x++) for (let c = 0; c < 4; c++) data[(y * width + x) * 4 + c] = value(x, b * BAND + y, c);
      await putBlob(env.FILES, pixelKey(hash, 2, 0, b), data);
    }
    const compiled = { hash } as CompiledTemplate;
    const cached = () => [0, 1, 2].filter((b) => bandCache.peek(pixelKey(hash, 2, 0, b))).length;
    const check = async (buffers: StripBuffers) => {
      // Strips inside one band, and across two and three (a layer shrunk from its level reads those).
      for (const [top, bottom] of [[0, 100], [200, 300], [250, 520], [100, 600], [520, 600]]) {
        const { data, bounds } = (await loadLayerPixels(env.FILES, compiled, narrow, 0, { top, bottom }, buffers))!;
        let wrong = 0;
        for (let y = top; y < bottom; y++) for (let x = 0; x < width; x++) for (let c = 0; c < 4; c++) if (data[((y - bounds.top) * width + x) * 4 + c] !== value(x, y, c)) wrong++;
        expect(wrong, `rows ${top}-${bottom}`).toBe(0);
      }
    };
    await check(new StripBuffers(0, 1 << 20));
    expect(cached()).toBe(0);
    // Without room for them (a held frame's strips), the band cache keeps them, as before.
    await check(new StripBuffers());
    expect(cached()).toBe(3);
  });
});
