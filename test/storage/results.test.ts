import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { hourStamp, ResultStore } from '../../src/storage/results';
import { sweepExpiredResults } from '../../src/rendering/expiry';

const HOUR = 3_600_000;
const bytes = new Uint8Array([1, 2, 3]);

describe('result store', () => {
  it('names results <yyyymmddhh>-<128 random bits>.<ext> under an hour prefix', async () => {
    const store = new ResultStore(env.FILES, '24');
    const a = await store.put(bytes, 'jpg', 'image/jpeg');
    const b = await store.put(bytes, 'jpg', 'image/jpeg');
    expect(a).toMatch(/^\d{10}-[0-9a-f]{32}\.jpg$/);
    expect(a).not.toBe(b);
    expect(await env.FILES.head(`results/${a.slice(0, 10)}/${a}`)).not.toBeNull();
    expect(hourStamp(new Date('2026-11-22T03:59:59Z'))).toBe('2026112203');
  });

  it('expires results after the TTL, even before the sweep', async () => {
    const store = new ResultStore(env.FILES, '1');
    const name = await store.put(bytes, 'png', 'image/png');
    const live = await store.get(name);
    expect(live?.contentType).toBe('image/png');
    expect(live!.remainingSeconds).toBeGreaterThan(3500);
    await live!.body.body.cancel();
    expect(await store.get(name, Date.now() + HOUR + 1000)).toBeNull();
  });

  it('a cache entry is dropped when its result is gone (once it is older than a minute)', async () => {
    const store = new ResultStore(env.FILES, '24');
    const name = await store.put(bytes, 'jpg', 'image/jpeg', 'f'.repeat(64));
    expect(await store.lookup('f'.repeat(64))).toBe(name);
    await env.FILES.delete(`results/${name.slice(0, 10)}/${name}`);
    // A young entry may name a result still being written: a miss, but the entry stays.
    expect(await store.lookup('f'.repeat(64))).toBeNull();
    expect(await env.FILES.head(`cache/results/${'f'.repeat(64)}`)).not.toBeNull();
    expect(await store.lookup('f'.repeat(64), Date.now() + 61_000)).toBeNull();
    expect(await env.FILES.head(`cache/results/${'f'.repeat(64)}`)).toBeNull();
  });

  it('a result whose write fails leaves neither object nor cache entry (the two are written at once)', async () => {
    // The real bucket, with its result writes failing (an R2 outage, injected at the boundary).
    const failing = new Proxy(env.FILES, {
      get(target, prop) {
        if (prop === 'put') {
          return async (key: string, ...rest: unknown[]) => {
            if (key.startsWith('results/')) throw new Error('R2 put failed');
            return (target.put as (...a: unknown[]) => unknown)(key, ...rest);
          };
        }
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const fp = 'c'.repeat(64);
    await expect(new ResultStore(failing, '24').put(bytes, 'jpg', 'image/jpeg', fp)).rejects.toThrow('R2 put failed');
    expect(await env.FILES.head(`cache/results/${fp}`)).toBeNull();
    const store = new ResultStore(env.FILES, '24');
    const name = await store.put(bytes, 'jpg', 'image/jpeg', fp);
    expect(await store.lookup(fp)).toBe(name);
  });

  it('a streamed result is stored and indexed like a whole one, only once it is complete', async () => {
    const store = new ResultStore(env.FILES, '24');
    const fp = 'a'.repeat(64);
    const { name, value } = await store.putStream('pdf', 'application/pdf', fp, async (sink) => {
      await sink.write(bytes);
      expect(await env.FILES.head(`cache/results/${fp}`)).toBeNull();
      await sink.close();
      return 3;
    });
    expect(value).toBe(3);
    expect(name).toMatch(/^\d{10}-[0-9a-f]{32}\.pdf$/);
    const got = await store.get(name);
    expect(got?.contentType).toBe('application/pdf');
    expect(new Uint8Array(await got!.body.arrayBuffer())).toEqual(bytes);
    expect(await store.lookup(fp)).toBe(name);
  });

  it('a streamed result that fails leaves neither object nor cache entry', async () => {
    const store = new ResultStore(env.FILES, '24');
    const fp = 'b'.repeat(64);
    const before = (await env.FILES.list({ prefix: 'results/' })).objects.length;
    await expect(
      store.putStream('pdf', 'application/pdf', fp, async (sink) => {
        await sink.write(bytes);
        await sink.close();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await env.FILES.list({ prefix: 'results/' })).objects.length).toBe(before);
    expect(await env.FILES.head(`cache/results/${fp}`)).toBeNull();
  });

  it('the sweep deletes whole expired hours and keeps live ones', async () => {
    const old = '2020010100';
    await env.FILES.put(`results/${old}/${old}-${'a'.repeat(32)}.jpg`, bytes);
    await env.FILES.put(`results/${old}/${old}-${'b'.repeat(32)}.jpg`, bytes);
    const store = new ResultStore(env.FILES, '24');
    const live = await store.put(bytes, 'jpg', 'image/jpeg');
    const deleted = await sweepExpiredResults({ ...env, RESULT_TTL_HOURS: '24' });
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect((await env.FILES.list({ prefix: `results/${old}/` })).objects).toEqual([]);
    expect(await env.FILES.head(`results/${live.slice(0, 10)}/${live}`)).not.toBeNull();
  });

  it('unknown or malformed names are simply absent', async () => {
    const store = new ResultStore(env.FILES, '24');
    expect(await store.get('x.jpg')).toBeNull();
    expect(await store.delete('2026010100-zz.jpg')).toBe(false);
  });
});
