/**
 * Handlers of /api/storage/v1, one per action, parameterised by the asset kind (the processor
 * reuses the upload and from-URL ones). Each takes the values its route has validated (routes.ts
 * reads them typed from `c.req.valid(…)`), calls the asset service and gives back what the route
 * answers: a DTO for a JSON answer, nothing for a 204, a Response for a file.
 */
import type { Context } from 'hono';
import type { z } from '@hono/zod-openapi';
import { ServerTiming } from '../../../http/server-timing';
import { NotFoundError, requireOwnerAccess, ValidationError, type PlatformBindings, type TenantContext } from '../../core';
import * as assets from '../../assets';
import type { AssetKind, AssetScope, Received } from '../../assets';
import type * as S from './schemas';

/** What a handler uses of the request context: the tenant, the bindings, response headers. */
type C = Context<PlatformBindings>;
type Out<T extends z.ZodType> = z.output<T>;
type Dto = Record<string, unknown>;
const dto = (s: AssetScope, row: assets.AssetRow) => assets.dtoWithUrl(s, row);

/** A multipart text field as JSON object (customFields). */
function jsonField(v: string | undefined, field: string): Record<string, unknown> | undefined {
  if (v === undefined || v === '') return undefined;
  try {
    const parsed = JSON.parse(v);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // fall through
  }
  throw new ValidationError({ [field]: ['Expected a JSON object.'] });
}

function boolField(v: string | undefined, field: string): boolean | undefined {
  if (v === undefined || v === '') return undefined;
  if (/^(true|1)$/i.test(v)) return true;
  if (/^(false|0)$/i.test(v)) return false;
  throw new ValidationError({ [field]: ['Expected true or false.'] });
}

/** The owner named by the query or a multipart field; on public kinds naming one changes nothing. */
async function ownerScope(c: C, kind: AssetKind, named: string | undefined, required: boolean): Promise<AssetScope> {
  if (!kind.private && named) await requireOwnerAccess(c, 'full');
  return assets.scopeFor(c.var.tenant, kind, named, required);
}

/**
 * Creates an asset from a received file and the request's fields (multipart or JSON); the owner
 * is a field's `ownerId`, else the query's. Sets Server-Timing; the route answers 201 with the DTO.
 */
export async function createFromReceived(
  c: C,
  kind: AssetKind,
  r: Received,
  f: (name: string) => string | undefined,
  queryOwnerId: string | undefined,
  timing = new ServerTiming(),
): Promise<Dto> {
  try {
    if (!r.staged) throw new ValidationError({ file: ['No file was sent.'] });
    const s = await ownerScope(c, kind, f('ownerId') ?? queryOwnerId, kind.private);
    const row = await assets.createAsset(s, {
      staged: r.staged,
      filename: r.filename,
      declaredType: r.contentType,
      name: f('name') || undefined,
      path: f('path'),
      customFields: jsonField(f('customFields'), 'customFields'),
      id: f('id') || undefined,
      namespace: f('namespace') ?? null,
      sourceId: f('sourceId') ?? null,
      resourceType: f('type') ?? null,
      anonymousAccess: boolField(f('anonymousAccess'), 'anonymousAccess'),
      timing,
    });
    c.header('Server-Timing', timing.header());
    return await dto(s, row);
  } finally {
    if (r.staged) await c.env.FILES.delete(r.staged.key).catch(() => {});
  }
}

export async function upload(c: C, kind: AssetKind, queryOwnerId: string | undefined): Promise<Dto> {
  const timing = new ServerTiming();
  const r = await timing.time('receive', () => assets.receiveUpload(c.var.tenant, c.req.raw, ['file'], assets.uploadLimit(kind.type)));
  return createFromReceived(c, kind, r, (n) => r.fields.get(n.toLowerCase()), queryOwnerId, timing);
}

export async function importFromUrl(c: C, kind: AssetKind, b: Out<typeof S.FromUrlBody>): Promise<Dto> {
  const r = await assets.receiveFromUrl(c.var.tenant, b.sourceUrl, assets.headersFrom(b.requestHeaders), assets.uploadLimit(kind.type));
  const fields: Record<string, unknown> = { ...b, customFields: b.customFields ? JSON.stringify(b.customFields) : undefined, anonymousAccess: b.anonymousAccess === undefined ? undefined : String(b.anonymousAccess) };
  // The owner comes from the body only: this route's query takes none.
  return createFromReceived(c, kind, r, (n) => (fields[n] === undefined || fields[n] === null ? undefined : String(fields[n])), undefined);
}

