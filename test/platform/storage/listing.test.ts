// Folder listings (issue 9): the page and its total come from two statements of one D1 batch
// over the covering index assets_list_by_name, so the answers must agree with each other for
// every page, and the plan must stay index-only for the count and sort-free for the page.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedPlatform } from '../../helpers/platform';
import { apiJson, pngBytes, S, uploadJson } from './helpers';

const NAMES = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo', 'foxtrot', 'Golf'];
let ids: Record<string, string>;

beforeAll(async () => {
  await seedPlatform();
  ids = {};
  for (const [i, name] of NAMES.entries()) {
    const color = i % 2 === 0 ? 'red' : 'blue';
    const dto = await uploadJson(`${S}/images`, pngBytes(), `${name}.png`, { path: '/listing/', customFields: JSON.stringify({ color, n: i }) });
    ids[name] = dto.id;
  }
  // Same folder name in another collection: never counted here.
  await uploadJson(`${S}/images`, pngBytes(), 'zulu.png', { path: '/listing-other/', customFields: '{"color":"red"}' });
});

const list = (query: string) => apiJson('GET', `${S}/images?path=/listing/&${query}`, undefined, { token: 1 });

describe('folder listing', () => {
  it('orders names ignoring case and pages with the full total', async () => {
    const all = await list('take=100');
    expect(all.total).toBe(7);
    expect(all.items.map((x: any) => x.name)).toEqual(['Alpha', 'Bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'Golf']);
    const page = await list('take=2&skip=2');
    expect(page).toMatchObject({ total: 7 });
    expect(page.items.map((x: any) => x.name)).toEqual(['charlie', 'delta']);
    const desc = await list('take=3&sorting=name DESC');
    expect(desc.items.map((x: any) => x.name)).toEqual(['Golf', 'foxtrot', 'echo']);
  });

  it('filters by customFields; the total counts every match, also past the last page and for take=0', async () => {
    const red = await list(`customFields=${encodeURIComponent('{"color":"red"}')}&take=2&skip=1`);
    // red: delta (0), charlie (2), echo (4), Golf (6) → by name: charlie, delta, echo, Golf
    expect(red.total).toBe(4);
    expect(red.items.map((x: any) => x.name)).toEqual(['delta', 'echo']);
    expect(red.items[0].customFields).toEqual({ color: 'red', n: 0 });
    const past = await list(`customFields=${encodeURIComponent('{"color":"red"}')}&skip=50`);
    expect(past).toEqual({ total: 4, items: [] });
    const none = await list(`customFields=${encodeURIComponent('{"color":"red"}')}&take=0`);
    expect(none).toEqual({ total: 4, items: [] });
    const two = await list(`customFields=${encodeURIComponent('{"color":"blue","n":3}')}`);
    expect(two).toMatchObject({ total: 1, items: [{ id: ids.Bravo }] });
  });

  it('plans the count from the covering index alone and the page without a sort', async () => {
    const where = `tenant_id = ?1 AND type = 'image' AND owner_id = '' AND folder_id = ?2 AND json_type(custom_fields, '$."color"') = 'text' AND json_extract(custom_fields, '$."color"') = 'red'`;
    const plan = async (q: string) =>
      (await env.DB.prepare(`EXPLAIN QUERY PLAN ${q}`).bind(1, 'f').all<{ detail: string }>()).results.map((r) => r.detail).join(' | ');
    expect(await plan(`SELECT count(*) FROM assets WHERE ${where}`)).toContain('COVERING INDEX assets_list_by_name');
    const page = await plan(`SELECT id, name FROM assets WHERE ${where} ORDER BY name COLLATE NOCASE ASC, id LIMIT 100 OFFSET 200`);
    expect(page).toContain('assets_list_by_name');
    expect(page).not.toContain('TEMP B-TREE');
  });
});
