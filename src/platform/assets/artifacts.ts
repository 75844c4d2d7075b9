/**
 * Artifacts (contract, "Asset storage"): files uploaded to `/artifacts` (content in a blob) or
 * produced by jobs (`r2_key` under `p/<t>/jobs/…`). Temporary ones expire 24 h after creation.
 */
import { z } from '@hono/zod-openapi';
import { isHexId, newId, NotFoundError, ValidationError, type TenantContext } from '../core';
import { anonymousUrlOf, dropAnonymous, issueAnonymous } from './anonymous';
import { blobKey, commitStaged, dropStaged, type Staged } from './blobs';
import { checkName } from './folders';
import { checkCustomFields, nameFromFile, type StorageInfo } from './service';
import {
  ARTIFACT_TYPES,
  artifactCounts,
  artifactFilesInGroup,
  deleteArtifactRows,
  expiredTemporaryArtifacts,
  insertUploadedArtifact,
  selectArtifact,
  selectArtifactPage,
  setArtifactAnonymousFlag,
  updateArtifactFields,
  type ArtifactQuery,
  type ArtifactRow,
  type ArtifactType,
} from './store/artifacts';
import { blobKnown } from './store/blobs';
import { tenants } from '../../identity/store';
import { TEMPORARY_TTL_MS } from './lifetimes';

export { ARTIFACT_TYPES, type ArtifactRow, type ArtifactType };

export { TEMPORARY_TTL_MS };

export const ArtifactDto = z
  .object({
    id: z.string(),
    name: z.string(),
    ownerId: z.string().nullable(),
    tenantId: z.number().int(),
    customFields: z.record(z.string(), z.unknown()),
    lastModified: z.string(),
    group: z.string().nullable(),
    alias: z.string().nullable(),
    type: z.enum(ARTIFACT_TYPES),
    format: z.string().nullable(),
    size: z.number().int(),
    description: z.string().nullable(),
    anonymousAccess: z.boolean(),
    url: z.string(),
    jobId: z.string().nullable(),
  })
  .openapi('ArtifactDto');

export const artifactFileKey = (r: ArtifactRow) => (r.blobSha ? blobKey(r.tenantId, r.blobSha) : r.r2Key);

export async function artifactDto(t: TenantContext, r: ArtifactRow): Promise<z.infer<typeof ArtifactDto>> {
  const anon = r.anonymousAccess ? await anonymousUrlOf(t, 'artifact', r.id) : undefined;
  return {
    id: r.id,
    name: r.name,
    ownerId: r.ownerId || null,
    tenantId: r.tenantId,
    customFields: r.customFields,
    lastModified: new Date(r.lastModified).toISOString(),
    group: r.groupName,
    alias: r.alias,
    type: r.type,
    format: r.format,
    size: r.size,
    description: r.description,
    anonymousAccess: r.anonymousAccess,
    url: anon ?? `${t.baseUrl}/api/storage/v1/artifacts/${r.id}/file`,
    jobId: r.jobId,
  };
}

export async function findArtifact(t: TenantContext, id: string): Promise<ArtifactRow | null> {
  if (!isHexId(id)) return null;
  return selectArtifact(t.env.DB, t.tenantId, id);
}

export async function getArtifact(t: TenantContext, id: string): Promise<ArtifactRow> {
  const r = await findArtifact(t, id);
  if (!r) throw new NotFoundError(`No artifact ${id}.`);
  return r;
}

export type ArtifactFilter = ArtifactQuery;

export async function listArtifacts(t: TenantContext, f: ArtifactFilter): Promise<{ total: number; items: ArtifactRow[] }> {
  return selectArtifactPage(t.env.DB, t.tenantId, f);
}

/** A new artifact: what a change may set, and its file. */
export interface NewArtifact extends ArtifactChange {
  staged: Staged;
  filename?: string;
  format?: string | null;
  contentType?: string;
}

