/**
 * Nested isolated groups give their composites back once blended (probe27, issue 25 §1): each open
 * level held a surface the size of the canvas or strip, and ten levels with a clipped layer on each
 * made 613 MB of them for a 4,000² print PDF, which killed workerd under 128 MB. The same pixels
 * with the drops as without.
 */
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { renderTemplate } from '../../../src/engine/composite/compositor';
import { dropped, useDrops } from '../../../src/engine/memory/drop';

const SIDE = 256;
const LEVELS = 4;

/** A full-canvas layer under LEVELS nested groups (normal or multiply at 90 %: isolated), each with a small layer. */
function nested(): Uint8Array {
  const fill = (w: number, h: number, rgba: number[]) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
    return { width: w, height: h, data };
  };
  let node: Layer = { name: 'Inner', left: 0, top: 0, imageData: fill(SIDE, SIDE, [40, 120, 200, 255]) };
  for (let i = 0; i < LEVELS; i++) {
    node = {
      name: `Group ${i}`,
      opened: true,
      blendMode: i % 2 ? 'multiply' : 'normal',
      opacity: 0.9,
      children: [
        node,
        { name: `Dot ${i}`, left: 20 * i, top: 30 * i, imageData: fill(40, 40, [200, 60 * i, 90, 200]) },
      ],
    };
  }
  return writePsdUint8Array({ width: SIDE, height: SIDE, children: [node] }, { generateThumbnail: false });
}

describe('nested groups', () => {
  it('free each level’s composite once it is blended, with the same pixels', async () => {
    const compiled = await compileTemplate(env.FILES, nested());
    // No backdrop kept between the two renders (the second would copy the first's canvas).
    const backdrops = { get: async () => null, set: async () => {} };
    const render = () => renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent', backdrops });
    useDrops(false);
    let kept: Uint8ClampedArray;
    try {
      kept = (await render()).data.slice();
    } finally {
      useDrops(true);
    }
    const before = dropped.bytes;
    const image = await render();
    expect(image.data).toEqual(kept);
    // At least each Multiply level's group composite (a surface of the canvas: 256 KB) went back at
    // once; a Normal level under one is drawn on that one's surface (compositor.ts drawStackOnClear).
    expect(dropped.bytes - before).toBeGreaterThanOrEqual((LEVELS / 2) * SIDE * SIDE * 4);
  });
});
