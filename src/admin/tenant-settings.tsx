// Settings > Tenant, the platform's cards: the tenant settings that back-office GET/PUT
// /tenant-settings serve, edited by the tenant's administrators. Identity's Tenant page shows the
// cards (tenantCards, in this order); each form posts to its own route here:
//
//   POST /admin/tenant/settings        "Processing and retention"
//   POST /admin/tenant/colour-output   "Colour output": the default CMYK / RGB / grey output profiles (issue 20)
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { defaultProfile, readProfileInfo, type ColourSpace } from '../engine/colour';
import { getTenantSettings, statusChoices, updateTenantSettings, type TenantSettings } from '../platform/catalogue/tenant';
import { listProfiles, type ColourProfileDto } from '../platform/colour-profiles/service';
import { ValidationError } from '../platform/core';
import { done, field, render, type AdminContextOf, type AdminEnv, type TenantCard } from '../identity/admin';
import { CsrfField, Field, describedBy } from '../identity/admin/layout';
import { tenantOf } from './backoffice/context';

/** A card's form sent back with what is wrong beside its fields: 400, nothing saved. */
function refused(c: AdminContextOf, card: Child) {
  return render(
    c,
    {
      title: 'Tenant',
      section: 'tenant',
      banner: { kind: 'error', text: 'Please correct the fields below; nothing was saved.' },
      body: (
        <>
          <h1>Tenant</h1>
          {card}
        </>
      ),
    },
    400,
  );
}

// --- Processing and retention ------------------------------------------------------------------

type Choices = Awaited<ReturnType<typeof statusChoices>>;
type Errors = Partial<Record<keyof TenantSettings, string>>;

async function loadTenantSettings(c: AdminContextOf): Promise<{ settings: TenantSettings; statuses: Choices }> {
  const tenantId = c.get('admin').session.tenantId;
  const [settings, statuses] = await Promise.all([getTenantSettings(c.env.DB, tenantId), statusChoices(c.env.DB, tenantId)]);
  return { settings, statuses };
}

/** An on/off setting as a checkbox card: posts `on` when checked, nothing when not. */
const Switch = ({ id, on, title, children }: { id: string; on: boolean; title: string; children: Child }) => (
  <div class="field">
    <label class="choice" for={id}>
      <input type="checkbox" id={id} name={id} value="on" checked={on} />
      <div>
        <strong>{title}</strong>
        <span>{children}</span>
      </div>
    </label>
  </div>
);

function TenantSettingsCard({ settings, statuses, csrf, errors = {} }: { settings: TenantSettings; statuses: Choices; csrf: string; errors?: Errors }) {
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
      <Switch id="enableAssetsRetention" on={settings.enableAssetsRetention} title="Delete old private assets">
        Private assets with the Default retention policy are deleted after the period below.
      </Switch>
      <Switch id="allowSelfCalls" on={settings.allowSelfCalls} title="Let pipelines call this platform">
        Off: pipeline calls to the platform's own address are refused. Projects created by such calls stop at depth 3 either way.
      </Switch>
      <Field id="assetsRetentionPeriodInDays" label="Retention period (days)" hint="1 to 36500; 30 unless changed." error={errors.assetsRetentionPeriodInDays}>
        <input type="number" id="assetsRetentionPeriodInDays" name="assetsRetentionPeriodInDays" min="1" max="36500" value={String(settings.assetsRetentionPeriodInDays)} {...describedBy('assetsRetentionPeriodInDays', true, errors.assetsRetentionPeriodInDays)} />
      </Field>
      <div class="actions">
        <button type="submit">Save settings</button>
      </div>
    </form>
  );
}

const processingCard: TenantCard = async (c) => {
  const { settings, statuses } = await loadTenantSettings(c);
  return <TenantSettingsCard settings={settings} statuses={statuses} csrf={c.get('admin').csrf} />;
};

// --- Colour output -----------------------------------------------------------------------------

/** The three default output profiles: the setting, its colour space, its label. */
const OUTPUT_PROFILES = [
  { field: 'defaultCmykColorProfile', space: 'Cmyk', label: 'CMYK' },
  { field: 'defaultRgbColorProfile', space: 'Rgb', label: 'RGB' },
  { field: 'defaultGrayscaleColorProfile', space: 'Grayscale', label: 'Grey' },
] as const;
type ProfileSetting = (typeof OUTPUT_PROFILES)[number]['field'];
/** The profile name chosen for each setting; '' is the shipped default. */
type ProfileChoice = Record<ProfileSetting, string>;

/** What the shipped default of a colour space calls itself (the profile's description). */
const shippedNames = new Map<ColourSpace, string>();
function shippedName(space: ColourSpace): string {
  let name = shippedNames.get(space);
  if (name === undefined) shippedNames.set(space, (name = readProfileInfo(defaultProfile(space)).description));
  return name;
}

