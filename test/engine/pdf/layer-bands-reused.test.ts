/**
 * A print page's strips read many small layers' bands through their own buffers, the least
 * recently read one's taken when the page's room for them is full (compiled/store.ts
 * StripBuffers.takeLeastRecent), not through the isolate's band cache: probe layers-1000's print
 * PDF (1,000 small layers on 4,000²) inflated 47 MB of bands into that cache, which let them go to
 * the collector, and workerd grew by all of it (issue 25 §1). The same pixels as fresh arrays.
 */
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { compileTemplate } from '../../../src/engine';
import { bandCache, clearEngineCaches } from '../../../src/engine/cache';
import { renderTemplate } from '../../../src/engine/composite/compositor';
import { StripBuffers } from '../../../src/engine/compiled/store';

const SIDE = 400;

/** 80 small layers of 40 × 30 px in five modes over a full-canvas one. */
function manyLayers(): Uint8Array {
  const fill = (w: number, h: number, rgba: number[]) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
    return { width: w, height: h, data };
  };
  const modes = ['normal', 'multiply', 'screen', 'overlay', 'soft light'] as const;
  const children: Layer[] = [{ name: 'Background', left: 0, top: 0, imageData: fill(SIDE, SIDE, [235, 235, 225, 255]) }];
  for (let i = 1; i <= 80; i++) {
    const left = (i * 131) % (SIDE - 40);
    const top = (i * 211) % (SIDE - 30);
    children.push({ name: `L${i}`, left, top, blendMode: modes[i % 5], opacity: 0.5 + ((i * 7) % 50) / 100, imageData: fill(40, 30, [(i * 53) & 255, (i * 97) & 255, (i * 31) & 255, 128 + (i % 128)]) });
  }
  return writePsdUint8Array({ width: SIDE, height: SIDE, children }, { generateThumbnail: false });
}

it('reads many small layers’ bands through a few kept buffers, not the band cache, with the same pixels', async () => {
  const compiled = await compileTemplate(env.FILES, manyLayers());
  const strips = async (buffers?: StripBuffers) => {
    const out = new Uint8ClampedArray(SIDE * SIDE * 4);
    for (let top = 0; top < SIDE; top += 23) {
      const bottom = Math.min(SIDE, top + 23);
      const image = await renderTemplate(env.FILES, compiled, { scale: 1, background: 'transparent', region: { top, bottom }, buffers });
      out.set(image.data.subarray(0, SIDE * (bottom - top) * 4), top * SIDE * 4);
    }
    return out;
  };
  const fresh = await strips();
  clearEngineCaches();
  // Room for the background's 410 KB band and about 18 of the small layers' 4.8 KB ones: the rest take the least recent one's buffer.
  const buffers = new StripBuffers(1 << 20, 512 * 1024);
  const kept = await strips(buffers);
  expect(bandCache.size).toBe(0);
  buffers.release();
  expect(kept).toEqual(fresh);
});