export async function list(c: C, kind: AssetKind, query: assets.ListFilter & { ownerId?: string }) {
  const timing = new ServerTiming();
  const s = await ownerScope(c, kind, query.ownerId, false);
  const page = await timing.time('db', () => assets.listAssets(s, query));
  const items = await timing.time('dto', () => Promise.all(page.items.map((r) => (r.anonymousAccess ? dto(s, r) : assets.dtoOf(s, r)))));
  c.header('Server-Timing', timing.header());
  return { total: page.total, items };
}

export async function get(c: C, kind: AssetKind, id: string, ownerId: string | undefined): Promise<Dto> {
  const s = await ownerScope(c, kind, ownerId, false);
  return dto(s, await assets.getAsset(s, id));
}

export async function file(c: C, kind: AssetKind, id: string, query: Out<typeof S.FileQuery>): Promise<Response> {
  const s = await ownerScope(c, kind, query.ownerId, false);
  const row = await assets.getAsset(s, id);
  return serveAsset(c, row, Boolean(query.attachment));
}

export function serveAsset(c: C, row: assets.AssetRow, attachment: boolean, cacheControl = 'private, no-cache'): Promise<Response> {
  if (!row.blobSha) throw new NotFoundError('The asset has no file.');
  const ext = row.format ? (EXT[row.format] ?? row.format) : '';
  const filename = ext && !row.name.toLowerCase().endsWith(`.${ext}`) ? `${row.name}.${ext}` : row.name;
  return assets.serveFile(
    c.env.FILES,
    { key: assets.blobKey(row.tenantId, row.blobSha), filename, contentType: row.mimeType ?? 'application/octet-stream', attachment, cacheControl },
    c.req.raw,
  );
}
const EXT: Record<string, string> = { jpeg: 'jpg' };

export async function update(c: C, kind: AssetKind, id: string, ownerId: string | undefined, change: Out<typeof S.UpdateAssetBody>): Promise<Dto> {
  const s = await ownerScope(c, kind, ownerId, false);
  return dto(s, await assets.updateAsset(s, id, change));
}

export async function remove(c: C, kind: AssetKind, id: string, ownerId: string | undefined): Promise<void> {
  const s = await ownerScope(c, kind, ownerId, false);
  await assets.deleteAsset(s, id);
}

/** A copy: `created` false when the strategy Skip kept the existing asset (the route answers 200, else 201). */
export async function copy(c: C, kind: AssetKind, id: string, query: Out<typeof S.CopyQuery> | Out<typeof S.ResourceCopyQuery>): Promise<{ dto: Dto; created: boolean }> {
  const s = await ownerScope(c, kind, undefined, false);
  const target = kind.private && query.ownerId ? assets.scopeFor(c.var.tenant, kind, query.ownerId).owner : undefined;
  const { row, created } = await assets.copyAsset(s, id, { ...query, ownerId: target });
  return { dto: await dto({ ...s, owner: row.ownerId }, row), created };
}

export async function storageInfo(c: C, kind: AssetKind, retainable: boolean, ownerId: string | undefined) {
  const s = await ownerScope(c, kind, ownerId, false);
  return assets.storageInfo(s, retainable);
}

// --- batches (the route answers 204) ---------------------------------------------------------------

const batchScope = (c: C, kind: AssetKind, ownerId: string | undefined) => ownerScope(c, kind, ownerId, false);

export async function batchCopy(c: C, kind: AssetKind, queryOwnerId: string | undefined, b: Out<typeof S.BatchCopyBody>): Promise<void> {
  const s = await batchScope(c, kind, queryOwnerId);
  const target = kind.private && b.ownerId ? assets.scopeFor(c.var.tenant, kind, b.ownerId).owner : undefined;
  await assets.batchCopy(s, assets.checkIds(b.ids), { path: b.path, strategy: b.strategy, ownerId: target });
}
export async function batchDelete(c: C, kind: AssetKind, queryOwnerId: string | undefined, b: Out<typeof S.BatchIdsBody>): Promise<void> {
  await assets.batchDelete(await batchScope(c, kind, queryOwnerId), assets.checkIds(b.ids));
}
export async function batchParent(c: C, kind: AssetKind, queryOwnerId: string | undefined, b: Out<typeof S.BatchParentBody>): Promise<void> {
  await assets.batchUpdateParentFolder(await batchScope(c, kind, queryOwnerId), assets.checkIds(b.ids), b.path, b.folderId);
}
export async function batchFields(c: C, kind: AssetKind, queryOwnerId: string | undefined, b: Out<typeof S.BatchFieldsBody>): Promise<void> {
  await assets.batchUpdateCustomFields(await batchScope(c, kind, queryOwnerId), assets.checkIds(b.ids), b.customFields);
}
export async function batchDiscrete(c: C, kind: AssetKind, queryOwnerId: string | undefined, b: Out<typeof S.DiscreteBody>): Promise<void> {
  await assets.batchUpdateDiscrete(await batchScope(c, kind, queryOwnerId), b);
}
/** The query's owner plays no part: the batch names its assets by id, the body names the new owner. */
export async function batchOwner(c: C, kind: AssetKind, b: Out<typeof S.BatchOwnerBody>): Promise<void> {
  const s = assets.scopeFor(c.var.tenant, kind, undefined);
  const owner = assets.scopeFor(c.var.tenant, kind, b.ownerId).owner!;
  await assets.batchUpdateOwner(s, assets.checkIds(b.ids), owner);
}