function ColourOutputCard({ chosen, profiles, csrf, errors = {} }: { chosen: ProfileChoice; profiles: ColourProfileDto[]; csrf: string; errors?: Partial<ProfileChoice> }) {
  return (
    <form method="post" action="/admin/tenant/colour-output" class="card" novalidate>
      <h2>Colour output</h2>
      <p class="muted">
        The profiles print files are converted to when a pipeline or an API call names none. Choose from this tenant's colour profiles
        (upload them with <code>POST /api/storage/v1/color-profiles</code>), or keep the profile that ships with the platform.
      </p>
      <CsrfField token={csrf} />
      {OUTPUT_PROFILES.map(({ field: id, space, label }) => {
        const ofSpace = profiles.filter((p) => p.colorSpace === space);
        const hint = ofSpace.length ? `Used for ${label} output.` : `This tenant has no ${label} profile yet, so ${label} output uses the shipped one.`;
        return (
          <Field id={id} label={`${label} output profile`} hint={hint} error={errors[id]}>
            <select id={id} name={id} {...describedBy(id, true, errors[id])}>
              <option value="" selected={chosen[id] === ''}>
                Shipped default: {shippedName(space)}
              </option>
              {ofSpace.map((p) => (
                <option value={p.name} selected={chosen[id] === p.name}>
                  {p.name}
                  {p.description && p.description !== p.name ? ` (${p.description})` : ''}
                </option>
              ))}
            </select>
          </Field>
        );
      })}
      <div class="actions">
        <button type="submit">Save colour output</button>
      </div>
    </form>
  );
}

const chosenIn = (settings: TenantSettings): ProfileChoice => ({
  defaultCmykColorProfile: settings.defaultCmykColorProfile ?? '',
  defaultRgbColorProfile: settings.defaultRgbColorProfile ?? '',
  defaultGrayscaleColorProfile: settings.defaultGrayscaleColorProfile ?? '',
});

const colourOutputCard: TenantCard = async (c) => {
  const [settings, profiles] = await Promise.all([getTenantSettings(c.env.DB, c.get('admin').session.tenantId), listProfiles(tenantOf(c))]);
  return <ColourOutputCard chosen={chosenIn(settings)} profiles={profiles} csrf={c.get('admin').csrf} />;
};

// --- routes --------------------------------------------------------------------------------------

/** The platform's cards of Settings > Tenant, in the order shown. */
export const tenantCards: readonly TenantCard[] = [processingCard, colourOutputCard];

export const tenantSettingsRoutes = new Hono<AdminEnv>();

/** POST /admin/tenant/settings */
tenantSettingsRoutes.post('/settings', async (c) => {
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
  return refused(c, <TenantSettingsCard settings={{ ...change, startProcessingOnStatus: status ?? null }} statuses={statuses} csrf={c.get('admin').csrf} errors={errors} />);
});

/** POST /admin/tenant/colour-output: each select names one of the tenant's profiles of its space, or '' for the shipped one. */
tenantSettingsRoutes.post('/colour-output', async (c) => {
  const form = await c.req.parseBody();
  const profiles = await listProfiles(tenantOf(c));
  const chosen: ProfileChoice = { defaultCmykColorProfile: '', defaultRgbColorProfile: '', defaultGrayscaleColorProfile: '' };
  const errors: Partial<ProfileChoice> = {};
  for (const { field: id, space, label } of OUTPUT_PROFILES) {
    const name = field(form, id).trim();
    chosen[id] = name;
    // A name the list does not offer: a profile deleted since the page was shown, or a hand-made post.
    if (name && !profiles.some((p) => p.colorSpace === space && p.name === name)) errors[id] = `That is not one of this tenant's ${label} profiles (it may have been deleted); choose another.`;
  }
  if (!Object.keys(errors).length) {
    try {
      const clearOrName = (name: string) => name || null;
      await updateTenantSettings(c.env.DB, c.get('admin').session.tenantId, {
        defaultCmykColorProfile: clearOrName(chosen.defaultCmykColorProfile),
        defaultRgbColorProfile: clearOrName(chosen.defaultRgbColorProfile),
        defaultGrayscaleColorProfile: clearOrName(chosen.defaultGrayscaleColorProfile),
      });
      return done(c, '/admin/tenant', 'Colour output saved.');
    } catch (e) {
      // Deleted between the check above and the save: the domain names the setting.
      if (!(e instanceof ValidationError)) throw e;
      for (const { field: id } of OUTPUT_PROFILES) {
        const message = e.errors?.[id]?.[0];
        if (message) errors[id] = message;
      }
      if (!Object.keys(errors).length) throw e;
    }
  }
  return refused(c, <ColourOutputCard chosen={chosen} profiles={profiles} csrf={c.get('admin').csrf} errors={errors} />);
});
