import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { preparePreview, type PreviewOptions, type RenderDeps } from '../../src/engine/preview';
import { UrlImages } from '../../src/engine/inputs';
import type { EngineError } from '../../src/engine/errors';
import { encodePng } from '../../src/engine/raster';
import { cachedPreview } from '../../src/dynamic-image/outputs';
import { FileStore, rebuildFontIndex, ResultStore } from '../../src/dynamic-image/store';
import { bundledFont, psdFixture } from '../helpers/fixtures';
import { PNG_1x1, postJson } from './helpers';

/**
 * A preview's result lookup started beside its template's head (issue 25 §3, overhead): from what
 * this isolate last saw of the template, the pictures and the font index, preparePreview's
 * lookahead tells the fingerprint ahead, and the route's lookup runs while the heads that confirm
 * it are in flight. The lookup is used only when the confirmed fingerprint is the same; a template,
 * picture or font changed meanwhile is seen as before.
 */

const FOLDER = 'lookahead';
const deps: RenderDeps = { urlImages: new UrlImages(async () => new Uint8Array()) };

/** env.FILES with every call recorded as it starts and ends; template heads answer `delayMs` late. */
function recordingBucket(delayMs = 30) {
  const log: string[] = [];
  const bucket = new Proxy(env.FILES, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const call = `${String(key)} ${typeof args[0] === 'string' ? args[0] : '…'}`;
        log.push(`start ${call}`);
        try {
          const result = await value.apply(target, args);
          if (key === 'head' && String(args[0]).startsWith('templates/')) await new Promise((r) => setTimeout(r, delayMs));
          return result;
        } finally {
          log.push(`end ${call}`);
        }
      };
    },
  });
  return { bucket, log };
}

/** The route's way: cachedPreview of preparePreview, given its lookahead. */
async function render(bucket: R2Bucket, options: PreviewOptions) {
  const results = new ResultStore(bucket, 24);
  return cachedPreview(results, (lookahead) => preparePreview(new FileStore(bucket), options, deps, undefined, lookahead), false);
}

const at = (log: string[], entry: (line: string) => boolean) => log.findIndex(entry);
const startOf = (prefix: string) => (line: string) => line.startsWith(`start head ${prefix}`);
const endOfTemplateHead = (line: string) => line.startsWith('end head templates/');

let template: string;
const layer = 'Line 1 Line 2 Line 3 and text';
const options = (data?: PreviewOptions['data'], name = template): PreviewOptions => ({
  template: name,
  format: 'jpg',
  size: { width: 64, height: 64 },
  jpegQuality: 80,
  unsharpMask: null,
  data,
});

beforeAll(async () => {
  const store = new FileStore(env.FILES);
  template = `${FOLDER}/text.psd`;
  await store.put('templates', template, await psdFixture('psdtools-text.psd'));
  await store.put('fonts', `${FOLDER}/LiberationSans-Regular.ttf`, await bundledFont('LiberationSans-Regular.ttf'));
  await rebuildFontIndex(store);
});

describe('the result lookup runs beside the heads that confirm its fingerprint', () => {
  it('a repeated request looks its result up while the template head is in flight, and finds it', async () => {
    const first = await render(env.FILES, options());
    const { bucket, log } = recordingBucket();
    const again = await render(bucket, options());
    expect(again).toEqual({ ...first, created: false });
    expect(at(log, startOf('results/'))).toBeGreaterThanOrEqual(0);
    expect(at(log, startOf('results/'))).toBeLessThan(at(log, endOfTemplateHead));
    // One lookup: the early one answered.
    expect(log.filter((l) => l.startsWith('start head results/')).length).toBe(1);
  });

  it("a new text's lookup (a miss) runs beside the template head and the font index", async () => {
    await render(env.FILES, options({ [layer]: { type: 'text', text: 'first' } }));
    const { bucket, log } = recordingBucket();
    const made = await render(bucket, options({ [layer]: { type: 'text', text: 'second' } }));
    expect(made.created).toBe(true);
    expect(at(log, startOf('cache/results/'))).toBeGreaterThanOrEqual(0);
    expect(at(log, startOf('cache/results/'))).toBeLessThan(at(log, endOfTemplateHead));
    expect(log.filter((l) => l.startsWith('start head cache/results/')).length).toBe(1);
  });

  it("a stored picture's head starts with the template's, before the template is known", async () => {
    await new FileStore(env.FILES).put('images', `${FOLDER}/never-seen.png`, PNG_1x1);
    const { bucket, log } = recordingBucket();
    await render(bucket, options({ Background: { type: 'image', image: `${FOLDER}/never-seen.png` } }));
    expect(at(log, startOf(`images/${FOLDER}/never-seen.png`))).toBeLessThan(at(log, endOfTemplateHead));
  });
});

