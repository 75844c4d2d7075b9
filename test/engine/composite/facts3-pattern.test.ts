import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
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
