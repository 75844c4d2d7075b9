/**
 * The asset service: every stored asset of every type, public and private, in one `assets` table
 * (contract, "Asset storage"). Storage and processor routes call it; so do atoms, storefront and
 * pipelines (through ./index.ts). Free of HTTP: it throws the core's typed errors.
 *
 * Writes that touch several rows are one D1 batch: the blob refcount changes with the rows that
 * name the blob, and id lists start with the core's guard so an unknown id changes nothing.
 */
import {
  checkStoredJson,
  ConflictError,
  effectiveOwner,
  isClientId,
  newId,
  NotFoundError,
  ValidationError,
  type Paging,
  type TenantContext,
} from '../core';
import { assetsRetentionOf, tenantsWithAssetsRetention } from '../catalogue/store/tenant';
import { productsConnectedTo } from '../catalogue/store/products';
import { addBlobRef, blobKey, commitStaged, dropBlobRef, dropEarlyBlob, dropStaged, startBlobWrite, type Staged } from './blobs';
import { analyseContent, isPsd, PSD_MIME, type ContentInfo } from './content';
import { deletePdfPages, drawImportedPdfPages } from './pdf-pages';
import { FontLookup, resolveFonts } from './fonts';
import { checkName, ensureFolder, folderByPath, folderOr404, normalisePath, subtreeIds, type FolderScope, type FolderType } from './folders';
import { toDto, type AssetKind, type AssetRow, type RetentionPolicy } from './model';
import { anonymousUrlOf, dropAnonymous, issueAnonymous } from './anonymous';
import * as store from './store/assets';
import { blobRefcount } from './store/blobs';
import { deleteFoldersStatement } from './store/folders';

export { keepForeverStatement } from './store/assets';

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

/** The scope as the store sees it: which rows of `assets` a call may touch. */
const rowsOf = (s: AssetScope): store.AssetRowScope => ({ db: s.t.env.DB, tenantId: s.t.tenantId, type: s.kind.type, owner: s.owner });

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
  return store.selectAsset(rowsOf(s), id);
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

/**
 * A page of assets. No `path`: every folder; a `path`: that folder (its subfolders too with
 * includeSubfolders). An unknown path lists nothing.
 */
