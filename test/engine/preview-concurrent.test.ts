// Issue 25 §3 safety: the engine keeps arrays between personalised previews (region canvases,
// the compositor's box copy, backdrop units, lent picture decodes and placements given back by
// releaseOverrides and placementCache's onEvict). A Worker isolate interleaves concurrent
// requests at every await, so previews in flight at once, in any order, with a large request
// evicting the caches among them, must each give the bytes the same request gives alone.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/dynamic-image/store';
import { adjustmentMaskCache, backdropCache, bandCache, clearEngineCaches, frameCache, makeRoom, MB, packCache, placementCache, resampledLayerCache } from '../../src/engine/cache';
import { makeRoomForFrame } from '../../src/engine/frame';
import { UrlImages } from '../../src/engine/inputs';
import { REQUEST_MEMORY_BUDGET } from '../../src/engine/memory/budget';
import { preparePreview, type PreviewOptions } from '../../src/engine/preview';
import { dropLentPictures, lendPicture, lentPictureBytes, releaseOnce } from '../../src/engine/raster/bounded';
import { seeded as random } from '../../src/engine/composite/gradient'; // mulberry32: every run fires the same requests in the same orders
import { decodeImage, encodeJpeg, encodePng } from '../../src/engine/raster';
import { bundledFont, testAsset } from '../helpers/fixtures';
import { upload, uploadFixture } from '../dynamic-image/helpers';

/** A photo-like picture (smooth shading, texture, a few hard edges) the size of bench-photo.jpg; alpha when `alpha`. */
function photo(width: number, height: number, seed: number, alpha = false) {
  const data = new Uint8ClampedArray(width * height * 4);
  const next = random(seed);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const n = next() * 24;
      data[i] = 128 + 100 * Math.sin((x + seed * 37) / 97) + n;
      data[i + 1] = 120 + 90 * Math.cos((y - seed * 11) / 61) + n;
      data[i + 2] = (x ^ y) & 64 ? 200 - n : 40 + n;
      data[i + 3] = alpha ? Math.min(255, 40 + ((x * 255) / width) * (1 + ((y >> 5) & 1))) : 255;
    }
  }
  return { width, height, data };
}

interface Request {
  label: string;
  options: PreviewOptions;
}

const SHARPEN = { amount: 1.2, radius: 0.5, threshold: 0.05 };
const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images'); }) };

/** Bytes a request gives alone: every engine cache and kept array dropped first. */
async function alone(store: FileStore, options: PreviewOptions): Promise<Uint8Array> {
  clearEngineCaches();
  makeRoomForFrame(REQUEST_MEMORY_BUDGET);
  dropLentPictures();
  return (await (await preparePreview(store, options, deps)).render()).bytes;
}

/** What another request's decodes and placements do to the lent arrays free now: drawn into (77 everywhere), given back. */
function drawIntoEveryFreeLentArray(): void {
  const lentNow: Uint8ClampedArray[] = [];
  while (lentPictureBytes() > 0) {
    const array = lendPicture(1)!;
    new Uint8ClampedArray(array.buffer).fill(77);
    lentNow.push(array);
  }
  for (const array of lentNow) releaseOnce(array)();
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);
const bytesOf = (d: ArrayBufferView) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