describe('multipage previews', () => {
  it('a page equal to an earlier page of the same request finds that page\'s result', async () => {
    await render(env.FILES, options()); // the template seen: its pages' fingerprints are told ahead
    const page = { template, size: { width: 48, height: 48 }, data: { [layer]: { type: 'text', text: 'twice' } } };
    const res = await postJson('/api/rendering/multipage/preview', { pages: [page, page] });
    expect(res.status).toBe(200);
    const urls = JSON.stringify(await res.json()).match(/\d{10}-[0-9a-f]{32}\.jpg/g)!;
    expect(urls).toHaveLength(2);
    expect(urls[1]).toBe(urls[0]);
  });
});

describe('the fingerprint', () => {
  it('is the same whether it was told ahead or made from the heads, for every kind of request', async () => {
    const store = new FileStore(env.FILES);
    await store.put('images', `${FOLDER}/fp.png`, PNG_1x1);
    const variants: PreviewOptions[] = [
      options(),
      options({}),
      options({ [layer]: { type: 'text', text: 'fp' } }),
      options({ Background: { type: 'image', image: `${FOLDER}/fp.png` } }),
      options({ Background: { type: 'image', image: `${FOLDER}/fp.png`, resizeMode: 'fill' }, [layer]: { type: 'text', text: 'both' } }),
      { ...options(), format: 'png' },
      { ...options(), optimizePreview: true, unsharpMask: { amount: 0.5, radius: 1, threshold: 0 } },
      { ...options(), size: { width: 900, height: 500 } },
    ];
    for (const o of variants) {
      const plain = await preparePreview(store, o, deps);
      const told: string[] = [];
      const ahead = await preparePreview(store, o, deps, undefined, (f) => told.push(f));
      expect(told, JSON.stringify(o)).toEqual([plain.fingerprint]);
      expect(ahead.fingerprint).toBe(plain.fingerprint);
    }
  });
});

describe('a guess that turns out wrong is not used', () => {
  it('a template overwritten under the same name renders anew, though the old result is found', async () => {
    const name = `${FOLDER}/swap.psd`;
    const store = new FileStore(env.FILES);
    await store.put('templates', name, await psdFixture('psdtools-blend-screen.psd'));
    const a = await render(env.FILES, options(undefined, name));
    await store.put('templates', name, await psdFixture('psdtools-blend-overlay.psd'));
    const { bucket, log } = recordingBucket();
    const b = await render(bucket, options(undefined, name));
    // The lookahead looked up a's fingerprint (this isolate saw the old template) and found a.
    expect(log).toContain(`start head results/${a.name.slice(0, 10)}/${a.name}`);
    expect(b.created).toBe(true);
    expect(b.name).not.toBe(a.name);
  });

  it('a picture overwritten under the same name, or a font added, renders anew', async () => {
    const store = new FileStore(env.FILES);
    await store.put('images', `${FOLDER}/photo.png`, PNG_1x1);
    const data = { Background: { type: 'image' as const, image: `${FOLDER}/photo.png` }, [layer]: { type: 'text' as const, text: 'fonts' } };
    const a = await render(env.FILES, options(data));
    expect((await render(env.FILES, options(data))).name).toBe(a.name);

    const png = await encodePng({ width: 2, height: 2, data: new Uint8ClampedArray(16).fill(200) });
    await store.put('images', `${FOLDER}/photo.png`, png);
    const b = await render(env.FILES, options(data));
    expect(b.created).toBe(true);

    await store.put('fonts', `${FOLDER}/LiberationSans-Bold.ttf`, await bundledFont('LiberationSans-Bold.ttf'));
    await rebuildFontIndex(store);
    const c = await render(env.FILES, options(data));
    expect(c.created).toBe(true);
    expect(new Set([a.name, b.name, c.name]).size).toBe(3);
  });
});

describe('errors come as before, whatever was started ahead', () => {
  const refused = async (o: PreviewOptions) => {
    try {
      await render(env.FILES, o);
    } catch (e) {
      return { code: (e as EngineError).code, message: (e as Error).message };
    }
    throw new Error('not refused');
  };

  it('a missing template before a missing picture, refused data before a missing picture, then the missing picture', async () => {
    const missing = { Background: { type: 'image' as const, image: `${FOLDER}/missing-1.png` } };
    expect(await refused(options(missing, `${FOLDER}/missing.psd`))).toEqual({ code: 'ERR_NOT_FOUND', message: `There is no template "${FOLDER}/missing.psd".` });
    expect((await refused(options({ ...missing, Nope: { type: 'text', text: 'x' } }))).code).toBe('ERR_INVALID_INPUT');
    expect(await refused(options({ ...missing, [layer]: { type: 'text', text: 'x' } }))).toEqual({ code: 'ERR_NOT_FOUND', message: `There is no image "${FOLDER}/missing-1.png".` });
  });
});
