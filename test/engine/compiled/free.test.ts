import { describe, expect, it } from 'vitest';
import { freeNow } from '../../../src/engine/compiled/free';
import { BandBuffers } from '../../../src/engine/compiled/pyramid';

describe('freeNow', () => {
  it('detaches each array (its memory goes back now); views of it read as empty; absent or freed ones are skipped', () => {
    const a = new Uint8Array(1 << 20);
    const view = a.subarray(10, 20);
    const b = new Uint8Array(16);
    freeNow([a, undefined, null, b, a]);
    expect(a.length).toBe(0);
    expect(view.length).toBe(0);
    expect(b.length).toBe(0);
  });

  it('BandBuffers.release frees its buffers and starts over', () => {
    const bands = new BandBuffers();
    const first = bands.get(0, 100);
    bands.release();
    expect(first.length).toBe(0);
    expect(bands.get(0, 100).length).toBe(100);
  });
});
