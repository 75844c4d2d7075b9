import { describe, expect, it } from 'vitest';
import { freeNow } from '../../../src/engine/compiled/free';
import { ArrayPool } from '../../../src/engine/memory/array-pool';

describe('ArrayPool', () => {
  it('hands out the smallest free buffer that fits, or none', () => {
    const pool = new ArrayPool({ bytes: 1000 });
    const [big, small, middle] = [new ArrayBuffer(400), new ArrayBuffer(100), new ArrayBuffer(200)];
    for (const b of [big, small, middle]) pool.give(b);
    expect(pool.bytes).toBe(700);
    expect(pool.take(150)).toBe(middle);
    expect(pool.take(150)).toBe(big);
    expect(pool.take(150)).toBeUndefined();
    expect(pool.take(100)).toBe(small);
    expect(pool.bytes).toBe(0);
  });

  it('keeps within its caps, the oldest free buffers making room', () => {
    const pool = new ArrayPool({ bytes: 300, count: 2 });
    const [a, b, c, d] = [100, 100, 100, 250].map((n) => new ArrayBuffer(n));
    pool.give(a);
    pool.give(b);
    pool.give(c); // a third: the oldest (a) goes
    expect(pool.take(1)).not.toBe(a);
    pool.give(a);
    pool.give(d); // 250 bytes: all older ones go
    expect(pool.bytes).toBe(250);
    expect(pool.take(1)).toBe(d);
    pool.give(new ArrayBuffer(301)); // larger than the cap: not kept
    expect(pool.bytes).toBe(0);
  });

  it('keeps no buffer twice, nor an empty or detached one', () => {
    const pool = new ArrayPool({ bytes: 1000 });
    const a = new ArrayBuffer(10);
    pool.give(a);
    pool.give(new Uint8Array(a, 2, 4).buffer); // a view's buffer: the same one
    expect(pool.bytes).toBe(10);
    const detached = new ArrayBuffer(10);
    freeNow([new Uint8Array(detached)]); // detached
    pool.give(detached);
    pool.give(new ArrayBuffer(0));
    expect(pool.bytes).toBe(10);
  });

  it('makes room for a new buffer by dropping free ones, oldest first, and says whether it fits', () => {
    const pool = new ArrayPool({ bytes: 100 });
    const [a, b] = [new ArrayBuffer(40), new ArrayBuffer(40)];
    pool.give(a);
    pool.give(b);
    expect(pool.makeRoom(50, 0)).toBe(true);
    expect(pool.take(1)).toBe(b);
    pool.give(b);
    expect(pool.makeRoom(101, 0)).toBe(false);
    expect(pool.bytes).toBe(0);
  });

  it('clears: every free buffer handed to the caller', () => {
    const pool = new ArrayPool({ bytes: 100 });
    const [a, b] = [new ArrayBuffer(10), new ArrayBuffer(20)];
    pool.give(a);
    pool.give(b);
    expect(pool.clear()).toEqual([a, b]);
    expect(pool.bytes).toBe(0);
    expect(pool.take(1)).toBeUndefined();
  });
});
