// Which output profile a render uses: named, else the tenant default, else the shipped one.
import { env } from 'cloudflare:workers';
import { beforeAll, expect, it } from 'vitest';
import { defaultProfile } from '../../../src/engine/colour';
import { outputProfile } from '../../../src/platform/colour-profiles/service';
import { UnprocessableError } from '../../../src/platform/core';
import { seedPlatform } from '../../helpers/platform';
import { apiJson, S, uploadJson } from '../storage/helpers';
import gracol from '../../engine/colour/fixtures/gracol-tr006-test.icc';
import { keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(1); // vitest.shared.config.ts: later files find the tenant's settings as this one did

beforeAll(async () => {
  await seedPlatform();
});

it('a named profile, else the tenant default, else the shipped default; a wrong name is a 422 naming the parameter', async () => {
  const shipped = await outputProfile(env, 1, 'Cmyk');
  expect(shipped).toMatchObject({ source: 'shipped', name: 'Coated FOGRA39 (Argyll from FOGRA39L data)' });
  expect(shipped.bytes).toBe(defaultProfile('Cmyk'));
  await uploadJson(`${S}/color-profiles`, new Uint8Array(gracol), 'g.icc', { name: 'GRACoL' });
  const named = await outputProfile(env, 1, 'Cmyk', 'gracol');
  expect(named).toMatchObject({ source: 'named', name: 'GRACoL' });
  expect(named.bytes).toEqual(new Uint8Array(gracol));
  await apiJson('PUT', '/api/backoffice/v1/tenant-settings', { defaultCmykColorProfile: 'GRACoL' }, { token: 1 });
  expect(await outputProfile(env, 1, 'Cmyk')).toMatchObject({ source: 'tenant-default', name: 'GRACoL' });
  expect((await outputProfile(env, 1, 'Rgb')).source).toBe('shipped');
  const missing = await outputProfile(env, 1, 'Cmyk', 'Nope', 'hiResOutputCmykColorProfileName').catch((e) => e);
  expect(missing).toBeInstanceOf(UnprocessableError);
  expect(missing.errors).toHaveProperty('hiResOutputCmykColorProfileName');
  await expect(outputProfile(env, 1, 'Rgb', 'GRACoL')).rejects.toThrow(/Cmyk, not Rgb/);
  await apiJson('PUT', '/api/backoffice/v1/tenant-settings', { defaultCmykColorProfile: null }, { token: 1 });
});
