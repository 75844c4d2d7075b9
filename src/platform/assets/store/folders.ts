/**
 * SQL on `folders` (designs, images, mockups and fonts; per type and owner). The only code that
 * names the table. Paths are full (`/cards/xmas/`) and compared ignoring case.
 */
import type { AssetType } from '../../../db/schema/platform';

export type FolderType = Exclude<AssetType, 'resource'>;

export interface FolderRow {
  id: string;
  type: FolderType;
  ownerId: string;
  parentId: string;
  name: string;
  path: string;
  depth: number;
  lastModified: number;
}

/** One type's folders of one owner ('' = public) in a tenant. */
export interface FolderScope {
  db: D1Database;
  tenantId: number;
  type: FolderType;
  /** '' = public. */
  ownerId: string;
}

const COLUMNS = `id, type, owner_id AS ownerId, parent_id AS parentId, name, path, depth, last_modified AS lastModified`;

export async function selectFolderById(s: FolderScope, id: string): Promise<FolderRow | null> {
  return s.db
    .prepare(`SELECT ${COLUMNS} FROM folders WHERE tenant_id = ?1 AND id = ?2 AND type = ?3 AND owner_id = ?4`)
    .bind(s.tenantId, id, s.type, s.ownerId)
    .first<FolderRow>();
}

/** The folder whose full path is `fullPath` (any case), or null. */
export async function selectFolderByPath(s: FolderScope, fullPath: string): Promise<FolderRow | null> {
  return s.db
    .prepare(`SELECT ${COLUMNS} FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND path = ?4 COLLATE NOCASE`)
    .bind(s.tenantId, s.type, s.ownerId, fullPath)
    .first<FolderRow>();
}

/** Inserts a folder unless one with its name or path is there (the caller reads it back by path). */
export async function insertFolderIfAbsent(s: FolderScope, f: { id: string; parentId: string; name: string; path: string; depth: number }): Promise<void> {
  await s.db
    .prepare(
      `INSERT INTO folders (tenant_id, id, type, owner_id, parent_id, name, path, depth) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT DO NOTHING`,
    )
    .bind(s.tenantId, f.id, s.type, s.ownerId, f.parentId, f.name, f.path, f.depth)
    .run();
}

/** Of `folderIds`: those with subfolders, and those holding assets (one round trip). */
export async function foldersWithContent(s: FolderScope, folderIds: string[]): Promise<{ withChildren: Set<string>; withFiles: Set<string> }> {
  const ids = JSON.stringify(folderIds);
  const [children, content] = await s.db.batch<{ id: string }>([
    s.db
      .prepare(`SELECT DISTINCT parent_id AS id FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND parent_id IN (SELECT value FROM json_each(?4))`)
      .bind(s.tenantId, s.type, s.ownerId, ids),
    s.db
      .prepare(`SELECT DISTINCT folder_id AS id FROM assets WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND folder_id IN (SELECT value FROM json_each(?4))`)
      .bind(s.tenantId, s.type, s.ownerId, ids),
  ]);
  return { withChildren: new Set(children!.results.map((r) => r.id)), withFiles: new Set(content!.results.map((r) => r.id)) };
}

export async function selectChildFolders(s: FolderScope, parentId: string): Promise<FolderRow[]> {
  const { results } = await s.db
    .prepare(`SELECT ${COLUMNS} FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND parent_id = ?4 ORDER BY name COLLATE NOCASE`)
    .bind(s.tenantId, s.type, s.ownerId, parentId)
    .all<FolderRow>();
  return results;
}

export async function selectAllFolders(s: FolderScope): Promise<FolderRow[]> {
  const { results } = await s.db
    .prepare(`SELECT ${COLUMNS} FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 ORDER BY path COLLATE NOCASE`)
    .bind(s.tenantId, s.type, s.ownerId)
    .all<FolderRow>();
  return results;
}

/** The greatest depth in the subtree at `path` (the folder and its descendants), or null. */
export async function deepestUnder(s: FolderScope, path: string): Promise<number | null> {
  const deepest = await s.db
    .prepare(`SELECT max(depth) AS d FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND substr(path, 1, ?5) = ?4 COLLATE NOCASE`)
    .bind(s.tenantId, s.type, s.ownerId, path, path.length)
    .first<{ d: number | null }>();
  return deepest?.d ?? null;
}

/** Renames/moves a folder and rewrites every descendant's path and depth, in one batch. */
export async function moveFolder(s: FolderScope, row: FolderRow, to: { parentId: string; name: string; path: string; depthDelta: number }): Promise<void> {
  await s.db.batch([
    s.db
      .prepare(`UPDATE folders SET parent_id = ?5, name = ?6, last_modified = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND id = ?4`)
      .bind(s.tenantId, s.type, s.ownerId, row.id, to.parentId, to.name),
    s.db
      .prepare(
        `UPDATE folders SET path = ?5 || substr(path, ?6 + 1), depth = depth + ?7
         WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND substr(path, 1, ?6) = ?4 COLLATE NOCASE`,
      )
      .bind(s.tenantId, s.type, s.ownerId, row.path, to.path, row.path.length, to.depthDelta),
  ]);
}

/** The ids of the folder at `path` and its descendants. */
export async function subtreeFolderIds(s: FolderScope, path: string): Promise<string[]> {
  const { results } = await s.db
    .prepare(`SELECT id FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND substr(path, 1, ?5) = ?4 COLLATE NOCASE`)
    .bind(s.tenantId, s.type, s.ownerId, path, path.length)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** Deletes folders by id, as a statement of a delete's batch. */
export function deleteFoldersStatement(s: FolderScope, folderIds: string[]): D1PreparedStatement {
  return s.db
    .prepare(`DELETE FROM folders WHERE tenant_id = ?1 AND type = ?2 AND owner_id = ?3 AND id IN (SELECT value FROM json_each(?4))`)
    .bind(s.tenantId, s.type, s.ownerId, JSON.stringify(folderIds));
}

/** The folder's full path by id (any type and owner), or null. */
export async function folderPathById(db: D1Database, tenantId: number, id: string): Promise<{ path: string; name: string } | null> {
  return db.prepare(`SELECT path, name FROM folders WHERE tenant_id = ?1 AND id = ?2`).bind(tenantId, id).first<{ path: string; name: string }>();
}
