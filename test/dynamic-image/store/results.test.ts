import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { hourStamp, ResultStore } from '../../../src/dynamic-image/store/results';
import { sweepExpiredResults } from '../../../src/dynamic-image/expiry';

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

  it('index entries carry the name in metadata; entries written before that (body only) still work', async () => {
    const store = new ResultStore(env.FILES, '24');
    const fresh = 'd'.repeat(64);
    const name = await store.put(bytes, 'jpg', 'image/jpeg', fresh);
    const entry = await env.FILES.head(`cache/results/${fresh}`);
    expect(entry?.customMetadata?.name).toBe(name);

    // An older entry: the name only as its body, written by hand under a fingerprint this isolate
    // has never seen (so the lookup reads R2, not the isolate's map).
    const old = 'e'.repeat(64);
    const oldName = `${hourStamp(new Date())}-${'0'.repeat(32)}.jpg`;
    await env.FILES.put(`results/${oldName.slice(0, 10)}/${oldName}`, bytes, { httpMetadata: { contentType: 'image/jpeg' }, customMetadata: { fingerprint: old } });
    await env.FILES.put(`cache/results/${old}`, oldName);
    expect(await store.lookup(old)).toBe(oldName);
    expect(await store.delete(oldName)).toBe(true);
    expect(await env.FILES.head(`cache/results/${old}`)).toBeNull();
    expect(await store.lookup(old)).toBeNull();
  });

  it('unknown or malformed names are simply absent', async () => {
    const store = new ResultStore(env.FILES, '24');
    expect(await store.get('x.jpg')).toBeNull();
    expect(await store.delete('2026010100-zz.jpg')).toBe(false);
  });
});

/** The real bucket with its puts held until `release` (writes still in flight), or failing. */
function slowBucket(mode: 'hold' | 'fail' = 'hold') {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let puts = 0;
  const bucket = new Proxy(env.FILES, {
    get(target, prop) {
      if (prop === 'put') {
        return async (...args: unknown[]) => {
          puts++;
          if (mode === 'fail') throw new Error('R2 put failed');
          await gate;
          return (target.put as (...a: unknown[]) => unknown)(...args);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { bucket, release, puts: () => puts };
}

const text = async (body: ReadableStream | Uint8Array) => new Uint8Array(await new Response(body).arrayBuffer());

describe('results answered before their writes land (putLater)', () => {
  it('serves the result from memory until the writes land, then from R2, with one ETag', async () => {
    const slow = slowBucket();
    const store = new ResultStore(slow.bucket, '24');
    const fp = 'd'.repeat(64);
    const { name, written } = await store.putLater(bytes, 'jpg', 'image/jpeg', fp);
    expect(name).toMatch(/^\d{10}-[0-9a-f]{32}\.jpg$/);
    expect(await env.FILES.head(`results/${name.slice(0, 10)}/${name}`)).toBeNull();
    const early = await store.open(name);
    expect(early).toMatchObject({ contentType: 'image/jpeg', size: 3 });
    expect(await text(early!.body)).toEqual(bytes);
    expect(early!.remainingSeconds).toBeGreaterThan(24 * 3600 - 120);
    // An equal request in this isolate finds it too (no second render).
    expect(await store.lookup(fp)).toBe(name);
    slow.release();
    await written;
    expect(await env.FILES.head(`results/${name.slice(0, 10)}/${name}`)).not.toBeNull();
    expect(await (await env.FILES.get(`cache/results/${fp}`))!.text()).toBe(name);
    const late = await new ResultStore(env.FILES, '24').open(name);
    expect(await text(late!.body)).toEqual(bytes);
    expect(late!.etag).toBe(early!.etag);
    expect(late!.etag).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('another isolate waits for a name of this hour that has not landed yet', async () => {
    const name = `${hourStamp(new Date())}-${'e'.repeat(32)}.png`;
    const key = `results/${name.slice(0, 10)}/${name}`;
    // The other isolate's write lands right after the first read misses it (no timing involved).
    let landed: Promise<unknown> | undefined;
    const bucket = new Proxy(env.FILES, {
      get(target, prop) {
        if (prop === 'get') {
          return async (k: string) => {
            if (k === key && !landed) {
              landed = target.put(key, bytes, { httpMetadata: { contentType: 'image/png' } });
              return null;
            }
            return target.get(k);
          };
        }
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const store = new ResultStore(bucket, '24');
    const got = await store.open(name);
    expect(landed).toBeDefined();
    await landed;
    expect(got?.contentType).toBe('image/png');
    expect(await text(got!.body)).toEqual(bytes);
    // Names of past hours are not waited for; names never issued are absent.
    expect(await store.open(`2020010100-${'e'.repeat(32)}.png`)).toBeNull();
    expect(await store.open('x.png')).toBeNull();
  });

  it('a write that fails twice leaves nothing behind, and the name is then absent', async () => {
    const slow = slowBucket('fail');
    const store = new ResultStore(slow.bucket, '24');
    const fp = '9'.repeat(64);
    const { name, written } = await store.putLater(bytes, 'jpg', 'image/jpeg', fp);
    await expect(written).rejects.toThrow('R2 put failed');
    expect(slow.puts()).toBe(4); // result + index entry, tried twice
    expect(await env.FILES.head(`results/${name.slice(0, 10)}/${name}`)).toBeNull();
    expect(await env.FILES.head(`cache/results/${fp}`)).toBeNull();
    expect(await store.lookup(fp)).toBeNull();
    expect(await store.open(name)).toBeNull();
  });

  it('deleting a result that is still landing deletes it once it has landed', async () => {
    const slow = slowBucket();
    const store = new ResultStore(slow.bucket, '24');
    const fp = '8'.repeat(64);
    const { name } = await store.putLater(bytes, 'jpg', 'image/jpeg', fp);
    const deleted = store.delete(name);
    slow.release();
    expect(await deleted).toBe(true);
    expect(await env.FILES.head(`results/${name.slice(0, 10)}/${name}`)).toBeNull();
    expect(await env.FILES.head(`cache/results/${fp}`)).toBeNull();
  });

  it('delete does not hang on a write that never settles (its waitUntil cut off)', async () => {
    const slow = slowBucket(); // not released while delete runs
    const store = new ResultStore(slow.bucket, '24');
    const { name, written } = await store.putLater(bytes, 'jpg', 'image/jpeg', '7'.repeat(64));
    expect(await store.delete(name)).toBe(false); // nothing in R2: nothing to delete
    // Then the write lands and goes: a landing that never settles would hold resultsLanded (keys()
    // in test/dynamic-image/helpers.ts) of every later file sharing this runtime.
    slow.release();
    await written;
    expect(await store.delete(name)).toBe(true);
  }, 30_000);

  it('past 32 MB held in memory, a result is stored before its name is answered', async () => {
    const big = new Uint8Array(33 * 1024 * 1024).fill(7);
    const store = new ResultStore(env.FILES, '24');
    const { name, written } = await store.putLater(big, 'png', 'image/png', '6'.repeat(64));
    const head = await env.FILES.head(`results/${name.slice(0, 10)}/${name}`);
    expect(head?.size).toBe(big.byteLength);
    await written;
    expect(await store.delete(name)).toBe(true);
  }, 60_000);
});
