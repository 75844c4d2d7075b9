// A tenant's default output profiles are tenant settings naming its colour profiles (issue 20 §1).
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultProfile } from '../../../src/engine/colour';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, S, uploadJson } from '../storage/helpers';
import { keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(2); // vitest.shared.config.ts: later files find the tenant's settings as this one did

const SETTINGS = '/api/backoffice/v1/tenant-settings';
const P = `${S}/color-profiles`;

beforeAll(async () => {
  await seedPlatform();
});

describe('tenant default colour profiles', () => {
  it('are set by name (any case; stored as the profile names itself), cleared by null, and hold the profile', async () => {
    const cmyk = await uploadJson(P, defaultProfile('Cmyk'), 'press.icc', { name: 'House Press' }, { token: 2 });
    const grey = await uploadJson(P, defaultProfile('Grayscale'), 'grey.icc', { name: 'House Grey' }, { token: 2 });
    const set = await apiJson('PUT', SETTINGS, { defaultCmykColorProfile: 'house press', defaultGrayscaleColorProfile: 'House Grey' }, { token: 2 });
    expect(set).toMatchObject({ defaultCmykColorProfile: 'House Press', defaultGrayscaleColorProfile: 'House Grey' });
    expect(set.defaultRgbColorProfile).toBeUndefined();
    // Other fields leave them as they are.
    expect(await apiJson('PUT', SETTINGS, { assetsRetentionPeriodInDays: 9 }, { token: 2 })).toMatchObject({ defaultCmykColorProfile: 'House Press', assetsRetentionPeriodInDays: 9 });
    expect((await api('DELETE', `${P}/${cmyk.id}`, undefined, { token: 2 })).status).toBe(409);
    const cleared = await apiJson('PUT', SETTINGS, { defaultCmykColorProfile: null }, { token: 2 });
    expect(cleared.defaultCmykColorProfile).toBeUndefined();
    expect(cleared.defaultGrayscaleColorProfile).toBe('House Grey');
    expect((await api('DELETE', `${P}/${cmyk.id}`, undefined, { token: 2 })).status).toBe(204);
    expect((await api('DELETE', `${P}/${grey.id}`, undefined, { token: 2 })).status).toBe(409);
  });

  it('refuse an unknown profile or one of another colour space (400 naming the field)', async () => {
    await uploadJson(P, defaultProfile('Rgb'), 'rgb.icc', { name: 'Screen' }, { token: 2 });
    const unknown = await api('PUT', SETTINGS, { defaultCmykColorProfile: 'No such' }, { token: 2 });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toMatch(/defaultCmykColorProfile.*no colour profile named/);
    const wrong = await api('PUT', SETTINGS, { defaultCmykColorProfile: 'Screen' }, { token: 2 });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(await wrong.json())).toMatch(/Rgb profile, not Cmyk/);
    expect((await api('PUT', SETTINGS, { defaultRgbColorProfile: '' }, { token: 2 })).status).toBe(400);
  });
});
