/**
 * SQL on the `assets` table (every asset type: designs, images, mockups, fonts, resources). The
 * only code that names it; services and other domains call these functions.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AssetType } from '../../../db/schema/platform';
import { customFieldsMatch, guardIds, inJsonList, missingIds, runGuarded } from '../../core/d1';
import { likePattern, type Paging } from '../../core/paging';
import { deleteTokensStatement } from './anonymous-tokens';
import { addBlobRef, shiftBlobRefs } from './blobs';
import { stmt } from './statement';

export type { AssetType };

export type RetentionPolicy = 'Unknown' | 'Never' | 'Default';

/** An asset row as the store reads it (`ASSET_COLUMNS`). */
export interface AssetRow {
  tenantId: number;
  id: string;
  type: AssetType;
  ownerId: string;
  folderId: string;
  name: string;
  blobSha: string | null;
  size: number;
  mimeType: string | null;
  format: string | null;
  customFields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  retentionPolicy: RetentionPolicy;
  designType: 'Psd' | 'PrintProduct' | null;
  hasProblems: boolean;
  mockupType: 'Mockup2D' | 'Mockup3D' | 'MockupLink' | null;
  linkSourceId: string | null;
  postscriptName: string | null;
  namespace: string | null;
  sourceId: string | null;
  resourceType: string | null;
  anonymousAccess: boolean;
  created: number;
  lastModified: number;
}

export const ASSET_COLUMNS = `tenant_id AS tenantId, id, type, owner_id AS ownerId, folder_id AS folderId, name, blob_sha AS blobSha, size,
  mime_type AS mimeType, format, custom_fields AS customFields, metadata, retention_policy AS retentionPolicy, design_type AS designType,
  has_problems AS hasProblems, mockup_type AS mockupType, link_source_id AS linkSourceId, postscript_name AS postscriptName, namespace,
  source_id AS sourceId, resource_type AS resourceType, anonymous_access AS anonymousAccess, created, last_modified AS lastModified`;

/** A D1 result row → AssetRow (JSON columns parsed, booleans as booleans). */
export function assetRow(r: Record<string, unknown>): AssetRow {
  return {
    ...(r as unknown as AssetRow),
    customFields: typeof r.customFields === 'string' ? JSON.parse(r.customFields) : ((r.customFields as Record<string, unknown>) ?? {}),
    metadata: typeof r.metadata === 'string' ? JSON.parse(r.metadata) : ((r.metadata as Record<string, unknown>) ?? {}),
    hasProblems: Boolean(r.hasProblems),
    anonymousAccess: Boolean(r.anonymousAccess),
  };
}


/** The fields a pipeline task reads of a design, image or resource it was given by id. */
export interface TaskAssetRow {
  id: string;
  name: string;
  blobSha: string | null;
  designType: string | null;
  type: string;
  mimeType: string | null;
  format: string | null;
}

/** An asset by id when its type is one of `types` (any owner), or null. */
export async function assetOfTypes(db: D1Database, tenantId: number, id: string, types: readonly string[]): Promise<TaskAssetRow | null> {
  return db
    .prepare(
      `SELECT id, name, blob_sha AS blobSha, design_type AS designType, type, mime_type AS mimeType, format FROM assets
     WHERE tenant_id = ?1 AND id = ?2 AND type IN (SELECT value FROM json_each(?3))`,
    )
    .bind(tenantId, id, JSON.stringify(types))
    .first<TaskAssetRow>();
}

/** An asset of one type and owner ('' = public) by id, with its size, or null. */
export async function assetOfOwner(
  db: D1Database,
  tenantId: number,
  id: string,
  type: string,
  ownerId: string,
): Promise<Omit<TaskAssetRow, 'type'> & { size: number } | null> {
  return db
    .prepare(
      `SELECT id, name, blob_sha AS blobSha, design_type AS designType, format, mime_type AS mimeType, size FROM assets
         WHERE tenant_id = ?1 AND id = ?2 AND type = ?3 AND owner_id = ?4`,
    )
    .bind(tenantId, id, type, ownerId)
    .first();
}

