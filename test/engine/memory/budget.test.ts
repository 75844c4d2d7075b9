import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { renderingErrorHandler } from '../../../src/dynamic-image/errors';
import { Unprocessable } from '../../../src/engine/errors';
import { backdropCache, bandCache, clearEngineCaches, frameCache, imageCache } from '../../../src/engine/cache';
import { MB } from '../../../src/engine/cache/lru';
import {
  checkCodedBytes,
  checkDecodeMemory,
  checkPreviewMemory,
  codedBytesLimit,
  makeRoomForRequest,
  MAX_DECODE_PIXELS,
  previewMemory,
  previewRenderScale,
  printPageMemory,
  REQUEST_MEMORY_BUDGET,
  streamsPreview,
  STREAMED_PNG_FRAME_BYTES,
} from '../../../src/engine/memory/budget';
import { boxScale, MAX_OUTPUT_PIXELS } from '../../../src/engine/preview';

const template = (width: number, height: number) => ({ width, height });
/** The budget's check of `t` asked for at `size` (as previewBox computes the box). */
const check = (t: { width: number; height: number }, size: { width: number; height: number }, format: 'jpg' | 'png' = 'jpg') =>
  checkPreviewMemory(t, boxScale(t.width, t.height, size), { format });

/** The 422 `run` throws. */
function refusal(run: () => unknown): Unprocessable {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(Unprocessable);
    return e as Unprocessable;
  }
  throw new Error('not refused');
}

