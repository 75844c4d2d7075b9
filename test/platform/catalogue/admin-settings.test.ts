// The admin panel's Tenant page edits the tenant settings that back-office GET/PUT
// /tenant-settings serve (contract, "Back-office": "also on the admin tenant page").
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { getTenantSettings } from '../../../src/platform/catalogue';
import { get, makeTenant, post, signIn } from '../../identity/admin/helpers';

describe('admin Tenant page: tenant settings', () => {
  it('shows the defaults, saves a status, retention switch and period, and refuses an unknown status or a bad period with 400', async () => {
    const t = await makeTenant();
    await env.DB.prepare(`INSERT INTO project_statuses (tenant_id, code, display_name, is_initial) VALUES (?1, 5, 'Approved', 1)`).bind(t.id).run();
    const admin = await signIn(t.admin);
    const page = await (await get('/admin/tenant', admin)).text();
    expect(page).toContain('Processing and retention');
    expect(page).toContain('On status 5: Approved');
    expect(page).toMatch(/name="assetsRetentionPeriodInDays"[^>]*value="30"/);

    const saved = await post('/admin/tenant/settings', admin, { startProcessingOnStatus: '5', enableAssetsRetention: 'on', assetsRetentionPeriodInDays: '14', allowSelfCalls: 'on' });
    expect(saved.status).toBe(303);
    expect(await getTenantSettings(env.DB, t.id)).toEqual({ startProcessingOnStatus: 5, enableAssetsRetention: true, assetsRetentionPeriodInDays: 14, allowSelfCalls: true });

    const unknown = await post('/admin/tenant/settings', admin, { startProcessingOnStatus: '9', assetsRetentionPeriodInDays: '14' });
    expect(unknown.status).toBe(400);
    const badDays = await post('/admin/tenant/settings', admin, { startProcessingOnStatus: '', assetsRetentionPeriodInDays: 'soon' });
    expect(badDays.status).toBe(400);
    expect(await badDays.text()).toContain('1 to 36500');
    expect(await getTenantSettings(env.DB, t.id)).toEqual({ startProcessingOnStatus: 5, enableAssetsRetention: true, assetsRetentionPeriodInDays: 14, allowSelfCalls: true });

    const cleared = await post('/admin/tenant/settings', admin, { startProcessingOnStatus: '', assetsRetentionPeriodInDays: '30' });
    expect(cleared.status).toBe(303);
    expect(await getTenantSettings(env.DB, t.id)).toEqual({ startProcessingOnStatus: null, enableAssetsRetention: false, assetsRetentionPeriodInDays: 30, allowSelfCalls: false });
    // Without the CSRF token nothing changes.
    expect((await post('/admin/tenant/settings', admin, { startProcessingOnStatus: '5', assetsRetentionPeriodInDays: '30' }, null)).status).toBe(403);
  });
});