/** A public image with its custom fields (JSON text), as the cut-pattern task reads it. */
export interface PatternImageRow {
  id: string;
  name: string;
  blobSha: string | null;
  customFields: string;
}

const PATTERN_SELECT = `SELECT a.id, a.name, a.blob_sha AS blobSha, a.custom_fields AS customFields FROM assets a`;

/** A public image by id, or null. */
export async function publicImageById(db: D1Database, tenantId: number, id: string): Promise<PatternImageRow | null> {
  return db.prepare(`${PATTERN_SELECT} WHERE a.tenant_id = ?1 AND a.id = ?2 AND a.type = 'image' AND a.owner_id = ''`).bind(tenantId, id).first<PatternImageRow>();
}

/** The oldest public image named `name` (ignoring case) in the folder at `folderPath` ('/' = root), or null. */
export async function publicImageByPath(db: D1Database, tenantId: number, name: string, folderPath: string): Promise<PatternImageRow | null> {
  return db
    .prepare(
      `${PATTERN_SELECT} LEFT JOIN folders f ON f.tenant_id = a.tenant_id AND f.id = a.folder_id
     WHERE a.tenant_id = ?1 AND a.type = 'image' AND a.owner_id = '' AND a.name = ?2 COLLATE NOCASE
       AND (CASE WHEN a.folder_id = '' THEN '/' ELSE f.path END) = ?3 COLLATE NOCASE
     ORDER BY a.created LIMIT 1`,
    )
    .bind(tenantId, name, folderPath)
    .first<PatternImageRow>();
}

/** The id of the oldest design (any owner) named `name` (ignoring case) in the folder at `folderPath`, or null. */
export async function designIdByPath(db: D1Database, tenantId: number, name: string, folderPath: string): Promise<string | null> {
  const row = await db
    .prepare(
      `SELECT a.id FROM assets a LEFT JOIN folders f ON f.tenant_id = a.tenant_id AND f.id = a.folder_id
       WHERE a.tenant_id = ?1 AND a.type = 'design' AND a.name = ?2 COLLATE NOCASE
         AND (CASE WHEN a.folder_id = '' THEN '/' ELSE f.path END) = ?3 COLLATE NOCASE
       ORDER BY a.created LIMIT 1`,
    )
    .bind(tenantId, name, folderPath)
    .first<{ id: string }>();
  return row?.id ?? null;
}

// --- the rows of one collection --------------------------------------------------------------------

/** Which rows of `assets` a call may see: one type, and public (''), one owner or every private owner (undefined). */
export interface AssetRowScope {
  db: D1Database;
  tenantId: number;
  type: AssetType;
  owner: string | undefined;
}

const ownerClause = (r: AssetRowScope): SQL => (r.owner === undefined ? sql`owner_id <> ''` : sql`owner_id = ${r.owner}`);
const NOW = `CAST(unixepoch('subsec') * 1000 AS INTEGER)`;

export async function selectAsset(r: AssetRowScope, id: string): Promise<AssetRow | null> {
  const row = await stmt(
    r.db,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${r.tenantId} AND id = ${id} AND type = ${r.type} AND ${ownerClause(r)}`,
  ).first<Record<string, unknown>>();
  return row ? assetRow(row) : null;
}

/** The rows of `ids` in the scope (those that exist). */
export async function selectAssets(r: AssetRowScope, ids: string[]): Promise<AssetRow[]> {
  const { results } = await stmt(
    r.db,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${r.tenantId} AND type = ${r.type} AND ${ownerClause(r)} AND ${inJsonList(sql.raw('id'), ids)}`,
  ).all<Record<string, unknown>>();
  return results.map(assetRow);
}

export interface AssetPageQuery extends Paging<'name' | 'lastModified' | 'size' | 'id'> {
  /** One folder's assets. */
  folderId?: string;
  /** The assets of these folders (a subtree). */
  folderIds?: string[];
  fontPostScriptName?: string;
  type?: string;
  postscriptNames?: string[];
  retentionPolicy?: RetentionPolicy;
  namespace?: string;
}

