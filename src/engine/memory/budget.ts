/**
 * The memory one request may use (issue 25 §1): a deployed isolate has 128 MB, local workerd has
 * no limit, so a request that needs more passes every local test and is killed in production.
 * The budget is 96 MB; the rest is the isolate's own (code, WASM instances, the caches' floor).
 *
 * A preview holds its finished frame whole (the encoders take a whole image) and, when its canvas
 * is large, draws it in strips (src/engine/frame.ts) whose working set comes on top. Both are known
 * from the output size before anything is fetched or drawn, so a preview that cannot fit is
 * refused then, with a 422 naming the limit. Measurements: docs/performance.md "Peak memory per
 * request" (`node bench/memory.bench.mjs`).
 */
import { MB } from '../cache/lru';
import { unprocessable } from '../errors';

export const REQUEST_MEMORY_BUDGET = 96 * MB;

/** What drawing a frame holds besides the frame: a strip's canvas, layer rows and bands (measured 30–50 MB at 5,000 px wide). */
export const FRAME_WORKING_SET = 40 * MB;

/** Bytes a preview of `size` needs at its peak (estimate, before anything is drawn). */
export function previewBytes(size: { width: number; height: number }): number {
  return size.width * size.height * 4 + FRAME_WORKING_SET;
}

/** Largest output (pixels) whose preview fits the budget. */
export const MAX_BUDGET_PIXELS = Math.floor((REQUEST_MEMORY_BUDGET - FRAME_WORKING_SET) / 4);

/** Refuses (Unprocessable: 422) a preview of `size` that would need more than the budget. */
export function checkPreviewMemory(size: { width: number; height: number }): void {
  const need = previewBytes(size);
  if (need <= REQUEST_MEMORY_BUDGET) return;
  throw unprocessable(
    `A ${size.width}×${size.height} px preview needs about ${Math.ceil(need / MB)} MB to draw; a request may use ${REQUEST_MEMORY_BUDGET / MB} MB. ` +
      `Ask for at most ${(MAX_BUDGET_PIXELS / 1e6).toFixed(1)} megapixels (e.g. ${Math.floor(Math.sqrt(MAX_BUDGET_PIXELS))}×${Math.floor(Math.sqrt(MAX_BUDGET_PIXELS))}).`,
    [{ path: 'size', reason: `over the ${REQUEST_MEMORY_BUDGET / MB} MB memory budget` }],
  );
}
