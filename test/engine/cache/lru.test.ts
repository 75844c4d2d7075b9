import { describe, expect, it } from 'vitest';
import { backdropCache, bandCache, ByteLru, cached, clearEngineCaches, imageCache, makeRoom, MB, treeCache } from '../../../src/engine/cache';

describe('ByteLru', () => {
  it('hands every value it lets go of to onEvict: trimmed, evicted, replaced, dropped by prefix, cleared', () => {
    const lru = new ByteLru<string>(300, 200);
    const evicted: string[] = [];
    lru.onEvict = (value) => void evicted.push(value);
    lru.set('a', 'A', 100);
    lru.set('b', 'B', 100);
    lru.set('c', 'C', 100);
    lru.set('d', 'D', 100); // over the budget: the least recent goes
    expect(evicted).toEqual(['A']);
    lru.set('b', 'B2', 100); // replaced
    lru.set('c', 'C', 100); // set again as it is: not let go of
    expect(evicted).toEqual(['A', 'B']);
    lru.set('d', 'D2', 250); // replaced by a value too large to keep: the old one goes, the new one is not taken
    expect(evicted).toEqual(['A', 'B', 'D']);
    lru.evictOldest();
    expect(evicted).toEqual(['A', 'B', 'D', 'B2']);
    lru.set('x/1', 'X', 50);
    lru.evictPrefix('x/');
    lru.set('e', 'E', 10);
    lru.clear();
    expect(evicted).toEqual(['A', 'B', 'D', 'B2', 'X', 'C', 'E']);
    expect(lru.size).toBe(0);
  });

  it('holds at most its byte budget, evicting the least recently used first', () => {
    const lru = new ByteLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 4); // 12 > 10: b goes
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c')]).toEqual(['A', 'C']);
    expect(lru.size).toBe(8);
    lru.set('a', 'A2', 6); // replacing counts the new size only
    expect(lru.size).toBeLessThanOrEqual(10);
    expect(lru.get('a')).toBe('A2');
  });

  it('hold keeps it within less than its budget until lifted; the least of holds at once applies; peek counts no use', () => {
    const lru = new ByteLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    const lift = lru.hold(4); // a, the least recently used, goes now
    expect(lru.size).toBe(4);
    expect(lru.peek('a')).toBeUndefined();
    expect(lru.peek('b')).toBe('B');
    lru.set('c', 'C', 4); // displaces b
    expect([lru.peek('b'), lru.peek('c')]).toEqual([undefined, 'C']);
    lru.set('d', 'D', 5); // above the hold: not kept
    expect(lru.peek('d')).toBeUndefined();
    const inner = lru.hold(0);
    expect(lru.size).toBe(0);
    inner();
    lru.set('c', 'C', 4);
    expect(lru.size).toBe(4); // the first hold still applies
    lift();
    lru.set('d', 'D', 5);
    expect(lru.size).toBe(9);
    const hits = lru.hits;
    lru.peek('c');
    expect(lru.hits).toBe(hits);
  });

  it('a hold never lifted (its request cancelled mid-way) lapses by itself', async () => {
    const lru = new ByteLru<string>(10);
    lru.hold(0, 20); // never lifted
    lru.set('a', 'A', 4);
    expect(lru.size).toBe(0);
    await new Promise((r) => setTimeout(r, 40));
    lru.set('a', 'A', 4);
    expect(lru.size).toBe(4);
  });

  it('does not keep a value larger than its per-entry limit, nor flush others for it', () => {
    const lru = new ByteLru<string>(100, 10);
    lru.set('small', 's', 5);
    lru.set('big', 'b', 11);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.get('small')).toBe('s');
    expect(lru.size).toBe(5);
  });

  it('forgets every key under a prefix (a deleted template)', () => {
    const lru = new ByteLru<number>(100);
    lru.set('compiled/aa/px/1', 1, 1);
    lru.set('compiled/aa/tree.json', 2, 1);
    lru.set('compiled/ab/px/1', 3, 1);
    lru.evictPrefix('compiled/aa/');
    expect([lru.get('compiled/aa/px/1'), lru.get('compiled/aa/tree.json'), lru.get('compiled/ab/px/1')]).toEqual([undefined, undefined, 3]);
    expect(lru.size).toBe(1);
  });

  it('cached() makes a value once per key and sizes it by its pixel bytes', async () => {
    const lru = new ByteLru<{ data: Uint8Array }>(1000);
    let made = 0;
    const make = async () => ({ data: new Uint8Array(++made * 100) });
    const first = await cached(lru, 'k', make);
    const again = await cached(lru, 'k', make);
    expect(again).toBe(first);
    expect(made).toBe(1);
    expect(lru.size).toBe(100);
  });

  it('makeRoom shrinks the caches for a big decode, least recently used first, whichever cache holds it', () => {
    clearEngineCaches();
    // Another template's bands and frame-time backdrops, then the template being personalised.
    for (let i = 0; i < 8; i++) bandCache.set(`compiled/old/px/1/0/${i}`, new Uint8Array(1), 2 * MB);
    backdropCache.set('compiled/old/backdrop/0', new Uint8ClampedArray(1), 4 * MB);
    treeCache.set('compiled/t/tree.json', {}, 1 * MB);
    backdropCache.set('compiled/t/backdrop/0', new Uint8ClampedArray(1), 4 * MB);
    imageCache.set('image/x/10x10', { width: 1, height: 1, data: new Uint8ClampedArray(4) }, 4 * MB);
    bandCache.get('compiled/old/px/1/0/7'); // read again: now among the most recent
    makeRoom(1 * MB); // 29 MB held + 1 MB fits in 64 MB: nothing goes
    expect([treeCache.size, imageCache.size, bandCache.size, backdropCache.size].map((b) => b / MB)).toEqual([1, 4, 16, 8]);
    makeRoom(50 * MB); // 14 MB allowed: the seven bands not read again go first, then the old backdrop
    expect([treeCache.size, imageCache.size, bandCache.size, backdropCache.size].map((b) => b / MB)).toEqual([1, 4, 2, 4]);
    expect(backdropCache.get('compiled/t/backdrop/0')).toBeDefined();
    expect(bandCache.get('compiled/old/px/1/0/7')).toBeDefined();
    makeRoom(56 * MB); // 8 MB allowed: the tree, then the picture (the backdrop and band were just read)
    expect([treeCache.size, imageCache.size, bandCache.size, backdropCache.size].map((b) => b / MB)).toEqual([0, 0, 2, 4]);
    makeRoom(96 * MB); // a 12 MP photo: everything goes
    expect(treeCache.size + imageCache.size + bandCache.size + backdropCache.size).toBe(0);
  });
});
