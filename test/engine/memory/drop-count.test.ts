import { describe, expect, it } from 'vitest';
import { drop, dropped } from '../../../src/engine/memory/drop';

/** memory/drop.ts counts what it frees (tests and benches read `dropped` to say how much went back at once). */
describe('drop counts the bytes it frees', () => {
  it('adds each freed buffer’s size, read before the buffer is detached', () => {
    dropped.bytes = 0;
    dropped.arrays = 0;
    const a = new Float32Array(1 << 18); // 1 MB
    const b = new Uint8ClampedArray(1 << 17); // 128 KB
    drop(a, b);
    expect(a.length).toBe(0); // freed at once (ArrayBuffer.prototype.transfer)
    expect(dropped).toEqual({ bytes: (1 << 20) + (1 << 17), arrays: 2 });
  });
});
