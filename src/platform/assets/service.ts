/**
 * The asset service: every stored asset of every type, public and private, in one `assets` table
 * (contract, "Asset storage"). Storage and processor routes call it; so do atoms, storefront and
 * pipelines (through ./index.ts). Free of HTTP: it throws the core's typed errors.
 *
 * Writes that touch several rows are one D1 batch: the blob refcount changes with the rows that
 * name the blob, and id lists start with the core's guard so an unknown id changes nothing.
 */
import { sql, type SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import {
  checkStoredJson,
  ConflictError,
  customFieldsMatch,
  effectiveOwner,
  guardIds,
  inJsonList,
  isClientId,
  likePattern,
  missingIds,
  newId,
  NotFoundError,
  runGuarded,
  ValidationError,
  type Paging,
  type TenantContext,
} from '../core';
import { addBlobRef, blobKey, commitStaged, dropBlobRef, dropEarlyBlob, dropStaged, shiftBlobRefs, startBlobWrite, type Staged } from './blobs';
import { analyseContent, isPsd, PSD_MIME, type ContentInfo } from './content';
import { deletePdfPages, drawImportedPdfPages } from './pdf-pages';
import { FontLookup, resolveFonts } from './fonts';
import { checkName, ensureFolder, folderByPath, folderOr404, normalisePath, subtreeIds, type FolderScope, type FolderType } from './folders';
import { ASSET_COLUMNS, assetRow, toDto, type AssetKind, type AssetRow, type RetentionPolicy } from './model';
import { anonymousUrlOf, dropAnonymous, issueAnonymous } from './anonymous';

const dialect = new SQLiteSyncDialect();
/** A drizzle SQL fragment as a D1 statement (the core's helpers speak drizzle). */
export const stmt = (db: D1Database, q: SQL): D1PreparedStatement => {
  const { sql: text, params } = dialect.sqlToQuery(q);
  return db.prepare(text).bind(...params);
};

export const MAX_BATCH = 1000;
const MAX_CUSTOM_KEYS = 100;
const MAX_CUSTOM_VALUE = 4096;

export type CopyStrategy = 'Abort' | 'Rename' | 'Overwrite' | 'Skip';

/** Which rows a call may see: public (''), one owner, or every private owner (undefined). */
export interface AssetScope {
  t: TenantContext;
  kind: AssetKind;
  owner: string | undefined;
}

/**
 * The owner a call acts for. Public collections: ''. Private ones: the given owner (a storefront
 * user's token confines it to that user); `required` (creates) without one → 400.
 */
export function scopeFor(t: TenantContext, kind: AssetKind, ownerId: string | null | undefined, required = false): AssetScope {
  if (!kind.private) return { t, kind, owner: '' };
  if (ownerId !== undefined && ownerId !== null && ownerId !== '' && (!ownerId.trim() || ownerId.length > 256)) {
    throw new ValidationError({ ownerId: ['ownerId must be 1–256 characters and not blank.'] });
  }
  const owner = effectiveOwner(t, ownerId);
  if (required && owner === undefined) throw new ValidationError({ ownerId: [`ownerId is required to create a ${kind.noun}.`] });
  return { t, kind, owner };
}

const ownerClause = (s: AssetScope): SQL =>
  s.owner === undefined ? sql`owner_id <> ''` : sql`owner_id = ${s.owner}`;

/** The trusted `where` of the core's guard for this scope (owner ids are bound, not inlined). */
function guardWhere(s: AssetScope): string {
  const owner = s.owner === undefined ? `owner_id <> ''` : `owner_id = '${s.owner.replace(/'/g, "''")}'`;
  return `type = '${s.kind.type}' AND ${owner}`;
}

export const folderScope = (s: AssetScope, owner = s.owner ?? ''): FolderScope => ({
  db: s.t.env.DB,
  tenantId: s.t.tenantId,
  type: s.kind.type as FolderType,
  ownerId: owner,
});

const isUnique = (e: unknown) => /UNIQUE constraint failed/i.test(String((e as Error)?.message ?? e));
const nameConflict = (s: AssetScope, name: string) =>
  new ConflictError('NameConflict', `A ${s.kind.type} named "${name}" already exists in this folder.`, { name });

// --- reads -----------------------------------------------------------------------------------------

export async function findAsset(s: AssetScope, id: string): Promise<AssetRow | null> {
  if (!isClientId(id)) return null;
  const row = await stmt(
    s.t.env.DB,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${s.t.tenantId} AND id = ${id} AND type = ${s.kind.type} AND ${ownerClause(s)}`,
  ).first<Record<string, unknown>>();
  return row ? assetRow(row) : null;
}

export async function getAsset(s: AssetScope, id: string): Promise<AssetRow> {
  const row = await findAsset(s, id);
  if (!row) throw new NotFoundError(`No ${s.kind.noun} ${id}.`);
  return row;
}

export const dtoOf = (s: AssetScope, row: AssetRow, anonymousUrl?: string) => toDto(row, s.t.baseUrl, anonymousUrl);

/** With its anonymous URL when it has one (resources and artifacts show it as `url`). */
export async function dtoWithUrl(s: AssetScope, row: AssetRow): Promise<Record<string, unknown>> {
  const anon = row.anonymousAccess ? await anonymousUrlOf(s.t, 'asset', row.id) : undefined;
  return dtoOf(s, row, anon);
}

export interface ListFilter extends Paging<'name' | 'lastModified' | 'size' | 'id'> {
  path?: string;
  includeSubfolders?: boolean;
  fontPostScriptName?: string;
  type?: string;
  postscriptNames?: string[];
  retentionPolicy?: RetentionPolicy;
  namespace?: string;
}

const SORT_COLUMN = { name: 'name COLLATE NOCASE', lastModified: 'last_modified', size: 'size', id: 'id' } as const;

/**
 * A page of assets. No `path`: every folder; a `path`: that folder (its subfolders too with
 * includeSubfolders). An unknown path lists nothing.
 */
export async function listAssets(s: AssetScope, f: ListFilter): Promise<{ total: number; items: AssetRow[] }> {
  const where: SQL[] = [sql`tenant_id = ${s.t.tenantId}`, sql`type = ${s.kind.type}`, ownerClause(s)];
  if (f.path !== undefined && s.kind.folders) {
    const fs = folderScope(s);
    const folder = s.owner === undefined ? null : await folderByPath(fs, f.path);
    if (!folder) return { total: 0, items: [] };
    if (!f.includeSubfolders) where.push(sql`folder_id = ${folder.id}`);
    else if (folder.id) where.push(inJsonList(sql.raw('folder_id'), await subtreeIds(fs, folder)));
  }
  if (f.search) where.push(sql`name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.customFields && Object.keys(f.customFields).length) where.push(customFieldsMatch(sql.raw('custom_fields'), f.customFields));
  if (f.fontPostScriptName) where.push(sql`EXISTS (SELECT 1 FROM json_each(metadata, '$.fonts') WHERE json_extract(value, '$.postscriptName') = ${f.fontPostScriptName} COLLATE NOCASE)`);
  if (f.type) {
    const column = s.kind.type === 'design' ? 'design_type' : s.kind.type === 'mockup' ? 'mockup_type' : s.kind.type === 'resource' ? 'resource_type' : 'format';
    where.push(sql`${sql.raw(column)} = ${f.type} COLLATE NOCASE`);
  }
  if (f.postscriptNames?.length) where.push(sql`postscript_name COLLATE NOCASE IN (SELECT value FROM json_each(${JSON.stringify(f.postscriptNames)}))`);
  if (f.retentionPolicy) where.push(sql`retention_policy = ${f.retentionPolicy}`);
  if (f.namespace !== undefined) where.push(sql`namespace = ${f.namespace}`);
  const cond = sql.join(where, sql` AND `);
  const order = f.sorting.length ? f.sorting.map((k) => `${SORT_COLUMN[k.field]} ${k.direction}`).join(', ') + ', id' : 'name COLLATE NOCASE, id';
  const db = s.t.env.DB;
  // The page and the count in one round trip. With the covering index assets_list_by_name the
  // page reads in index order (no sort) and the count never touches the table; a window count
  // would collect every matching row before the page (docs/platform.md, Listing).
  const count = stmt(db, sql`SELECT count(*) AS n FROM assets WHERE ${cond}`);
  if (f.take === 0) return { total: Number((await count.first<{ n: number }>())?.n ?? 0), items: [] };
  const [page, counted] = await db.batch<Record<string, unknown>>([
    stmt(db, sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE ${cond} ORDER BY ${sql.raw(order)} LIMIT ${f.take} OFFSET ${f.skip}`),
    count,
  ]);
  const results = page!.results;
  const total = Number(counted!.results[0]?.n ?? 0);
  return { total, items: results.map(assetRow) };
}

// --- create / replace content --------------------------------------------------------------------

export interface NewAsset {
  staged: Staged;
  /** The uploaded file's name (the asset's name without extension when `name` is absent). */
  filename?: string;
  declaredType?: string;
  name?: string;
  path?: string;
  customFields?: Record<string, unknown>;
  id?: string;
  /** Resources. */
  namespace?: string | null;
  sourceId?: string | null;
  resourceType?: string | null;
  anonymousAccess?: boolean;
  /** Set instead of computed (links, derived designs). */
  extraMetadata?: Record<string, unknown>;
  mockupType?: 'MockupLink';
  linkSourceId?: string;
  /** Phases measured for the response's Server-Timing (analyse, commit). */
  timing?: { time<T>(name: string, fn: () => Promise<T> | T): Promise<T> };
}

export function checkCustomFields(v: unknown, field = 'customFields'): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new ValidationError({ [field]: ['Expected a JSON object.'] });
  const entries = Object.entries(v);
  const problems: string[] = [];
  checkStoredJson(v, field);
  if (entries.length > MAX_CUSTOM_KEYS) problems.push(`At most ${MAX_CUSTOM_KEYS} custom fields.`);
  for (const [k, x] of entries) if (JSON.stringify(x ?? null).length > MAX_CUSTOM_VALUE || k.length > 256) problems.push(`The field "${k.slice(0, 64)}" is larger than 4 KB.`);
  if (problems.length) throw new ValidationError({ [field]: problems });
  return v as Record<string, unknown>;
}

/** "card.psd" → "card"; "" → "Untitled". */
export const nameFromFile = (filename?: string): string => {
  const base = (filename ?? '').split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  return stem.trim() || 'Untitled';
};

async function nameTaken(s: AssetScope, owner: string, folderId: string, name: string, exceptId?: string): Promise<AssetRow | null> {
  if (s.kind.type === 'resource') return null;
  const row = await stmt(
    s.t.env.DB,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${s.t.tenantId} AND type = ${s.kind.type} AND owner_id = ${owner}
        AND folder_id = ${folderId} AND name = ${name} COLLATE NOCASE AND id <> ${exceptId ?? ''}`,
  ).first<Record<string, unknown>>();
  return row ? assetRow(row) : null;
}

/** Design fonts against the font lookup: DesignMetadata.fonts and hasProblems. */
async function withFonts(s: AssetScope, info: ContentInfo): Promise<{ metadata: Record<string, unknown>; hasProblems: boolean }> {
  if (s.kind.type !== 'design') return { metadata: info.metadata, hasProblems: false };
  const lookup = await FontLookup.load(s.t.env, s.t.tenantId);
  const { fonts, missing } = resolveFonts(lookup, info.fonts ?? []);
  return { metadata: { ...info.metadata, fonts }, hasProblems: missing.length > 0 };
}

async function checkFontUnique(s: AssetScope, info: ContentInfo, exceptId?: string): Promise<void> {
  if (s.kind.type !== 'font' || !info.postscriptName) return;
  const clash = await s.t.env.DB.prepare(
    `SELECT id FROM assets WHERE tenant_id = ?1 AND type = 'font' AND postscript_name = ?2 AND id <> ?3 LIMIT 1`,
  )
    .bind(s.t.tenantId, info.postscriptName, exceptId ?? '')
    .first<{ id: string }>();
  if (clash) throw new ConflictError('GeneralConflict', `The font ${info.postscriptName} is already among the tenant's fonts (${clash.id}).`, { existingId: clash.id });
}

/** Moves the staged file to its blob; undone (R2 side) when the D1 batch then fails. */
async function commitAndWrite(
  s: AssetScope,
  staged: Staged,
  info: ContentInfo,
  statements: (sha: string) => D1PreparedStatement[],
  early?: Promise<boolean>,
): Promise<void> {
  const bucket = s.t.env.FILES;
  const db = s.t.env.DB;
  const known = await db.prepare(`SELECT refcount FROM blobs WHERE tenant_id = ?1 AND sha256 = ?2`).bind(s.t.tenantId, staged.sha256).first();
  await commitStaged(bucket, staged, info.mimeType, info.bytes, early);
  try {
    await db.batch([addBlobRef(db, s.t.tenantId, staged.sha256, staged.size, info.mimeType), ...statements(staged.sha256)]);
  } catch (e) {
    if (!known) await bucket.delete(blobKey(s.t.tenantId, staged.sha256)).catch(() => {});
    throw e;
  }
}

/**
 * A new asset from a staged upload: name (or the file name), folder (`path`, created), id (a
 * client id, else generated), metadata from the content. 409 NameConflict / IdConflict; 413/422
 * from the content. The staged object is always removed.
 */
export async function createAsset(s: AssetScope, input: NewAsset): Promise<AssetRow> {
  const owner = s.owner ?? '';
  let early: Promise<boolean> | undefined;
  let committed = false;
  try {
    const name = checkName(input.name ?? nameFromFile(input.filename), 'name');
    const customFields = checkCustomFields(input.customFields);
    const id = input.id ?? newId();
    if (input.id !== undefined && !isClientId(input.id)) throw new ValidationError({ id: ['An id is 1–64 characters of A–Z, a–z, 0–9, _ and -.'] });
    const db = s.t.env.DB;
    if (await db.prepare(`SELECT 1 FROM assets WHERE tenant_id = ?1 AND id = ?2`).bind(s.t.tenantId, id).first()) {
      throw new ConflictError('IdConflict', `An asset with the id ${id} already exists.`, { id });
    }
    const path = s.kind.folders ? normalisePath(input.path) : '/';
    const fs = folderScope(s, owner);
    const existingFolder = s.kind.folders ? await folderByPath(fs, path) : null;
    if (existingFolder && (await nameTaken(s, owner, existingFolder.id, name))) throw nameConflict(s, name);

    const time = <T>(name: string, fn: () => Promise<T>) => (input.timing ? input.timing.time(name, fn) : fn());
    // A PSD in memory is written to its blob while the engine compiles it.
    const staged = input.staged;
    if (staged.bytes && s.kind.type !== 'font' && isPsd(staged.head)) early = startBlobWrite(s.t.env.FILES, { ...staged, bytes: staged.bytes }, PSD_MIME);
    const info = await time('analyse', () => analyseContent(s.t.env.FILES, s.kind.type, input.staged, input.declaredType));
    await checkFontUnique(s, info);
    const { metadata, hasProblems } = await time('fonts', () => withFonts(s, info));
    const folderId = s.kind.folders ? (existingFolder?.id ?? (await ensureFolder(fs, path))) : '';
    const retention: RetentionPolicy = owner ? 'Default' : 'Unknown';
    // PDF images: every page drawn once, at import (contract, "PDF pages"), before the row exists.
    // The blob is written first and the in-memory copy let go of, so PDFium's is the only one (pdf-pages.ts).
    const pdfPages = isPdfImage(s, info) !== null;
    if (pdfPages) early = (await time('pages', () => drawImportedPdfPages(s.t.env, input.staged, info, id))).early;
    try {
      await time('commit', () => commitAndWrite(s, input.staged, info, (sha) => [
        db
          .prepare(
            `INSERT INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, custom_fields, metadata,
               retention_policy, design_type, has_problems, mockup_type, link_source_id, postscript_name, namespace, source_id, resource_type)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)`,
          )
          .bind(
            s.t.tenantId, id, s.kind.type, owner, folderId, name, sha, input.staged.size, info.mimeType, info.format,
            JSON.stringify(customFields), JSON.stringify({ ...metadata, ...input.extraMetadata }), retention,
            s.kind.type === 'design' ? (info.designType ?? 'Psd') : null, hasProblems ? 1 : 0,
            s.kind.type === 'mockup' ? (input.mockupType ?? info.mockupType ?? 'Mockup2D') : null, input.linkSourceId ?? null,
            info.postscriptName ?? null, input.namespace ?? null, input.sourceId ?? null, input.resourceType ?? null,
          ),
      ], early));
      committed = true;
    } catch (e) {
      if (pdfPages) await deletePdfPages(s.t.env.FILES, s.t.tenantId, id).catch(() => {});
      if (isUnique(e)) {
        if (/assets\.id|PRIMARY/i.test(String(e))) throw new ConflictError('IdConflict', `An asset with the id ${id} already exists.`, { id });
        throw nameConflict(s, name);
      }
      throw e;
    }
    const row = await getAsset({ ...s, owner }, id);
    if (input.anonymousAccess) await setAnonymousAccess({ ...s, owner }, row, true);
    return (await findAsset({ ...s, owner }, id))!;
  } finally {
    if (early && !committed) await dropEarlyBlob(s.t.env.DB, s.t.env.FILES, input.staged, early);
    await dropStaged(s.t.env.FILES, input.staged);
  }
}

/** Replaces an asset's content (processor `/{id}/update`): same id, name and folder. */
export async function replaceContent(s: AssetScope, id: string, staged: Staged, declaredType?: string): Promise<AssetRow> {
  try {
    const row = await getAsset(s, id);
    const info = await analyseContent(s.t.env.FILES, s.kind.type, staged, declaredType);
    await checkFontUnique(s, info, row.id);
    const { metadata, hasProblems } = await withFonts(s, info);
    const db = s.t.env.DB;
    const pageCount = isPdfImage(s, info) ? (await drawImportedPdfPages(s.t.env, staged, info, row.id)).pageCount : 0;
    if (s.kind.type === 'image') await deletePdfPages(s.t.env.FILES, s.t.tenantId, row.id, pageCount);
    await commitAndWrite(s, staged, info, (sha) => [
      ...(row.blobSha ? [dropBlobRef(db, s.t.tenantId, row.blobSha)] : []),
      db
        .prepare(
          `UPDATE assets SET blob_sha = ?3, size = ?4, mime_type = ?5, format = ?6, metadata = ?7, has_problems = ?8, design_type = coalesce(?9, design_type),
             mockup_type = coalesce(?10, mockup_type), postscript_name = ?11, last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER)
           WHERE tenant_id = ?1 AND id = ?2`,
        )
        .bind(s.t.tenantId, row.id, sha, staged.size, info.mimeType, info.format, JSON.stringify(metadata), hasProblems ? 1 : 0,
          info.designType ?? null, info.mockupType ?? null, info.postscriptName ?? null),
    ]);
    return getAsset(s, id);
  } finally {
    await dropStaged(s.t.env.FILES, staged);
  }
}

// --- update ----------------------------------------------------------------------------------------

export interface AssetChange {
  name?: string;
  path?: string;
  folderId?: string | null;
  customFields?: Record<string, unknown>;
  anonymousAccess?: boolean;
  namespace?: string | null;
  sourceId?: string | null;
  type?: string | null;
}

/** PUT: name, folder (path or folderId), custom fields (replaced), anonymous access, resource fields. */
export async function updateAsset(s: AssetScope, id: string, change: AssetChange): Promise<AssetRow> {
  const row = await getAsset(s, id);
  const scoped = { ...s, owner: row.ownerId };
  const name = change.name !== undefined ? checkName(change.name, 'name') : row.name;
  let folderId = row.folderId;
  if (s.kind.folders) {
    const fs = folderScope(scoped);
    if (change.folderId !== undefined) folderId = (await folderOr404(fs, change.folderId)).id;
    else if (change.path !== undefined) folderId = await ensureFolder(fs, change.path);
  }
  if (await nameTaken(scoped, row.ownerId, folderId, name, row.id)) throw nameConflict(s, name);
  const customFields = change.customFields !== undefined ? checkCustomFields(change.customFields) : row.customFields;
  try {
    await s.t.env.DB.prepare(
      `UPDATE assets SET name = ?3, folder_id = ?4, custom_fields = ?5, namespace = ?6, source_id = ?7, resource_type = ?8,
         last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id = ?2`,
    )
      .bind(s.t.tenantId, row.id, name, folderId, JSON.stringify(customFields),
        change.namespace !== undefined ? change.namespace : row.namespace,
        change.sourceId !== undefined ? change.sourceId : row.sourceId,
        change.type !== undefined ? change.type : row.resourceType)
      .run();
  } catch (e) {
    if (isUnique(e)) throw nameConflict(s, name);
    throw e;
  }
  if (change.anonymousAccess !== undefined && change.anonymousAccess !== row.anonymousAccess) await setAnonymousAccess(scoped, row, change.anonymousAccess);
  return getAsset(scoped, row.id);
}

export async function setAnonymousAccess(s: AssetScope, row: AssetRow, on: boolean): Promise<void> {
  const db = s.t.env.DB;
  if (on) {
    await issueAnonymous(s.t, 'asset', row.id);
  } else await dropAnonymous(s.t, 'asset', [row.id]);
  await db.prepare(`UPDATE assets SET anonymous_access = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(s.t.tenantId, row.id, on ? 1 : 0).run();
}

// --- delete ----------------------------------------------------------------------------------------

/**
 * 409 naming the products when a design or mockup of `ids` is still connected to a product (its
 * current version: removing a connection makes a new version, older ones keep theirs): deleting it would let later orders of the product be accepted and then fail in the
 * pipeline's extract. The connections go first, as pipelines and statuses in use are refused.
 */
async function checkNotConnected(s: AssetScope, ids: string[]): Promise<void> {
  const kind = s.kind.type;
  if (kind !== 'design' && kind !== 'mockup') return;
  const [table, column] = kind === 'design' ? ['design_connections', 'design_id'] : ['mockup_connections', 'mockup_id'];
  const { results } = await s.t.env.DB.prepare(
    `SELECT DISTINCT c.${column} AS asset, p.id AS id, p.name AS name FROM ${table} c
       JOIN products p ON p.tenant_id = c.tenant_id AND p.current_version_id = c.product_version_id
     WHERE c.tenant_id = ?1 AND c.${column} IN (SELECT value FROM json_each(?2)) ORDER BY p.id LIMIT 100`,
  )
    .bind(s.t.tenantId, JSON.stringify(ids))
    .all<{ asset: string; id: number; name: string }>();
  if (!results.length) return;
  const products = [...new Map(results.map((r) => [r.id, { id: r.id, name: r.name }])).values()];
  const assets = [...new Set(results.map((r) => r.asset))];
  const named = products.slice(0, 5).map((p) => `${p.id} "${p.name}"`).join(', ') + (products.length > 5 ? `, and ${products.length - 5} more` : '');
  throw new ConflictError(
    'GeneralConflict',
    `The ${kind} ${assets.join(', ')} is connected to product${products.length > 1 ? 's' : ''} ${named}; remove the ${kind} connection${products.length > 1 ? 's' : ''} first.`,
    { products, existingReferences: products.map((p) => String(p.id)) },
  );
}

/** 409 when a design the retention rules keep (`Never`) still names one of `ids` as its source. */
async function checkNotInUse(s: AssetScope, ids: string[]): Promise<void> {
  await checkNotConnected(s, ids);
  const used = await s.t.env.DB.prepare(
    `SELECT a.id AS id, d.id AS by FROM assets a JOIN assets d ON d.tenant_id = a.tenant_id AND d.type = 'design' AND d.retention_policy = 'Never'
       AND d.id <> a.id AND (d.source_id = a.id OR EXISTS (SELECT 1 FROM json_each(d.metadata, '$._sources') WHERE value = a.id))
     WHERE a.tenant_id = ?1 AND a.id IN (SELECT value FROM json_each(?2)) LIMIT 1`,
  )
    .bind(s.t.tenantId, JSON.stringify(ids))
    .first<{ id: string; by: string }>();
  if (used) throw new ConflictError('GeneralConflict', `The asset ${used.id} is used by the design ${used.by}, which a project keeps.`, { existingReferences: [used.by] });
}

function deleteStatements(s: AssetScope, ids: string[]): D1PreparedStatement[] {
  const db = s.t.env.DB;
  const list = JSON.stringify(ids);
  return [
    shiftBlobRefs(db, s.t.tenantId, 'assets', ids, -1),
    db.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'asset' AND target_id IN (SELECT value FROM json_each(?2))`).bind(s.t.tenantId, list),
    db.prepare(`DELETE FROM assets WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(s.t.tenantId, list),
  ];
}

export async function deleteAsset(s: AssetScope, id: string): Promise<void> {
  const row = await getAsset(s, id);
  await checkNotInUse(s, [row.id]);
  await s.t.env.DB.batch(deleteStatements(s, [row.id]));
  if (row.type === 'image' && row.format === 'pdf') await deletePagesOf(s.t.env.FILES, s.t.tenantId, [row.id]);
}

/** The PDF bytes of a PDF image's content (its pages get drawn), else null. */
function isPdfImage(s: AssetScope, info: ContentInfo): Uint8Array | null {
  return s.kind.type === 'image' && info.format === 'pdf' && info.bytes ? info.bytes : null;
}

export function checkIds(ids: unknown, field = 'ids'): string[] {
  if (!Array.isArray(ids) || !ids.length) throw new ValidationError({ [field]: ['Give at least one id.'] });
  if (ids.length > MAX_BATCH) throw new ValidationError({ [field]: [`At most ${MAX_BATCH} ids.`] });
  const errors: Record<string, string[]> = {};
  ids.forEach((id, i) => {
    if (typeof id !== 'string') errors[`${field}[${i}]`] = ['Expected a string id.'];
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return [...new Set(ids as string[])];
}

async function guarded(s: AssetScope, ids: string[], statements: D1PreparedStatement[], path = 'ids'): Promise<void> {
  const db = s.t.env.DB;
  const spec = { table: 'assets', tenantId: s.t.tenantId, ids, where: guardWhere(s) };
  try {
    await runGuarded(db, guardIds(db, spec), statements, () => missingIds(db, { ...spec, path }));
  } catch (e) {
    if (isUnique(e)) throw new ConflictError('NameConflict', 'A name would clash with an asset already in the target folder; nothing was changed.');
    throw e;
  }
}

export async function batchDelete(s: AssetScope, ids: string[]): Promise<void> {
  await checkNotInUse(s, ids);
  const pdfs = s.kind.type === 'image'
    ? (await s.t.env.DB.prepare(`SELECT id FROM assets WHERE tenant_id = ?1 AND format = 'pdf' AND id IN (SELECT value FROM json_each(?2))`)
        .bind(s.t.tenantId, JSON.stringify(ids)).all<{ id: string }>()).results
    : [];
  await guarded(s, ids, deleteStatements(s, ids));
  await deletePagesOf(s.t.env.FILES, s.t.tenantId, pdfs.map((r) => r.id));
}

// --- copy ------------------------------------------------------------------------------------------

/**
 * Names already in the folders a copy writes to, loaded once per folder and kept up to date
 * with the copies planned in the same batch (so 1,000 copies cost a query per folder, not per id).
 */
class FolderNames {
  private readonly names = new Map<string, Map<string, { id: string; blobSha: string | null }>>();
  private readonly folderIds = new Map<string, string>();

  constructor(private readonly s: AssetScope) {}

  async folderOf(owner: string, path: string): Promise<string> {
    const key = `${owner}\u0000${normalisePath(path).toLowerCase()}`;
    let id = this.folderIds.get(key);
    if (id === undefined) this.folderIds.set(key, (id = await ensureFolder(folderScope({ ...this.s, owner }), path)));
    return id;
  }

  async in(owner: string, folderId: string): Promise<Map<string, { id: string; blobSha: string | null }>> {
    const key = `${owner}\u0000${folderId}`;
    let map = this.names.get(key);
    if (!map) {
      map = new Map();
      if (this.s.kind.type !== 'resource') {
        const { results } = await this.s.t.env.DB.prepare(
          `SELECT id, name, blob_sha AS blobSha FROM assets WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND folder_id = ?4`,
        )
          .bind(this.s.t.tenantId, this.s.kind.type, owner, folderId)
          .all<{ id: string; name: string; blobSha: string | null }>();
        for (const r of results) map.set(r.name.toLowerCase(), { id: r.id, blobSha: r.blobSha });
      }
      this.names.set(key, map);
    }
    return map;
  }
}

export interface CopyTarget {
  path?: string;
  name?: string;
  strategy?: CopyStrategy;
  /** Private copies: the owner of the copy (defaults to the source's). */
  ownerId?: string;
  namespace?: string | null;
  sourceId?: string | null;
}

interface PlannedCopy {
  statements: D1PreparedStatement[];
  id: string;
  created: boolean;
}

async function planCopy(s: AssetScope, row: AssetRow, target: CopyTarget, folders: FolderNames): Promise<PlannedCopy> {
  const db = s.t.env.DB;
  const owner = target.ownerId ?? row.ownerId;
  const folderId = s.kind.folders ? (target.path !== undefined ? await folders.folderOf(owner, target.path) : row.folderId) : '';
  let name = target.name !== undefined ? checkName(target.name, 'name') : row.name;
  const strategy = target.strategy ?? 'Abort';
  const names = await folders.in(owner, folderId);
  const clash = names.get(name.toLowerCase());
  if (clash) {
    if (strategy === 'Abort') throw nameConflict(s, name);
    if (strategy === 'Skip') return { statements: [], id: clash.id, created: false };
    if (strategy === 'Overwrite') {
      if (clash.id === row.id) return { statements: [], id: clash.id, created: true };
      const dropped = clash.blobSha;
      clash.blobSha = row.blobSha;
      return {
        id: clash.id,
        created: true,
        statements: [
          ...(row.blobSha ? [addBlobRef(db, s.t.tenantId, row.blobSha, row.size, row.mimeType)] : []),
          ...(dropped ? [dropBlobRef(db, s.t.tenantId, dropped)] : []),
          db
            .prepare(
              `UPDATE assets SET (blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type, link_source_id, postscript_name,
                 last_modified) = (SELECT blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type, link_source_id, postscript_name,
                 CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM assets WHERE tenant_id = ?1 AND id = ?2)
               WHERE tenant_id = ?1 AND id = ?3`,
            )
            .bind(s.t.tenantId, row.id, clash.id),
        ],
      };
    }
    for (let i = 1; ; i++) {
      const candidate = `${name} (${i})`;
      if (!names.has(candidate.toLowerCase())) {
        name = candidate;
        break;
      }
    }
  }
  const id = newId();
  if (s.kind.type !== 'resource') names.set(name.toLowerCase(), { id, blobSha: row.blobSha });
  return {
    id,
    created: true,
    statements: [
      db
        .prepare(
          `INSERT INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, custom_fields, metadata, retention_policy,
             design_type, has_problems, mockup_type, link_source_id, postscript_name, namespace, source_id, resource_type)
           SELECT tenant_id, ?3, type, ?4, ?5, ?6, blob_sha, size, mime_type, format, custom_fields, metadata, ?7,
             design_type, has_problems, mockup_type, link_source_id, postscript_name, coalesce(?8, namespace), coalesce(?9, source_id), resource_type
           FROM assets WHERE tenant_id = ?1 AND id = ?2`,
        )
        .bind(s.t.tenantId, row.id, id, owner, folderId, name, owner ? 'Default' : 'Unknown', target.namespace ?? null, target.sourceId ?? null),
      ...(row.blobSha ? [addBlobRef(db, s.t.tenantId, row.blobSha, row.size, row.mimeType)] : []),
    ],
  };
}

/** Copy of one asset: 201 with the copy (or the overwritten asset), 200 with the existing one (Skip). */
export async function copyAsset(s: AssetScope, id: string, target: CopyTarget): Promise<{ row: AssetRow; created: boolean }> {
  const row = await getAsset(s, id);
  const plan = await planCopy(s, row, target, new FolderNames(s));
  if (plan.statements.length) {
    try {
      await s.t.env.DB.batch(plan.statements);
    } catch (e) {
      if (isUnique(e)) throw nameConflict(s, target.name ?? row.name);
      throw e;
    }
  }
  return { row: (await findAsset({ ...s, owner: undefined === s.owner ? undefined : (target.ownerId ?? row.ownerId) }, plan.id))!, created: plan.created };
}

export async function batchCopy(s: AssetScope, ids: string[], target: Omit<CopyTarget, 'name'>): Promise<void> {
  const { results } = await stmt(
    s.t.env.DB,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${s.t.tenantId} AND type = ${s.kind.type} AND ${ownerClause(s)} AND ${inJsonList(sql.raw('id'), ids)}`,
  ).all<Record<string, unknown>>();
  const rows = new Map(results.map((r) => [r.id as string, assetRow(r)]));
  if (rows.size !== ids.length) {
    const errors: Record<string, string[]> = {};
    ids.forEach((id, i) => rows.has(id) || (errors[`ids[${i}]`] = [`No such ${s.kind.noun}: ${id}.`]));
    throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
  }
  const folders = new FolderNames(s);
  const statements: D1PreparedStatement[] = [];
  for (const id of ids) statements.push(...(await planCopy(s, rows.get(id)!, target, folders)).statements);
  await guarded(s, ids, statements);
}

// --- batch updates ---------------------------------------------------------------------------------

export async function batchUpdateParentFolder(s: AssetScope, ids: string[], path: string | undefined, folderId: string | undefined | null): Promise<void> {
  if (!s.kind.folders) throw new ValidationError({ path: ['Resources have no folders.'] });
  if (s.kind.private && s.owner === undefined) throw new ValidationError({ ownerId: ['Name the owner whose folder the assets move to.'] });
  const fs = folderScope(s);
  const target = folderId !== undefined && folderId !== null ? (await folderOr404(fs, folderId)).id : await ensureFolder(fs, path ?? '/');
  await guarded(s, ids, [
    s.t.env.DB.prepare(
      `UPDATE assets SET folder_id = ?3, last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`,
    ).bind(s.t.tenantId, JSON.stringify(ids), target),
  ]);
}

/** Merges `fields` into every asset's custom fields (a null value removes the key; RFC 7396). */
export async function batchUpdateCustomFields(s: AssetScope, ids: string[], fields: Record<string, unknown>): Promise<void> {
  checkCustomFields(fields);
  await guarded(s, ids, [
    s.t.env.DB.prepare(
      `UPDATE assets SET custom_fields = json_patch(custom_fields, ?3), last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER)
       WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`,
    ).bind(s.t.tenantId, JSON.stringify(ids), JSON.stringify(fields)),
  ]);
}

export interface DiscreteChange {
  fieldsToAdd?: Record<string, unknown>;
  fieldsToUpdate?: Record<string, unknown>;
  fieldsToRemove?: string[];
}

const jsonKeyPath = (k: string) => `$."${k.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Per asset: add sets absent keys, update sets present keys, remove drops keys; one batch. */
export async function batchUpdateDiscrete(s: AssetScope, changes: Record<string, DiscreteChange>): Promise<void> {
  const ids = Object.keys(changes);
  if (!ids.length) throw new ValidationError({ $: ['Give at least one asset id.'] });
  if (ids.length > MAX_BATCH) throw new ValidationError({ $: [`At most ${MAX_BATCH} ids.`] });
  const db = s.t.env.DB;
  const statements = ids.map((id) => {
    const c = changes[id]!;
    checkCustomFields(c.fieldsToAdd ?? {}, `${id}.fieldsToAdd`);
    checkCustomFields(c.fieldsToUpdate ?? {}, `${id}.fieldsToUpdate`);
    let expr = 'custom_fields';
    const params: unknown[] = [];
    const p = () => `?${params.length + 2}`; // the parameter just pushed (?1 tenant, ?2 id)
    for (const [k, v] of Object.entries(c.fieldsToAdd ?? {})) {
      params.push(jsonKeyPath(k));
      const a = p();
      params.push(JSON.stringify(v ?? null));
      expr = `json_insert(${expr}, ${a}, json(${p()}))`;
    }
    for (const [k, v] of Object.entries(c.fieldsToUpdate ?? {})) {
      params.push(jsonKeyPath(k));
      const a = p();
      params.push(JSON.stringify(v ?? null));
      expr = `json_replace(${expr}, ${a}, json(${p()}))`;
    }
    for (const k of c.fieldsToRemove ?? []) {
      params.push(jsonKeyPath(k));
      expr = `json_remove(${expr}, ${p()})`;
    }
    return db
      .prepare(`UPDATE assets SET custom_fields = ${expr}, last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id = ?2`)
      .bind(s.t.tenantId, id, ...params);
  });
  await guarded(s, ids, statements, '$');
}

export async function batchUpdateOwner(s: AssetScope, ids: string[], ownerId: string): Promise<void> {
  if (!ownerId.trim() || ownerId.length > 256) throw new ValidationError({ ownerId: ['ownerId must be 1–256 characters and not blank.'] });
  // The assets keep their folder path under the new owner (folders are per owner).
  const { results } = await s.t.env.DB.prepare(
    `SELECT a.id AS id, coalesce(f.path, '/') AS path FROM assets a LEFT JOIN folders f ON f.tenant_id = a.tenant_id AND f.id = a.folder_id
     WHERE a.tenant_id = ?1 AND a.id IN (SELECT value FROM json_each(?2))`,
  )
    .bind(s.t.tenantId, JSON.stringify(ids))
    .all<{ id: string; path: string }>();
  const fs = folderScope(s, ownerId);
  const target = new Map<string, string>();
  for (const r of results) target.set(r.id, s.kind.folders ? await ensureFolder(fs, r.path) : '');
  await guarded(
    s,
    ids,
    ids.map((id) =>
      s.t.env.DB.prepare(
        `UPDATE assets SET owner_id = ?3, folder_id = ?4, last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND id = ?2`,
      ).bind(s.t.tenantId, id, ownerId, target.get(id) ?? ''),
    ),
  );
}

// --- folders with content --------------------------------------------------------------------------

/** Deletes a folder; with content only when `recursive` (else 409), its assets and subfolders too. */
export async function deleteFolder(s: AssetScope, folderId: string, recursive: boolean): Promise<void> {
  const fs = folderScope(s);
  const folder = await folderOr404(fs, folderId);
  if (!folder.id) throw new ValidationError({ id: ['The root folder cannot be deleted.'] });
  const folderIds = await subtreeIds(fs, folder);
  const db = s.t.env.DB;
  const { results } = await db
    .prepare(
      `SELECT id, type = 'image' AND format = 'pdf' AS pdf FROM assets WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND folder_id IN (SELECT value FROM json_each(?4))`,
    )
    .bind(s.t.tenantId, s.kind.type, fs.ownerId, JSON.stringify(folderIds))
    .all<{ id: string; pdf: number }>();
  const assetIds = results.map((r) => r.id);
  if (!recursive && (folderIds.length > 1 || assetIds.length)) {
    throw new ConflictError('GeneralConflict', `The folder ${folder.path} is not empty; pass recursive=true to delete it with its content.`);
  }
  if (assetIds.length) await checkNotInUse(s, assetIds);
  await db.batch([
    ...(assetIds.length ? deleteStatements(s, assetIds) : []),
    db.prepare(`DELETE FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND id IN (SELECT value FROM json_each(?4))`).bind(
      s.t.tenantId, s.kind.type, fs.ownerId, JSON.stringify(folderIds),
    ),
  ]);
  await deletePagesOf(s.t.env.FILES, s.t.tenantId, results.filter((r) => r.pdf).map((r) => r.id));
}

/**
 * The drawn pages of deleted PDF images (`p/<t>/assets/images/<id>/pages/`): they are not blobs,
 * so no refcount sweep finds them. Removed after the rows are gone, on every delete path.
 */
async function deletePagesOf(bucket: R2Bucket, tenantId: number, pdfIds: string[]): Promise<void> {
  for (const id of pdfIds) await deletePdfPages(bucket, tenantId, id).catch(() => {});
}

export async function folderEntities(s: AssetScope, folderId: string): Promise<AssetRow[]> {
  const { results } = await stmt(
    s.t.env.DB,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${s.t.tenantId} AND type = ${s.kind.type} AND owner_id = ${s.owner ?? ''}
        AND folder_id = ${folderId} ORDER BY name COLLATE NOCASE LIMIT 1000`,
  ).all<Record<string, unknown>>();
  return results.map(assetRow);
}