const SORT_COLUMN = { name: 'name COLLATE NOCASE', lastModified: 'last_modified', size: 'size', id: 'id' } as const;

/** A page of assets and the count of all that match. */
export async function selectAssetPage(r: AssetRowScope, f: AssetPageQuery): Promise<{ total: number; items: AssetRow[] }> {
  const where: SQL[] = [sql`tenant_id = ${r.tenantId}`, sql`type = ${r.type}`, ownerClause(r)];
  if (f.folderId !== undefined) where.push(sql`folder_id = ${f.folderId}`);
  if (f.folderIds !== undefined) where.push(inJsonList(sql.raw('folder_id'), f.folderIds));
  if (f.search) where.push(sql`name LIKE ${likePattern(f.search)} ESCAPE '\\'`);
  if (f.customFields && Object.keys(f.customFields).length) where.push(customFieldsMatch(sql.raw('custom_fields'), f.customFields));
  if (f.fontPostScriptName) where.push(sql`EXISTS (SELECT 1 FROM json_each(metadata, '$.fonts') WHERE json_extract(value, '$.postscriptName') = ${f.fontPostScriptName} COLLATE NOCASE)`);
  if (f.type) {
    const column = r.type === 'design' ? 'design_type' : r.type === 'mockup' ? 'mockup_type' : r.type === 'resource' ? 'resource_type' : 'format';
    where.push(sql`${sql.raw(column)} = ${f.type} COLLATE NOCASE`);
  }
  if (f.postscriptNames?.length) where.push(sql`postscript_name COLLATE NOCASE IN (SELECT value FROM json_each(${JSON.stringify(f.postscriptNames)}))`);
  if (f.retentionPolicy) where.push(sql`retention_policy = ${f.retentionPolicy}`);
  if (f.namespace !== undefined) where.push(sql`namespace = ${f.namespace}`);
  const cond = sql.join(where, sql` AND `);
  const order = f.sorting.length ? f.sorting.map((k) => `${SORT_COLUMN[k.field]} ${k.direction}`).join(', ') + ', id' : 'name COLLATE NOCASE, id';
  const db = r.db;
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

/** Another asset (not `exceptId`) of the type and owner with this name in the folder, ignoring case. */
export async function selectAssetNamed(r: AssetRowScope, owner: string, folderId: string, name: string, exceptId?: string): Promise<AssetRow | null> {
  const row = await stmt(
    r.db,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${r.tenantId} AND type = ${r.type} AND owner_id = ${owner}
        AND folder_id = ${folderId} AND name = ${name} COLLATE NOCASE AND id <> ${exceptId ?? ''}`,
  ).first<Record<string, unknown>>();
  return row ? assetRow(row) : null;
}

/** One folder's assets of the scope's type and owner ('' when none), by name, at most 1,000. */
export async function selectAssetsInFolder(r: AssetRowScope, folderId: string): Promise<AssetRow[]> {
  const { results } = await stmt(
    r.db,
    sql`SELECT ${sql.raw(ASSET_COLUMNS)} FROM assets WHERE tenant_id = ${r.tenantId} AND type = ${r.type} AND owner_id = ${r.owner ?? ''}
        AND folder_id = ${folderId} ORDER BY name COLLATE NOCASE LIMIT 1000`,
  ).all<Record<string, unknown>>();
  return results.map(assetRow);
}

/** The ids of the scope's resources in a namespace. */
export async function resourceIdsInNamespace(r: AssetRowScope, namespace: string): Promise<string[]> {
  const { results } = await stmt(
    r.db,
    sql`SELECT id FROM assets WHERE tenant_id = ${r.tenantId} AND type = 'resource' AND namespace = ${namespace} AND ${ownerClause(r)}`,
  ).all<{ id: string }>();
  return results.map((x) => x.id);
}

export interface AssetCounts {
  n: number;
  bytes: number;
  /** Temporary ones (what retention deletes). */
  tn: number;
  tb: number;
}

/**
 * Counts and sizes of the scope's assets. `retainableOnly`: private `Default` ones only.
 * `temporary`: which count as temporary — none, every `Default` one, or `Default` ones last
 * changed before a time.
 */
export async function assetCounts(r: AssetRowScope, retainableOnly: boolean, temporary: 'none' | 'retainable' | { before: number }): Promise<AssetCounts | null> {
  const base = sql`tenant_id = ${r.tenantId} AND type = ${r.type} AND ${ownerClause(r)}`;
  const cond = retainableOnly ? sql`${base} AND retention_policy = 'Default'` : base;
  const temp = temporary === 'none' ? sql`0` : temporary === 'retainable' ? sql`retention_policy = 'Default'` : sql`retention_policy = 'Default' AND last_modified < ${temporary.before}`;
  return stmt(
    r.db,
    sql`SELECT count(*) AS n, coalesce(sum(size), 0) AS bytes, coalesce(sum(CASE WHEN ${temp} THEN 1 ELSE 0 END), 0) AS tn,
        coalesce(sum(CASE WHEN ${temp} THEN size ELSE 0 END), 0) AS tb FROM assets WHERE ${cond}`,
  ).first<AssetCounts>();
}

// --- reads by id across collections ----------------------------------------------------------------

export async function assetIdTaken(db: D1Database, tenantId: number, id: string): Promise<boolean> {
  return (await db.prepare(`SELECT 1 FROM assets WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first()) !== null;
}

/** Any row of `assets` by id (every type and owner), or null. */
export async function selectAnyAsset(db: D1Database, tenantId: number, id: string): Promise<AssetRow | null> {
  const row = await db.prepare(`SELECT ${ASSET_COLUMNS} FROM assets WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<Record<string, unknown>>();
  return row ? assetRow(row) : null;
}

/** Another font (not `exceptId`) with this PostScript name, or null. */
export async function fontIdWithPostscriptName(db: D1Database, tenantId: number, postscriptName: string, exceptId?: string): Promise<string | null> {
  const clash = await db
    .prepare(`SELECT id FROM assets WHERE tenant_id = ?1 AND type = 'font' AND postscript_name = ?2 AND id <> ?3 LIMIT 1`)
    .bind(tenantId, postscriptName, exceptId ?? '')
    .first<{ id: string }>();
  return clash?.id ?? null;
}

/** The first of `ids` that a design the retention rules keep (`Never`) names as its source, with that design. */
export async function keptDesignUsingAnyOf(db: D1Database, tenantId: number, ids: string[]): Promise<{ id: string; by: string } | null> {
  return db
    .prepare(
      `SELECT a.id AS id, d.id AS by FROM assets a JOIN assets d ON d.tenant_id = a.tenant_id AND d.type = 'design' AND d.retention_policy = 'Never'
       AND d.id <> a.id AND (d.source_id = a.id OR EXISTS (SELECT 1 FROM json_each(d.metadata, '$._sources') WHERE value = a.id))
     WHERE a.tenant_id = ?1 AND a.id IN (SELECT value FROM json_each(?2)) LIMIT 1`,
    )
    .bind(tenantId, JSON.stringify(ids))
    .first<{ id: string; by: string }>();
}

/** Of `ids`, the PDF ones (their drawn pages are deleted with them). */
export async function pdfAssetIds(db: D1Database, tenantId: number, ids: string[]): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT id FROM assets WHERE tenant_id = ?1 AND format = 'pdf' AND id IN (SELECT value FROM json_each(?2))`)
    .bind(tenantId, JSON.stringify(ids))
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** Names (lower-cased by the caller) of one folder's assets, for copies that must not clash. */
export async function namesInFolder(db: D1Database, tenantId: number, type: AssetType, owner: string, folderId: string): Promise<Array<{ id: string; name: string; blobSha: string | null }>> {
  const { results } = await db
    .prepare(`SELECT id, name, blob_sha AS blobSha FROM assets WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND folder_id = ?4`)
    .bind(tenantId, type, owner, folderId)
    .all<{ id: string; name: string; blobSha: string | null }>();
  return results;
}

/** The folder path of each of `ids` ('/' for the root). */
export async function folderPathsOfAssets(db: D1Database, tenantId: number, ids: string[]): Promise<Array<{ id: string; path: string }>> {
  const { results } = await db
    .prepare(
      `SELECT a.id AS id, coalesce(f.path, '/') AS path FROM assets a LEFT JOIN folders f ON f.tenant_id = a.tenant_id AND f.id = a.folder_id
     WHERE a.tenant_id = ?1 AND a.id IN (SELECT value FROM json_each(?2))`,
    )
    .bind(tenantId, JSON.stringify(ids))
    .all<{ id: string; path: string }>();
  return results;
}

/** The assets of a type and owner in the given folders, each with whether it is a PDF image. */
export async function assetsInFolders(db: D1Database, tenantId: number, type: AssetType, owner: string, folderIds: string[]): Promise<Array<{ id: string; pdf: number }>> {
  const { results } = await db
    .prepare(
      `SELECT id, type = 'image' AND format = 'pdf' AS pdf FROM assets WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND folder_id IN (SELECT value FROM json_each(?4))`,
    )
    .bind(tenantId, type, owner, JSON.stringify(folderIds))
    .all<{ id: string; pdf: number }>();
  return results;
}

/** Up to 500 private `Default` assets last changed before `cutoff` (retention), each with whether it is a PDF image. */
export async function expiredRetainableAssets(db: D1Database, tenantId: number, cutoff: number): Promise<Array<{ id: string; pdf: number }>> {
  const { results } = await db
    .prepare(
      `SELECT id, type = 'image' AND format = 'pdf' AS pdf FROM assets
         WHERE tenant_id = ?1 AND retention_policy = 'Default' AND last_modified < ?2 AND owner_id <> '' LIMIT 500`,
    )
    .bind(tenantId, cutoff)
    .all<{ id: string; pdf: number }>();
  return results;
}

// --- writes: statements for the callers' batches, and single updates --------------------------------

/** Every column a new asset row sets (the rest take their defaults). */
export type NewAssetRow = Omit<AssetRow, 'tenantId' | 'blobSha' | 'anonymousAccess' | 'created' | 'lastModified'> & { blobSha: string };

export function insertAssetStatement(db: D1Database, tenantId: number, a: NewAssetRow): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, custom_fields, metadata,
               retention_policy, design_type, has_problems, mockup_type, link_source_id, postscript_name, namespace, source_id, resource_type)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)`,
    )
    .bind(
      tenantId, a.id, a.type, a.ownerId, a.folderId, a.name, a.blobSha, a.size, a.mimeType, a.format,
      JSON.stringify(a.customFields), JSON.stringify(a.metadata), a.retentionPolicy,
      a.designType, a.hasProblems ? 1 : 0, a.mockupType, a.linkSourceId,
      a.postscriptName, a.namespace, a.sourceId, a.resourceType,
    );
}

/** New content of an asset (same id, name and folder); null keeps design and mockup type. */
export interface AssetContent {
  blobSha: string;
  size: number;
  mimeType: string | null;
  format: string | null;
  metadata: Record<string, unknown>;
  hasProblems: boolean;
  designType: string | null;
  mockupType: string | null;
  postscriptName: string | null;
}

export function replaceContentStatement(db: D1Database, tenantId: number, id: string, c: AssetContent): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE assets SET blob_sha = ?3, size = ?4, mime_type = ?5, format = ?6, metadata = ?7, has_problems = ?8, design_type = coalesce(?9, design_type),
             mockup_type = coalesce(?10, mockup_type), postscript_name = ?11, last_modified = ${NOW}
           WHERE tenant_id = ?1 AND id = ?2`,
    )
    .bind(tenantId, id, c.blobSha, c.size, c.mimeType, c.format, JSON.stringify(c.metadata), c.hasProblems ? 1 : 0, c.designType, c.mockupType, c.postscriptName);
}

