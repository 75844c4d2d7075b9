import { beforeAll, expect, it } from 'vitest';
import { seedPlatform } from '../../helpers/platform';
import { api, pngBytes, S, upload } from './helpers';

beforeAll(seedPlatform);

it('uploads and reads an image', async () => {
  const res = await upload(`${S}/images`, pngBytes(), 'dot.png', { path: 'cards/xmas', customFields: '{"color":"red"}' });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  const dto = JSON.parse(text);
  expect(dto).toMatchObject({ name: 'dot', ownerId: null, tenantId: 1, customFields: { color: 'red' }, mimeType: 'image/png', metadata: { width: 3, height: 2, dpiX: 300, format: 'png', pages: 1 } });
  const file = await api('GET', `${S}/images/${dto.id}/file`, undefined, { token: 1, headers: { range: 'bytes=0-3' } });
  expect(file.status).toBe(206);
  expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  const list = await api('GET', `${S}/images?customFields=${encodeURIComponent('{"color":"red"}')}&path=/Cards/XMAS/`, undefined, { token: 1 });
  const body = (await list.json()) as any;
  expect(body.total).toBe(1);
});
