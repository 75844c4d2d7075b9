// Settings > Tenant, "Colour output" (issue 20 §1): the tenant's default CMYK / RGB / grey output
// profiles are chosen from its colour profiles, saved as the tenant settings the API serves.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../../src/engine/colour';
import type { Env } from '../../src/env';
import { getTenantSettings } from '../../src/platform/catalogue';
import { uploadProfile } from '../../src/platform/colour-profiles/service';
import type { TenantContext } from '../../src/platform/core';
import { get, makeTenant, post, signIn } from '../identity/admin/helpers';

/** The tenant as the platform's services see it (the profiles are uploaded through the domain, as the API does). */
function tenantContext(tenantId: number): TenantContext {
  const auth = { tenantId, sub: 'test', clientId: 'test', scopes: [], jti: '', iat: 0, exp: 0 };
  return { tenantId, auth, env: env as Env, baseUrl: 'http://localhost' };
}

const COLOUR = '/admin/tenant/colour-output';
const none = { defaultCmykColorProfile: '', defaultRgbColorProfile: '', defaultGrayscaleColorProfile: '' };

describe('admin Tenant page: colour output', () => {
  it('offers the shipped defaults and the tenant’s profiles of each space, saves a choice and clears it', async () => {
    const t = await makeTenant();
    await uploadProfile(tenantContext(t.id), defaultProfile('Cmyk'), 'House Press');
    await uploadProfile(tenantContext(t.id), defaultProfile('Grayscale'), 'House Grey');
    const admin = await signIn(t.admin);

    const page = await (await get('/admin/tenant', admin)).text();
    expect(page).toContain('Colour output');
    const select = (name: string) => page.match(new RegExp(`<select id="${name}"[^>]*>(.*?)</select>`, 's'))?.[1] ?? '';
    expect(select('defaultCmykColorProfile')).toMatch(/<option value="" selected="">Shipped default: Coated FOGRA39/);
    expect(select('defaultCmykColorProfile')).toContain('<option value="House Press">House Press');
    expect(select('defaultCmykColorProfile')).not.toContain('House Grey');
    expect(select('defaultGrayscaleColorProfile')).toContain('<option value="House Grey">House Grey');
    expect(select('defaultRgbColorProfile')).toMatch(/^<option value="" selected="">Shipped default: [^<]+<\/option>$/);
    expect(page).toContain('This tenant has no RGB profile yet');

    const saved = await post(COLOUR, admin, { ...none, defaultCmykColorProfile: 'House Press', defaultGrayscaleColorProfile: 'House Grey' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe('/admin/tenant');
    expect(await getTenantSettings(env.DB, t.id)).toMatchObject({ defaultCmykColorProfile: 'House Press', defaultGrayscaleColorProfile: 'House Grey' });
    const shown = await (await get('/admin/tenant', admin)).text();
    expect(shown).toContain('<option value="House Press" selected="">House Press');

    // The processing card's form leaves the profiles as they are.
    expect((await post('/admin/tenant/settings', admin, { startProcessingOnStatus: '', assetsRetentionPeriodInDays: '30' })).status).toBe(303);
    expect(await getTenantSettings(env.DB, t.id)).toMatchObject({ defaultCmykColorProfile: 'House Press' });

    expect((await post(COLOUR, admin, { ...none, defaultGrayscaleColorProfile: 'House Grey' })).status).toBe(303);
    const cleared = await getTenantSettings(env.DB, t.id);
    expect(cleared.defaultCmykColorProfile).toBeUndefined();
    expect(cleared.defaultGrayscaleColorProfile).toBe('House Grey');
  });

  it('refuses a profile of another space or one the tenant does not have (400 beside the field), and a post without the CSRF token (403); nothing is saved', async () => {
    const t = await makeTenant();
    await uploadProfile(tenantContext(t.id), defaultProfile('Rgb'), 'Screen');
    const admin = await signIn(t.admin);

    const wrongSpace = await post(COLOUR, admin, { ...none, defaultCmykColorProfile: 'Screen', defaultRgbColorProfile: 'Screen' });
    expect(wrongSpace.status).toBe(400);
    const html = await wrongSpace.text();
    expect(html).toContain('Please correct the fields below; nothing was saved.');
    expect(html).toMatch(/id="defaultCmykColorProfile-error">That is not one of this tenant(&#39;|')s CMYK profiles/);
    expect(html).not.toContain('id="defaultRgbColorProfile-error"');
    expect(html).toMatch(/<select id="defaultCmykColorProfile" name="defaultCmykColorProfile" aria-describedby="defaultCmykColorProfile-hint defaultCmykColorProfile-error" aria-invalid="true">/);

    expect((await post(COLOUR, admin, { ...none, defaultGrayscaleColorProfile: 'No such profile' })).status).toBe(400);
    expect((await post(COLOUR, admin, { ...none, defaultRgbColorProfile: 'Screen' }, null)).status).toBe(403);
    expect((await post(COLOUR, admin, { ...none, defaultRgbColorProfile: 'Screen' }, 'forged')).status).toBe(403);
    const settings = await getTenantSettings(env.DB, t.id);
    expect([settings.defaultCmykColorProfile, settings.defaultRgbColorProfile, settings.defaultGrayscaleColorProfile]).toEqual([undefined, undefined, undefined]);
  });

  it('shows another tenant’s profiles to no one: a name from another tenant is refused', async () => {
    const [mine, theirs] = [await makeTenant(), await makeTenant()];
    await uploadProfile(tenantContext(theirs.id), defaultProfile('Cmyk'), 'Their Press');
    const admin = await signIn(mine.admin);
    expect(await (await get('/admin/tenant', admin)).text()).not.toContain('Their Press');
    expect((await post(COLOUR, admin, { ...none, defaultCmykColorProfile: 'Their Press' })).status).toBe(400);
    expect((await getTenantSettings(env.DB, mine.id)).defaultCmykColorProfile).toBeUndefined();
  });
});