/**
 * Writes the statements with +1 on the blob they name, in one batch (the refcount changes with
 * the rows). `wasKnown`: whether the blob row existed before (when not, a failed batch leaves an
 * R2 object nobody names, which the caller removes).
 */
export async function writeWithBlobRef(db: D1Database, tenantId: number, blob: { sha: string; size: number; contentType: string | null }, statements: D1PreparedStatement[]): Promise<void> {
  await db.batch([addBlobRef(db, tenantId, blob.sha, blob.size, blob.contentType), ...statements]);
}

export interface AssetFields {
  name: string;
  folderId: string;
  customFields: Record<string, unknown>;
  namespace: string | null;
  sourceId: string | null;
  resourceType: string | null;
}

export async function updateAssetFields(db: D1Database, tenantId: number, id: string, f: AssetFields): Promise<void> {
  await db
    .prepare(
      `UPDATE assets SET name = ?3, folder_id = ?4, custom_fields = ?5, namespace = ?6, source_id = ?7, resource_type = ?8,
         last_modified = ${NOW} WHERE tenant_id = ?1 AND id = ?2`,
    )
    .bind(tenantId, id, f.name, f.folderId, JSON.stringify(f.customFields), f.namespace, f.sourceId, f.resourceType)
    .run();
}

export async function setAssetAnonymousFlag(db: D1Database, tenantId: number, id: string, on: boolean): Promise<void> {
  await db.prepare(`UPDATE assets SET anonymous_access = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id, on ? 1 : 0).run();
}

export async function setRetentionPolicy(db: D1Database, tenantId: number, id: string, policy: RetentionPolicy): Promise<void> {
  await db.prepare(`UPDATE assets SET retention_policy = ?3 WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id, policy).run();
}

