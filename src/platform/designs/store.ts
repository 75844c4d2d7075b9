/**
 * Print-product designs in the asset store: a design asset with `designType: PrintProduct` whose
 * blob is the model's JSON. Reads give the model and its etag (the blob's SHA-256); edits write a
 * new blob and swap the row's `blob_sha` only if it still names the blob the edit started from,
 * so of two edits from one version one answers 409.
 *
 * Why the compare is on the D1 row and not an R2 `onlyIf`: blobs are content-addressed and never
 * change in place, so the mutable thing is the row naming the blob. The swap, both refcount
 * changes and the metadata are one D1 batch whose every statement is guarded by the same
 * condition (the row still names the old blob), evaluated in one transaction.
 */
import * as assets from '../assets';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError, type TenantContext } from '../core';
import { parseModel, type PrintProductModel } from '../../engine/print-product';
import { fontsOf } from './resolve';

export interface StoredDesign {
  scope: assets.AssetScope;
  row: assets.AssetRow;
  /** The raw blob (PSD designs: no model). */
  model: PrintProductModel | null;
  /** The blob's SHA-256 (quoted in the ETag header). */
  etag: string;
}

const designKind = (isPrivate: boolean) => assets.assetKind('design', isPrivate);

/**
 * The design `id` as the caller may see it: `ownerId` names a private owner's design; without it
 * the public design, and for a storefront user's token also that user's private design.
 */
export async function findDesign(t: TenantContext, id: string, ownerId?: string | null, path?: string): Promise<{ scope: assets.AssetScope; row: assets.AssetRow }> {
  const candidates: assets.AssetScope[] = ownerId
    ? [assets.scopeFor(t, designKind(true), ownerId)]
    : t.storefrontUserId
      ? [assets.scopeFor(t, designKind(false), undefined), assets.scopeFor(t, designKind(true), undefined)]
      : [assets.scopeFor(t, designKind(false), undefined)];
  for (const scope of candidates) {
    const row = await assets.findAsset(scope, id);
    if (row) return { scope: { ...scope, owner: row.ownerId }, row };
  }
  throw new NotFoundError(`No design ${id}.`, path ? { [path]: [`no design ${id}`] } : undefined);
}

/**
 * Parsed models per isolate by tenant and blob SHA-256. A blob never changes (an edit writes a new
 * one and swaps the row's SHA), so an entry is the content for as long as it lives: a live editor's
 * previews then read only the design's row, not the blob, and skip the validation parse.
 */
const MODELS = new Map<string, PrintProductModel>();
const MODELS_MAX = 128;

/** The design with its model (PSD designs: model null); the model is the caller's own copy. */
export async function loadDesign(t: TenantContext, id: string, ownerId?: string | null, path?: string): Promise<StoredDesign> {
  const { scope, row } = await findDesign(t, id, ownerId, path);
  if (row.designType !== 'PrintProduct') return { scope, row, model: null, etag: row.blobSha ?? '' };
  const key = `${t.tenantId}:${row.blobSha}`;
  let model = MODELS.get(key);
  if (model) {
    MODELS.delete(key);
  } else {
    const bytes = await assets.readAssetBytes(t.env.FILES, row);
    if (!bytes) throw new UnprocessableError(`The design ${id} has no content.`);
    model = (await parseStored(bytes, id)).model;
  }
  MODELS.set(key, model);
  if (MODELS.size > MODELS_MAX) MODELS.delete(MODELS.keys().next().value!);
  return { scope, row, model: structuredClone(model), etag: row.blobSha! };
}

/** A print-product design (PSD designs → 422: the print-product routes do not apply to them). */
export async function loadPrintProduct(t: TenantContext, id: string, ownerId?: string | null): Promise<StoredDesign & { model: PrintProductModel }> {
  const d = await loadDesign(t, id, ownerId);
  if (!d.model) throw new UnprocessableError(`The design ${id} is a PSD design; print-product routes apply to PrintProduct designs only.`);
  return d as StoredDesign & { model: PrintProductModel };
}

