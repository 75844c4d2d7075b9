// Settings > Tenant, "Processing and retention": the platform's tenant settings (the same values
// as back-office GET/PUT /tenant-settings), edited by the tenant's administrators.
import type { Hono } from 'hono';
import { getTenantSettings, statusChoices, updateTenantSettings, type TenantSettings } from '../../platform/catalogue/tenant';
import { ValidationError } from '../../platform/core';
import { done, render, type AdminContextOf, type AdminEnv } from './guard';
import { CsrfField, Field, describedBy } from './layout';

type Choices = Awaited<ReturnType<typeof statusChoices>>;
type Errors = Partial<Record<keyof TenantSettings, string>>;

export async function loadTenantSettings(c: AdminContextOf): Promise<{ settings: TenantSettings; statuses: Choices }> {
  const tenantId = c.get('admin').session.tenantId;
  const [settings, statuses] = await Promise.all([getTenantSettings(c.env.DB, tenantId), statusChoices(c.env.DB, tenantId)]);
  return { settings, statuses };
}

export function TenantSettingsCard({ settings, statuses, csrf, errors = {} }: { settings: TenantSettings; statuses: Choices; csrf: string; errors?: Errors }) {
  return (
    <form method="post" action="/admin/tenant/settings" class="card" novalidate>
      <h2>Processing and retention</h2>
      <CsrfField token={csrf} />
      <Field id="startProcessingOnStatus" label="Start processing" hint="When a project's pipeline runs: at creation, or the first time the project enters this status." error={errors.startProcessingOnStatus}>
        <select id="startProcessingOnStatus" name="startProcessingOnStatus" {...describedBy('startProcessingOnStatus', true, errors.startProcessingOnStatus)}>
          <option value="" selected={settings.startProcessingOnStatus === null}>
            When the project is created
          </option>
          {statuses.map((s) => (
            <option value={String(s.code)} selected={settings.startProcessingOnStatus === s.code}>
              On status {s.code}: {s.displayName}
            </option>
          ))}
        </select>
      </Field>
      <div class="field">
        <label class="choice" for="enableAssetsRetention">
          <input type="checkbox" id="enableAssetsRetention" name="enableAssetsRetention" value="on" checked={settings.enableAssetsRetention} />
          <div>
            <strong>Delete old private assets</strong>
            <span>Private assets with the Default retention policy are deleted after the period below.</span>
          </div>
        </label>
      </div>
      <div class="field">
        <label class="choice" for="allowSelfCalls">
          <input type="checkbox" id="allowSelfCalls" name="allowSelfCalls" value="on" checked={settings.allowSelfCalls} />
          <div>
            <strong>Let pipelines call this platform</strong>
            <span>Off: pipeline calls to the platform's own address are refused. Projects created by such calls stop at depth 3 either way.</span>
          </div>
        </label>
      </div>
      <Field id="assetsRetentionPeriodInDays" label="Retention period (days)" hint="1 to 36500; 30 unless changed." error={errors.assetsRetentionPeriodInDays}>
        <input type="number" id="assetsRetentionPeriodInDays" name="assetsRetentionPeriodInDays" min="1" max="36500" value={String(settings.assetsRetentionPeriodInDays)} {...describedBy('assetsRetentionPeriodInDays', true, errors.assetsRetentionPeriodInDays)} />
      </Field>
      <div class="actions">
        <button type="submit">Save settings</button>
      </div>
    </form>
  );
}

/** POST /admin/tenant/settings */
export function registerTenantSettings(routes: Hono<AdminEnv>): void {
  routes.post('/settings', async (c) => {
    const form = await c.req.parseBody();
    const errors: Errors = {};
    const statusText = String(form.startProcessingOnStatus ?? '').trim();
    const daysText = String(form.assetsRetentionPeriodInDays ?? '').trim();
    const status = statusText === '' ? null : /^-?\d{1,9}$/.test(statusText) ? Number(statusText) : undefined;
    const days = /^\d{1,5}$/.test(daysText) && Number(daysText) >= 1 && Number(daysText) <= 36500 ? Number(daysText) : undefined;
    if (status === undefined) errors.startProcessingOnStatus = 'Choose a status.';
    if (days === undefined) errors.assetsRetentionPeriodInDays = 'Enter a whole number of days from 1 to 36500.';
    const change = { startProcessingOnStatus: status ?? null, enableAssetsRetention: form.enableAssetsRetention === 'on', assetsRetentionPeriodInDays: days ?? 30, allowSelfCalls: form.allowSelfCalls === 'on' };
    if (!Object.keys(errors).length) {
      try {
        await updateTenantSettings(c.env.DB, c.get('admin').session.tenantId, change);
        return done(c, '/admin/tenant', 'Tenant settings saved.');
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        errors.startProcessingOnStatus = 'That status no longer exists; choose another.';
      }
    }
    const { statuses } = await loadTenantSettings(c);
    return render(
      c,
      {
        title: 'Tenant',
        section: 'tenant',
        banner: { kind: 'error', text: 'Please correct the fields below; nothing was saved.' },
        body: (
          <>
            <h1>Tenant</h1>
            <TenantSettingsCard settings={{ ...change, startProcessingOnStatus: status ?? null }} statuses={statuses} csrf={c.get('admin').csrf} errors={errors} />
          </>
        ),
      },
      400,
    );
  });
}