/** Sets the font check's result: `metadata.fonts` and `has_problems`. */
export async function setDesignFonts(db: D1Database, tenantId: number, id: string, hasProblems: boolean, fonts: unknown): Promise<void> {
  await db
    .prepare(`UPDATE assets SET has_problems = ?3, metadata = json_set(metadata, '$.fonts', json(?4)) WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, id, hasProblems ? 1 : 0, JSON.stringify(fonts))
    .run();
}

/** Deletes assets with their anonymous tokens and blob refcounts (statements of one batch). */
export function deleteAssetsStatements(db: D1Database, tenantId: number, ids: string[]): D1PreparedStatement[] {
  const list = JSON.stringify(ids);
  return [
    shiftBlobRefs(db, tenantId, 'assets', ids, -1),
    deleteTokensStatement(db, tenantId, 'asset', ids),
    db.prepare(`DELETE FROM assets WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`).bind(tenantId, list),
  ];
}

/** An overwrite of `toId` with the content columns of `fromId`. */
export function copyContentStatement(db: D1Database, tenantId: number, fromId: string, toId: string): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE assets SET (blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type, link_source_id, postscript_name,
                 last_modified) = (SELECT blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type, link_source_id, postscript_name,
                 ${NOW} FROM assets WHERE tenant_id = ?1 AND id = ?2)
               WHERE tenant_id = ?1 AND id = ?3`,
    )
    .bind(tenantId, fromId, toId);
}