describe('personalised previews in flight at once (kept and lent arrays)', () => {
  it('give every request the bytes it gives alone, in random orders and sizes, with evictions among them', { timeout: 900_000 }, async () => {
    // From the state a fresh isolate starts in: nothing another test file left in this one's caches.
    clearEngineCaches();
    makeRoomForFrame(REQUEST_MEMORY_BUDGET);
    dropLentPictures();
    // Every bucket call waits 0-2 ms first: the requests' I/O completes in shifting orders, and
    // each await on it is a point where another request's work runs. While the batches run, a
    // third of those points also do what another request may do there: a plan of the whole
    // budget (every cache emptied, the kept arrays dropped), a picture's decode making room,
    // a request drawing into every free lent array, placementCache emptied (its lent placements
    // given back) and those arrays drawn into. Whatever a request read before the await must
    // hold after it.
    const jitter = random(17);
    let batchesRunning = false;
    const meanwhile = () => {
      const c = jitter();
      if (c < 0.05) makeRoomForFrame(REQUEST_MEMORY_BUDGET);
      else if (c < 0.2) makeRoom(Math.floor(jitter() * 64) * MB);
      else if (c < 0.3) drawIntoEveryFreeLentArray();
      else if (c < 0.35) {
        placementCache.clear();
        drawIntoEveryFreeLentArray();
      }
    };
    const bucket = new Proxy(env.FILES, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await new Promise((resolve) => setTimeout(resolve, Math.floor(jitter() * 3)));
          if (batchesRunning) meanwhile();
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = new FileStore(bucket);
    const fonts: Array<[string, Uint8Array]> = [];
    for (const f of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf', 'DejaVuSans.ttf']) fonts.push([f, await bundledFont(f)]);
    expect((await upload('fonts', fonts, '?overwrite=true')).status).toBe(201);
    const folder = 'concurrent';
    const templates = {
      curves: await uploadFixture('psdtools-adjust-curves.psd', folder),
      textBug: await uploadFixture('agpsd-text-bug-1920.psd', folder),
      effects: await uploadFixture('psdtools-layer-effects-all.psd', folder),
      psdrb: await uploadFixture('psdrb-example-design.psd', folder),
      hueSat: await uploadFixture('psdtools-adjust-hue-saturation.psd', folder),
    };
    // Pictures never seen before: a 1600×1200 photo with distinct bytes appended (as the bench
    // does), other test JPEGs (4:2:2, 4:4:4, progressive, grey with restarts, EXIF 6), PNGs with alpha.
    const basePhoto = await encodeJpeg(photo(1600, 1200, 1), 85);
    const pictures: Array<[string, Uint8Array]> = [];
    // Half of them of pixels of their own: a placement drawn into another's array must show.
    for (let i = 0; i < 14; i++) pictures.push([`photo-${i}.jpg`, i % 2 ? await encodeJpeg(photo(1600, 1200, 100 + i), 85) : Uint8Array.from([...basePhoto, ...new TextEncoder().encode(`never seen ${i}`)])]);
    for (const name of ['photo-422.jpg', 'photo-444.jpg', 'photo-progressive.jpg', 'grey-restart.jpg', 'photo-420-restart.jpg']) pictures.push([`asset-${name}`, await testAsset(`jpeg/${name}`)]);
    pictures.push(['marker-exif6.jpg', await testAsset('marker-40x20-exif6.jpg')]);
    for (let i = 0; i < 3; i++) pictures.push([`alpha-${i}.png`, await encodePng(photo(700 + 90 * i, 500 + 40 * i, 7 + i, true))]);
    const stored: string[] = [];
    const bare: string[] = [];
    for (const [name, bytes] of pictures) {
      const res = await upload('images', [[name, bytes]], `?destination=${folder}&overwrite=true`);
      expect(res.status, name).toBe(201);
      stored.push(((await res.json()) as Array<{ name: string }>)[0].name);
    }
    // And some stored without the size an upload records (no renditions either): a request that
    // finds one's placement kept reads its bytes for its size, I/O while it holds the placement.
    for (let i = 0; i < 6; i++) {
      const name = `${folder}/bare-${i}.jpg`;
      await store.put('images', name, await encodeJpeg(photo(1600, 1200, 200 + i), 85));
      bare.push(name);
    }

    const targets: Array<{ template: string; layer: string; kind: 'image' | 'text' }> = [
      { template: templates.curves, layer: 'orion', kind: 'image' },
      { template: templates.textBug, layer: '背景', kind: 'image' },
      { template: templates.textBug, layer: '3月', kind: 'text' },
      { template: templates.effects, layer: 'Background', kind: 'image' },
      { template: templates.effects, layer: 'Drop Shadow', kind: 'text' },
      { template: templates.psdrb, layer: 'Matte', kind: 'image' },
      { template: templates.psdrb, layer: 'Make a change and save.', kind: 'text' },
      { template: templates.hueSat, layer: 'orion', kind: 'image' },
    ];
    const sizes = [800, 800, 800, 640, 500, 1000, 333];
    const next = random(25);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
    const request = (n: number): Request => {
      const target = pick(targets);
      const side = pick(sizes);
      const format = next() < 0.3 ? 'png' : 'jpg';
      const picture = next() < 0.5 ? pick(bare) : pick(stored);
      const command = target.kind === 'image' ? { type: 'image', image: picture, resizeMode: next() < 0.8 ? 'fill' : 'fit' } : { type: 'text', text: `Hello ${n} ${'x'.repeat(n % 4)}` };
      // Now and then two layers at once: a picture and a text in one request.
      const data: Record<string, unknown> = { [target.layer]: command };
      if (target.kind === 'text' && next() < 0.3) {
        const other = targets.find((t) => t.template === target.template && t.kind === 'image');
        if (other) data[other.layer] = { type: 'image', image: pick(stored), resizeMode: 'fill' };
      }
      return {
        label: `#${n} ${target.template.split('/').pop()} '${target.layer}' ${JSON.stringify(Object.values(data).map((c) => (c as { image?: string; text?: string }).image ?? (c as { text: string }).text))} ${side}² ${format}`,
        options: {
          template: target.template,
          format,
          jpegQuality: 85,
          unsharpMask: next() < 0.8 ? SHARPEN : null,
          optimizePreview: next() < 0.2,
          size: { width: side, height: side },
          data: data as PreviewOptions['data'],
        },
      };
    };
    // A large request among them: its plan evicts the caches (and with them the kept placements)
    // and drops the kept arrays while the others are drawing.
    const large: Request = {
      label: 'large: text-bug 5000² jpg',
      options: { template: templates.textBug, format: 'jpg', jpegQuality: 85, unsharpMask: SHARPEN, size: { width: 5000, height: 5000 }, data: { '3月': { type: 'text', text: 'Large' } } as PreviewOptions['data'] },
    };

    // Rounds of concurrent batches of random sizes; each answer is kept with its request.
    const answers: Array<{ request: Request; bytes: Uint8Array }> = [];
    let n = 0;
    let batches = 0;
    const asked: Request[] = [];
    batchesRunning = true;
    for (let round = 0; round < 16; round++) {
      const batch: Request[] = [];
      const count = 2 + Math.floor(next() * 10);
      // Half of them asked before (a shopper who changes a text keeps the picture): its
      // placement is kept then, read by requests in flight while others push it out of the cache.
      for (let i = 0; i < count; i++) {
        const earlier = asked.length && next() < 0.5 ? pick(asked) : undefined;
        const r = earlier ? { ...earlier, label: `${earlier.label} (asked before)` } : request(n++);
        batch.push(r);
        if (!earlier) asked.push(r);
      }
      // The same request twice at once now and then (one picture, one placement, two readers).
      if (next() < 0.5) batch.push({ ...batch[0], label: `${batch[0].label} (again)` });
      if (round % 3 === 1) batch.splice(Math.floor(next() * batch.length), 0, large);
      // Prepared in one order, rendered in another, each starting after a random number of turns.
      const prepared = await Promise.all(batch.map((r) => preparePreview(store, r.options, deps).catch((e) => { throw new Error(`${r.label}: ${JSON.stringify((e as { details?: unknown }).details)}`); })));
      const order = batch.map((_, i) => i).sort(() => next() - 0.5);
      const delays = batch.map(() => Math.floor(next() * 6));
      const out = await Promise.all(
        order.map(async (i) => {
          for (let t = 0; t < delays[i]; t++) await Promise.resolve();
          return { i, bytes: (await prepared[i].render()).bytes };
        }),
      );
      for (const { i, bytes } of out) if (batch[i] !== large) answers.push({ request: batch[i], bytes });
      batches++;
    }

    batchesRunning = false;
    // The same requests alone, each on a fresh cache state.
    // A mismatch says whether the pixels differ too or only their coding (a race in the encoder's path).
    const mismatched: string[] = [];
    for (const { request: r, bytes } of answers) {
      const mine = await alone(store, r.options);
      if (same(bytes, mine)) continue;
      const [inFlight, byItself] = [await decodeImage(bytes), await decodeImage(mine)];
      mismatched.push(`${r.label}: ${same(bytesOf(inFlight.data), bytesOf(byItself.data)) ? 'the same pixels, coded otherwise' : 'other pixels'}`);
    }
    console.log(`preview-concurrent: ${answers.length} personalised answers in ${batches} concurrent batches; ${answers.length - mismatched.length} the same bytes as alone`);
    expect(mismatched).toEqual([]);
  });
});

/** A FileStore whose reads of one image wait at a gate while it is shut (the request stays in flight). */
class GatedStore extends FileStore {
  gated?: { name: string; reached: () => void; open: Promise<void> };
  override async read(root: Parameters<FileStore['read']>[0], name: string) {
    const gate = this.gated;
    if (root === 'images' && gate && name === gate.name) {
      gate.reached();
      await gate.open;
    }
    return super.read(root, name);
  }
}

describe('a kept placement read by a request in flight', () => {
  // The request found the placement kept when its picture's job ran, and took its read of it only
  // when it came to draw it: a request that pushed it out of placementCache meanwhile (while the
  // first waited on I/O: here the picture's size, read from its bytes) gave its array back to be
  // drawn into, and the first request drew another picture's pixels.
  it('stays the request\'s own until it is released, whoever pushes it out of the cache meanwhile', { timeout: 300_000 }, async () => {
    const store = new GatedStore(env.FILES);
    const folder = 'concurrent-kept';
    const template = await uploadFixture('agpsd-text-bug-1920.psd', folder);
    // Pictures of pixels of their own (a placement drawn over another's array must show).
    const distinct = async (seed: number) => encodeJpeg(photo(1600, 1200, seed), 85);
    // Stored without its displayed size (no upload metadata): a kept placement's size check reads its bytes.
    const kept = `${folder}/kept.jpg`;
    await store.put('images', kept, await distinct(3));
    const others: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await upload('images', [[`other-${i}.jpg`, await distinct(10 + i)]], `?destination=${folder}&overwrite=true`);
      expect(res.status).toBe(201);
      others.push(((await res.json()) as Array<{ name: string }>)[0].name);
    }
    const options = (image: string): PreviewOptions => ({
      template,
      format: 'jpg',
      jpegQuality: 85,
      unsharpMask: SHARPEN,
      size: { width: 800, height: 800 },
      data: { 背景: { type: 'image', image, resizeMode: 'fill' } } as PreviewOptions['data'],
    });
    // Its placement kept (2.2 MB, drawn into a lent array), read by nobody now.
    const expected = await alone(store, options(kept));

    let reached!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    let open!: () => void;
    store.gated = { name: kept, reached, open: new Promise<void>((resolve) => (open = resolve)) };
    const first = (await preparePreview(store, options(kept), deps)).render();
    await Promise.race([atGate, first.then(() => Promise.reject(new Error('the picture was not read')))]);
    store.gated = undefined;
    // Meanwhile other never-seen pictures: their placements push the kept one out, their decodes
    // and placements are drawn into lent arrays.
    for (const other of others) await (await preparePreview(store, options(other), deps)).render();
    // And another request drawing into every array the pool has free now, as its decode or
    // placement would: none may be one the first request still reads.
    drawIntoEveryFreeLentArray();
    open();
    expect(same((await first).bytes, expected)).toBe(true);
  });
});

/** The bucket's next `get` once armed waits at a gate (one read held, the request in flight); every other call passes. */
function gatedBucket(bucket: R2Bucket) {
  let armed: { reached: () => void; open: Promise<void> } | undefined;
  const gated = new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const gate = prop === 'get' ? armed : undefined;
        if (gate) {
          armed = undefined;
          gate.reached();
          await gate.open;
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  /** Holds the next `get`: resolves `reached` when it comes; `open()` lets it through. */
  const arm = () => {
    let reached!: () => void;
    let open!: () => void;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    armed = { reached, open: new Promise<void>((resolve) => (open = resolve)) };
    return { atGate, open: () => open() };
  };
  return { bucket: gated, arm };
}

describe('a kept template frame pushed out of frameCache while a personalised frame is drawn', () => {
  // renderFrame draws the changed rectangle over the kept template frame it found; encodeFrameJpeg
  // then looked the frame up in frameCache again to re-code only the changed rows. A request that
  // evicted it in between (here a plan of the whole budget, while the first waits on a band's read;
  // in the random batches a picture's decode making room) left the first to code its whole frame
  // afresh: the same pixels, other bytes (tables fitted to the whole frame, no restart intervals)
  // than the request gives alone, as db76136's CI saw for layer-effects-all 'Drop Shadow',
  // "Hello 44 ", 800² JPEG.
  it('codes the JPEG from the frame it drew over, whoever empties the caches meanwhile', { timeout: 300_000 }, async () => {
    const { bucket, arm } = gatedBucket(env.FILES);
    const store = new FileStore(bucket);
    const fonts: Array<[string, Uint8Array]> = [];
    for (const f of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf']) fonts.push([f, await bundledFont(f)]);
    expect((await upload('fonts', fonts, '?overwrite=true')).status).toBe(201);
    const folder = 'concurrent-frame';
    const effects = await uploadFixture('psdtools-layer-effects-all.psd', folder);
    const options = (text: string): PreviewOptions => ({
      template: effects,
      format: 'jpg',
      jpegQuality: 85,
      unsharpMask: SHARPEN,
      size: { width: 800, height: 800 },
      data: { 'Drop Shadow': { type: 'text', text } } as PreviewOptions['data'],
    });
    const expected = await alone(store, options('Hello 44 '));
    // The template frame is kept (another text drew over it), the font too; the layers' bands
    // and backdrops were pushed out by other templates' requests: drawing the text's rectangle reads R2.
    await alone(store, options('Another text'));
    for (const cache of [bandCache, packCache, backdropCache, resampledLayerCache, adjustmentMaskCache]) cache.clear();

    const prepared = await preparePreview(store, options('Hello 44 '), deps);
    const gate = arm();
    const first = prepared.render();
    await Promise.race([gate.atGate, first.then(() => Promise.reject(new Error('the render read nothing from R2')))]);
    expect(frameCache.count).toBe(1); // found, drawn over
    // Meanwhile another request whose plan takes the whole budget: it starts by evicting every cache
    // (makeRoomForFrame, as preview.ts render does), the kept template frame with them.
    makeRoomForFrame(REQUEST_MEMORY_BUDGET);
    expect(frameCache.count).toBe(0);
    gate.open();
    expect(same((await first).bytes, expected)).toBe(true);
  });
});
