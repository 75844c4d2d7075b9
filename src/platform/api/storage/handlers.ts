/**
 * Handlers of /api/storage/v1, one per action, parameterised by the asset kind (the processor
 * reuses the upload and from-URL ones). Each reads its input, calls the asset service, answers.
 */
import type { Context } from 'hono';
import { ServerTiming } from '../../../http/server-timing';
import { NotFoundError, requireOwnerAccess, ValidationError, type PlatformBindings, type TenantContext } from '../../core';
import * as assets from '../../assets';
import type { AssetKind, AssetScope, Received } from '../../assets';

/**
 * The handlers are shared by every collection, so they see the validated query and body as the
 * common shape; each route's own schema (routes.ts) has already checked them.
 */
type Validated = { out: { query: Record<string, any>; json: Record<string, any> } };
type C = Context<PlatformBindings, string, Validated>;
const q = <T = Record<string, any>>(c: C) => c.req.valid('query') as T;
const body = <T = Record<string, any>>(c: C) => c.req.valid('json') as T;
const id = (c: C) => c.req.param('id')!;
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

/** Creates an asset from a received file and the request's fields (multipart or JSON). */
export async function createFromReceived(c: C, kind: AssetKind, r: Received, f: (name: string) => string | undefined, timing = new ServerTiming()): Promise<Response> {
  try {
    if (!r.staged) throw new ValidationError({ file: ['No file was sent.'] });
    const s = await ownerScope(c, kind, f('ownerId') ?? (q(c).ownerId as string | undefined), kind.private);
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
    return c.json(await dto(s, row), 201);
  } finally {
    if (r.staged) await c.env.FILES.delete(r.staged.key).catch(() => {});
  }
}

export const upload = (kind: AssetKind, fileField = 'file') => async (c: C) => {
  const timing = new ServerTiming();
  const r = await timing.time('receive', () => assets.receiveUpload(c.var.tenant, c.req.raw, [fileField], assets.uploadLimit(kind.type)));
  return createFromReceived(c, kind, r, (n) => r.fields.get(n.toLowerCase()), timing);
};

export const importFromUrl = (kind: AssetKind) => async (c: C) => {
  const b = body(c);
  const r = await assets.receiveFromUrl(c.var.tenant, b.sourceUrl, assets.headersFrom(b.requestHeaders), assets.uploadLimit(kind.type));
  const fields: Record<string, unknown> = { ...b, customFields: b.customFields ? JSON.stringify(b.customFields) : undefined, anonymousAccess: b.anonymousAccess === undefined ? undefined : String(b.anonymousAccess) };
  return createFromReceived(c, kind, r, (n) => (fields[n] === undefined || fields[n] === null ? undefined : String(fields[n])));
};

export const list = (kind: AssetKind) => async (c: C) => {
  const timing = new ServerTiming();
  const query = q(c);
  const s = await ownerScope(c, kind, query.ownerId, false);
  const page = await timing.time('db', () => assets.listAssets(s, query as assets.ListFilter));
  const items = await timing.time('dto', () => Promise.all(page.items.map((r) => (r.anonymousAccess ? dto(s, r) : assets.dtoOf(s, r)))));
  c.header('Server-Timing', timing.header());
  return c.json({ total: page.total, items }, 200);
};

export const get = (kind: AssetKind) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  return c.json(await dto(s, await assets.getAsset(s, id(c))), 200);
};

export const file = (kind: AssetKind) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  const row = await assets.getAsset(s, id(c));
  return serveAsset(c, row, Boolean(q(c).attachment));
};

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

export const update = (kind: AssetKind) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  const row = await assets.updateAsset(s, id(c), body(c));
  return c.json(await dto(s, row), 200);
};

export const remove = (kind: AssetKind) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  await assets.deleteAsset(s, id(c));
  return c.body(null, 204);
};

export const copy = (kind: AssetKind) => async (c: C) => {
  const query = q(c);
  const s = await ownerScope(c, kind, undefined, false);
  const target = kind.private && query.ownerId ? assets.scopeFor(c.var.tenant, kind, query.ownerId).owner : undefined;
  const { row, created } = await assets.copyAsset(s, id(c), { ...query, ownerId: target });
  return c.json(await dto({ ...s, owner: row.ownerId }, row), created ? 201 : 200);
};

export const storageInfo = (kind: AssetKind, retainable: boolean) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  return c.json(await assets.storageInfo(s, retainable), 200);
};

// --- batches ---------------------------------------------------------------------------------------

const batchScope = (c: C, kind: AssetKind, ownerId?: string) => ownerScope(c, kind, ownerId ?? q(c).ownerId, false);

