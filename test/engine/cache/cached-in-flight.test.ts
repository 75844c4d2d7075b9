// `cached` asked again for a key while it is making that key's value (two layers taking the same
// picture at the same size in one request: speed-wide, issue 25 §3) makes it once and gives both
// callers the one value; a failure fails both and is not kept (the next ask makes it anew).
import { describe, expect, it } from 'vitest';
import { cached } from '../../../src/engine/cache';
import { ByteLru } from '../../../src/engine/cache/lru';

const value = (n: number) => ({ data: new Uint8Array(n) });

describe('cached', () => {
  it('makes a value once for concurrent asks, then serves it from the cache', async () => {
    const cache = new ByteLru<{ data: Uint8Array }>(1 << 20);
    let made = 0;
    const make = async () => (made++, await new Promise((r) => setTimeout(r, 5)), value(8));
    const [a, b] = await Promise.all([cached(cache, 'k', make), cached(cache, 'k', make)]);
    expect(made).toBe(1);
    expect(a).toBe(b);
    expect(await cached(cache, 'k', make)).toBe(a);
    expect(made).toBe(1);
    // Another key is made apart.
    await cached(cache, 'other', make);
    expect(made).toBe(2);
  });

  it('a failure fails every concurrent ask and is made anew when asked again', async () => {
    const cache = new ByteLru<{ data: Uint8Array }>(1 << 20);
    let made = 0;
    const failing = async () => {
      made++;
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('no');
    };
    const results = await Promise.allSettled([cached(cache, 'k', failing), cached(cache, 'k', failing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(made).toBe(1);
    expect(await cached(cache, 'k', async () => value(4))).toEqual(value(4));
  });
});
