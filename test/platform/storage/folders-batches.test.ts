// Folders (case-insensitive paths, FolderInfoDto, rename/move/delete) and the atomic batches.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, uploadJson } from './helpers';

beforeAll(seedPlatform);

const F = `${S}/designs/folders`;

describe('folders', () => {
  it('create: paths normalised, first spelling kept, parents created, 409 on a clash', async () => {
    const f = await apiJson('POST', F, { path: 'Cards', name: 'Xmas' }, { token: 1 }, 201);
    expect(f).toMatchObject({ name: 'Xmas', path: '/Cards/', fullPath: '/Cards/Xmas/', hasChildren: false, hasChildern: false, hasContent: false, private: false });
    const again = await api('POST', F, { path: '/cards/', name: 'XMAS' }, { token: 1 });
    expect(again.status).toBe(409);
    const byPath = await apiJson('GET', `${F}?fullPath=cards/xmas`, undefined, { token: 1 });
    expect(byPath.id).toBe(f.id);
    const parent = await apiJson('GET', `${F}?fullPath=/CARDS`, undefined, { token: 1 });
    expect(parent).toMatchObject({ name: 'Cards', hasChildren: true, hasChildern: true, hasContent: true });
    expect((await api('GET', `${F}?fullPath=/nope/`, undefined, { token: 1 })).status).toBe(404);
  });

  it('content, all, rename, move; depth ≤ 32', async () => {
    const top = await apiJson('POST', F, { name: 'tree' }, { token: 1 }, 201);
    const sub = await apiJson('POST', F, { path: '/tree/', name: 'a' }, { token: 1 }, 201);
    await uploadJson(`${S}/designs`, JSON.stringify({ surfaces: [{ width: 10, height: 10 }] }), 'd.json', { path: '/tree/a/' });
    const content = await apiJson('GET', `${F}/content?folderId=${top.id}`, undefined, { token: 1 });
    expect(content).toMatchObject({ id: top.id, entitiesCount: 0 });
    expect(content.folders).toMatchObject([{ id: sub.id, hasContent: true, hasChildren: false }]);
    const inner = await apiJson('GET', `${F}/content?folderId=${sub.id}`, undefined, { token: 1 });
    expect(inner.entities.map((e: any) => e.name)).toEqual(['d']);
    const all = await apiJson('GET', `${F}/all`, undefined, { token: 1 });
    expect(all.map((x: any) => x.fullPath)).toEqual(expect.arrayContaining(['/tree/', '/tree/a/']));
    const renamed = await apiJson('PUT', `${F}/${sub.id}`, { name: 'b' }, { token: 1 });
    expect(renamed.fullPath).toBe('/tree/b/');
    const moved = await apiJson('PUT', `${F}/${top.id}`, { path: '/archive/' }, { token: 1 });
    expect(moved.fullPath).toBe('/archive/tree/');
    expect((await apiJson('GET', `${F}/${sub.id}`, undefined, { token: 1 })).fullPath).toBe('/archive/tree/b/');
    expect((await api('PUT', `${F}/${top.id}`, { parentId: sub.id }, { token: 1 })).status).toBe(400);
    const listed = await apiJson('GET', `${S}/designs?path=/Archive/Tree/B/`, undefined, { token: 1 });
    expect(listed.total).toBe(1);
    const deep = Array.from({ length: 33 }, (_, i) => `d${i}`).join('/');
    expect((await api('POST', F, { path: deep }, { token: 1 })).status).toBe(400);
  });

  it('delete: 409 when not empty unless recursive=true, which deletes the content', async () => {
    await apiJson('POST', F, { path: '/gone/inner/' }, { token: 1 }, 201);
    const d = await uploadJson(`${S}/designs`, JSON.stringify({ surfaces: [{ width: 10, height: 10 }] }), 'x.json', { path: '/gone/inner/' });
    const res = await api('DELETE', `${F}?fullPath=/gone/`, undefined, { token: 1 });
    expect(res.status).toBe(409);
    expect((await api('GET', `${S}/designs/${d.id}`, undefined, { token: 1 })).status).toBe(200);
    expect((await api('DELETE', `${F}?fullPath=/GONE&recursive=true`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${S}/designs/${d.id}`, undefined, { token: 1 })).status).toBe(404);
    const empty = await apiJson('POST', F, { name: 'empty' }, { token: 1 }, 201);
    expect((await api('DELETE', `${F}/${empty.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('DELETE', `${F}/${empty.id}`, undefined, { token: 1 })).status).toBe(404);
  });

  it('private folders belong to an owner', async () => {
    expect((await api('POST', `${S}/private-designs/folders`, { name: 'mine' }, { token: 1 })).status).toBe(400);
    const f = await apiJson('POST', `${S}/private-designs/folders?ownerId=alice`, { name: 'mine' }, { token: 1 }, 201);
    expect(f).toMatchObject({ ownerId: 'alice', private: true });
    expect((await api('GET', `${S}/private-designs/folders/${f.id}?ownerId=bob`, undefined, { token: 1 })).status).toBe(404);
  });
});

describe('batches', () => {
  async function three(path: string) {
    const out = [];
    for (let i = 0; i < 3; i++) out.push(await uploadJson(`${S}/images`, pngBytes(i + 1, 2), `${i}.png`, { path, customFields: JSON.stringify({ keep: i, drop: true }) }));
    return out as Array<{ id: string; name: string }>;
  }
  const fieldsOf = async (id: string) => (await apiJson('GET', `${S}/images/${id}`, undefined, { token: 1 })).customFields;

  it('batch-update-custom-fields and discrete are atomic: an unknown id changes nothing', async () => {
    const [a, b] = await three('/batch1/');
    await apiJson('POST', `${S}/images/batch-update-custom-fields`, { ids: [a!.id, b!.id], customFields: { color: 'red', drop: null } }, { token: 1 }, 204);
    expect(await fieldsOf(a!.id)).toEqual({ keep: 0, color: 'red' });
    const missing = await api('POST', `${S}/images/batch-update-custom-fields`, { ids: [a!.id, 'ffffffffffffffffffffffff'], customFields: { color: 'blue' } }, { token: 1 });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).errors).toHaveProperty('ids[1]');
    expect((await fieldsOf(a!.id)).color).toBe('red');
    await apiJson(
      'POST',
      `${S}/images/batch-update-custom-fields/discrete`,
      { [a!.id]: { fieldsToAdd: { color: 'green', size: 'L' }, fieldsToUpdate: { keep: 10, absent: 1 }, fieldsToRemove: ['color'] }, [b!.id]: { fieldsToRemove: ['drop'] } },
      { token: 1 },
      204,
    );
    expect(await fieldsOf(a!.id)).toEqual({ keep: 10, size: 'L' });
    expect(await fieldsOf(b!.id)).toEqual({ keep: 1, color: 'red' });
    const bad = await api('POST', `${S}/images/batch-update-custom-fields/discrete`, { [a!.id]: { fieldsToAdd: { z: 1 } }, nope: {} }, { token: 1 });
    expect(bad.status).toBe(404);
    expect(await fieldsOf(a!.id)).toEqual({ keep: 10, size: 'L' });
    expect((await api('POST', `${S}/images/batch-delete`, { ids: [1] }, { token: 1 })).status).toBe(400);
  });

  it('batch-copy, batch-update-parent-folder, batch-delete', async () => {
    const items = await three('/batch2/');
    const ids = items.map((x) => x.id);
    await apiJson('POST', `${S}/images/batch-copy`, { ids, path: '/batch2/copies/' }, { token: 1 }, 204);
    expect((await apiJson('GET', `${S}/images?path=/batch2/copies/`, undefined, { token: 1 })).total).toBe(3);
    expect((await api('POST', `${S}/images/batch-copy`, { ids, path: '/batch2/copies/' }, { token: 1 })).status).toBe(409);
    await apiJson('POST', `${S}/images/batch-copy`, { ids, path: '/batch2/copies/', strategy: 'rename' }, { token: 1 }, 204);
    expect((await apiJson('GET', `${S}/images?path=/batch2/copies/`, undefined, { token: 1 })).total).toBe(6);
    // Moving into a folder that already has those names clashes: nothing moves.
    expect((await api('POST', `${S}/images/batch-update-parent-folder`, { ids, path: '/batch2/copies/' }, { token: 1 })).status).toBe(409);
    await apiJson('POST', `${S}/images/batch-update-parent-folder`, { ids, path: '/batch2/moved/' }, { token: 1 }, 204);
    expect((await apiJson('GET', `${S}/images?path=/batch2/moved/`, undefined, { token: 1 })).total).toBe(3);
    expect((await api('POST', `${S}/images/batch-delete`, { ids: [...ids, 'ffffffffffffffffffffffff'] }, { token: 1 })).status).toBe(404);
    expect((await apiJson('GET', `${S}/images?path=/batch2/moved/`, undefined, { token: 1 })).total).toBe(3);
    await apiJson('POST', `${S}/images/batch-delete`, { ids }, { token: 1 }, 204);
    expect((await apiJson('GET', `${S}/images?path=/batch2/moved/`, undefined, { token: 1 })).total).toBe(0);
    // Another tenant's ids are unknown ids.
    const other = await three('/batch3/');
    expect((await api('POST', `${S}/images/batch-delete`, { ids: [other[0]!.id] }, { token: 2 })).status).toBe(404);
  });

  it('blob refcounts follow copies and deletes', async () => {
    const png = pngBytes(31, 17);
    const a = await uploadJson(`${S}/images`, png, 'rc.png', { path: '/rc/' });
    const sha = [...new Uint8Array(await crypto.subtle.digest('SHA-256', png))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const refs = async () => (await env.DB.prepare(`SELECT refcount FROM blobs WHERE tenant_id = 1 AND sha256 = ?1`).bind(sha).first<{ refcount: number }>())?.refcount;
    expect(await refs()).toBe(1);
    const copy = await apiJson('POST', `${S}/images/${a.id}?name=rc2`, undefined, { token: 1 }, 201);
    expect(await refs()).toBe(2);
    await api('DELETE', `${S}/images/${a.id}`, undefined, { token: 1 });
    await api('DELETE', `${S}/images/${copy.id}`, undefined, { token: 1 });
    expect(await refs()).toBe(0);
    expect(await env.FILES.head(`p/1/blobs/${sha}`)).not.toBeNull();
    const { sweepUnreferencedBlobs } = await import('../../../src/platform/assets');
    await sweepUnreferencedBlobs(env.DB, env.FILES, Date.now() + 2 * 3600_000);
    expect(await env.FILES.head(`p/1/blobs/${sha}`)).toBeNull();
  });

  it('private batch-update-owner', async () => {
    const a = await uploadJson(`${S}/private-images`, pngBytes(), 'o.png', { ownerId: 'carol', path: '/x/' });
    await apiJson('POST', `${S}/private-images/batch-update-owner`, { ids: [a.id], ownerId: 'dave' }, { token: 1 }, 204);
    expect((await apiJson('GET', `${S}/private-images/${a.id}`, undefined, { token: 1 })).ownerId).toBe('dave');
    expect((await api('GET', `${S}/private-images/${a.id}?ownerId=carol`, undefined, { token: 1 })).status).toBe(404);
  });
});
