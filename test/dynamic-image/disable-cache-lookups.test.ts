import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/index';
import { bundledFont } from '../helpers/fixtures';
import { BASE, call, form, uploadFixture, withKey } from './helpers';

/**
 * disableCache=true renders without consulting the result cache: no lookup of a result, neither
 * the early one (started from the template this isolate saw, outputs.ts earlyLookups) nor the one
 * after the preparation; the result is still stored. Checked on the R2 calls the request makes,
 * for a preview and for a multipage preview's pages, after requests that let the isolate tell
 * their fingerprints ahead.
 */

const LAYER = 'Line 1 Line 2 Line 3 and text';
let template: string;

/** The R2 calls (method and key) of one request through the Worker. */
async function r2Calls(path: string, body: unknown): Promise<{ status: number; calls: string[] }> {
  const calls: string[] = [];
  const files = new Proxy(env.FILES, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(`${String(key)} ${typeof args[0] === 'string' ? args[0] : '…'}`);
        return value.apply(target, args);
      };
    },
  });
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
  const request = new Request(`${BASE}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const res = await worker.fetch!(request as never, { ...env, FILES: files } as never, ctx);
  await res.arrayBuffer();
  await Promise.allSettled(pending);
  return { status: res.status, calls };
}

const lookups = (calls: string[]) => calls.filter((c) => /^(head|get) (cache\/)?results\//.test(c));
const stores = (calls: string[]) => calls.filter((c) => /^put results\//.test(c));

beforeAll(async () => {
  template = await uploadFixture('psdtools-text.psd', 'nocache');
  const font = await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));
  if (font.status !== 201) throw new Error(`font upload: ${font.status}`);
});

describe('disableCache=true', () => {
  const preview = (text: string) => ({ template, size: { width: 40, height: 40 }, data: { [LAYER]: { type: 'text', text } } });

  it('looks no preview result up, early or late, and stores the new one', async () => {
    const cached = await r2Calls('/api/rendering/preview', preview('seen'));
    expect(cached.status).toBe(200);
    // The same request again, cached: looked up (the isolate now tells its fingerprint ahead).
    expect(lookups((await r2Calls('/api/rendering/preview', preview('seen'))).calls)).not.toEqual([]);
    for (const text of ['seen', 'never seen']) {
      const { status, calls } = await r2Calls('/api/rendering/preview?disableCache=true', preview(text));
      expect(status).toBe(200);
      expect(lookups(calls), text).toEqual([]);
      expect(stores(calls), text).toHaveLength(1);
    }
  });

  it("looks no page's result up in a multipage preview, and stores each page", async () => {
    const pages = { pages: [preview('page'), preview('page'), preview('other page')] };
    expect((await r2Calls('/api/rendering/multipage/preview', pages)).status).toBe(200);
    expect(lookups((await r2Calls('/api/rendering/multipage/preview', pages)).calls)).not.toEqual([]);
    const { status, calls } = await r2Calls('/api/rendering/multipage/preview?disableCache=true', pages);
    expect(status).toBe(200);
    expect(lookups(calls)).toEqual([]);
    expect(stores(calls)).toHaveLength(3);
  });
});
