import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, deleteCompiledTemplate, templateHash } from '../../../src/engine/compiled/compile';
import { prefix } from '../../../src/engine/compiled/store';
import { Unprocessable } from '../../../src/engine/errors';
import { ChannelWindows, MAX_SKELETON_BYTES, readSkeleton, WINDOW_BYTES, withMerged, type StoredChannel } from '../../../src/engine/psd/skeleton';
import { bytesSource, r2Source } from '../../../src/engine/psd/source';
import { fixtureServer } from '../../helpers/fixtures';

/** Every fixture PSD/PSB, by its path under test/fixtures. */
const FIXTURES = Object.keys(import.meta.glob(['../../fixtures/psd/*.{psd,psb}', '../../fixtures/psd-made/*.{psd,psb}'])).map((p) => p.replace('../../fixtures/', ''));

async function fixture(path: string): Promise<Uint8Array> {
  const res = await fetch(`${fixtureServer()}/fixtures/${path.split('/').map(encodeURIComponent).join('/')}`);
  if (!res.ok) throw new Error(`fixture ${path}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** The compile's result: its tree and every object's SHA-256 by key, or the refusal's message. Leaves nothing stored. */
async function compiled(hash: string, compile: () => Promise<unknown>): Promise<unknown> {
  try {
    const tree = await compile();
    const objects: Record<string, string> = {};
    let cursor: string | undefined;
    do {
      const list = await env.FILES.list({ prefix: prefix(hash), cursor });
      for (const o of list.objects) {
        const body = await (await env.FILES.get(o.key))!.arrayBuffer();
        objects[o.key] = [...new Uint8Array(await crypto.subtle.digest('SHA-256', body))].map((b) => b.toString(16).padStart(2, '0')).join('');
      }
      cursor = list.truncated ? list.cursor : undefined;
    } while (cursor);
    return { tree: JSON.parse(JSON.stringify(tree)), objects };
  } catch (e) {
    return { refused: (e as Error).message };
  } finally {
    await deleteCompiledTemplate(env.FILES, hash);
  }
}

describe('a PSD compiled from its skeleton (psd/skeleton.ts)', () => {
  it(`gives the tree and objects of the file read whole, for each of the ${FIXTURES.length} fixtures`, { timeout: 600_000 }, async () => {
    expect(FIXTURES.length).toBeGreaterThan(100);
    const readWhole: string[] = [];
    for (const path of FIXTURES) {
      const bytes = await fixture(path);
      const skeleton = await readSkeleton(bytesSource(bytes));
      if (skeleton.whole) readWhole.push(path);
      else expect(skeleton.bytes.length, path).toBeLessThanOrEqual(bytes.length);
      // A name of its own: another test file may hold (and cache under) the same template in this runtime.
      const hash = `skeleton-test-${await templateHash(bytes)}`;
      const key = `test-skeleton/${path}`;
      await env.FILES.put(key, bytes);
      const whole = await compiled(hash, () => compileTemplate(env.FILES, bytes, { hash, readWhole: true }));
      const ranged = await compiled(hash, () => compileTemplate(env.FILES, r2Source(env.FILES, key, bytes.length), { hash }));
      await env.FILES.delete(key);
      expect(ranged, path).toEqual(whole);
    }
    // Only files whose structure does not add up are read whole.
    expect(readWhole).toEqual([]);
  });
});

describe('a cut-short or lying PSD read by ranges', () => {
  it('is refused or compiled as when it was read whole', { timeout: 120_000 }, async () => {
    for (const path of ['psd/agpsd-groups.psd', 'psd/psdtools-layer-effects-all.psd', 'psd-made/made-spot-rgb8.psd']) {
      expect(FIXTURES).toContain(path);
      const full = await fixture(path);
      for (const share of [0.02, 0.3, 0.6, 0.9, 0.999]) {
        const bytes = full.slice(0, Math.floor(full.length * share));
        // A name of its own: another test file may hold (and cache under) the same template in this runtime.
        const hash = `skeleton-test-${await templateHash(bytes)}`;
        const key = `test-skeleton-cut/${path}`;
        await env.FILES.put(key, bytes);
        const whole = await compiled(hash, () => compileTemplate(env.FILES, bytes.slice(), { hash, readWhole: true }));
        const ranged = await compiled(hash, () => compileTemplate(env.FILES, r2Source(env.FILES, key, bytes.length), { hash }));
        await env.FILES.delete(key);
        expect(ranged, `${path} cut at ${share}`).toEqual(whole);
      }
    }
  });
});

describe("layers' channels read by ranges", () => {
  it('come in windows of consecutive layers, in either order, not a get a layer', async () => {
    const channel = 50_000;
    const file = new Uint8Array(400 * 2 * channel);
    let reads = 0;
    const source = bytesSource(file);
    const counted = { size: source.size, read: (offset: number, length: number) => (reads++, source.read(offset, length)) };
    for (const order of ['file', 'reversed']) {
      const layers: StoredChannel[][] = Array.from({ length: 400 }, (_, i) => [0, 1].map((c) => ({ id: c, compression: 0, data: undefined, range: { start: (2 * i + c) * channel, length: channel } })));
      if (order === 'reversed') layers.reverse();
      const windows = new ChannelWindows(counted, layers);
      reads = 0;
      for (const [i, l] of layers.entries()) {
        await windows.load(i, l);
        expect(l.map((c) => c.data?.length)).toEqual([channel - 2, channel - 2]);
      }
      expect(reads, order).toBeLessThanOrEqual(Math.ceil(file.length / WINDOW_BYTES) + 1);
    }
  });
});

/** A 1 × 1 RGB PSD: `resources` bytes of image resources, a layer and mask section that claims `section` bytes, `image` bytes of merged image. */
function bare(resources: number, section: number, image: number): Uint8Array {
  const bytes = new Uint8Array(26 + 4 + 4 + resources + 4 + image);
  const view = new DataView(bytes.buffer);
  bytes.set([0x38, 0x42, 0x50, 0x53]); // 8BPS
  view.setUint16(4, 1);
  view.setUint16(12, 3);
  view.setUint32(14, 1);
  view.setUint32(18, 1);
  view.setUint16(22, 8);
  view.setUint16(24, 3);
  view.setUint32(30, resources);
  view.setUint32(34 + resources, section);
  return bytes;
}

describe('the skeleton of a PSD', () => {
  it(`is refused with a 422 naming the limit when its structure passes ${MAX_SKELETON_BYTES / 1024 / 1024} MB`, async () => {
    const refused = await readSkeleton(bytesSource(bare(MAX_SKELETON_BYTES + 1, 0, 3))).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Unprocessable);
    expect((refused as Error).message).toContain(`more than ${MAX_SKELETON_BYTES / 1024 / 1024} MB`);
  });

  it('is the file itself when its lengths do not add up and it is small, and a 422 when it is large', async () => {
    const small = await readSkeleton(bytesSource(bare(16, 0xffff_0000, 1000)));
    expect(small.whole).toBe(true);
    const refused = await readSkeleton(bytesSource(bare(16, 0xffff_0000, MAX_SKELETON_BYTES))).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Unprocessable);
    expect((refused as Error).message).toMatch(/^The PSD could not be read: its structure does not add up/);
  });

  it('holds the merged image as 3 bytes and reads it back where it is used', async () => {
    const bytes = bare(16, 0, 5000);
    bytes.fill(7, bytes.length - 5000);
    const skeleton = await readSkeleton(bytesSource(bytes));
    expect(skeleton.whole).toBe(false);
    expect(skeleton.bytes.length).toBe(bytes.length - 5000 + 3);
    expect(await withMerged(skeleton, bytesSource(bytes), undefined)).toEqual(bytes);
  });
});

describe('the structure walk of a large PSD', () => {
  it('steps over megabytes of padding a window at a time (review29)', { timeout: 60_000 }, async () => {
    const padding = 9 * 1024 * 1024;
    const bytes = bare(0, padding, padding + 3);
    let reads = 0;
    const source = bytesSource(bytes);
    const counted = { size: source.size, read: (offset: number, length: number) => (reads++, source.read(offset, length)) };
    const skeleton = await readSkeleton(counted);
    expect(skeleton.whole).toBe(false);
    // A window after the header, then a window at a time (the header's few reads besides).
    expect(reads).toBeLessThanOrEqual(Math.ceil(bytes.length / WINDOW_BYTES) + 2);
  });

  it('reads linked files only where their names are, not a 4 MB window at each small block between them (review29)', { timeout: 60_000 }, async () => {
    // A 64 px document whose global blocks are 4 MB linked files with a 4-byte block before each.
    const files = 5;
    const n = 4 * 1024 * 1024;
    const blocks: Uint8Array[] = [];
    for (let i = 0; i < files; i++) {
      const tiny = new Uint8Array(16);
      tiny.set(new TextEncoder().encode('8BIMxtny'));
      new DataView(tiny.buffer).setUint32(8, 4);
      const linked = new Uint8Array(12 + n);
      const view = new DataView(linked.buffer);
      linked.set(new TextEncoder().encode('8BIMlnk2'));
      view.setUint32(8, n);
      view.setUint32(16, n - 8); // the file's length; then 'liFD', version 7, an empty id, no name
      linked.set(new TextEncoder().encode('liFD'), 20);
      view.setUint32(24, 7);
      blocks.push(tiny, linked);
    }
    const global = blocks.reduce((sum, b) => sum + b.length, 0);
    const bytes = bare(0, 8 + global, 8 + global + 2 + 64 * 64 * 3);
    const head = new DataView(bytes.buffer);
    head.setUint32(14, 64);
    head.setUint32(18, 64);
    let at = 34 + 4 + 8;
    for (const b of blocks) bytes.set(b, (at += b.length) - b.length);
    bytes.fill(90, at + 2);
    let read = 0;
    const source = bytesSource(bytes);
    const counted = { size: source.size, read: (offset: number, length: number) => ((read += length), source.read(offset, length)) };
    const skeleton = await readSkeleton(counted);
    expect(skeleton.whole).toBe(false);
    expect(skeleton.linked.map((l) => l.key)).toEqual(Array(files).fill('lnk2'));
    // The first window, then 64 KB at each linked file and after it: not the 4 MB window each small block had.
    expect(read).toBeLessThanOrEqual(WINDOW_BYTES + 2 * files * 64 * 1024);
  });

  it("reads a layer record that crosses a window's end, wherever it falls", { timeout: 300_000 }, async () => {
    // agpsd-groups.psd with colour mode data (skipped for RGB) that puts its layer records across 8 MB,
    // the end of the window the copy of the header leaves, with more than a window after them.
    const psd = await fixture('psd/agpsd-groups.psd');
    const view = new DataView(psd.buffer, psd.byteOffset);
    expect(view.getUint16(24)).toBe(3);
    const colourModeData = view.getUint32(26);
    const section = 26 + 4 + colourModeData + 4 + view.getUint32(30 + colourModeData);
    const records = section + 4 + 4 + 2;
    for (const before of [2, 17, 40, 90]) {
      const extra = 2 * WINDOW_BYTES - before - records;
      const shifted = new Uint8Array(psd.length + extra + 5 * 1024 * 1024);
      shifted.set(psd.subarray(0, 26));
      new DataView(shifted.buffer).setUint32(26, colourModeData + extra);
      shifted.set(psd.subarray(30 + colourModeData), 30 + colourModeData + extra);
      const skeleton = await readSkeleton(bytesSource(shifted));
      expect(skeleton.whole, `${before} bytes before the window's end`).toBe(false);
      const hash = `skeleton-test-${await templateHash(shifted)}`;
      const key = 'test-skeleton-crossing.psd';
      await env.FILES.put(key, shifted);
      const whole = await compiled(hash, () => compileTemplate(env.FILES, shifted, { hash, readWhole: true }));
      const ranged = await compiled(hash, () => compileTemplate(env.FILES, r2Source(env.FILES, key, shifted.length), { hash }));
      await env.FILES.delete(key);
      expect(ranged, `${before} bytes before the window's end`).toEqual(whole);
      expect(whole).not.toHaveProperty('refused');
    }
  });
});

