import { describe, expect, it } from 'vitest';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { buildTree } from '../../../src/engine/psd/tree';
import type { GradientMapAdjustment } from '../../../src/engine/composite/adjust';
import { madeFixture } from '../../helpers/fixtures';

describe('layer records: a gradient map\'s interpolation method', () => {
  it('reads the method key of each \'grdm\' block (ag-psd reads every one as perceptual) and the tree keeps it', async () => {
    // make-gradient-methods.mjs: a ramp, then gradient maps in Classic, Perceptual and Linear.
    const bytes = await madeFixture('made-adjust-gradient-map-methods.psd');
    const records = readLayerRecords(bytes);
    expect(records.map((r) => r?.gradientMethod)).toEqual([undefined, 'classic', 'perceptual', 'linear']);
    const psd = parsePsd(bytes);
    expect(psd.children!.slice(1).map((l) => (l.adjustment as GradientMapAdjustment).method)).toEqual(['perceptual', 'perceptual', 'perceptual']);
    const maps = buildTree(psd, undefined, 72, records)
      .filter((n) => n.adjustment?.type === 'gradient map')
      .map((n) => (n.adjustment as GradientMapAdjustment).interpolationMethod);
    expect(maps).toEqual(['linear', 'perceptual', 'classic']); // top first
  });
});
