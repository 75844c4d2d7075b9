// Batches at their size: doubling batch-copies with Rename up to 1,000 ids in one call.
import { beforeAll, expect, it } from 'vitest';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, uploadJson } from './helpers';

beforeAll(seedPlatform);

it('batch-copy of up to 1,000 ids with Rename in one folder', async () => {
  await uploadJson(`${S}/images`, pngBytes(), 'item.png', { path: '/bulk/' });
  let total = 1;
  while (total < 1500) {
    const page = await apiJson('GET', `${S}/images?path=/bulk/&take=1000`, undefined, { token: 1 });
    const ids = page.items.map((x: any) => x.id);
    const res = await api('POST', `${S}/images/batch-copy`, { ids, path: '/bulk/', strategy: 'Rename' }, { token: 1 });
    expect(res.status, await res.text()).toBe(204);
    total = (await apiJson('GET', `${S}/images?path=/bulk/&take=0`, undefined, { token: 1 })).total;
  }
  expect(total).toBe(2024);
}, 120_000);