export async function listAssets(s: AssetScope, f: ListFilter): Promise<{ total: number; items: AssetRow[] }> {
  const { path, includeSubfolders, ...query } = f;
  const q: store.AssetPageQuery = query;
  if (path !== undefined && s.kind.folders) {
    const fs = folderScope(s);
    const folder = s.owner === undefined ? null : await folderByPath(fs, path);
    if (!folder) return { total: 0, items: [] };
    if (!includeSubfolders) q.folderId = folder.id;
    else if (folder.id) q.folderIds = await subtreeIds(fs, folder);
  }
  return store.selectAssetPage(rowsOf(s), q);
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
  return store.selectAssetNamed(rowsOf(s), owner, folderId, name, exceptId);
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
  const clash = await store.fontIdWithPostscriptName(s.t.env.DB, s.t.tenantId, info.postscriptName, exceptId);
  if (clash) throw new ConflictError('GeneralConflict', `The font ${info.postscriptName} is already among the tenant's fonts (${clash}).`, { existingId: clash });
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
  const known = await blobRefcount(db, s.t.tenantId, staged.sha256);
  await commitStaged(bucket, staged, info.mimeType, info.bytes, early);
  try {
    await store.writeWithBlobRef(db, s.t.tenantId, { sha: staged.sha256, size: staged.size, contentType: info.mimeType }, statements(staged.sha256));
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
    if (await store.assetIdTaken(db, s.t.tenantId, id)) {
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
        store.insertAssetStatement(db, s.t.tenantId, {
          id, type: s.kind.type, ownerId: owner, folderId, name, blobSha: sha, size: input.staged.size, mimeType: info.mimeType, format: info.format,
          customFields, metadata: { ...metadata, ...input.extraMetadata }, retentionPolicy: retention,
          designType: s.kind.type === 'design' ? (info.designType ?? 'Psd') : null, hasProblems,
          mockupType: s.kind.type === 'mockup' ? (input.mockupType ?? info.mockupType ?? 'Mockup2D') : null, linkSourceId: input.linkSourceId ?? null,
          postscriptName: info.postscriptName ?? null, namespace: input.namespace ?? null, sourceId: input.sourceId ?? null, resourceType: input.resourceType ?? null,
        }),
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
      store.replaceContentStatement(db, s.t.tenantId, row.id, {
        blobSha: sha, size: staged.size, mimeType: info.mimeType, format: info.format, metadata, hasProblems,
        designType: info.designType ?? null, mockupType: info.mockupType ?? null, postscriptName: info.postscriptName ?? null,
      }),
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
    await store.updateAssetFields(s.t.env.DB, s.t.tenantId, row.id, {
      name,
      folderId,
      customFields,
      namespace: change.namespace !== undefined ? change.namespace : row.namespace,
      sourceId: change.sourceId !== undefined ? change.sourceId : row.sourceId,
      resourceType: change.type !== undefined ? change.type : row.resourceType,
    });
  } catch (e) {
    if (isUnique(e)) throw nameConflict(s, name);
    throw e;
  }
  if (change.anonymousAccess !== undefined && change.anonymousAccess !== row.anonymousAccess) await setAnonymousAccess(scoped, row, change.anonymousAccess);
  return getAsset(scoped, row.id);
}

export async function setAnonymousAccess(s: AssetScope, row: AssetRow, on: boolean): Promise<void> {
  if (on) {
    await issueAnonymous(s.t, 'asset', row.id);
  } else await dropAnonymous(s.t, 'asset', [row.id]);
  await store.setAssetAnonymousFlag(s.t.env.DB, s.t.tenantId, row.id, on);
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
  const results = await productsConnectedTo(s.t.env.DB, s.t.tenantId, kind, ids);
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
  const used = await store.keptDesignUsingAnyOf(s.t.env.DB, s.t.tenantId, ids);
  if (used) throw new ConflictError('GeneralConflict', `The asset ${used.id} is used by the design ${used.by}, which a project keeps.`, { existingReferences: [used.by] });
}

const deleteStatements = (s: AssetScope, ids: string[]): D1PreparedStatement[] => store.deleteAssetsStatements(s.t.env.DB, s.t.tenantId, ids);

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
  try {
    await store.runGuardedOnAssets(rowsOf(s), ids, statements, path);
  } catch (e) {
    if (isUnique(e)) throw new ConflictError('NameConflict', 'A name would clash with an asset already in the target folder; nothing was changed.');
    throw e;
  }
}

export async function batchDelete(s: AssetScope, ids: string[]): Promise<void> {
  await checkNotInUse(s, ids);
  const pdfs = s.kind.type === 'image' ? await store.pdfAssetIds(s.t.env.DB, s.t.tenantId, ids) : [];
  await guarded(s, ids, deleteStatements(s, ids));
  await deletePagesOf(s.t.env.FILES, s.t.tenantId, pdfs);
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
        for (const r of await store.namesInFolder(this.s.t.env.DB, this.s.t.tenantId, this.s.kind.type, owner, folderId)) map.set(r.name.toLowerCase(), { id: r.id, blobSha: r.blobSha });
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
          store.copyContentStatement(db, s.t.tenantId, row.id, clash.id),
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
      store.copyAssetStatement(db, s.t.tenantId, row.id, {
        id, ownerId: owner, folderId, name, retentionPolicy: owner ? 'Default' : 'Unknown', namespace: target.namespace ?? null, sourceId: target.sourceId ?? null,
      }),
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
  const rows = new Map((await store.selectAssets(rowsOf(s), ids)).map((r) => [r.id, r]));
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
    store.moveToFolderStatement(s.t.env.DB, s.t.tenantId, ids, target),
  ]);
}

/** Merges `fields` into every asset's custom fields (a null value removes the key; RFC 7396). */
export async function batchUpdateCustomFields(s: AssetScope, ids: string[], fields: Record<string, unknown>): Promise<void> {
  checkCustomFields(fields);
  await guarded(s, ids, [
    store.mergeCustomFieldsStatement(s.t.env.DB, s.t.tenantId, ids, fields),
  ]);
}

