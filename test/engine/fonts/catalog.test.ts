import { describe, expect, it } from 'vitest';
import { FontCache, FontCatalog, fontLoader } from '../../../src/engine/fonts/catalog';
import { readFontInfo } from '../../../src/engine/fonts/font-info';
import { bundledFont } from './helpers';

describe('FontCatalog', () => {
  it('finds a font by PostScript name, exactly, loosely, or by full name', async () => {
    const catalog = new FontCatalog();
    catalog.add('brand/LiberationSans-Bold.ttf', readFontInfo(await bundledFont('LiberationSans-Bold.ttf')));
    expect(catalog.find('LiberationSans-Bold')?.key).toBe('brand/LiberationSans-Bold.ttf');
    expect(catalog.find('liberationsans_bold')?.key).toBe('brand/LiberationSans-Bold.ttf');
    expect(catalog.find('Liberation Sans Bold')?.key).toBe('brand/LiberationSans-Bold.ttf');
    expect(catalog.find('ArialMT')).toBeUndefined();
  });

  it('the file added last wins for a shared PostScript name', () => {
    const catalog = new FontCatalog();
    const info = { fullName: 'X', style: 'Regular', family: 'X', postscriptName: 'X-Regular' };
    catalog.add('a.ttf', info);
    catalog.add('b.ttf', info);
    expect(catalog.find('X-Regular')?.key).toBe('b.ttf');
    expect(catalog.entries()).toHaveLength(1);
  });
});

describe('fontLoader with FontCache', () => {
  it('reads each stored font once and drops the least recently used beyond the budget', async () => {
    const catalog = new FontCatalog();
    for (const n of ['A', 'B', 'C']) catalog.add(`${n}.ttf`, { fullName: n, style: 'Regular', family: n, postscriptName: n });
    const reads: string[] = [];
    const load = fontLoader(catalog, async (key) => (reads.push(key), new Uint8Array(40)), new FontCache(100));
    await load('A');
    await load('A');
    await load('B');
    await load('C'); // 120 bytes > 100: A goes
    await load('B');
    await load('A');
    expect(reads).toEqual(['A.ttf', 'B.ttf', 'C.ttf', 'A.ttf']);
    expect(await load('Nope')).toBeNull();
  });
});