export const batchCopy = (kind: AssetKind) => async (c: C) => {
  const b = body(c);
  const s = await batchScope(c, kind);
  const target = kind.private && b.ownerId ? assets.scopeFor(c.var.tenant, kind, b.ownerId).owner : undefined;
  await assets.batchCopy(s, assets.checkIds(b.ids), { path: b.path, strategy: b.strategy, ownerId: target });
  return c.body(null, 204);
};
export const batchDelete = (kind: AssetKind) => async (c: C) => {
  await assets.batchDelete(await batchScope(c, kind), assets.checkIds(body(c).ids));
  return c.body(null, 204);
};
export const batchParent = (kind: AssetKind) => async (c: C) => {
  const b = body(c);
  await assets.batchUpdateParentFolder(await batchScope(c, kind), assets.checkIds(b.ids), b.path, b.folderId);
  return c.body(null, 204);
};
export const batchFields = (kind: AssetKind) => async (c: C) => {
  const b = body(c);
  await assets.batchUpdateCustomFields(await batchScope(c, kind), assets.checkIds(b.ids), b.customFields);
  return c.body(null, 204);
};
export const batchDiscrete = (kind: AssetKind) => async (c: C) => {
  await assets.batchUpdateDiscrete(await batchScope(c, kind), body(c));
  return c.body(null, 204);
};
export const batchOwner = (kind: AssetKind) => async (c: C) => {
  const b = body(c);
  const s = assets.scopeFor(c.var.tenant, kind, undefined);
  const owner = assets.scopeFor(c.var.tenant, kind, b.ownerId).owner!;
  await assets.batchUpdateOwner(s, assets.checkIds(b.ids), owner);
  return c.body(null, 204);
};

// --- retention -------------------------------------------------------------------------------------

export const getRetention = (kind: AssetKind) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  return c.json((await assets.getAsset(s, id(c))).retentionPolicy, 200);
};
export const setRetention = (kind: AssetKind) => async (c: C) => {
  const query = q(c);
  const s = await ownerScope(c, kind, query.ownerId, false);
  await assets.setRetention(s, id(c), query.policy);
  return c.json(query.policy, 200);
};

// --- folders ---------------------------------------------------------------------------------------

/** Folders belong to one owner: private folder calls name it (a storefront user's token implies it). */
async function folderScopeOf(c: C, kind: AssetKind, ownerId: string | undefined): Promise<{ s: AssetScope; fs: ReturnType<typeof assets.folderScope> }> {
  const s = await ownerScope(c, kind, ownerId, false);
  if (kind.private && s.owner === undefined) throw new ValidationError({ ownerId: ['Private folders belong to an owner: give ownerId.'] });
  return { s, fs: assets.folderScope(s) };
}

export const folderCreate = (kind: AssetKind) => async (c: C) => {
  const b = { ...q(c), ...(body(c) ?? {}) } as { name?: string; path?: string; ownerId?: string };
  const { fs } = await folderScopeOf(c, kind, b.ownerId);
  const row = await assets.createFolder(fs, b.path, b.name);
  return c.json((await assets.folderDtos(fs, [row]))[0], 201);
};

export const folderByPath = (kind: AssetKind) => async (c: C) => {
  const query = q(c);
  const { fs } = await folderScopeOf(c, kind, query.ownerId);
  const row = await assets.folderByPath(fs, query.fullPath);
  if (!row) throw new NotFoundError(`No folder ${assets.normalisePath(query.fullPath)}.`);
  return c.json((await assets.folderDtos(fs, [row]))[0], 200);
};

export const folderAll = (kind: AssetKind) => async (c: C) => {
  const { fs } = await folderScopeOf(c, kind, q(c).ownerId);
  return c.json(await assets.folderDtos(fs, await assets.allFolders(fs)), 200);
};

export const folderContent = (kind: AssetKind) => async (c: C) => {
  const query = q(c);
  const { s, fs } = await folderScopeOf(c, kind, query.ownerId);
  const folder = await assets.folderOr404(fs, query.folderId);
  const [folders, entities] = await Promise.all([assets.childFolders(fs, folder.id), assets.folderEntities(s, folder.id)]);
  return c.json(
    {
      id: folder.id || null,
      folders: await assets.folderDtos(fs, folders),
      entities: await Promise.all(entities.map((r) => dto(s, r))),
      entitiesCount: entities.length,
    },
    200,
  );
};

export const folderGet = (kind: AssetKind) => async (c: C) => {
  const { fs } = await folderScopeOf(c, kind, q(c).ownerId);
  const row = await assets.folderById(fs, id(c));
  if (!row) throw new NotFoundError(`No folder ${id(c)}.`);
  return c.json((await assets.folderDtos(fs, [row]))[0], 200);
};

export const folderUpdate = (kind: AssetKind) => async (c: C) => {
  const { fs } = await folderScopeOf(c, kind, q(c).ownerId);
  const b = body(c) ?? {};
  const row = await assets.updateFolder(fs, id(c), { name: b.name, parentId: b.parentId, parentPath: b.path });
  return c.json((await assets.folderDtos(fs, [row]))[0], 200);
};

