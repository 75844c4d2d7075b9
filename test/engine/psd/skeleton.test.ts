import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, deleteCompiledTemplate, templateHash } from '../../../src/engine/compiled/compile';
import { prefix } from '../../../src/engine/compiled/store';
import { ChannelWindows, readSkeleton, WINDOW_BYTES, type StoredChannel } from '../../../src/engine/psd/skeleton';
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
      const hash = await templateHash(bytes);
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
        const hash = await templateHash(bytes);
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