export async function createArtifact(t: TenantContext, a: NewArtifact): Promise<ArtifactRow> {
  try {
    const name = checkName(a.name ?? (a.filename || 'artifact'), 'name');
    const customFields = checkCustomFields(a.customFields);
    const type = a.type ?? 'Final';
    const id = newId();
    const format = a.format ?? (/\.([A-Za-z0-9]{1,8})$/.exec(a.filename ?? name)?.[1]?.toLowerCase() ?? null);
    const known = await blobKnown(t.env.DB, t.tenantId, a.staged.sha256);
    await commitStaged(t.env.FILES, a.staged, a.contentType);
    try {
      await insertUploadedArtifact(t.env.DB, t.tenantId, {
        id, type, name, groupName: a.group ?? null, alias: a.alias ?? null, format, size: a.staged.size, description: a.description ?? null,
        blobSha: a.staged.sha256, contentType: a.contentType ?? null, customFields, expiresAt: type === 'Temporary' ? Date.now() + TEMPORARY_TTL_MS : null,
      });
    } catch (e) {
      if (!known) await t.env.FILES.delete(blobKey(t.tenantId, a.staged.sha256)).catch(() => {});
      throw e;
    }
    if (a.anonymousAccess) await setArtifactAnonymous(t, id, true);
    return getArtifact(t, id);
  } finally {
    await dropStaged(t.env.FILES, a.staged);
  }
}

export interface ArtifactChange {
  name?: string;
  group?: string | null;
  alias?: string | null;
  type?: ArtifactType;
  description?: string | null;
  customFields?: Record<string, unknown>;
  anonymousAccess?: boolean;
}

export async function updateArtifact(t: TenantContext, id: string, c: ArtifactChange): Promise<ArtifactRow> {
  const r = await getArtifact(t, id);
  const type = c.type ?? r.type;
  const expires = type === 'Temporary' ? (r.expiresAt ?? Date.now() + TEMPORARY_TTL_MS) : null;
  await updateArtifactFields(t.env.DB, t.tenantId, r.id, {
    name: c.name !== undefined ? checkName(c.name, 'name') : r.name,
    groupName: c.group !== undefined ? c.group : r.groupName,
    alias: c.alias !== undefined ? c.alias : r.alias,
    type,
    description: c.description !== undefined ? c.description : r.description,
    customFields: c.customFields !== undefined ? checkCustomFields(c.customFields) : r.customFields,
    expiresAt: expires,
  });
  if (c.anonymousAccess !== undefined && c.anonymousAccess !== r.anonymousAccess) await setArtifactAnonymous(t, r.id, c.anonymousAccess);
  return getArtifact(t, r.id);
}

async function setArtifactAnonymous(t: TenantContext, id: string, on: boolean): Promise<void> {
  if (on) await issueAnonymous(t, 'artifact', id);
  else await dropAnonymous(t, 'artifact', [id]);
  await setArtifactAnonymousFlag(t.env.DB, t.tenantId, id, on);
}

/** Job outputs (`r2_key`) are deleted from R2 with the row; uploaded content goes with its blob. */
async function dropJobFiles(bucket: R2Bucket, rows: Array<{ r2Key: string | null; blobSha: string | null }>): Promise<void> {
  const keys = rows.filter((r) => !r.blobSha && r.r2Key).map((r) => r.r2Key!);
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}

export async function deleteArtifact(t: TenantContext, id: string): Promise<void> {
  const r = await getArtifact(t, id);
  await deleteArtifactRows(t.env.DB, t.tenantId, [r.id]);
  await dropJobFiles(t.env.FILES, [r]);
}

export async function deleteArtifactGroup(t: TenantContext, group: string): Promise<number> {
  const results = await artifactFilesInGroup(t.env.DB, t.tenantId, group);
  if (!results.length) throw new NotFoundError('No artifacts in this group.');
  for (let i = 0; i < results.length; i += 1000) {
    await deleteArtifactRows(t.env.DB, t.tenantId, results.slice(i, i + 1000).map((r) => r.id));
  }
  await dropJobFiles(t.env.FILES, results);
  return results.length;
}

/** Temporary artifacts are the temporary data; retainable = what expiry deletes. */
export async function artifactStorageInfo(t: TenantContext, retainable: boolean): Promise<StorageInfo> {
  const r = await artifactCounts(t.env.DB, t.tenantId, retainable);
  return { fileCount: r?.n ?? 0, fileSizeInBytes: r?.bytes ?? 0, temporaryFileCount: r?.tn ?? 0, temporaryFileSizeInBytes: r?.tb ?? 0 };
}

/** Hourly: Temporary artifacts past their 24 h. */
export async function sweepTemporaryArtifacts(env: { DB: D1Database; FILES: R2Bucket }, now = Date.now()): Promise<number> {
  let n = 0;
  for (const tenantId of await tenants.ids(env.DB)) {
    const results = await expiredTemporaryArtifacts(env.DB, tenantId, now);
    if (!results.length) continue;
    await deleteArtifactRows(env.DB, tenantId, results.map((r) => r.id));
    await dropJobFiles(env.FILES, results);
    n += results.length;
  }
  return n;
}

export { nameFromFile, ValidationError };