// --- resources: namespaces -------------------------------------------------------------------------

export async function deleteNamespace(s: AssetScope, namespace: string): Promise<number> {
  const { results } = await stmt(
    s.t.env.DB,
    sql`SELECT id FROM assets WHERE tenant_id = ${s.t.tenantId} AND type = 'resource' AND namespace = ${namespace} AND ${ownerClause(s)}`,
  ).all<{ id: string }>();
  const ids = results.map((r) => r.id);
  for (let i = 0; i < ids.length; i += MAX_BATCH) await s.t.env.DB.batch(deleteStatements(s, ids.slice(i, i + MAX_BATCH)));
  return ids.length;
}

// --- retention and storage info ---------------------------------------------------------------------

export async function setRetention(s: AssetScope, id: string, policy: RetentionPolicy): Promise<void> {
  const row = await getAsset(s, id);
  await s.t.env.DB.prepare(`UPDATE assets SET retention_policy = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(s.t.tenantId, row.id, policy).run();
}

async function retentionPeriodMs(db: D1Database, tenantId: number): Promise<number | null> {
  const row = await db
    .prepare(`SELECT enable_assets_retention AS on_, assets_retention_period_in_days AS days FROM tenant_settings WHERE tenant_id = ?1`)
    .bind(tenantId)
    .first<{ on_: number; days: number }>();
  return row?.on_ ? (row.days ?? 30) * 86_400_000 : null;
}

export interface StorageInfo {
  fileCount: number;
  fileSizeInBytes: number;
  temporaryFileCount: number;
  temporaryFileSizeInBytes: number;
}

/**
 * Counts of a collection. Temporary data = what retention will delete (private `Default` assets
 * while the tenant's retention is on). `retainable`: only retainable assets (private `Default`),
 * temporary = those already past the period.
 */
export async function storageInfo(s: AssetScope, retainable: boolean): Promise<StorageInfo> {
  const period = await retentionPeriodMs(s.t.env.DB, s.t.tenantId);
  const cutoff = period === null ? null : Date.now() - period;
  const base = sql`tenant_id = ${s.t.tenantId} AND type = ${s.kind.type} AND ${ownerClause(s)}`;
  const cond = retainable ? sql`${base} AND retention_policy = 'Default'` : base;
  const temp = retainable
    ? cutoff === null ? sql`0` : sql`retention_policy = 'Default' AND last_modified < ${cutoff}`
    : period === null ? sql`0` : sql`retention_policy = 'Default'`;
  const r = await stmt(
    s.t.env.DB,
    sql`SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes, coalesce(sum(CASE WHEN ${temp} THEN 1 ELSE 0 END), 0) AS tn,
        coalesce(sum(CASE WHEN ${temp} THEN size ELSE 0 END), 0) AS tb FROM assets WHERE ${cond}`,
  ).first<{ n: number; bytes: number; tn: number; tb: number }>();
  return { fileCount: r?.n ?? 0, fileSizeInBytes: r?.bytes ?? 0, temporaryFileCount: r?.tn ?? 0, temporaryFileSizeInBytes: r?.tb ?? 0 };
}

/**
 * Retention (contract): when a project is created or an item gains a design, every private asset
 * the project names becomes `Never`, with the Storage sources and preview mockups of those
 * designs (one level: the sources a print-product design names). Add this statement to the batch
 * that writes the project.
 */
export function keepForeverStatement(db: D1Database, tenantId: number, ids: string[]): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE assets SET retention_policy = 'Never'
       WHERE tenant_id = ?1 AND owner_id <> '' AND (
         id IN (SELECT value FROM json_each(?2))
         OR id IN (SELECT s.value FROM assets d, json_each(d.metadata, '$._sources') s
                   WHERE d.tenant_id = ?1 AND d.id IN (SELECT value FROM json_each(?2))))`,
    )
    .bind(tenantId, JSON.stringify(ids));
}

