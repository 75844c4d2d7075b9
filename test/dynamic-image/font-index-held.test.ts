import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { FileStore, readFontIndex, rebuildFontIndex } from '../../src/dynamic-image/store';
import { bundledFont } from '../helpers/fixtures';

/**
 * The font index kept per isolate (issue 25 §3, speed-text): while cache/fonts/index.json is
 * unchanged, a read gets the array it got before (the engine keys its font catalog by it); any
 * change to the stored index (a rebuild here, or one by another isolate) is read again.
 */
describe('readFontIndex keeps the index it read while R2 holds the same one', () => {
  it('the same array while unchanged; the new index after a rebuild or a write by someone else', async () => {
    const store = new FileStore(env.FILES);
    const first = await readFontIndex(store);
    expect(await readFontIndex(store)).toBe(first);

    await env.FILES.put('fonts/held/Extra.ttf', await bundledFont('LiberationSans-Bold.ttf'));
    const rebuilt = await rebuildFontIndex(store);
    expect(rebuilt.length).toBe(first.length + 1);
    const after = await readFontIndex(store);
    expect(after).toBe(rebuilt);

    // Another isolate rewrites the index: its etag changes, so this one reads it again.
    const stored = (await (await env.FILES.get('cache/fonts/index.json'))!.json()) as { version: 1; fonts: typeof first };
    await env.FILES.put('cache/fonts/index.json', JSON.stringify({ version: 1, fonts: stored.fonts.filter((f) => f.file !== 'held/Extra.ttf') }));
    const other = await readFontIndex(store);
    expect(other).not.toBe(after);
    expect(other.map((f) => f.file)).toEqual(first.map((f) => f.file));

    // The index deleted: rebuilt from the fonts, as when none was ever written.
    await env.FILES.delete('cache/fonts/index.json');
    const remade = await readFontIndex(store);
    expect(remade).not.toBe(other);
    expect(remade.map((f) => f.file)).toEqual(rebuilt.map((f) => f.file));
    expect(await env.FILES.head('cache/fonts/index.json')).not.toBeNull();
    expect(await readFontIndex(store)).toBe(remade);

    await env.FILES.delete('fonts/held/Extra.ttf');
    await rebuildFontIndex(store);
  });
});
