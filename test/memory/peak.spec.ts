/**
 * Proof with a real limit (issue 25 §1): each request of bench/memory.bench.mjs's cases (the upload's compile too), run
 * in a fresh Node process with the engine bundled as the Worker gets it, must hold at most the
 * 96 MB request budget live (JS heap + ArrayBuffers after GC, sampled every 25 ms) plus the WASM
 * linear memory it grew: a regression fails here, not in a deployed isolate of 128 MB (local
 * workerd has no limit and no memory figures). Memory, not time: the load does not move it.
 *
 * Runs in Node (vitest.memory.config.ts, part of `npm test`): `npx vitest run -c vitest.memory.config.ts`.
 */
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const BUDGET_MB = 96;
// fx-preview-10000-2500: session 11's render paths on a 10,000² template (bench/memory.bench.mjs
// makeFx: 250 px stroke, gradient glow, satin, a far shadow, a feathered mask, a gradient fill
// without pixels, a shape past the canvas, the adjustment kernels) → 2,500² JPEG: 18-24 MB, ~15 s CPU.
// Its 5,000² preview (82 MB) and print PDF (190 MB, over the budget) take minutes: bench only.
const CASES = ['preview-10000', 'pdf-10000', 'personalised-8000', 'photo-12mp', 'upload-10000', 'png-10000', 'fx-preview-10000-2500'];

describe('peak memory per request (issue 25 §1)', () => {
  it(`keeps each of ${CASES.join(', ')} within ${BUDGET_MB} MB live + WASM`, { timeout: 600_000 }, async () => {
    // A directory of its own: a bench run at the same time keeps its bundle and store.
    const dir = path.join(os.tmpdir(), `memory-test-${process.pid}`);
    process.env.MEMORY_BENCH_DIR = dir;
    // @ts-expect-error: the bench is plain JavaScript (no declarations).
    const { measureMemory } = await import('../../bench/memory.bench.mjs');
    let results: { name: string; failed?: string; live: number; wasm: number; rss: number }[];
    try {
      results = await measureMemory(CASES);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const seen = results.map((r) => (r.failed ? `${r.name}: failed\n${r.failed}` : `${r.name}: ${(r.live + r.wasm).toFixed(1)} MB (live ${r.live.toFixed(1)} + WASM ${r.wasm.toFixed(1)}; peak RSS +${r.rss.toFixed(1)})`));
    console.log(seen.join('\n'));
    expect(results.map((r) => r.name)).toEqual(CASES);
    for (const r of results) {
      expect(r.failed, `${r.name} failed`).toBeUndefined();
      expect(r.live + r.wasm, `${r.name}: live + WASM (MB)`).toBeLessThanOrEqual(BUDGET_MB);
    }
  });
});