export interface DiscreteChange {
  fieldsToAdd?: Record<string, unknown>;
  fieldsToUpdate?: Record<string, unknown>;
  fieldsToRemove?: string[];
}

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
    return store.changeCustomFieldsStatement(db, s.t.tenantId, id, c);
  });
  await guarded(s, ids, statements, '$');
}

export async function batchUpdateOwner(s: AssetScope, ids: string[], ownerId: string): Promise<void> {
  if (!ownerId.trim() || ownerId.length > 256) throw new ValidationError({ ownerId: ['ownerId must be 1–256 characters and not blank.'] });
  // The assets keep their folder path under the new owner (folders are per owner).
  const results = await store.folderPathsOfAssets(s.t.env.DB, s.t.tenantId, ids);
  const fs = folderScope(s, ownerId);
  const target = new Map<string, string>();
  for (const r of results) target.set(r.id, s.kind.folders ? await ensureFolder(fs, r.path) : '');
  await guarded(
    s,
    ids,
    ids.map((id) => store.changeOwnerStatement(s.t.env.DB, s.t.tenantId, id, ownerId, target.get(id) ?? '')),
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
  const results = await store.assetsInFolders(db, s.t.tenantId, s.kind.type, fs.ownerId, folderIds);
  const assetIds = results.map((r) => r.id);
  if (!recursive && (folderIds.length > 1 || assetIds.length)) {
    throw new ConflictError('GeneralConflict', `The folder ${folder.path} is not empty; pass recursive=true to delete it with its content.`);
  }
  if (assetIds.length) await checkNotInUse(s, assetIds);
  await db.batch([
    ...(assetIds.length ? deleteStatements(s, assetIds) : []),
    deleteFoldersStatement(fs, folderIds),
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
  return store.selectAssetsInFolder(rowsOf(s), folderId);
}

// --- resources: namespaces -------------------------------------------------------------------------

export async function deleteNamespace(s: AssetScope, namespace: string): Promise<number> {
  const ids = await store.resourceIdsInNamespace(rowsOf(s), namespace);
  for (let i = 0; i < ids.length; i += MAX_BATCH) await s.t.env.DB.batch(deleteStatements(s, ids.slice(i, i + MAX_BATCH)));
  return ids.length;
}

// --- retention and storage info ---------------------------------------------------------------------

export async function setRetention(s: AssetScope, id: string, policy: RetentionPolicy): Promise<void> {
  const row = await getAsset(s, id);
  await store.setRetentionPolicy(s.t.env.DB, s.t.tenantId, row.id, policy);
}

async function retentionPeriodMs(db: D1Database, tenantId: number): Promise<number | null> {
  const row = await assetsRetentionOf(db, tenantId);
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
  const temporary = retainable ? (cutoff === null ? 'none' : { before: cutoff }) : period === null ? 'none' : 'retainable';
  const r = await store.assetCounts(rowsOf(s), retainable, temporary);
  return { fileCount: r?.n ?? 0, fileSizeInBytes: r?.bytes ?? 0, temporaryFileCount: r?.tn ?? 0, temporaryFileSizeInBytes: r?.tb ?? 0 };
}

/** Hourly: each tenant with retention on loses its private `Default` assets older than the period. */
export async function sweepRetention(env: { DB: D1Database; FILES: R2Bucket }, now = Date.now()): Promise<number> {
  const results = await tenantsWithAssetsRetention(env.DB);
  let deleted = 0;
  for (const t of results) {
    const cutoff = now - (t.days ?? 30) * 86_400_000;
    for (;;) {
      const ids = await store.expiredRetainableAssets(env.DB, t.tenantId, cutoff);
      if (!ids.length) break;
      const list = ids.map((r) => r.id);
      await env.DB.batch(store.deleteAssetsStatements(env.DB, t.tenantId, list));
      await deletePagesOf(env.FILES, t.tenantId, ids.filter((r) => r.pdf).map((r) => r.id));
      deleted += list.length;
      if (list.length < 500) break;
    }
  }
  return deleted;
}
