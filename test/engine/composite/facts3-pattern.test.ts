import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { tilePattern } from '../../../src/engine/composite/pattern';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { blackToWhiteOverlay } from './gradient-overlay-fixture';

/**
 * A stroke filled with a pattern has a Scale, as the pattern overlay does (Adobe's layer style
 * options: "Drag the Scale slider … to specify the size of the pattern"). ag-psd reads the
 * stroke's pattern, link and phase but drops its 'Scl ': psd/records.ts reads it (issue 25 §2,
 * docs/fidelity.md "Gradient overlay options and pattern strokes").
 */

const ref = { name: 'bars', id: 'facts3-0000-4000-8000-000000000001' };

/** A 2 × 1 tile (black, white); a 12 × 12 layer at (4, 4), Fill 0, a 10 px inside pattern stroke at `scale`. */
function documentWith(scale: number | undefined): Uint8Array {
  const tile = new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255]);
  const pixels = { width: 12, height: 12, data: new Uint8ClampedArray(12 * 12 * 4).fill(255) };
  // ag-psd writes no 'Scl ' for a pattern stroke; a gradient beside it writes one (Photoshop keeps
  // every fill type's keys in the descriptor; the stroke draws the type it names).
  const gradient = scale === undefined ? {} : { gradient: { ...blackToWhiteOverlay(0).gradientOverlay![0].gradient!, style: 'linear' as const, scale } };
  const stroke = {
    enabled: true,
    present: true,
    size: { units: 'Pixels' as const, value: 10 },
    position: 'inside' as const,
    fillType: 'pattern' as const,
    blendMode: 'normal' as const,
    opacity: 1,
    pattern: { ...ref, phase: { x: 0, y: 0 } },
    ...gradient,
  };
  const layer: Layer = { name: 'bars', left: 4, top: 4, imageData: pixels, opacity: 1, referencePoint: { x: 4, y: 4 }, effects: { stroke: [stroke] } };
  const bg = { width: 20, height: 20, data: new Uint8ClampedArray(20 * 20 * 4).fill(128) };
  return writePsdUint8Array(
    { width: 20, height: 20, patterns: [{ ...ref, x: 0, y: 0, bounds: { x: 0, y: 0, w: 2, h: 1 }, data: tile }], children: [{ name: 'bg', left: 0, top: 0, imageData: bg }, { ...layer, fillOpacity: 0 } as Layer] } as never,
    { noBackground: false },
  );
}

async function render(psd: Uint8Array) {
  const frame = await renderTemplate(env.FILES, await compileTemplate(env.FILES, psd), { scale: 1 });
  return (x: number, y: number) => frame.data[(y * frame.width + x) * 4];
}

describe('pattern stroke scale', () => {
  it('is read from the stroke descriptor', () => {
    const records = readLayerRecords(documentWith(2));
    expect(records.find((r) => r?.strokePatternScales)?.strokePatternScales).toEqual([2]);
    expect(readLayerRecords(documentWith(undefined)).some((r) => r?.strokePatternScales)).toBe(false);
  });

  it('at 200 % each tile pixel is two document pixels wide', async () => {
    // From the reference point (4, 4): columns 4, 5 the black tile pixel, 6, 7 the white one
    // (blended at their shared edges as the overlay's enlarged tiles are); at 100 % they alternate.
    const at = await render(documentWith(2));
    expect(at(4, 10)).toBe(at(5, 10));
    expect(at(6, 10)).toBe(at(7, 10));
    expect(at(4, 10)).toBeLessThan(128);
    expect(at(6, 10)).toBeGreaterThan(128);
    const plain = await render(documentWith(undefined));
    expect([plain(4, 10), plain(5, 10), plain(6, 10)]).toEqual([0, 255, 0]);
  });
});

/** A 12 × 12 red layer at (4, 4) with a pattern overlay of the bars tile, linked, turned by `angle`. */
function overlayDocument(angle: number | undefined): Uint8Array {
  const tile = new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255]);
  const pixels = { width: 12, height: 12, data: new Uint8ClampedArray(12 * 12 * 4) };
  for (let i = 0; i < 144; i++) pixels.data.set([255, 0, 0, 255], i * 4);
  const overlay = { enabled: true, present: true, blendMode: 'normal' as const, opacity: 1, pattern: ref, scale: 1, align: true, phase: { x: 0, y: 0 }, ...(angle === undefined ? {} : { angle }) };
  const layer: Layer = { name: 'bars', left: 4, top: 4, imageData: pixels, referencePoint: { x: 4, y: 4 }, effects: { patternOverlay: overlay } };
  const bg = { width: 20, height: 20, data: new Uint8ClampedArray(20 * 20 * 4).fill(128) };
  return writePsdUint8Array(
    { width: 20, height: 20, patterns: [{ ...ref, x: 0, y: 0, bounds: { x: 0, y: 0, w: 2, h: 1 }, data: tile }], children: [{ name: 'bg', left: 0, top: 0, imageData: bg }, layer] } as never,
    { noBackground: false },
  );
}

describe('pattern overlay angle', () => {
  const bars = { width: 2, height: 1, data: new Uint8ClampedArray([0, 0, 0, 255, 255, 255, 255, 255]) };
  const grey = (px: Uint8ClampedArray, w: number, x: number, y: number) => px[(y * w + x) * 4];

  it('turns the tile counterclockwise about its origin: at 90° vertical bars lie across', () => {
    // The tile's x axis points up the screen: going up from the origin row by row reads the tile
    // left to right (row −1 black, row −2 white), so row 0 is white, row 1 black.
    const turned = tilePattern(bars, { originX: 0, originY: 0, scale: 1, angle: 90 }, 0, 0, 3, 3);
    expect([0, 1, 2].map((y) => grey(turned, 3, 0, y))).toEqual([255, 0, 255]);
    expect([0, 1, 2].map((x) => grey(turned, 3, x, 1))).toEqual([0, 0, 0]);
    const flat = tilePattern(bars, { originX: 0, originY: 0, scale: 1 }, 0, 0, 3, 3);
    expect([0, 1, 2].map((x) => grey(flat, 3, x, 0))).toEqual([0, 255, 0]);
  });

  it("is read from the overlay (ag-psd's angle) and drawn", async () => {
    const at = await render(overlayDocument(90));
    expect([at(6, 4), at(7, 4), at(8, 4)]).toEqual([255, 255, 255]);
    expect([at(6, 5), at(7, 5)]).toEqual([0, 0]);
    const plain = await render(overlayDocument(undefined));
    expect([plain(4, 4), plain(5, 4), plain(6, 4)]).toEqual([0, 255, 0]);
  });
});
