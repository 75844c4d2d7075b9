/**
 * SQL on the `assets` table (every asset type: designs, images, mockups, fonts, resources). The
 * only code that names it; services and other domains call these functions.
 */

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