describe('the request memory budget (issue 25 §1)', () => {
  it('admits the contract’s largest previews: a 10,000² template at the largest output size, JPEG and PNG, coded as drawn', () => {
    const big = template(10_000, 10_000);
    const side = Math.floor(Math.sqrt(MAX_OUTPUT_PIXELS));
    for (const format of ['jpg', 'png'] as const) {
      const memory = check(big, { width: side, height: side }, format);
      expect(memory.streamed).toBe(true);
      expect(memory.frame).toBe(0);
      // Drawn at 0.5 (the 0.5 level is 25 MP, above the 16 MP intermediate limit): strips of a 5,000 px canvas.
      expect(memory.total).toBe(40 * MB + 5000 * 4096);
      expect(codedBytesLimit(memory)).toBeGreaterThan(10 * MB);
    }
    // A 10,000 × 2,500 template at full size (s = 1: the exact composite) and enlarged to the same pixels.
    expect(check(template(10_000, 2500), { width: 10_000, height: 2500 }).streamed).toBe(true);
    expect(() => check(template(5000, 1250), { width: 10_000, height: 10_000 }, 'png')).not.toThrow();
  });

  it('admits what storefronts ask for and frames held whole (up to 16 MB) with their encoder', () => {
    expect(check(template(8000, 8000), { width: 800, height: 800 }).total).toBeLessThan(REQUEST_MEMORY_BUDGET);
    const held = check(template(10_000, 10_000), { width: 2048, height: 2048 });
    expect([held.streamed, held.frame]).toEqual([false, 2048 * 2048 * 4]);
    expect(held.total).toBeLessThanOrEqual(REQUEST_MEMORY_BUDGET);
    const heldPng = check(template(10_000, 10_000), { width: 1254, height: 1254 }, 'png');
    expect([heldPng.streamed, heldPng.frame]).toEqual([false, 1254 * 1254 * 4 * 2.5]);
    expect(check(template(10_000, 10_000), { width: 1255, height: 1255 }, 'png').streamed).toBe(true);
    // 10,000 × 400 at full size: a held 16 MB frame drawn from a 10,000 px wide canvas.
    expect(() => check(template(10_000, 400), { width: 10_000, height: 400 }, 'png')).not.toThrow();
  });

  it('streams every PNG frame not kept for personalised requests, and JPEG frames above 16 MB', () => {
    expect(STREAMED_PNG_FRAME_BYTES).toBe(frameCache.maxEntryBytes);
    expect(streamsPreview('png', { width: 1254, height: 1254 })).toBe(false);
    expect(streamsPreview('png', { width: 1255, height: 1254 })).toBe(true);
    expect(streamsPreview('jpg', { width: 2048, height: 2048 })).toBe(false);
    expect(streamsPreview('jpg', { width: 2049, height: 2048 })).toBe(true);
  });

  it('renders at the scale preview.ts picks: the pyramid level at or above s within 16 MP, else s', () => {
    expect(previewRenderScale(template(10_000, 10_000), 0.5)).toBe(0.5);
    expect(previewRenderScale(template(10_000, 10_000), 0.2)).toBe(0.25);
    expect(previewRenderScale(template(10_000, 10_000), 0.2, true)).toBe(0.2);
    expect(previewRenderScale(template(1000, 1000), 3)).toBe(3);
    expect(previewMemory(template(1000, 1000), { s: 0.5, width: 500, height: 500 }, { format: 'jpg' }).canvas).toBe(500 * 500 * 4 * 3);
  });

  it('refuses, with a 422 naming the 96 MB limit, an enlargement whose canvas is too wide to draw in strips', () => {
    // 1,000 × 40 enlarged 20×: a 20,000 px wide canvas (its strips' bands alone pass the budget).
    const error = refusal(() => check(template(1000, 40), { width: 20_000, height: 20_000 }));
    expect(error.message).toMatch(/^A 20000×800 px JPEG preview cannot be made within the 96 MB a request may use: drawing it from a canvas 20000 px wide needs about 119 MB/);
    expect(error.details).toEqual([{ path: 'size', reason: 'over the 96 MB memory budget' }]);
  });

  it('reaches the client as a 422 JSON body naming the limit (the rendering API’s error handler)', async () => {
    const app = new Hono();
    app.onError(renderingErrorHandler);
    app.get('/preview', () => {
      check(template(1000, 40), { width: 20_000, height: 20_000 }, 'png');
      return new Response('drawn');
    });
    const res = await app.request('/preview');
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; message: string; details: unknown };
    expect(body.error).toBe('unprocessable');
    expect(body.message).toMatch(/PNG preview cannot be made within the 96 MB a request may use/);
    expect(body.details).toEqual([{ path: 'size', reason: 'over the 96 MB memory budget' }]);
  });

  it('within the API’s sizes (≤ 10,000 px a side) refuses nothing up front: the widest canvas is 10,000 px', () => {
    for (const format of ['jpg', 'png'] as const) {
      expect(() => check(template(10_000, 2500), { width: 10_000, height: 10_000 }, format)).not.toThrow();
      expect(() => check(template(400, 100), { width: 10_000, height: 10_000 }, format)).not.toThrow();
      expect(() => check(template(10_000, 400), { width: 10_000, height: 10_000 }, format)).not.toThrow();
    }
  });

  it('refuses coded bytes past their limit and decodes past the budget (422 naming the limit)', () => {
    expect(() => checkCodedBytes(10 * MB, 10 * MB)).not.toThrow();
    expect(refusal(() => checkCodedBytes(10 * MB + 1, 10 * MB)).message).toMatch(/grew past 10 MB.*96 MB a request may use/);
    expect(() => checkDecodeMemory(MAX_DECODE_PIXELS, 'data.Photo')).not.toThrow();
    // A 12 MP phone photo decodes within it; 13 MP at full size does not.
    expect(() => checkDecodeMemory(4000 * 3000, 'data.Photo')).not.toThrow();
    const error = refusal(() => checkDecodeMemory(13_000_000, 'data.Photo'));
    expect(error.message).toMatch(/data\.Photo.*13\.0 MP needs about 100 MB; a request may use 96 MB/);
    expect(error.details).toEqual([{ path: 'data.Photo', reason: 'over the 96 MB memory budget' }]);
  });

  it('makes room in the caches for a large plan, so that caches and plan stay within 96 MB, and leaves them for a small one', () => {
    const fill = () => {
      clearEngineCaches();
      for (let i = 0; i < 8; i++) bandCache.set(`band-${i}`, new Uint8Array(0), 2 * MB);
      for (let i = 0; i < 2; i++) frameCache.set(`frame-${i}`, new Uint8ClampedArray(0), 6 * MB);
      for (let i = 0; i < 2; i++) backdropCache.set(`backdrop-${i}`, new Uint8ClampedArray(0), 5 * MB);
      imageCache.set('image', { width: 0, height: 0, data: new Uint8ClampedArray(0) }, 6 * MB);
    };
    const held = () => [bandCache, frameCache, backdropCache, imageCache].reduce((sum, c) => sum + c.size, 0);
    fill();
    expect(held()).toBe(44 * MB);
    // An 800² preview's plan (a 1,000² canvas, three times, and its frame): nothing goes.
    makeRoomForRequest(15 * MB);
    expect(held()).toBe(44 * MB);
    // The 10,000² template’s 5,000² JPEG plans about 60 MB: the caches keep at most 36.
    const plan = previewMemory({ width: 10000, height: 10000 }, boxScale(10000, 10000, { width: 5000, height: 5000 }), { format: 'jpg' });
    expect(plan.total).toBeGreaterThan(59 * MB);
    makeRoomForRequest(plan.total);
    expect(held()).toBeLessThanOrEqual(REQUEST_MEMORY_BUDGET - plan.total);
    // A print page of the 10,000² template plans its strips as a 10,000 px wide canvas: 80 MB.
    fill();
    expect(printPageMemory({ width: 10000 }) / MB).toBeCloseTo(79.1, 1);
    makeRoomForRequest(printPageMemory({ width: 10000 }));
    expect(held()).toBeLessThanOrEqual(16 * MB);
    // A plan of the whole budget leaves nothing cached.
    fill();
    makeRoomForRequest(REQUEST_MEMORY_BUDGET);
    expect(held()).toBe(0);
    clearEngineCaches();
  });
});
