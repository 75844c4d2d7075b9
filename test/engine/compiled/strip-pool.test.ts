import { describe, expect, it } from 'vitest';
import { StripBuffers } from '../../../src/engine/compiled/store';

// Issue 25 §1: a streamed preview's first strip lacks the unsharp mask's rows above it, so its
// layer surface is shorter than every later strip's. The pool must then hold the longer one, not
// hand out a new array for every later strip (4.2 MB of garbage a strip for a 5,000² preview).
describe('StripBuffers surface pool', () => {
  it('replaces a pooled surface too small for a later strip, then hands that one out again', () => {
    const buffers = new StripBuffers(100);
    const first = buffers.surface(60); // the first strip: shorter
    first.fill(7);
    buffers.nextStrip();
    const second = buffers.surface(64); // no room for both: the short one makes way
    expect(second.buffer).not.toBe(first.buffer);
    buffers.nextStrip();
    for (const length of [64, 64, 50]) {
      const again = buffers.surface(length);
      expect(again.buffer).toBe(second.buffer);
      expect(again.length).toBe(length);
      expect(again.every((v) => v === 0)).toBe(true);
      again.fill(9);
      buffers.nextStrip();
    }
  });

  it('keeps free surfaces that fit, and gives new arrays past the pool as before', () => {
    const buffers = new StripBuffers(100);
    const a = buffers.surface(40);
    const b = buffers.surface(40);
    const beyond = buffers.surface(40); // 120 > 100: not pooled
    buffers.nextStrip();
    const again = [buffers.surface(40), buffers.surface(40)].map((s) => s.buffer);
    expect(again).toEqual(expect.arrayContaining([a.buffer, b.buffer]));
    expect(again).not.toContain(beyond.buffer);
  });
});