describe('the merged image of a PSD read by ranges', () => {
  it('is read only as far as its decode reads, not a tail a crafted file puts after it (review29)', { timeout: 120_000 }, async () => {
    const psd = await fixture('psd/agpsd-groups.psd');
    const tailed = new Uint8Array(psd.length + 6 * 1024 * 1024);
    tailed.set(psd);
    tailed.fill(9, psd.length);
    const inner = bytesSource(tailed);
    let read = 0;
    const counting = { size: tailed.length, read: (offset: number, length: number) => ((read += length), inner.read(offset, length)) };
    const hash = await templateHash(tailed);
    const whole = (await compiled(await templateHash(psd), () => compileTemplate(env.FILES, psd))) as { objects: Record<string, string> };
    const ranged = (await compiled(hash, () => compileTemplate(env.FILES, counting, { hash }))) as { objects: Record<string, string> };
    // The same objects (their keys, and the tree that names them, differ by the template's hash), the stored composite among them.
    const digests = (objects: Record<string, string>) => Object.entries(objects).filter(([k]) => !k.endsWith('tree.json')).map(([, v]) => v).sort();
    expect(digests(ranged.objects)).toEqual(digests(whole.objects));
    expect(Object.keys(ranged.objects).some((k) => k.includes('composite'))).toBe(true);
    // The structure walk's one window (it may pass the file's end into the tail) and nothing of the tail after it.
    expect(read).toBeLessThanOrEqual(WINDOW_BYTES + psd.length);
  });
});