/** A copy of `fromId` as a new row; namespace and source id null keep the source's. */
export function copyAssetStatement(
  db: D1Database,
  tenantId: number,
  fromId: string,
  to: { id: string; ownerId: string; folderId: string; name: string; retentionPolicy: RetentionPolicy; namespace: string | null; sourceId: string | null },
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, custom_fields, metadata, retention_policy,
             design_type, has_problems, mockup_type, link_source_id, postscript_name, namespace, source_id, resource_type)
           SELECT tenant_id, ?3, type, ?4, ?5, ?6, blob_sha, size, mime_type, format, custom_fields, metadata, ?7,
             design_type, has_problems, mockup_type, link_source_id, postscript_name, coalesce(?8, namespace), coalesce(?9, source_id), resource_type
           FROM assets WHERE tenant_id = ?1 AND id = ?2`,
    )
    .bind(tenantId, fromId, to.id, to.ownerId, to.folderId, to.name, to.retentionPolicy, to.namespace, to.sourceId);
}

export function moveToFolderStatement(db: D1Database, tenantId: number, ids: string[], folderId: string): D1PreparedStatement {
  return db
    .prepare(`UPDATE assets SET folder_id = ?3, last_modified = ${NOW} WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`)
    .bind(tenantId, JSON.stringify(ids), folderId);
}

/** Merges `fields` into every row's custom fields (a null value removes the key; RFC 7396). */
export function mergeCustomFieldsStatement(db: D1Database, tenantId: number, ids: string[], fields: Record<string, unknown>): D1PreparedStatement {
  return db
    .prepare(
      `UPDATE assets SET custom_fields = json_patch(custom_fields, ?3), last_modified = ${NOW}
       WHERE tenant_id = ?1 AND id IN (SELECT value FROM json_each(?2))`,
    )
    .bind(tenantId, JSON.stringify(ids), JSON.stringify(fields));
}

const jsonKeyPath = (k: string) => `$."${k.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** One asset's custom fields: add sets absent keys, update sets present keys, remove drops keys. */
export function changeCustomFieldsStatement(
  db: D1Database,
  tenantId: number,
  id: string,
  c: { fieldsToAdd?: Record<string, unknown>; fieldsToUpdate?: Record<string, unknown>; fieldsToRemove?: string[] },
): D1PreparedStatement {
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
  return db.prepare(`UPDATE assets SET custom_fields = ${expr}, last_modified = ${NOW} WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id, ...params);
}

export function changeOwnerStatement(db: D1Database, tenantId: number, id: string, ownerId: string, folderId: string): D1PreparedStatement {
  return db
    .prepare(`UPDATE assets SET owner_id = ?3, folder_id = ?4, last_modified = ${NOW} WHERE tenant_id = ?1 AND id = ?2`)
    .bind(tenantId, id, ownerId, folderId);
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

/**
 * Runs `statements` as one batch after the core's guard: every one of `ids` must be a row of the
 * scope, else nothing changes (the guard's failure is reported per id by `missingIds`).
 */
export async function runGuardedOnAssets(r: AssetRowScope, ids: string[], statements: D1PreparedStatement[], path: string): Promise<void> {
  const owner = r.owner === undefined ? `owner_id <> ''` : `owner_id = '${r.owner.replace(/'/g, "''")}'`;
  // The guard's `where` is trusted SQL: the type is a constant, the owner id quoted above.
  const spec = { table: 'assets', tenantId: r.tenantId, ids, where: `type = '${r.type}' AND ${owner}` };
  await runGuarded(r.db, guardIds(r.db, spec), statements, () => missingIds(r.db, { ...spec, path }));
}

