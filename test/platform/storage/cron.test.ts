// The hourly sweep of the asset store: retention (only Default, only past the period, only when
// the tenant turned it on), Temporary artifacts past 24 h, then unreferenced blobs.
import { env } from 'cloudflare:workers';
import { beforeAll, expect, it } from 'vitest';
import { sweepAssets } from '../../../src/platform/assets';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, pngBytes, S, uploadJson } from './helpers';
import { keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(1); // vitest.shared.config.ts: later files find the tenant's settings as this one did

beforeAll(seedPlatform);

it('deletes old Default private assets, keeps Never and Unknown, expires Temporary artifacts', async () => {
  await env.DB.prepare(
    `INSERT INTO tenant_settings (tenant_id, enable_assets_retention, assets_retention_period_in_days) VALUES (1, 1, 30)
     ON CONFLICT (tenant_id) DO UPDATE SET enable_assets_retention = 1, assets_retention_period_in_days = 30`,
  ).run();
  const old = await uploadJson(`${S}/private-images`, pngBytes(11, 3), 'old.png', { ownerId: 'ret' });
  const kept = await uploadJson(`${S}/private-images`, pngBytes(12, 3), 'kept.png', { ownerId: 'ret' });
  const fresh = await uploadJson(`${S}/private-images`, pngBytes(13, 3), 'fresh.png', { ownerId: 'ret' });
  const pub = await uploadJson(`${S}/images`, pngBytes(14, 3), 'public.png');
  await apiJson('POST', `${S}/private-images/${kept.id}/retention-policy?policy=Never`, undefined, { token: 1 });
  const longAgo = Date.now() - 31 * 86_400_000;
  await env.DB.prepare(`UPDATE assets SET last_modified = ?1 WHERE tenant_id = 1 AND id IN (?2, ?3, ?4)`).bind(longAgo, old.id, kept.id, pub.id).run();
  const temp = await uploadJson(`${S}/artifacts`, 'tmp', 'tmp.txt', { type: 'Temporary' });
  await env.DB.prepare(`UPDATE artifacts SET expires_at = ?1 WHERE tenant_id = 1 AND id = ?2`).bind(Date.now() - 1, temp.id).run();

  const swept = await sweepAssets(env, Date.now() + 2 * 3600_000);
  expect(swept.retention).toBeGreaterThanOrEqual(1);
  expect((await api('GET', `${S}/private-images/${old.id}`, undefined, { token: 1 })).status).toBe(404);
  for (const id of [kept.id, fresh.id]) expect((await api('GET', `${S}/private-images/${id}`, undefined, { token: 1 })).status).toBe(200);
  expect((await api('GET', `${S}/images/${pub.id}`, undefined, { token: 1 })).status).toBe(200);
  expect((await api('GET', `${S}/artifacts/${temp.id}`, undefined, { token: 1 })).status).toBe(404);
  expect(swept.blobs).toBeGreaterThanOrEqual(2);
});
