import { describe, expect, it } from 'vitest';
import { buildOverrides, layerMarkers, nameWithoutMarkers, validateData } from '../../../src/engine/personalise';
import type { LayerNode } from '../../../src/engine/types';

describe('layer-name markers', () => {
  it('reads the reference product\'s fit markers and ours, case-insensitively', () => {
    expect(layerMarkers('Name <TOS_fitToBox>')).toEqual({ fit: 'shrink' });
    expect(layerMarkers('Name<tos_FITTOWIDTH>')).toEqual({ fit: 'shrinkToLine' });
    expect(layerMarkers('Name <TOS_clip>')).toEqual({ fit: 'none' });
    expect(layerMarkers('Name <FMIN_7.5><MW_600> <REQ><PPI_300>')).toEqual({ minSize: 7.5, maxWidth: 600, required: true, ppi: 300 });
    expect(layerMarkers('Name')).toEqual({});
    expect(layerMarkers('Name <FMIN_x> <MW_-3> <VAR> <TOS_bogus>')).toEqual({});
  });

  it('the name without markers is trimmed, with single spaces', () => {
    expect(nameWithoutMarkers('Name <TOS_fitToBox><FMIN_7>')).toBe('Name');
    expect(nameWithoutMarkers('<REQ> First  name <MW_600>')).toBe('First name');
    expect(nameWithoutMarkers('a < b')).toBe('a < b');
  });

  it('a marked layer answers `data` keys with its full name and without the markers', async () => {
    const bounds = { left: 0, top: 0, right: 10, bottom: 10 };
    const layer = (id: number, name: string): LayerNode => ({ id, name, type: 'Shape', bounds, visible: true, opacity: 1 }) as LayerNode;
    const tree = [layer(1, 'Badge <REQ>'), layer(2, 'Other')];
    expect(validateData(tree, { Badge: { visible: false } })[0].nodes.map((n) => n.id)).toEqual([1]);
    expect(validateData(tree, { 'Badge <REQ>': { visible: false } })[0].nodes.map((n) => n.id)).toEqual([1]);
    const ctx = { scale: 1, loadFont: async () => null, loadImage: async () => { throw new Error('none'); } };
    expect((await buildOverrides(tree, { Badge: { visible: false } }, ctx)).get(1)).toEqual({ visible: false });
  });

  it('a switch selects a marked child by its name without markers', async () => {
    const bounds = { left: 0, top: 0, right: 10, bottom: 10 };
    const child = (id: number, name: string): LayerNode => ({ id, name, type: 'Shape', bounds, visible: true, opacity: 1 }) as LayerNode;
    const group = { ...child(1, 'Colour'), type: 'Group', children: [child(2, 'Red <REQ>'), child(3, 'Blue')] } as LayerNode;
    const ctx = { scale: 1, loadFont: async () => null, loadImage: async () => { throw new Error('none'); } };
    const overrides = await buildOverrides([group], { Colour: { type: 'switch', select: 'Red' } }, ctx);
    expect([overrides.get(2)?.visible, overrides.get(3)?.visible]).toEqual([true, false]);
  });
});
