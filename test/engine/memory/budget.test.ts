import { describe, expect, it } from 'vitest';
import { Unprocessable } from '../../../src/engine/errors';
import { checkPreviewMemory, MAX_BUDGET_PIXELS, previewBytes, REQUEST_MEMORY_BUDGET } from '../../../src/engine/memory/budget';

describe('the request memory budget (issue 25 §1)', () => {
  it('admits the previews storefronts ask for and what fits exactly', () => {
    expect(() => checkPreviewMemory({ width: 800, height: 800 })).not.toThrow();
    expect(() => checkPreviewMemory({ width: 2048, height: 2048 })).not.toThrow();
    expect(() => checkPreviewMemory({ width: MAX_BUDGET_PIXELS, height: 1 })).not.toThrow();
    expect(previewBytes({ width: MAX_BUDGET_PIXELS, height: 1 })).toBeLessThanOrEqual(REQUEST_MEMORY_BUDGET);
  });

  it('refuses a 5,000² preview (its frame alone is 100 MB) with a 422 naming the limit', () => {
    let error: unknown;
    try {
      checkPreviewMemory({ width: 5000, height: 5000 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Unprocessable);
    expect((error as Error).message).toMatch(/5000×5000 px preview needs about 136 MB to draw; a request may use 96 MB/);
    expect((error as Unprocessable).details).toEqual([{ path: 'size', reason: 'over the 96 MB memory budget' }]);
  });
});
