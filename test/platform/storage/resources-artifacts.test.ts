// Resources (namespaces, copies), artifacts (CRUD, file, groups) and their storage info.
import { beforeAll, describe, expect, it } from 'vitest';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, upload, uploadJson } from './helpers';

beforeAll(seedPlatform);

describe('resources', () => {
  it('upload anything, names need not be unique, copy with namespace, delete a namespace', async () => {
    const a = await uploadJson(`${S}/resources`, 'plain text', 'notes.txt', { namespace: 'ns1', sourceId: 'src-1', type: 'Preview' });
    expect(a).toMatchObject({ name: 'notes', namespace: 'ns1', sourceId: 'src-1', type: 'Preview', private: false, anonymousAccess: false, size: 10 });
    expect(a.url).toBe(`http://localhost/api/storage/v1/resources/${a.id}/file`);
    await uploadJson(`${S}/resources`, 'other', 'notes.txt', { namespace: 'ns1' });
    const copy = await apiJson('POST', `${S}/resources/${a.id}?namespace=ns2&name=copied`, undefined, { token: 1 }, 201);
    expect(copy).toMatchObject({ namespace: 'ns2', name: 'copied' });
    expect((await apiJson('GET', `${S}/resources?namespace=ns1`, undefined, { token: 1 })).total).toBe(2);
    expect((await api('DELETE', `${S}/resources/namespaces/ns1`, undefined, { token: 1 })).status).toBe(204);
    expect((await apiJson('GET', `${S}/resources?namespace=ns1`, undefined, { token: 1 })).total).toBe(0);
    expect((await api('GET', `${S}/resources/${copy.id}/file`, undefined, { token: 1 })).status).toBe(200);
  });

  it('private resources by owner', async () => {
    const r = await uploadJson(`${S}/private-resources`, pngBytes(), 'p.png', { ownerId: 'erin' });
    expect(r).toMatchObject({ ownerId: 'erin', private: true, format: 'png' });
    expect((await api('GET', `${S}/private-resources/${r.id}?ownerId=frank`, undefined, { token: 1 })).status).toBe(404);
  });
});

describe('artifacts', () => {
  it('CRUD, file, group delete and storage info', async () => {
    const a = await uploadJson(`${S}/artifacts`, 'result', 'out.txt', { group: 'g1', type: 'temporary', alias: 'x' });
    expect(a).toMatchObject({ name: 'out.txt', group: 'g1', type: 'Temporary', alias: 'x', format: 'txt', size: 6 });
    const b = await uploadJson(`${S}/artifacts`, 'final', 'final.txt', { group: 'g1' });
    expect(b.type).toBe('Final');
    expect(await apiJson('GET', `${S}/artifacts/${a.id}`, undefined, { token: 1 })).toMatchObject({ id: a.id });
    const file = await api('GET', `${S}/artifacts/${a.id}/file`, undefined, { token: 1 });
    expect(await file.text()).toBe('result');
    const updated = await apiJson('PUT', `${S}/artifacts/${a.id}`, { description: 'ok', type: 'Final' }, { token: 1 });
    expect(updated).toMatchObject({ description: 'ok', type: 'Final' });
    const info = await apiJson('GET', `${S}/artifacts/file-storage-info`, undefined, { token: 1 });
    expect(info.fileCount).toBeGreaterThanOrEqual(2);
    expect(await apiJson('GET', `${S}/artifacts?group=g1`, undefined, { token: 1 })).toMatchObject({ total: 2 });
    expect((await upload(`${S}/artifacts`, 'x', 'x.txt', { type: 'Bogus' })).status).toBe(400);
    expect((await api('DELETE', `${S}/artifacts/group/g1`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${S}/artifacts/${b.id}`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('DELETE', `${S}/artifacts/group/g1`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${S}/artifacts/${a.id}`, undefined, { token: 2 })).status).toBe(404);
  });
});