async function parseStored(bytes: Uint8Array, id: string): Promise<{ model: PrintProductModel }> {
  try {
    return { model: await parseModel(JSON.parse(new TextDecoder().decode(bytes))) };
  } catch (e) {
    if (e instanceof ValidationError || e instanceof SyntaxError) throw new UnprocessableError(`The stored model of design ${id} is not valid.`);
    throw e;
  }
}

/** Validates a whole model against the tenant's fonts (400 by JSON path). */
export async function validateForTenant(t: TenantContext, input: unknown): Promise<PrintProductModel> {
  const { fontExists } = await fontsOf(t);
  return parseModel(input, { fontExists });
}

const encode = (model: PrintProductModel) => new TextEncoder().encode(JSON.stringify(model));

/** A new design asset holding `model` (already validated). 409 NameConflict as storage. */
export async function createDesign(t: TenantContext, ownerId: string | undefined, model: PrintProductModel, name: string, path?: string): Promise<assets.AssetRow> {
  const scope = assets.scopeFor(t, designKind(!!(ownerId || t.storefrontUserId)), ownerId, !!ownerId);
  const staged = await assets.stageBytes(t.env.FILES, t.tenantId, encode(model));
  return assets.createAsset(scope, { staged, name, path, filename: `${name}.json`, declaredType: 'application/json' });
}

/**
 * Stores `model` as the design's new content if the design still has content `etag`; a lost
 * race → 409 GeneralConflict. Returns the new etag.
 */
export async function saveDesign(d: StoredDesign, model: PrintProductModel, etag = d.etag): Promise<string> {
  const t = d.scope.t;
  const db = t.env.DB;
  const bytes = encode(model);
  const staged = await assets.stageBytes(t.env.FILES, t.tenantId, bytes);
  const sha = staged.sha256;
  if (sha === etag) {
    await t.env.FILES.delete(staged.key).catch(() => {});
    return etag;
  }
  const metadata = { ...d.row.metadata, ...assets.printProductMetadata(model as unknown as Record<string, unknown>) };
  const lookup = await assets.FontLookup.load(t.env, t.tenantId);
  const resolved = assets.resolveFonts(lookup, assets.printProductFonts(model));
  metadata.fonts = resolved.fonts;
  const known = await assets.blobKnown(db, t.tenantId, sha);
  await assets.commitStaged(t.env.FILES, staged, 'application/json', bytes);
  const swapped = await assets.swapDesignContent(db, t.tenantId, d.row.id, etag, { sha, size: bytes.byteLength, metadata, hasProblems: resolved.missing.length > 0 });
  if (!swapped) {
    if (!known) await t.env.FILES.delete(assets.blobKey(t.tenantId, sha)).catch(() => {});
    throw new ConflictError('GeneralConflict', `The design ${d.row.id} was changed by another request; read it again and retry.`, { id: d.row.id });
  }
  return sha;
}

/** `If-Match` of a request: the etag an edit must start from (absent: the one just read). */
export function ifMatch(header: string | undefined | null): string | undefined {
  if (!header || header.trim() === '*') return undefined;
  return header.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
}

/** Loads, changes and saves a print-product model; the change may throw 4xx before anything is written. */
export async function editModel<T>(
  t: TenantContext,
  id: string,
  ownerId: string | undefined,
  change: (model: PrintProductModel) => T | Promise<T>,
  expected?: string,
): Promise<{ result: T; model: PrintProductModel; etag: string }> {
  const d = await loadPrintProduct(t, id, ownerId);
  if (expected !== undefined && expected !== d.etag) {
    throw new ConflictError('GeneralConflict', `The design ${id} has changed since that version (If-Match); read it again and retry.`, { id });
  }
  const draft = structuredClone(d.model);
  const result = await change(draft);
  const model = await validateForTenant(t, draft);
  const etag = await saveDesign(d, model, expected ?? d.etag);
  return { result, model, etag };
}
