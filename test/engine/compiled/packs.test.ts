import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, deleteCompiledTemplate, renderTemplate, walkLayers } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { PACK_BYTES, PackWriter, PENDING_PACK_BYTES } from '../../../src/engine/compiled/packs';
import { prefix, StripBuffers } from '../../../src/engine/compiled/store';
import type { CompiledTemplate } from '../../../src/engine/types';

/**
 * A 600 × 500 template of `count` small layers (40 × 30, noisy colours, some masked, one
 * fully transparent), `seed` making each call's bytes (and hash) its own.
 */
function smallLayers(count: number, seed: number): Uint8Array {
  const children: Layer[] = [];
  for (let i = 0; i < count; i++) {
    const data = new Uint8ClampedArray(40 * 30 * 4);
    for (let p = 0; p < data.length; p += 4) {
      data[p] = (i * 37 + seed + p) & 255;
      data[p + 1] = (i * 91 + (p >> 6)) & 255;
      data[p + 2] = (p * 7) & 255;
      data[p + 3] = i === 5 ? 0 : 128 + ((p >> 4) & 127);
    }
    const layer: Layer = { name: `L${i}`, left: (i * 97) % 560, top: (i * 61) % 470, imageData: { width: 40, height: 30, data }, blendMode: i % 3 ? 'normal' : 'multiply' };
    if (i % 7 === 0) {
      const m = new Uint8ClampedArray(40 * 30 * 4).map((_, p) => ((p >> 2) * 13) & 255);
      layer.mask = { left: layer.left, top: layer.top, imageData: { width: 40, height: 30, data: m } };
    }
    children.push(layer);
  }
  return writePsdUint8Array({ width: 600, height: 500, children }, { generateThumbnail: false });
}

async function keys(p: string): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const list = await env.FILES.list({ prefix: p, cursor });
    out.push(...list.objects.map((o) => o.key));
    cursor = list.truncated ? list.cursor : undefined;
  } while (cursor);
  return out;
}

/** The same template with every packed blob written as an object of its own and no packs in its tree. */
async function unpacked(compiled: CompiledTemplate): Promise<CompiledTemplate> {
  const at = prefix(compiled.hash);
  for (const p of compiled.packs!) {
    const pack = new Uint8Array(await (await env.FILES.get(at + p.key))!.arrayBuffer());
    let offset = 0;
    for (const entry of p.blobs.split(' ')) {
      const [key, length] = [entry.slice(0, entry.lastIndexOf(':')), Number(entry.slice(entry.lastIndexOf(':') + 1))];
      await env.FILES.put(at + key, pack.slice(offset, offset + length));
      offset += length;
    }
  }
  return { ...compiled, packs: undefined };
}

/** Whole renders at two scales and strip renders through a frame's buffers, as bytes. */
async function renders(compiled: CompiledTemplate): Promise<Uint8ClampedArray[]> {
  const out: Uint8ClampedArray[] = [];
  for (const scale of [1, 0.37]) {
    clearEngineCaches();
    out.push((await renderTemplate(env.FILES, compiled, { scale })).data.slice());
    clearEngineCaches();
    const buffers = new StripBuffers(8 << 20, 4 << 20);
    const height = Math.round(compiled.height * scale);
    for (let top = 0; top < height; top += 64) {
      out.push((await renderTemplate(env.FILES, compiled, { scale, region: { top, bottom: Math.min(height, top + 64) }, buffers })).data.slice());
    }
    buffers.release();
  }
  return out;
}

const missing = (key: string) => `compiled template: ${key} missing`;

/** The full keys of a pack's blobs. */
const blobsOf = (compiled: CompiledTemplate, pack: { blobs: string }) =>
  pack.blobs.split(' ').map((entry) => prefix(compiled.hash) + entry.slice(0, entry.lastIndexOf(':')));

/** What a render fails with: the error's class and its cause's message (the band that failed). */
async function failure(render: Promise<unknown>): Promise<{ name: string; cause: string }> {
  try {
    await render;
  } catch (e) {
    return { name: (e as Error).name, cause: ((e as Error).cause as Error | undefined)?.message ?? '' };
  }
  throw new Error('the render did not fail');
}