// --- reads other areas need (fonts, engine inputs, previews, rendered resources) ---------------------

/** The tenant's public fonts: blob and metadata (JSON text) of each. */
export async function publicFontFiles(db: D1Database, tenantId: number): Promise<Array<{ id: string; sha: string | null; metadata: string }>> {
  const { results } = await db
    .prepare(`SELECT id, blob_sha AS sha, metadata FROM assets WHERE tenant_id = ?1 AND type = 'font' AND owner_id = ''`)
    .bind(tenantId)
    .all<{ id: string; sha: string | null; metadata: string }>();
  return results;
}

/** An asset with content by id when its type is one of `types`: blob, MIME type and metadata (JSON text). */
export async function assetFileOfTypes(db: D1Database, tenantId: number, id: string, types: readonly string[]): Promise<{ id: string; sha: string; mime: string | null; meta: string } | null> {
  return db
    .prepare(
      `SELECT id, blob_sha AS sha, mime_type AS mime, metadata AS meta FROM assets WHERE tenant_id = ?1 AND id = ?2 AND type IN (SELECT value FROM json_each(?3)) AND blob_sha IS NOT NULL`,
    )
    .bind(tenantId, id, JSON.stringify(types))
    .first();
}

/** A design's owner ('' = public) by id, or null when there is no such design. */
export async function designOwner(db: D1Database, tenantId: number, id: string): Promise<string | null> {
  const row = await db.prepare(`SELECT owner_id FROM assets WHERE tenant_id = ?1 AND type = 'design' AND id = ?2`).bind(tenantId, id).first<{ owner_id: string }>();
  return row ? row.owner_id : null;
}

