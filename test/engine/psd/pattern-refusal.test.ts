import type { Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { refuseUnreadPatterns } from '../../../src/engine/psd/color-modes';
import { Unprocessable } from '../../../src/engine/errors';

/**
 * A pattern ag-psd could not read (any document but 8-bit RGB) refuses the template only where we
 * would draw the tile: layer effects. Pattern fill layers and pattern-filled or -stroked shapes are
 * drawn from the pixels Photoshop stored.
 */
describe('patterns that ag-psd could not read', () => {
  const CMYK = 4;
  const pattern = { type: 'pattern', name: 'Bubbles', id: 'b-1' };

  it('do not refuse a pattern fill layer or a pattern-stroked shape', () => {
    const fill = { name: 'Fill', vectorFill: pattern } as unknown as Layer;
    const shape = { name: 'Shape', vectorStroke: { strokeEnabled: true, content: pattern } } as unknown as Layer;
    expect(() => refuseUnreadPatterns([fill, shape], new Set(), CMYK, 8)).not.toThrow();
    expect(() => refuseUnreadPatterns([fill], new Set(), 3, 16)).not.toThrow();
  });

  it('still refuse a pattern overlay effect, which draws the tile', () => {
    const overlay = { name: 'Fx', effects: { patternOverlay: { enabled: true, pattern: { name: 'Bubbles', id: 'b-1' } } } } as unknown as Layer;
    expect(() => refuseUnreadPatterns([overlay], new Set(), CMYK, 8)).toThrow(Unprocessable);
    expect(() => refuseUnreadPatterns([overlay], new Set(['b-1']), CMYK, 8)).not.toThrow();
  });
});
