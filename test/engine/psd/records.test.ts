import { writePsdBuffer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { buildTree } from '../../../src/engine/psd/tree';
import type { GradientMapAdjustment } from '../../../src/engine/composite/adjust';
import { madeFixture } from '../../helpers/fixtures';
import { blackToWhite as stops, whiteSquareWith } from './kit';

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

describe('layer records: an effect gradient method ag-psd does not know', () => {
  it('is found in the effects block (ag-psd drops the block silently) and the layer is refused with a 422 naming it', () => {
    const doc = whiteSquareWith('striped', {
      gradientOverlay: [
        { enabled: true, present: true, blendMode: 'normal', opacity: 1, interpolationMethod: 'classic', type: 'linear', angle: 0, scale: 1, gradient: { type: 'solid', name: 'g', smoothness: 1, ...stops } },
      ],
    });
    const bytes = new Uint8Array(writePsdBuffer(doc, { generateThumbnail: false }));
    const at = bytes.findIndex((_, i) => String.fromCharCode(...bytes.subarray(i, i + 4)) === 'Gcls');
    expect(readLayerRecords(bytes)[0]?.unknownEffectGradientMethod).toBeUndefined();
    bytes.set([...'GIMs'].map((ch) => ch.charCodeAt(0)), at); // Stripes
    const records = readLayerRecords(bytes);
    expect(records[0]?.unknownEffectGradientMethod).toBe('GIMs');
    const psd = parsePsd(bytes);
    expect(psd.children![0].effects?.gradientOverlay).toBeUndefined(); // what ag-psd makes of it
    expect(() => buildTree(psd, undefined, 72, records)).toThrow(Unprocessable);
    expect(() => buildTree(psd, undefined, 72, records)).toThrow(/Layer "striped" .*"GIMs"/);
  });
});

describe('layer records: lengths that claim more than the file holds', () => {
  it("a record's extra length of 570 M in a 16-bit file (ag-psd reads it) is walked to the file's end, not byte by byte to 570 M", async () => {
    // Fuzz seed 20462 (session 28): made-x-lab16.psd, the third record's extra data length (at 268)
    // set to 570,788,117. ag-psd reads the file; readLayerRecords stepped one byte at a time to the
    // claimed end looking for blocks: 19 s of CPU in Node (57 s at load 6) at upload, a Worker over its CPU limit.
    const bytes = (await madeFixture('made-x-lab16.psd')).slice();
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(view.getUint32(268)).toBe(36);
    view.setUint32(268, 570_788_117);
    const t = performance.now();
    const records = readLayerRecords(bytes);
    expect(performance.now() - t).toBeLessThan(2_000);
    expect(records.length).toBeGreaterThan(0);
  });
});
