import { describe, expect, it } from 'vitest';
import { effectPatternIds, effectTiling, tilePattern } from '../../../src/engine/composite/pattern';
import type { LayerNode, RGBAImage } from '../../../src/engine/types';

/** A 2×2 tile: red, green / blue, transparent white. */
const tile: RGBAImage = {
  width: 2,
  height: 2,
  data: new Uint8ClampedArray([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 0]),
};
const node = (effects: unknown, extra: Partial<LayerNode> = {}): LayerNode =>
  ({ id: 1, name: 'l', type: 'Image', bounds: { left: 3, top: 5, right: 13, bottom: 15 }, visible: true, opacity: 1, fillOpacity: 1, blendMode: 'normal', clipping: false, effects, ...extra }) as LayerNode;
const at = (px: Uint8ClampedArray, w: number, x: number, y: number) => [...px.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)];

describe('pattern tiling', () => {
  it('repeats the tile from the origin in both directions, its transparency kept', () => {
    const px = tilePattern(tile, { originX: 0, originY: 0, scale: 1 }, 0, 0, 4, 4);
    expect(at(px, 4, 0, 0)).toEqual([255, 0, 0, 255]);
    expect(at(px, 4, 1, 0)).toEqual([0, 255, 0, 255]);
    expect(at(px, 4, 2, 0)).toEqual([255, 0, 0, 255]);
    expect(at(px, 4, 0, 3)).toEqual([0, 0, 255, 255]);
    expect(at(px, 4, 3, 3)[3]).toBe(0);
  });

  it('starts at the origin, also before it (negative coordinates wrap)', () => {
    // Origin at (1, 0): pixel 1 is the tile's first column, pixel 0 its last.
    const px = tilePattern(tile, { originX: 1, originY: 0, scale: 1 }, 0, 0, 3, 1);
    expect(at(px, 3, 0, 0)).toEqual([0, 255, 0, 255]);
    expect(at(px, 3, 1, 0)).toEqual([255, 0, 0, 255]);
  });

  it('at half size averages each 2×2 footprint (premultiplied), so nothing aliases', () => {
    const px = tilePattern(tile, { originX: 0, originY: 0, scale: 0.5 }, 0, 0, 1, 1);
    // Three opaque pixels and one clear: alpha 3/4, colour the mean of red, green and blue.
    expect(at(px, 1, 0, 0)).toEqual([85, 85, 85, 191]);
  });

  it('links to the layer: the effects reference point plus the phase, at the render scale', () => {
    const linked = effectTiling(node({}, { referencePoint: { x: 7, y: 9 } }), 0.5, true, { x: 2, y: -1 }, 2);
    expect(linked).toEqual({ originX: 4.5, originY: 4, scale: 1 });
    const doc = effectTiling(node({}), 1, false, undefined, 1);
    expect(doc).toEqual({ originX: 0, originY: 0, scale: 1 });
  });
});

describe('patterns an effect needs', () => {
  it('names the overlay pattern and the pattern strokes, not disabled ones', () => {
    const fx = {
      patternOverlay: { enabled: true, pattern: { id: 'a', name: 'A' } },
      stroke: [
        { enabled: true, fillType: 'pattern', pattern: { id: 'b', name: 'B' } },
        { enabled: false, fillType: 'pattern', pattern: { id: 'c', name: 'C' } },
        { enabled: true, fillType: 'color' },
      ],
    };
    expect(effectPatternIds(node(fx))).toEqual(['a', 'b']);
    expect(effectPatternIds(node({ ...fx, disabled: true }))).toEqual([]);
  });
});