export const folderDelete = (kind: AssetKind) => async (c: C) => {
  const query = q(c);
  const { s } = await folderScopeOf(c, kind, query.ownerId);
  await assets.deleteFolder(s, id(c), Boolean(query.recursive));
  return c.body(null, 204);
};

export const folderDeleteByPath = (kind: AssetKind) => async (c: C) => {
  const query = q(c);
  const { s, fs } = await folderScopeOf(c, kind, query.ownerId);
  if (!query.fullPath) throw new ValidationError({ fullPath: ['Name the folder to delete.'] });
  const row = await assets.folderByPath(fs, query.fullPath);
  if (!row) throw new NotFoundError(`No folder ${assets.normalisePath(query.fullPath)}.`);
  await assets.deleteFolder(s, row.id, Boolean(query.recursive));
  return c.body(null, 204);
};

// --- resources -------------------------------------------------------------------------------------

export const deleteNamespace = (kind: AssetKind) => async (c: C) => {
  const s = await ownerScope(c, kind, q(c).ownerId, false);
  await assets.deleteNamespace(s, c.req.param('namespace')!);
  return c.body(null, 204);
};

// --- artifacts -------------------------------------------------------------------------------------

const t = (c: C): TenantContext => c.var.tenant;

export const artifactList = async (c: C) => {
  const page = await assets.listArtifacts(t(c), q(c) as assets.ArtifactFilter);
  return c.json({ total: page.total, items: await Promise.all(page.items.map((r) => assets.artifactDto(t(c), r))) }, 200);
};
export const artifactUpload = async (c: C) => {
  const r = await assets.receiveUpload(t(c), c.req.raw, ['file'], { bytes: assets.LIMITS.resource, what: 'An artifact file' });
  if (!r.staged) throw new ValidationError({ file: ['No file was sent.'] });
  const f = (n: string) => r.fields.get(n.toLowerCase());
  const type = f('type');
  const types = assets.ARTIFACT_TYPES as readonly string[];
  const canonical = type === undefined ? undefined : types.find((x) => x.toLowerCase() === type.toLowerCase());
  if (type !== undefined && !canonical) {
    await c.env.FILES.delete(r.staged.key);
    throw new ValidationError({ type: [`Expected one of ${types.join(', ')}.`] });
  }
  const row = await assets.createArtifact(t(c), {
    staged: r.staged,
    filename: r.filename,
    name: f('name') || undefined,
    group: f('group') ?? null,
    alias: f('alias') ?? null,
    type: canonical as assets.ArtifactType | undefined,
    description: f('description') ?? null,
    customFields: jsonField(f('customFields'), 'customFields'),
    anonymousAccess: boolField(f('anonymousAccess'), 'anonymousAccess'),
    contentType: r.contentType,
  });
  return c.json(await assets.artifactDto(t(c), row), 201);
};
export const artifactGet = async (c: C) => c.json(await assets.artifactDto(t(c), await assets.getArtifact(t(c), id(c))), 200);
export const artifactUpdate = async (c: C) => c.json(await assets.artifactDto(t(c), await assets.updateArtifact(t(c), id(c), body(c))), 200);
export const artifactDelete = async (c: C) => {
  await assets.deleteArtifact(t(c), id(c));
  return c.body(null, 204);
};
export const artifactGroupDelete = async (c: C) => {
  await assets.deleteArtifactGroup(t(c), c.req.param('group')!);
  return c.body(null, 204);
};
export const artifactFile = async (c: C) => {
  const row = await assets.getArtifact(t(c), id(c));
  return serveArtifact(c, row, Boolean(q(c).attachment));
};
function serveArtifact(c: C, row: assets.ArtifactRow, attachment: boolean, cacheControl = 'private, no-cache'): Promise<Response> {
  const key = assets.artifactFileKey(row);
  if (!key) throw new NotFoundError('The artifact has no file.');
  const filename = row.format && !row.name.toLowerCase().endsWith(`.${row.format}`) ? `${row.name}.${row.format}` : row.name;
  return assets.serveFile(c.env.FILES, { key, filename, contentType: CONTENT_TYPES[row.format ?? ''] ?? 'application/octet-stream', attachment, cacheControl }, c.req.raw);
}
const CONTENT_TYPES: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', json: 'application/json', svg: 'image/svg+xml', txt: 'text/plain' };
export const artifactStorageInfo = (retainable: boolean) => async (c: C) => c.json(await assets.artifactStorageInfo(t(c), retainable), 200);

// --- anonymous URLs --------------------------------------------------------------------------------

export const anonymous = async (c: C) => {
  const target = await assets.resolveAnonymous(c.env.DB, c.req.param('token')!);
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
};
