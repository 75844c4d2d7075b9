// The engine's view of a tenant (TenantInputStore) and retention marks (keepForeverStatement).
import { env } from 'cloudflare:workers';
import { beforeAll, expect, it } from 'vitest';
import { keepForeverStatement, TenantInputStore } from '../../../src/platform/assets';
import { bundledFont } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, uploadJson } from './helpers';

beforeAll(seedPlatform);

it('reads designs, mockups and images by asset id, and lists tenant fonts after instance fonts', async () => {
  const store = new TenantInputStore(env, 1);
  const design = await store.read('templates', 'demo-card-design');
  expect(new TextDecoder().decode(design!.bytes.subarray(0, 4))).toBe('8BPS');
  expect(await store.read('templates', 'no-such-id')).toBeNull();
  // A header alone (a print page's colour-mode check): the first bytes of the same file.
  expect(await store.readStart('templates', 'demo-card-design', 26)).toEqual(design!.bytes.subarray(0, 26));
  expect(await store.readStart('templates', 'no-such-id', 26)).toBeNull();
  const img = await uploadJson(`${S}/images`, pngBytes(), 'engine.png', { path: '/engine/' });
  expect((await store.head('images', img.id))?.contentType).toBe('image/png');
  expect(await new TenantInputStore(env, 2).head('images', img.id)).toBeNull();
  const font = await uploadJson(`${S}/fonts`, await bundledFont('DejaVuSans.ttf'), 'dv.ttf', { path: '/engine/' });
  const fonts = await store.fonts();
  const mine = fonts.find((f) => f.postscriptName === 'DejaVuSans');
  expect(mine?.file).toBe(`tenant/${font.id}`);
  expect(fonts.at(-1)?.file.startsWith('tenant/')).toBe(true);
  expect((await store.read('fonts', mine!.file))?.bytes.byteLength).toBe(font.size);
});

it('keepForeverStatement marks private assets and the Storage sources of their designs Never; a kept source cannot be deleted', async () => {
  const img = await uploadJson(`${S}/private-images`, pngBytes(6, 6), 'src.png', { ownerId: 'keeper' });
  const model = { surfaces: [{ width: 50, height: 50, containers: [{ items: [{ type: 'Image', x: 0, y: 0, width: 5, height: 5, source: { type: 'Storage', id: img.id, ownerId: 'keeper' } }] }] }] };
  const design = await uploadJson(`${S}/private-designs`, JSON.stringify(model), 'kept.json', { ownerId: 'keeper' });
  await env.DB.batch([keepForeverStatement(env.DB, 1, [design.id])]);
  expect(await apiJson('GET', `${S}/private-designs/${design.id}/retention-policy`, undefined, { token: 1 })).toBe('Never');
  expect(await apiJson('GET', `${S}/private-images/${img.id}/retention-policy`, undefined, { token: 1 })).toBe('Never');
  const del = await api('DELETE', `${S}/private-images/${img.id}`, undefined, { token: 1 });
  expect(del.status).toBe(409);
  expect(await del.json()).toMatchObject({ type: 'GeneralConflict', existingReferences: [design.id] });
});
