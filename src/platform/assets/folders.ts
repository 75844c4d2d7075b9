/**
 * Folders of designs, images, mockups and fonts (contract, "Folders"): paths `/`, `/cards/xmas/`;
 * `cards`, `/cards`, `cards/` all mean `/cards/`; matched ignoring case, the first spelling kept;
 * a `path` creates the folders it names. Depth ≤ 32. Free of HTTP.
 */
import { z } from '@hono/zod-openapi';
import { ConflictError, newId, NotFoundError, ValidationError } from '../core';
import {
  deepestUnder,
  deleteFoldersStatement,
  foldersWithContent,
  insertFolderIfAbsent,
  moveFolder,
  selectAllFolders,
  selectChildFolders,
  selectFolderById,
  selectFolderByPath,
  subtreeFolderIds,
  type FolderRow,
  type FolderScope,
  type FolderType,
} from './store/folders';

export { deleteFoldersStatement, type FolderRow, type FolderScope, type FolderType };

export const MAX_FOLDER_DEPTH = 32;
export const MAX_NAME = 255;

/** A name of an asset or folder: 1–255 characters, not blank, no `/` for folders. */
export function checkName(name: string, field: string, folder = false): string {
  const trimmed = name.trim();
  const problems: string[] = [];
  if (!trimmed) problems.push('The name must not be blank.');
  if (name.length > MAX_NAME) problems.push(`The name is longer than ${MAX_NAME} characters.`);
  if (/[\u0000-\u001f]/.test(name)) problems.push('The name contains control characters.');
  if (folder && name.includes('/')) problems.push('A folder name cannot contain "/".');
  if (problems.length) throw new ValidationError({ [field]: problems });
  return trimmed;
}

/** The segments of a folder path (`cards/xmas` → ['cards', 'xmas']); `/` → []. */
export function pathSegments(path: string | undefined | null, field = 'path'): string[] {
  if (path === undefined || path === null) return [];
  const parts = path.split('/').filter((p) => p !== '');
  parts.forEach((p, i) => checkName(p, `${field}`, true) && i);
  if (parts.length > MAX_FOLDER_DEPTH) throw new ValidationError({ [field]: [`Folders nest at most ${MAX_FOLDER_DEPTH} deep.`] });
  return parts.map((p) => p.trim());
}

export const normalisePath = (path: string | undefined | null, field = 'path'): string => {
  const parts = pathSegments(path, field);
  return parts.length ? `/${parts.join('/')}/` : '/';
};

const parentPath = (full: string): string => {
  const parts = full.split('/').filter(Boolean);
  return parts.length <= 1 ? '/' : `/${parts.slice(0, -1).join('/')}/`;
};

export async function folderById(s: FolderScope, id: string): Promise<FolderRow | null> {
  return selectFolderById(s, id);
}

/** The folder at `path` (any case), or null; `/` is the root (id ''). */
export async function folderByPath(s: FolderScope, path: string): Promise<FolderRow | null> {
  const full = normalisePath(path);
  if (full === '/') return rootFolder(s);
  return selectFolderByPath(s, full);
}

const rootFolder = (s: FolderScope): FolderRow => ({ id: '', type: s.type, ownerId: s.ownerId, parentId: '', name: '', path: '/', depth: 0, lastModified: 0 });

/** The folder id of `path`, creating missing folders (first spelling kept); '' for the root. */
export async function ensureFolder(s: FolderScope, path: string | undefined | null): Promise<string> {
  const parts = pathSegments(path);
  if (!parts.length) return '';
  const existing = await folderByPath(s, `/${parts.join('/')}/`);
  if (existing) return existing.id;
  let parentId = '';
  for (let i = 0; i < parts.length; i++) {
    const full = `/${parts.slice(0, i + 1).join('/')}/`;
    await insertFolderIfAbsent(s, { id: newId(), parentId, name: parts[i]!, path: full, depth: i + 1 });
    const row = await folderByPath(s, full);
    if (!row) throw new Error(`folder ${full} was not created`);
    parentId = row.id;
  }
  return parentId;
}

/** A folder id from the API: '' / absent = root; another → the folder or 404. */
export async function folderOr404(s: FolderScope, id: string | null | undefined): Promise<FolderRow> {
  if (!id) return rootFolder(s);
  const row = await folderById(s, id);
  if (!row) throw new NotFoundError(`No ${s.type} folder ${id}.`);
  return row;
}

