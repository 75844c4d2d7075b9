/**
 * Colour profiles as tenant assets (issue 20): upload an ICC profile, list, read, delete. A
 * profile is named by pipelines (`hiResOutput{Cmyk,Rgb,Grayscale}ColorProfileName`) and by the
 * tenant's default-profile settings, so deleting one they name is a 409. No HTTP here.
 */
import { colourTransformSync, defaultProfile, InvalidProfile, readProfileInfo, type ColourSpace } from '../../engine/colour';
import { ConflictError, NotFoundError, UnprocessableError, newId, type TenantContext } from '../core';
import * as store from './store';

/** ICC profiles are kilobytes to a few megabytes (large LUT profiles); 16 MB is ample. */
export const MAX_PROFILE_BYTES = 16 * 1024 * 1024;
export const MAX_NAME_LENGTH = 200;

export type ColourProfileDto = Pick<store.ColourProfileRow, 'id' | 'name' | 'colorSpace' | 'description'> & { size: number; created: string };

const dto = (r: store.ColourProfileRow): ColourProfileDto => ({
  id: r.id,
  name: r.name,
  colorSpace: r.colorSpace,
  description: r.description,
  size: r.size,
  created: new Date(r.created).toISOString(),
});

/**
 * Checks `bytes` as an ICC profile (header and tags, then LittleCMS builds a transform with it
 * to or from sRGB) and stores it under `name` (default: the profile's description).
 */
export async function uploadProfile(t: TenantContext, bytes: Uint8Array, name: string | undefined, filename?: string): Promise<ColourProfileDto> {
  let info;
  try {
    info = readProfileInfo(bytes);
    // The class decides the direction LittleCMS can use it in: an output profile from sRGB,
    // anything else (input, display, colour space) to sRGB.
    const layout = { Rgb: 'RGB', Cmyk: 'CMYK', Grayscale: 'GRAY' } as const;
    if (info.deviceClass === 'prtr') colourTransformSync({ from: defaultProfile('Rgb'), to: bytes, fromLayout: 'RGB', toLayout: layout[info.colorSpace] });
    else colourTransformSync({ from: bytes, to: defaultProfile('Rgb'), fromLayout: layout[info.colorSpace], toLayout: 'RGB' });
  } catch (e) {
    if (e instanceof InvalidProfile) throw new UnprocessableError(e.message, { file: [e.details?.[0]?.reason ?? e.message] });
    throw e;
  }
  const chosen = (name ?? (info.description || filename?.replace(/\.[^.]*$/, '') || 'Colour profile')).trim();
  if (!chosen || chosen.length > MAX_NAME_LENGTH || /[\u0000-\u001f\u007f]/.test(chosen)) {
    throw new UnprocessableError('The profile name must be 1–200 characters without control characters.', { name: ['1–200 characters, no control characters.'] });
  }
  const row = { id: newId(), name: chosen, colorSpace: info.colorSpace, description: info.description, size: bytes.length };
  if (!(await store.insertProfile(t, row, bytes))) throw new ConflictError('NameConflict', `A colour profile named "${chosen}" already exists.`, { name: chosen });
  return dto((await store.getProfile(t, row.id))!);
}

export async function listProfiles(t: TenantContext): Promise<ColourProfileDto[]> {
  return (await store.listProfiles(t)).map(dto);
}

export async function getProfile(t: TenantContext, id: string): Promise<ColourProfileDto> {
  const row = await store.getProfile(t, id);
  if (!row) throw new NotFoundError(`No colour profile ${id}.`);
  return dto(row);
}

const PROFILE_PARAMETER = /^hiResOutput(Cmyk|Rgb|Grayscale)ColorProfileName$/i;

/** DELETE: 409 while a pipeline or a tenant setting names the profile (names ignore case). */
export async function deleteProfile(t: TenantContext, id: string): Promise<void> {
  const row = await store.getProfile(t, id);
  if (!row) throw new NotFoundError(`No colour profile ${id}.`);
  const refs = await store.referencesTo(t, row.name);
  const pipelines = refs.pipelines.filter((p) => namesProfile(p.rawContent, row.name)).map((p) => ({ id: p.id, name: p.name }));
  if (pipelines.length || refs.settings.length) {
    const by = [...pipelines.map((p) => `pipeline "${p.name}" (${p.id})`), ...refs.settings.map((s) => `tenant setting ${s}`)].join(', ');
    throw new ConflictError('GeneralConflict', `Colour profile "${row.name}" is in use by ${by}.`, { pipelines, tenantSettings: refs.settings });
  }
  await store.deleteProfile(t, id);
}

/** Whether a pipeline definition (JSON) gives `name` to a colour-profile parameter anywhere. */
function namesProfile(rawContent: string, name: string): boolean {
  let found = false;
  const want = name.toLowerCase();
  const walk = (v: unknown, depth: number): void => {
    if (found || depth > 64 || v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'string' && PROFILE_PARAMETER.test(k) && x.trim().toLowerCase() === want) found = true;
      else walk(x, depth + 1);
    }
  };
  try {
    walk(JSON.parse(rawContent), 0);
  } catch {
    return false;
  }
  return found;
}

/**
 * The bytes of the profile a tenant names (case-insensitive), for renders; null when there is
 * no such profile. Callers fall back to the tenant default, then the shipped default.
 */
export async function profileNamed(env: { DB: D1Database; FILES: R2Bucket }, tenantId: number, name: string): Promise<{ row: store.ColourProfileRow; bytes: Uint8Array } | null> {
  const row = await store.findProfileByName(env, tenantId, name);
  if (!row) return null;
  const bytes = await store.profileBytes(env, tenantId, row.id);
  return bytes ? { row, bytes } : null;
}

export interface OutputProfile {
  /** The asset's name, or the shipped profile's description. */
  name: string;
  bytes: Uint8Array;
  source: 'named' | 'tenant-default' | 'shipped';
}

/**
 * The output profile a render uses for `space` (for the PDF and print paths): the profile
 * `name`d (a pipeline's hiResOutput…ColorProfileName, the API's colorProfile), else the tenant's
 * default for that space, else the shipped default. A name that is not one of the tenant's
 * profiles of that space is a 422 naming `parameter`.
 */
export async function outputProfile(env: { DB: D1Database; FILES: R2Bucket }, tenantId: number, space: ColourSpace, name?: string | null, parameter = 'colorProfile'): Promise<OutputProfile> {
  const wanted = name?.trim();
  if (wanted) {
    const found = await profileNamed(env, tenantId, wanted);
    if (!found) throw new UnprocessableError(`No colour profile named "${wanted}".`, { [parameter]: [`No colour profile named "${wanted}".`] });
    if (found.row.colorSpace !== space) throw new UnprocessableError(`Colour profile "${found.row.name}" is ${found.row.colorSpace}, not ${space}.`, { [parameter]: [`A ${found.row.colorSpace} profile, not ${space}.`] });
    return { name: found.row.name, bytes: found.bytes, source: 'named' };
  }
  const fallback = await store.tenantDefaultName(env, tenantId, space);
  const tenant = fallback ? await profileNamed(env, tenantId, fallback) : null;
  if (tenant) return { name: tenant.row.name, bytes: tenant.bytes, source: 'tenant-default' };
  const bytes = defaultProfile(space);
  return { name: readProfileInfo(bytes).description, bytes, source: 'shipped' };
}
