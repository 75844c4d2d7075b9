import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, ENGINE_VERSION, loadCompiledTemplate, renderTemplate, templateHash, templateInfo, walkLayers } from '../../../src/engine';
import { bandsFor, levelBounds } from '../../../src/engine/compiled/pyramid';
import { psdFixture } from '../../helpers/fixtures';

describe('compiled templates', () => {
  it('are keyed by SHA-256 of the bytes and the engine version, and compile once', async () => {
    const bytes = await psdFixture('agpsd-groups.psd');
    const hash = await templateHash(bytes);
    const digest = await crypto.subtle.digest('SHA-256', new Uint8Array([...bytes, ...new TextEncoder().encode(ENGINE_VERSION)]));
    expect(hash).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''));
    const first = await compileTemplate(env.FILES, bytes);
    expect(first.hash).toBe(hash);
    const tree = await env.FILES.head(`compiled/${hash}/tree.json`);
    const again = await compileTemplate(env.FILES, bytes);
    expect(again).toEqual(first);
    expect((await env.FILES.head(`compiled/${hash}/tree.json`))?.uploaded).toEqual(tree?.uploaded);
    expect(await loadCompiledTemplate(env.FILES, hash)).toEqual(first);
  });

  it('keep a pyramid per layer down to about 256 px of the long side, in bands of rows', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('agpsd-text-bug-1920.psd'));
    expect(compiled.levels).toBe(4); // 1920 → 960 → 480 → 240
    const withPixels = [...walkLayers(compiled.layers)].filter((n) => n.hasPixels);
    expect(withPixels.length).toBeGreaterThan(0);
    // Each band an object of its own, or (small ones) in a pack of its level and rows (compiled/packs.ts).
    const packed = new Map((compiled.packs ?? []).flatMap((p) => p.blobs.split(' ').map((entry) => [entry.slice(0, entry.lastIndexOf(':')), p.key] as const)));
    for (const node of withPixels) {
      for (let k = 0; k < compiled.levels; k++) {
        const rows = levelBounds(node.pixelBounds!, k);
        for (const band of bandsFor(rows.top, rows.bottom)) {
          const name = `px/${node.id}/${k}/${band}`;
          const pack = packed.get(name);
          if (pack) expect(pack.startsWith(`pack/${k}/${band}/`), name).toBe(true);
          const key = `compiled/${compiled.hash}/${pack ?? name}`;
          expect(await env.FILES.head(key), key).not.toBeNull();
        }
      }
    }
  });

  it('record resolution and the ICC profile when the PSD has them', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('psdrb-example-design.psd'));
    expect(compiled.resolution).toBeGreaterThan(0);
    if (compiled.iccKey) expect((await env.FILES.head(compiled.iccKey))?.size).toBeGreaterThan(100);
  });

  it('describe the tree in panel order, top first, groups carrying their layers (FramesInfo)', async () => {
    const compiled = await compileTemplate(env.FILES, await psdFixture('oovpsd-nested-groups.psd'));
    const brief = templateInfo(compiled, false);
    expect(brief.size).toEqual({ width: 64, height: 64 });
    const group = brief.layers.find((l) => l.type === 'Group');
    expect(group?.layers?.length).toBeGreaterThan(0);
    expect(Object.keys(brief.layers[0]).sort()).toEqual(expect.arrayContaining(['name', 'type']));
    expect(brief.layers[0]).not.toHaveProperty('bounds');
    const full = templateInfo(compiled, true);
    expect(full.layers[0]).toHaveProperty('bounds');
    expect(full.layers[0]).toHaveProperty('opacity');
    expect(full.layers[0]).toHaveProperty('blendMode');
    // Panel order: the last stored layer (bottom of the panel) comes last.
    const ids = compiled.layers.map((l) => l.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('carry text settings of text layers and placements of smart objects', async () => {
    const text = await compileTemplate(env.FILES, await psdFixture('psdtools-text.psd'));
    const textLayer = [...walkLayers(text.layers)].find((n) => n.type === 'Text');
    expect(textLayer?.text?.text.length).toBeGreaterThan(0);
    expect(textLayer?.text?.font).toBeTruthy();
    const so = await compileTemplate(env.FILES, await psdFixture('psdtools-smart-objects-placed.psd'));
    const placed = [...walkLayers(so.layers)].find((n) => n.type === 'SmartObject');
    expect(placed?.smartObject?.corners).toHaveLength(8);
  });

  it('turn a document whose layers hold no pixels into an Image layer made of its merged image', async () => {
    const { writePsdUint8Array } = await import('ag-psd');
    const data = new Uint8ClampedArray(20 * 10 * 4);
    for (let i = 0; i < data.length; i += 4) data.set([i % 256, 100, 200, 255], i);
    const bytes = writePsdUint8Array({ width: 20, height: 10, children: [], imageData: { width: 20, height: 10, data } });
    const compiled = await compileTemplate(env.FILES, bytes);
    expect(compiled.layers.map((l) => [l.name, l.type]).at(-1)).toEqual(['Background', 'Image']);
    const img = await renderTemplate(env.FILES, compiled, { scale: 1 });
    expect(img.data).toEqual(data);
  });
});