export interface ResourceFile {
  id: string;
  blob_sha: string | null;
  mime_type: string | null;
}

/** A resource by id (any owner). */
export async function resourceById(db: D1Database, tenantId: number, id: string): Promise<ResourceFile | null> {
  return db.prepare(`SELECT id, blob_sha, mime_type FROM assets WHERE tenant_id = ?1 AND type = 'resource' AND id = ?2 LIMIT 1`).bind(tenantId, id).first<ResourceFile>();
}

/** A resource by id whose owner is public or `ownerId`. */
export async function resourceByIdFor(db: D1Database, tenantId: number, id: string, ownerId: string): Promise<ResourceFile | null> {
  return db
    .prepare(`SELECT id, blob_sha, mime_type FROM assets WHERE tenant_id = ?1 AND type = 'resource' AND id = ?2 AND owner_id IN ('', ?3) LIMIT 1`)
    .bind(tenantId, id, ownerId)
    .first<ResourceFile>();
}

/** A public resource by namespace and source id. */
export async function publicResourceBySource(db: D1Database, tenantId: number, namespace: string, sourceId: string): Promise<ResourceFile | null> {
  return db
    .prepare(`SELECT id, blob_sha, mime_type FROM assets WHERE tenant_id = ?1 AND type = 'resource' AND namespace = ?2 AND source_id = ?3 AND owner_id = '' LIMIT 1`)
    .bind(tenantId, namespace, sourceId)
    .first<ResourceFile>();
}

/** The id of an owner's resource ('' = public) with this name (ignoring case) in a namespace (null = none). */
export async function resourceIdNamed(db: D1Database, tenantId: number, owner: string, name: string, namespace: string | null): Promise<string | null> {
  const row = await db
    .prepare(
      `SELECT id FROM assets WHERE tenant_id = ?1 AND type = 'resource' AND owner_id = ?2 AND name = ?3 COLLATE NOCASE AND coalesce(namespace, '') = ?4 LIMIT 1`,
    )
    .bind(tenantId, owner, name, namespace ?? '')
    .first<{ id: string }>();
  return row?.id ?? null;
}

/**
 * Swaps a JSON design's content from blob `fromSha` to `toSha` if the row still names `fromSha`:
 * both refcount changes and the row are one batch, every statement guarded by that same
 * condition. False when another request changed the design first (nothing written).
 */
export async function swapDesignContent(
  db: D1Database,
  tenantId: number,
  id: string,
  fromSha: string,
  to: { sha: string; size: number; metadata: Record<string, unknown>; hasProblems: boolean },
): Promise<boolean> {
  const still = `EXISTS (SELECT 1 FROM assets WHERE tenant_id = ?1 AND id = ?2 AND blob_sha = ?3)`;
  const results = await db.batch([
    db
      .prepare(
        `INSERT INTO blobs (tenant_id, sha256, size, content_type, refcount) SELECT ?1, ?4, ?5, 'application/json', 1 WHERE ${still}
         ON CONFLICT (tenant_id, sha256) DO UPDATE SET refcount = refcount + 1, last_modified = ${NOW}`,
      )
      .bind(tenantId, id, fromSha, to.sha, to.size),
    db
      .prepare(`UPDATE blobs SET refcount = refcount - 1, last_modified = ${NOW} WHERE tenant_id = ?1 AND sha256 = ?3 AND ${still}`)
      .bind(tenantId, id, fromSha),
    db
      .prepare(
        `UPDATE assets SET blob_sha = ?4, size = ?5, metadata = ?6, has_problems = ?7, last_modified = ${NOW}
         WHERE tenant_id = ?1 AND id = ?2 AND blob_sha = ?3`,
      )
      .bind(tenantId, id, fromSha, to.sha, to.size, JSON.stringify(to.metadata), to.hasProblems ? 1 : 0),
  ]);
  return Boolean(results[2]!.meta.changes);
}