export const FolderDto = z
  .object({
    id: z.string().nullable().openapi({ description: 'null for the root folder.' }),
    name: z.string(),
    path: z.string().openapi({ description: "The parent folder's full path, e.g. `/cards/` for `/cards/xmas/`." }),
    fullPath: z.string().openapi({ description: '(ours) The full path of the folder itself.' }),
    parentId: z.string().nullable(),
    ownerId: z.string().nullable(),
    tenantId: z.number().int(),
    private: z.boolean(),
    lastModified: z.string().nullable(),
    hasChildren: z.boolean(),
    hasChildern: z.boolean().openapi({ description: 'The original spelling of hasChildren (same value).' }),
    hasContent: z.boolean().openapi({ description: 'Whether the folder holds folders or files.' }),
  })
  .openapi('FolderInfoDto');

/** FolderInfoDto of rows, with hasChildren / hasContent in two queries for the whole list. */
export async function folderDtos(s: FolderScope, rows: FolderRow[]): Promise<Array<z.infer<typeof FolderDto>>> {
  if (!rows.length) return [];
  const { withChildren: hasChildren, withFiles: hasFiles } = await foldersWithContent(s, rows.map((r) => r.id));
  return rows.map((r) => ({
    id: r.id === '' ? null : r.id,
    name: r.name,
    path: parentPath(r.path),
    fullPath: r.path,
    parentId: r.id === '' ? null : r.parentId === '' ? null : r.parentId,
    ownerId: s.ownerId === '' ? null : s.ownerId,
    tenantId: s.tenantId,
    private: s.ownerId !== '',
    lastModified: r.lastModified ? new Date(r.lastModified).toISOString() : null,
    hasChildren: hasChildren.has(r.id),
    hasChildern: hasChildren.has(r.id),
    hasContent: hasChildren.has(r.id) || hasFiles.has(r.id),
  }));
}

export async function childFolders(s: FolderScope, parentId: string): Promise<FolderRow[]> {
  return selectChildFolders(s, parentId);
}

export async function allFolders(s: FolderScope): Promise<FolderRow[]> {
  return selectAllFolders(s);
}

/** Creates the folder `name` under `parentPath` (parents created as needed); 409 when it exists. */
export async function createFolder(s: FolderScope, parent: string | undefined, name: string | undefined): Promise<FolderRow> {
  const full = name === undefined ? normalisePath(parent) : normalisePath(`${normalisePath(parent)}${checkName(name, 'name', true)}`);
  if (full === '/') throw new ValidationError({ name: ['Name the folder to create.'] });
  if (await folderByPath(s, full)) throw new ConflictError('NameConflict', `The folder ${full} already exists.`);
  const id = await ensureFolder(s, full);
  return (await folderById(s, id))!;
}

/**
 * Renames and/or moves a folder: its own path and every descendant's change in one statement.
 * Moving into itself or a descendant → 400; a clash → 409 FolderOverwriteConflict.
 */
export async function updateFolder(s: FolderScope, id: string, change: { name?: string; parentPath?: string; parentId?: string | null }): Promise<FolderRow> {
  const row = await folderOr404(s, id);
  if (!row.id) throw new ValidationError({ id: ['The root folder cannot be renamed or moved.'] });
  const name = change.name !== undefined ? checkName(change.name, 'name', true) : row.name;
  let parent: FolderRow;
  if (change.parentId !== undefined) parent = await folderOr404(s, change.parentId);
  else if (change.parentPath !== undefined) parent = (await folderByPath(s, change.parentPath)) ?? (await folderById(s, await ensureFolder(s, change.parentPath)))!;
  else parent = row.parentId ? await folderOr404(s, row.parentId) : rootFolder(s);
  if (parent.id === row.id || parent.path.toLowerCase().startsWith(row.path.toLowerCase())) {
    throw new ValidationError({ parentId: ['A folder cannot move into itself or one of its subfolders.'] });
  }
  const newPath = `${parent.path}${name}/`;
  const delta = parent.depth + 1 - row.depth;
  const deepest = await deepestUnder(s, row.path);
  if ((deepest ?? row.depth) + delta > MAX_FOLDER_DEPTH) throw new ValidationError({ parentId: [`Folders nest at most ${MAX_FOLDER_DEPTH} deep.`] });
  const clash = await folderByPath(s, newPath);
  if (clash && clash.id !== row.id) throw new ConflictError('FolderOverwriteConflict', `A folder ${newPath} already exists.`);
  await moveFolder(s, row, { parentId: parent.id, name, path: newPath, depthDelta: delta });
  return (await folderById(s, row.id))!;
}

/** The folder and its descendants (ids), for deletes. */
export async function subtreeIds(s: FolderScope, row: FolderRow): Promise<string[]> {
  return subtreeFolderIds(s, row.path);
}