/** Hourly: each tenant with retention on loses its private `Default` assets older than the period. */
export async function sweepRetention(env: { DB: D1Database; FILES: R2Bucket }, now = Date.now()): Promise<number> {
  const { results } = await env.DB.prepare(
    `SELECT tenant_id AS tenantId, assets_retention_period_in_days AS days FROM tenant_settings WHERE enable_assets_retention = 1`,
  ).all<{ tenantId: number; days: number }>();
  let deleted = 0;
  for (const t of results) {
    const cutoff = now - (t.days ?? 30) * 86_400_000;
    for (;;) {
      const { results: ids } = await env.DB.prepare(
        `SELECT id, type = 'image' AND format = 'pdf' AS pdf FROM assets
         WHERE tenant_id = ?1 AND retention_policy = 'Default' AND last_modified < ?2 AND owner_id <> '' LIMIT 500`,
      )
        .bind(t.tenantId, cutoff)
        .all<{ id: string; pdf: number }>();
      if (!ids.length) break;
      const list = ids.map((r) => r.id);
      const json = JSON.stringify(list);
      await env.DB.batch([
        shiftBlobRefs(env.DB, t.tenantId, 'assets', list, -1),
        env.DB.prepare(`DELETE FROM anonymous_tokens WHERE tenant_id = ?1 AND kind = 'asset' AND target_id IN (SELECT value FROM json_each(?2))`).bind(t.tenantId, json),
        env.DB.prepare(`DELETE FROM assets WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(t.tenantId, json),
      ]);
      await deletePagesOf(env.FILES, t.tenantId, ids.filter((r) => r.pdf).map((r) => r.id));
      deleted += list.length;
      if (list.length < 500) break;
    }
  }
  return deleted;
}