describe('small bands stored in packs', () => {
  it('a template of many small layers compiles into a few objects and renders the same bytes as with each band alone', async () => {
    const compiled = await compileTemplate(env.FILES, smallLayers(80, 1));
    const stored = await keys(prefix(compiled.hash));
    const bands = compiled.packs!.flatMap((p) => p.blobs.split(' '));
    // 80 layers' and 12 masks' bands at 3 levels, in one pack per level and band of rows.
    expect(bands.length).toBeGreaterThan(250);
    expect(compiled.packs!.length).toBeLessThanOrEqual(5);
    expect(stored.length).toBeLessThan(20);
    expect(stored.filter((k) => k.includes('/px/') || k.includes('/mask/'))).toEqual([]);
    // The fully transparent layer left nothing behind, in a pack or alone.
    const empty = [...walkLayers(compiled.layers)].find((n) => n.name === 'L5')!;
    expect(empty.hasPixels).toBeFalsy();
    expect(bands.filter((b) => b.startsWith(`px/${empty.id}/`))).toEqual([]);

    const packed = await renders(compiled);
    const alone = await renders(await unpacked(compiled));
    expect(packed.length).toBe(alone.length);
    for (const [i, data] of packed.entries()) expect(data, `render ${i}`).toEqual(alone[i]);
  }, 120_000);

  it('a missing pack fails the render as a missing band does, naming the band', async () => {
    const compiled = await compileTemplate(env.FILES, smallLayers(40, 2));
    const copy = await unpacked(compiled);
    const pack = compiled.packs!.find((p) => p.key.startsWith('pack/0/'))!;
    const first = prefix(compiled.hash) + pack.blobs.slice(0, pack.blobs.indexOf(':'));
    // Today's error for a band that is gone:
    const held = await env.FILES.get(first);
    const bytes = new Uint8Array(await held!.arrayBuffer());
    await env.FILES.delete(first);
    clearEngineCaches();
    const band = await failure(renderTemplate(env.FILES, copy, { scale: 1 }));
    expect(band).toEqual({ name: 'LayerRenderError', cause: missing(first) });
    await env.FILES.put(first, bytes);
    // The same for a band in a pack that is gone:
    await env.FILES.delete(prefix(compiled.hash) + pack.key);
    clearEngineCaches();
    const packed = await failure(renderTemplate(env.FILES, compiled, { scale: 1 }));
    expect(packed.name).toBe(band.name);
    expect(blobsOf(compiled, pack).map(missing)).toContain(packed.cause);
  });

  it('a pack of another length than written (cut short, replaced) is a missing band too', async () => {
    const compiled = await compileTemplate(env.FILES, smallLayers(40, 3));
    const pack = compiled.packs!.find((p) => p.key.startsWith('pack/0/'))!;
    const key = prefix(compiled.hash) + pack.key;
    const whole = new Uint8Array(await (await env.FILES.get(key))!.arrayBuffer());
    await env.FILES.put(key, whole.subarray(0, whole.length - 1));
    clearEngineCaches();
    const cut = await failure(renderTemplate(env.FILES, compiled, { scale: 1 }));
    expect(cut.name).toBe('LayerRenderError');
    expect(blobsOf(compiled, pack).map(missing)).toContain(cut.cause);
  });

  it('deleting the template deletes its packs', async () => {
    const compiled = await compileTemplate(env.FILES, smallLayers(30, 4));
    expect((await keys(`${prefix(compiled.hash)}pack/`)).length).toBe(compiled.packs!.length);
    await deleteCompiledTemplate(env.FILES, compiled.hash);
    expect(await keys(prefix(compiled.hash))).toEqual([]);
  });
});

describe('PackWriter', () => {
  const writer = () => {
    const written: Array<{ key: string; bytes: Uint8Array }> = [];
    const packs = new PackWriter('compiled/h/', async (key, packed) => {
      written.push({ key, bytes: packed.bytes.slice() });
      packed.release();
    });
    return { packs, written };
  };

  it('writes a pack once it holds PACK_BYTES, and holds at most PENDING_PACK_BYTES in pending packs', async () => {
    const { packs, written } = writer();
    const blob = new Uint8Array(60 * 1024).fill(7);
    let added = 0;
    for (let i = 0; i < 400; i++) {
      await packs.add(`0/${i % 12}`, `compiled/h/px/${i}/0/${i % 12}`, blob);
      added += blob.length;
      const out = written.reduce((sum, w) => sum + w.bytes.length, 0);
      expect(added - out).toBeLessThanOrEqual(PENDING_PACK_BYTES);
    }
    await packs.finish();
    expect(written.reduce((sum, w) => sum + w.bytes.length, 0)).toBe(added);
    expect(Math.max(...written.map((w) => w.bytes.length))).toBeLessThan(PACK_BYTES + blob.length);
    expect(written.every((w) => /^compiled\/h\/pack\/0\/\d+\/\d+$/.test(w.key))).toBe(true);
    expect(packs.packs.map((p) => `compiled/h/${p.key}`)).toEqual(written.map((w) => w.key));
  });

  it('cuts dropped blobs from the end of their pending pack, leaves one already written, and names those it never held', async () => {
    const { packs, written } = writer();
    await packs.add('1/0', 'compiled/h/px/1/1/0', new Uint8Array([1, 2, 3]));
    await packs.add('1/0', 'compiled/h/px/2/1/0', new Uint8Array([4, 5]));
    expect(packs.drop(['compiled/h/px/2/1/0', 'compiled/h/px/2/0/0'])).toEqual(['compiled/h/px/2/0/0']);
    await packs.finish();
    expect(packs.packs).toEqual([{ key: 'pack/1/0/0', blobs: 'px/1/1/0:3' }]);
    expect([...written[0].bytes]).toEqual([1, 2, 3]);
    expect(packs.drop(['compiled/h/px/1/1/0'])).toEqual([]);
    expect(packs.packs).toEqual([{ key: 'pack/1/0/0', blobs: 'px/1/1/0:3' }]);
  });
});