// --- retention -------------------------------------------------------------------------------------

export async function getRetention(c: C, kind: AssetKind, id: string, ownerId: string | undefined) {
  const s = await ownerScope(c, kind, ownerId, false);
  return (await assets.getAsset(s, id)).retentionPolicy;
}
export async function setRetention(c: C, kind: AssetKind, id: string, query: Out<typeof S.RetentionQuery>) {
  const s = await ownerScope(c, kind, query.ownerId, false);
  await assets.setRetention(s, id, query.policy);
  return query.policy;
}

// --- folders ---------------------------------------------------------------------------------------

/** Folders belong to one owner: private folder calls name it (a storefront user's token implies it). */
async function folderScopeOf(c: C, kind: AssetKind, ownerId: string | undefined): Promise<{ s: AssetScope; fs: ReturnType<typeof assets.folderScope> }> {
  const s = await ownerScope(c, kind, ownerId, false);
  if (kind.private && s.owner === undefined) throw new ValidationError({ ownerId: ['Private folders belong to an owner: give ownerId.'] });
  return { s, fs: assets.folderScope(s) };
}

/** Query and body both may name the folder (the body wins). */
export async function folderCreate(c: C, kind: AssetKind, query: { ownerId?: string }, b: Out<typeof S.FolderCreateBody> | undefined) {
  const { name, path, ownerId } = { ...query, ...(b ?? {}) };
  const { fs } = await folderScopeOf(c, kind, ownerId);
  const row = await assets.createFolder(fs, path, name);
  return (await assets.folderDtos(fs, [row]))[0];
}

export async function folderByPath(c: C, kind: AssetKind, query: Out<typeof S.FolderPathQuery>) {
  const { fs } = await folderScopeOf(c, kind, query.ownerId);
  const row = await assets.folderByPath(fs, query.fullPath);
  if (!row) throw new NotFoundError(`No folder ${assets.normalisePath(query.fullPath)}.`);
  return (await assets.folderDtos(fs, [row]))[0];
}

export async function folderAll(c: C, kind: AssetKind, ownerId: string | undefined) {
  const { fs } = await folderScopeOf(c, kind, ownerId);
  return assets.folderDtos(fs, await assets.allFolders(fs));
}

export async function folderContent(c: C, kind: AssetKind, query: Out<typeof S.FolderContentQuery>) {
  const { s, fs } = await folderScopeOf(c, kind, query.ownerId);
  const folder = await assets.folderOr404(fs, query.folderId);
  const [folders, entities] = await Promise.all([assets.childFolders(fs, folder.id), assets.folderEntities(s, folder.id)]);
  return {
    id: folder.id || null,
    folders: await assets.folderDtos(fs, folders),
    entities: await Promise.all(entities.map((r) => dto(s, r))),
    entitiesCount: entities.length,
  };
}

export async function folderGet(c: C, kind: AssetKind, id: string, ownerId: string | undefined) {
  const { fs } = await folderScopeOf(c, kind, ownerId);
  const row = await assets.folderById(fs, id);
  if (!row) throw new NotFoundError(`No folder ${id}.`);
  return (await assets.folderDtos(fs, [row]))[0];
}

export async function folderUpdate(c: C, kind: AssetKind, id: string, ownerId: string | undefined, b: Out<typeof S.FolderUpdateBody> | undefined) {
  const { fs } = await folderScopeOf(c, kind, ownerId);
  const row = await assets.updateFolder(fs, id, { name: b?.name, parentId: b?.parentId, parentPath: b?.path });
  return (await assets.folderDtos(fs, [row]))[0];
}

export async function folderDelete(c: C, kind: AssetKind, id: string, query: { ownerId?: string; recursive?: boolean }): Promise<void> {
  const { s } = await folderScopeOf(c, kind, query.ownerId);
  await assets.deleteFolder(s, id, Boolean(query.recursive));
}

export async function folderDeleteByPath(c: C, kind: AssetKind, query: Out<typeof S.FolderDeleteQuery>): Promise<void> {
  const { s, fs } = await folderScopeOf(c, kind, query.ownerId);
  if (!query.fullPath) throw new ValidationError({ fullPath: ['Name the folder to delete.'] });
  const row = await assets.folderByPath(fs, query.fullPath);
  if (!row) throw new NotFoundError(`No folder ${assets.normalisePath(query.fullPath)}.`);
  await assets.deleteFolder(s, row.id, Boolean(query.recursive));
}

