import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { clearEngineCaches, packCache } from '../../../src/engine/cache';
import { getPacked } from '../../../src/engine/compiled/blob';
import { freeNow } from '../../../src/engine/compiled/free';
import { prefix, StripBuffers } from '../../../src/engine/compiled/store';
import type { CompiledTemplate } from '../../../src/engine/types';

/**
 * review (session 28): what the packs (compiled/packs.ts) rely on, pinned. Two uploads of one
 * file compile at once: each writes its packs and its tree, and a tree read with the other's packs
 * is right only when both wrote the same bytes in the same order; packs are named by their bytes
 * (pack/<k>/<b>/<n>-<digest>), so those of other bytes are other objects. A packed blob is handed out as a copy, which its reader frees (StripBuffers.layerBand):
 * the pack in packCache must outlive that.
 */
function layers(count: number, seed: number): Uint8Array {
  const children: Layer[] = [];
  for (let i = 0; i < count; i++) {
    const w = 20 + ((i * 7) % 31); // odd and even widths, down to 1 px tall
    const h = 1 + ((i * 13) % 40);
    const data = new Uint8ClampedArray(w * h * 4);
    for (let p = 0; p < data.length; p += 4) {
      data[p] = (i * 37 + seed + p) & 255;
      data[p + 1] = (i * 91 + (p >> 6)) & 255;
      data[p + 2] = (p * 7) & 255;
      data[p + 3] = i % 9 === 4 ? 0 : i % 5 === 0 ? 255 : (p >> 2) % 3 ? 255 : (p * 11) & 255;
    }
    const layer: Layer = { name: `L${i}`, left: (i * 97) % 580, top: (i * 61) % 600, imageData: { width: w, height: h, data } };
    if (i % 6 === 1) {
      const m = new Uint8ClampedArray(w * h * 4).map((_, p) => ((p >> 2) * 13) & 255);
      layer.mask = { left: layer.left, top: layer.top, imageData: { width: w, height: h, data: m } };
    }
    children.push(layer);
  }
  return writePsdUint8Array({ width: 600, height: 640, children }, { generateThumbnail: false });
}

async function packBytes(compiled: CompiledTemplate): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const p of compiled.packs!) out.push(new Uint8Array(await (await env.FILES.get(prefix(compiled.hash) + p.key))!.arrayBuffer()));
  return out;
}

async function render(compiled: CompiledTemplate, scale: number): Promise<Uint8ClampedArray[]> {
  clearEngineCaches();
  const out = [(await renderTemplate(env.FILES, compiled, { scale })).data.slice()];
  clearEngineCaches();
  const buffers = new StripBuffers(8 << 20, 4 << 20);
  const height = Math.round(compiled.height * scale);
  for (let top = 0; top < height; top += 33) {
    out.push((await renderTemplate(env.FILES, compiled, { scale, region: { top, bottom: Math.min(height, top + 33) }, buffers })).data.slice());
  }
  buffers.release();
  return out;
}

describe('packs under uploads and reads at once', () => {
  it('the same file compiled twice at once writes the same packs and trees (a tree read with the other upload’s packs is right)', async () => {
    const bytes = layers(90, 11);
    const [a, b] = await Promise.all([compileTemplate(env.FILES, bytes.slice()), compileTemplate(env.FILES, bytes.slice())]);
    expect(a.hash).toBe(b.hash);
    expect(a.packs!.length).toBeGreaterThan(0);
    expect(b.packs).toEqual(a.packs);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const stored = await packBytes(a);
    // Each pack is named by its bytes: a compile that wrote other bytes writes other packs, never
    // read with this tree (a pack of the same key and another length was "missing" for good).
    for (const [i, p] of a.packs!.entries()) {
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', stored[i]));
      expect(p.key).toBe(`${p.key.slice(0, p.key.lastIndexOf('-'))}-${[...digest.subarray(0, 4)].map((x) => x.toString(16).padStart(2, '0')).join('')}`);
      expect(p.key).toMatch(/^pack\/\d+\/\d+\/\d+-[0-9a-f]{8}$/);
    }
    // A third compile on its own (the others' objects gone): the same bytes, key for key.
    for (const p of a.packs!) await env.FILES.delete(prefix(a.hash) + p.key);
    await env.FILES.delete(`${prefix(a.hash)}tree.json`);
    clearEngineCaches();
    const c = await compileTemplate(env.FILES, bytes.slice());
    expect(c.packs).toEqual(a.packs);
    const again = await packBytes(c);
    for (const [i, p] of again.entries()) expect(p, a.packs![i].key).toEqual(stored[i]);
    expect(await render(a, 1)).toEqual(await render(c, 1));
  }, 120_000);

  it('a packed blob read many times at once, each copy freed by its reader, leaves the pack whole', async () => {
    const compiled = await compileTemplate(env.FILES, layers(60, 12));
    const pack = compiled.packs![0];
    const names = pack.blobs.split(' ').map((e) => prefix(compiled.hash) + e.slice(0, e.lastIndexOf(':')));
    const lengths = pack.blobs.split(' ').map((e) => Number(e.slice(e.lastIndexOf(':') + 1)));
    clearEngineCaches();
    const before = await render(compiled, 0.37);
    clearEngineCaches();
    // Cold: every read waits on the one load of the pack, then frees its copy at once.
    const reads = await Promise.all(names.map((k) => getPacked(env.FILES, k, compiled)));
    for (const [i, r] of reads.entries()) expect(r!.length).toBe(lengths[i]);
    freeNow(reads);
    const held = packCache.get(prefix(compiled.hash) + pack.key)!;
    expect(held.length).toBe(lengths.reduce((s, n) => s + n, 0));
    const reread = await Promise.all(names.map((k) => getPacked(env.FILES, k, compiled)));
    for (const [i, r] of reread.entries()) expect(r!.length).toBe(lengths[i]);
    // And renders through the strip buffers (which free what they read) stay as they were.
    expect(await render(compiled, 0.37)).toEqual(before);
  }, 120_000);
});
