import { describe, expect, it } from 'vitest';
import { BAND, BandBuffers, halveGray, halveRGBA, levelBounds, PyramidWriter } from '../../../src/engine/compiled/pyramid';
import type { Bounds } from '../../../src/engine/types';

// A layer off the grid's even rows and columns, over three bands at level 0 (the last one short).
const BOUNDS: Bounds = { left: 3, top: 5, right: 40, bottom: 5 + 2 * BAND + 90 };
// Narrower and shorter, then wider and taller: what compile's layers do to shared band buffers.
const NARROW: Bounds = { left: 10, top: 100, right: 21, bottom: 100 + BAND + 3 };
const WIDE: Bounds = { left: 0, top: 0, right: 64, bottom: 3 * BAND };
const LEVELS = 4;

/** Deterministic bytes with transparent, half and opaque pixels. */
function layer(channels: 1 | 4, bounds = BOUNDS): Uint8Array {
  const w = bounds.right - bounds.left;
  const h = bounds.bottom - bounds.top;
  const data = new Uint8Array(w * h * channels);
  for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
  if (channels === 4) for (let i = 3; i < data.length; i += 16) data[i] = 255; // some opaque pixels
  return data;
}

/** The bands each level should hold: the whole level halved at once, cut at multiples of BAND. */
function expectedBands(data: Uint8Array, channels: 1 | 4, fill: number, bounds0 = BOUNDS): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  let level = { data, bounds: bounds0 };
  for (let k = 0; k < LEVELS; k++) {
    const { bounds } = level;
    const w = (bounds.right - bounds.left) * channels;
    for (let b = Math.floor(bounds.top / BAND); b * BAND < bounds.bottom; b++) {
      const top = Math.max(b * BAND, bounds.top);
      const bottom = Math.min((b + 1) * BAND, bounds.bottom);
      out.set(`${k}/${b}`, level.data.slice((top - bounds.top) * w, (bottom - bounds.top) * w));
    }
    level = channels === 4 ? halveRGBA(level.data, bounds) : halveGray(level.data, bounds, fill);
  }
  return out;
}

async function written(data: Uint8Array, channels: 1 | 4, fill: number, bounds = BOUNDS, shared?: BandBuffers) {
  const bands = new Map<string, Uint8Array>();
  const buffers = new Map<number, Set<ArrayBufferLike>>();
  const writer = new PyramidWriter(bounds, LEVELS, channels, fill, async (k, band, d) => {
    await new Promise((r) => setTimeout(r, 0)); // as an R2 write: the next rows wait for it
    bands.set(`${k}/${band}`, d.slice()); // the writer refills `d` once this resolves
    (buffers.get(k) ?? buffers.set(k, new Set()).get(k)!).add(d.buffer);
  }, shared);
  const w = (bounds.right - bounds.left) * channels;
  const row = new Uint8Array(w); // reused by the caller, as compile.ts does
  for (let y = bounds.top; y < bounds.bottom; y++) {
    row.set(data.subarray((y - bounds.top) * w, (y - bounds.top + 1) * w));
    const band = writer.push(y, row);
    if (band) await band;
  }
  await writer.finish();
  return { bands, buffers };
}

describe('PyramidWriter', () => {
  for (const channels of [4, 1] as const) {
    it(`writes the same bands as halving whole levels (${channels} channel${channels > 1 ? 's' : ''}), filling one buffer per level`, async () => {
      const data = layer(channels);
      const fill = channels === 1 ? 255 : 0;
      const { bands, buffers } = await written(data, channels, fill);
      const expected = expectedBands(data, channels, fill);
      expect([...bands.keys()].sort()).toEqual([...expected.keys()].sort());
      for (const [key, band] of expected) expect(bands.get(key), key).toEqual(band);
      // Level 0 has three bands, level 1 two: each level's bands are views of one buffer.
      expect(levelBounds(BOUNDS, 1).bottom).toBeGreaterThan(BAND);
      for (const [, set] of buffers) expect(set.size).toBe(1);
    });
  }

  it('writes the same bands when layers one after another share their band buffers', async () => {
    const shared = new BandBuffers();
    for (const bounds of [BOUNDS, NARROW, WIDE, NARROW]) {
      for (const channels of [4, 1] as const) {
        const data = layer(channels, bounds);
        const { bands } = await written(data, channels, 0, bounds, shared);
        const expected = expectedBands(data, channels, 0, bounds);
        expect([...bands.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [key, band] of expected) expect(bands.get(key), `${bounds.right}/${channels}/${key}`).toEqual(band);
      }
    }
  });
});