// --- resources -------------------------------------------------------------------------------------

export async function deleteNamespace(c: C, kind: AssetKind, namespace: string, ownerId: string | undefined): Promise<void> {
  const s = await ownerScope(c, kind, ownerId, false);
  await assets.deleteNamespace(s, namespace);
}

// --- artifacts -------------------------------------------------------------------------------------

const t = (c: C): TenantContext => c.var.tenant;

export async function artifactList(c: C, query: assets.ArtifactFilter) {
  const page = await assets.listArtifacts(t(c), query);
  return { total: page.total, items: await Promise.all(page.items.map((r) => assets.artifactDto(t(c), r))) };
}
export async function artifactUpload(c: C) {
  const r = await assets.receiveUpload(t(c), c.req.raw, ['file'], { bytes: assets.LIMITS.resource, what: 'An artifact file' });
  if (!r.staged) throw new ValidationError({ file: ['No file was sent.'] });
  const f = (n: string) => r.fields.get(n.toLowerCase());
  const type = f('type');
  const canonical = type === undefined ? undefined : assets.ARTIFACT_TYPES.find((x) => x.toLowerCase() === type.toLowerCase());
  if (type !== undefined && !canonical) {
    await c.env.FILES.delete(r.staged.key);
    throw new ValidationError({ type: [`Expected one of ${assets.ARTIFACT_TYPES.join(', ')}.`] });
  }
  const row = await assets.createArtifact(t(c), {
    staged: r.staged,
    filename: r.filename,
    name: f('name') || undefined,
    group: f('group') ?? null,
    alias: f('alias') ?? null,
    type: canonical,
    description: f('description') ?? null,
    customFields: jsonField(f('customFields'), 'customFields'),
    anonymousAccess: boolField(f('anonymousAccess'), 'anonymousAccess'),
    contentType: r.contentType,
  });
  return assets.artifactDto(t(c), row);
}
export const artifactGet = async (c: C, id: string) => assets.artifactDto(t(c), await assets.getArtifact(t(c), id));
export const artifactUpdate = async (c: C, id: string, change: Out<typeof S.UpdateArtifactBody>) => assets.artifactDto(t(c), await assets.updateArtifact(t(c), id, change));
export const artifactDelete = (c: C, id: string): Promise<void> => assets.deleteArtifact(t(c), id);
export async function artifactGroupDelete(c: C, group: string): Promise<void> {
  await assets.deleteArtifactGroup(t(c), group);
}
export async function artifactFile(c: C, id: string, attachment: boolean): Promise<Response> {
  return serveArtifact(c, await assets.getArtifact(t(c), id), attachment);
}
function serveArtifact(c: C, row: assets.ArtifactRow, attachment: boolean, cacheControl = 'private, no-cache'): Promise<Response> {
  const key = assets.artifactFileKey(row);
  if (!key) throw new NotFoundError('The artifact has no file.');
  const filename = row.format && !row.name.toLowerCase().endsWith(`.${row.format}`) ? `${row.name}.${row.format}` : row.name;
  return assets.serveFile(c.env.FILES, { key, filename, contentType: CONTENT_TYPES[row.format ?? ''] ?? 'application/octet-stream', attachment, cacheControl }, c.req.raw);
}
const CONTENT_TYPES: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', json: 'application/json', svg: 'image/svg+xml', txt: 'text/plain' };
export const artifactStorageInfo = (c: C, retainable: boolean) => assets.artifactStorageInfo(t(c), retainable);

// --- anonymous URLs --------------------------------------------------------------------------------

/** A file by its anonymous capability; `attachment` read loosely as the route takes no query schema. */
export async function anonymous(c: C, token: string): Promise<Response> {
  const target = await assets.resolveAnonymous(c.env.DB, token);
  if (!target) throw new NotFoundError('No such file.');
  const attachment = /^(true|1)$/i.test(new URL(c.req.url).searchParams.get('attachment') ?? '');
  const cache = 'private, max-age=300';
  if (target.kind === 'artifact') {
    const row = await assets.findArtifact({ tenantId: target.tenantId, env: c.env } as TenantContext, target.targetId);
    if (!row) throw new NotFoundError('No such file.');
    return serveArtifact(c, row, attachment, cache);
  }
  const row = await assets.selectAnyAsset(c.env.DB, target.tenantId, target.targetId);
  if (!row) throw new NotFoundError('No such file.');
  return serveAsset(c, row, attachment, cache);
}
