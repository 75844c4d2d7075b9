// Every collection of /api/storage/v1 answers the same route set: upload, list, get, file,
// update, copy, storage info, folders, batches, delete, import from URL (public and private-*).
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundledFont, fixtureServer } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, uploadJson } from './helpers';

let font: Uint8Array;
beforeAll(async () => {
  await seedPlatform();
  font = await bundledFont('LiberationMono-Regular.ttf');
});

const design = () => JSON.stringify({ surfaces: [{ width: 100, height: 50 }] });
const glb = () => new Uint8Array([0x67, 0x6c, 0x54, 0x46, 2, 0, 0, 0, 12, 0, 0, 0]);
const FILES: Record<string, () => [Uint8Array | string, string]> = {
  designs: () => [design(), 'c.json'],
  images: () => [pngBytes(), 'c.png'],
  mockups: () => [glb(), 'c.glb'],
  fonts: () => [font, 'c.ttf'],
};

for (const segment of ['designs', 'images', 'mockups', 'fonts', 'private-designs', 'private-images', 'private-mockups']) {
  const isPrivate = segment.startsWith('private-');
  const base = segment.replace('private-', '');
  const owner = isPrivate ? 'ownerId=coll-owner' : '';
  const withOwner = (path: string) => (isPrivate ? `${path}${path.includes('?') ? '&' : '?'}${owner}` : path);

  describe(segment, () => {
    it('upload, list, get, file, update, copy, storage info, batches, delete', async () => {
      const [bytes, name] = FILES[base]!();
      const dto = await uploadJson(`${S}/${segment}`, bytes, name, { path: '/coll/', customFields: '{"k":"v"}', ...(isPrivate ? { ownerId: 'coll-owner' } : {}) });
      expect(dto).toMatchObject({ name: 'c', private: isPrivate, ownerId: isPrivate ? 'coll-owner' : null, tenantId: 1 });
      const list = await apiJson('GET', withOwner(`${S}/${segment}?path=/coll/&customFields=${encodeURIComponent('{"k":"v"}')}`), undefined, { token: 1 });
      expect(list.items.map((x: any) => x.id)).toContain(dto.id);
      expect(await apiJson('GET', `${S}/${segment}/${dto.id}`, undefined, { token: 1 })).toMatchObject({ id: dto.id });
      expect((await api('GET', `${S}/${segment}/${dto.id}/file`, undefined, { token: 1 })).status).toBe(200);
      expect(await apiJson('PUT', `${S}/${segment}/${dto.id}`, { name: 'c2' }, { token: 1 })).toMatchObject({ name: 'c2' });
      const copy = await apiJson('POST', `${S}/${segment}/${dto.id}?strategy=Rename`, undefined, { token: 1 }, 201);
      expect(copy.name).toBe('c2 (1)');
      expect((await apiJson('GET', withOwner(`${S}/${segment}/file-storage-info`), undefined, { token: 1 })).fileCount).toBeGreaterThanOrEqual(2);
      await apiJson('POST', `${S}/${segment}/batch-update-custom-fields`, { ids: [dto.id, copy.id], customFields: { k: 'w' } }, { token: 1 }, 204);
      await apiJson('POST', withOwner(`${S}/${segment}/batch-update-parent-folder`), { ids: [copy.id], path: '/coll/moved/' }, { token: 1 }, 204);
      await apiJson('POST', `${S}/${segment}/batch-delete`, { ids: [copy.id] }, { token: 1 }, 204);
      expect((await api('DELETE', `${S}/${segment}/${dto.id}`, undefined, { token: 1 })).status).toBe(204);
      expect((await api('GET', `${S}/${segment}/${dto.id}`, undefined, { token: 1 })).status).toBe(404);
    });

    it('folders: create, by path, all, content, rename, delete', async () => {
      const f = await apiJson('POST', withOwner(`${S}/${segment}/folders`), { path: '/f-coll/', name: 'sub' }, { token: 1 }, 201);
      expect(f).toMatchObject({ fullPath: '/f-coll/sub/', private: isPrivate });
      expect((await apiJson('GET', withOwner(`${S}/${segment}/folders?fullPath=/F-COLL/SUB`), undefined, { token: 1 })).id).toBe(f.id);
      expect((await apiJson('GET', withOwner(`${S}/${segment}/folders/all`), undefined, { token: 1 })).length).toBeGreaterThanOrEqual(2);
      expect((await apiJson('GET', withOwner(`${S}/${segment}/folders/content?folderId=${f.id}`), undefined, { token: 1 })).entitiesCount).toBe(0);
      expect((await apiJson('PUT', withOwner(`${S}/${segment}/folders/${f.id}`), { name: 'renamed' }, { token: 1 })).fullPath).toBe('/f-coll/renamed/');
      expect((await api('DELETE', withOwner(`${S}/${segment}/folders/${f.id}`), undefined, { token: 1 })).status).toBe(204);
      expect((await api('DELETE', withOwner(`${S}/${segment}/folders?fullPath=/f-coll/`), undefined, { token: 1 })).status).toBe(204);
    });

    it('import from URL (a wrong type is 422)', async () => {
      const res = await api('POST', `${S}/${segment}/import/from-url`, { sourceUrl: `${fixtureServer()}/assets/marker-40x20.jpg`, ...(isPrivate ? { ownerId: 'coll-owner' } : {}) }, { token: 1 });
      expect(res.status).toBe(base === 'images' ? 201 : 422);
    });
  });
}

describe('fonts list by PostScript names, designs by font', () => {
  it('postscriptNames and fontPostScriptName filters', async () => {
    const f = await uploadJson(`${S}/fonts`, await bundledFont('LiberationSans-BoldItalic.ttf'), 'bi.ttf');
    const list = await apiJson('GET', `${S}/fonts?postscriptNames=LiberationSans-BoldItalic&postscriptNames=Nope`, undefined, { token: 1 });
    expect(list.items.map((x: any) => x.id)).toEqual([f.id]);
    const doc = await PDFDocument.create();
    doc.addPage();
    expect((await uploadJson(`${S}/images`, await doc.save(), 'p.pdf')).metadata.pages).toBe(1);
    const withFont = await apiJson('GET', `${S}/designs?fontPostScriptName=arialmt`, undefined, { token: 1 });
    expect(withFont.items.map((x: any) => x.id)).toContain('demo-card-design');
  });
});
