// Colour profiles as tenant assets (issue 20 §1): /api/storage/v1/color-profiles.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultProfile } from '../../../src/engine/colour';
import { seedPlatform } from '../../helpers/platform';
import { api, apiJson, S, upload, uploadJson } from '../storage/helpers';
import gracol from '../../engine/colour/fixtures/gracol-tr006-test.icc';

const P = `${S}/color-profiles`;

beforeAll(async () => {
  await seedPlatform();
});

describe('colour profiles', () => {
  it('upload → 201 {id, name, colorSpace, description} with the profile\'s own description; list and get', async () => {
    const dto = await uploadJson(P, new Uint8Array(gracol), 'gracol.icc', { name: 'GRACoL test' });
    expect(dto).toMatchObject({ name: 'GRACoL test', colorSpace: 'Cmyk', description: 'GRACoL TR006 (Argyll low quality, test only)', size: gracol.byteLength });
    expect(dto.id).toMatch(/^[0-9a-f]{24}$/);
    expect(await apiJson('GET', `${P}/${dto.id}`, undefined, { token: 1 })).toEqual(dto);
    const list = await apiJson('GET', P, undefined, { token: 1 });
    expect(list).toContainEqual(dto);
    // Another tenant sees none of it.
    expect((await api('GET', `${P}/${dto.id}`, undefined, { token: 2 })).status).toBe(404);
    expect(await apiJson('GET', P, undefined, { token: 2 })).not.toContainEqual(dto);
  });

  it('names default to the description; RGB and grey profiles are read too', async () => {
    const rgb = await uploadJson(P, defaultProfile('Rgb'), 'srgb.icc');
    expect(rgb).toMatchObject({ name: 'sRGB IEC61966-2.1 (compact)', colorSpace: 'Rgb' });
    const grey = await uploadJson(P, defaultProfile('Grayscale'), 'grey.icc', { name: 'Grey' });
    expect(grey).toMatchObject({ colorSpace: 'Grayscale', description: 'sGray (sRGB tone curve, compact)' });
  });

  it('a name taken (ignoring case) is a 409 NameConflict', async () => {
    await uploadJson(P, defaultProfile('Cmyk'), 'a.icc', { name: 'Press A' });
    const res = await upload(P, defaultProfile('Cmyk'), 'a.icc', { name: 'press a' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ type: 'NameConflict' });
  });

  it('a file that is not an ICC profile is a 422 saying why; no file is a 400', async () => {
    const res = await upload(P, 'just some text, not a profile at all; long enough to have a header of sorts'.repeat(3), 'x.icc');
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(JSON.stringify(await res.json())).toMatch(/not a valid ICC profile/);
    const lab = defaultProfile('Rgb').slice();
    lab.set([0x4c, 0x61, 0x62, 0x20], 16);
    expect((await upload(P, lab, 'lab.icc')).status).toBe(422);
    const none = await api('POST', P, undefined, { token: 1, raw: (() => { const f = new FormData(); f.append('name', 'x'); return f; })() });
    expect(none.status).toBe(400);
  });

  it('delete → 204, then 404; unknown or malformed ids are 404', async () => {
    const dto = await uploadJson(P, defaultProfile('Cmyk'), 'd.icc', { name: 'Doomed' });
    expect((await api('DELETE', `${P}/${dto.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${P}/${dto.id}`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('DELETE', `${P}/${dto.id}`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${P}/..%2Fetc`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', P)).status).toBe(401);
  });

  it('delete is a 409 while a pipeline names the profile (any case), and works once it does not', async () => {
    const dto = await uploadJson(P, new Uint8Array(gracol), 'p.icc', { name: 'Pipeline press' });
    const rawContent = JSON.stringify({ tasks: [{ name: 'print', type: 'render-hires', parameters: { hiResOutputCmykColorProfileName: 'pipeline PRESS' } }, { name: 'finalize', type: 'finalize' }] });
    await env.DB.prepare(`INSERT INTO processing_pipelines (tenant_id, name, raw_content, created, last_modified) VALUES (1, 'uses press', ?1, 0, 0)`).bind(rawContent).run();
    const res = await api('DELETE', `${P}/${dto.id}`, undefined, { token: 1 });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ type: 'GeneralConflict', pipelines: [{ name: 'uses press' }] });
    // A pipeline that merely mentions the name elsewhere does not hold it.
    await env.DB.prepare(`UPDATE processing_pipelines SET raw_content = ?1 WHERE tenant_id = 1 AND name = 'uses press'`)
      .bind(JSON.stringify({ tasks: [{ name: 'Pipeline press', type: 'finalize', parameters: { note: 'Pipeline press' } }] }))
      .run();
    expect((await api('DELETE', `${P}/${dto.id}`, undefined, { token: 1 })).status).toBe(204);
  });

  it('delete is a 409 while a tenant setting names the profile', async () => {
    const dto = await uploadJson(P, new Uint8Array(gracol), 't.icc', { name: 'Tenant default' });
    await env.DB.prepare(`INSERT INTO tenant_settings (tenant_id, default_cmyk_color_profile) VALUES (1, 'Tenant default') ON CONFLICT (tenant_id) DO UPDATE SET default_cmyk_color_profile = excluded.default_cmyk_color_profile`).run();
    const res = await api('DELETE', `${P}/${dto.id}`, undefined, { token: 1 });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ tenantSettings: ['defaultCmykColorProfile'] });
    await env.DB.prepare(`UPDATE tenant_settings SET default_cmyk_color_profile = NULL WHERE tenant_id = 1`).run();
    expect((await api('DELETE', `${P}/${dto.id}`, undefined, { token: 1 })).status).toBe(204);
  });
});
