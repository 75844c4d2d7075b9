// What the back office's Assets page needs from the platform, free of HTTP: the four public
// collections it shows, a staged upload from a parsed form file, thumbnails (made by the same
// renderers the APIs use, kept in the tenant's cache by content hash) and a design's variables.
// The admin acts for the tenant's public assets only; private (storefront users') files stay
// with the storage API.
import { compileTemplate, loadCompiledTemplate, walkLayers } from '../../engine';
import { UrlImages } from '../../engine/inputs';
import { preparePreview } from '../../engine/preview';
import { imageFetcher } from '../../dynamic-image/context';
import * as assets from '../../platform/assets';
import { assetKind, type AssetKind, type AssetRow, type AssetScope } from '../../platform/assets';
import { renderDesign, renderImage, storedImage } from '../../platform/designs/outputs';
import { listVariables } from '../../engine/print-product';
import { loadDesign } from '../../platform/designs/store';
import { PlatformError, tenantKey, ValidationError, type TenantContext } from '../../platform/core';

/** The Assets page's tabs, by URL segment. */
export const ASSET_TABS = {
  designs: { kind: assetKind('design', false), label: 'Designs', accept: '.psd,.psb,.json,application/json,image/vnd.adobe.photoshop' },
  mockups: { kind: assetKind('mockup', false), label: 'Mockups', accept: '.psd,.psb,.glb,model/gltf-binary,image/vnd.adobe.photoshop' },
  images: { kind: assetKind('image', false), label: 'Images', accept: 'image/*,.pdf,application/pdf' },
  fonts: { kind: assetKind('font', false), label: 'Fonts', accept: '.ttf,.otf,.ttc,font/*' },
} as const;
export type AssetTab = keyof typeof ASSET_TABS;
export const isAssetTab = (s: string | undefined): s is AssetTab => !!s && Object.hasOwn(ASSET_TABS, s);

/** The largest file any tab takes (the per-type limit is checked while staging). */
export const ADMIN_UPLOAD_MAX_BYTES = Math.max(...Object.values(ASSET_TABS).map((t) => assets.uploadLimit(t.kind.type).bytes)) + 64 * 1024;

export const scopeOf = (t: TenantContext, tab: AssetTab): AssetScope => assets.scopeFor(t, ASSET_TABS[tab].kind, undefined);

/**
 * A new asset from a file of a parsed admin form, in `folderId` ('' = root): staged with the
 * type's size limit, then created by the asset service (its 400/409/413/422 pass through).
 */
export async function uploadAsset(s: AssetScope, file: File, folderId: string, name?: string): Promise<AssetRow> {
  const limit = assets.uploadLimit(s.kind.type);
  if (!file.size) throw new ValidationError({ file: ['The file is empty.'] });
  const folder = await assets.folderOr404(assets.folderScope(s), folderId || null);
  const staged = await assets.stageStream(s.t.env.FILES, s.t.tenantId, file.stream(), limit.bytes, limit.what, limit.keep);
  try {
    return await assets.createAsset(s, {
      staged,
      filename: file.name,
      declaredType: file.type || undefined,
      name: name || undefined,
      path: folder.path,
    });
  } finally {
    await s.t.env.FILES.delete(staged.key).catch(() => {});
  }
}

/**
 * A new asset from a multipart request streamed to staging as the storage API receives it (the
 * page's XHR, whose CSRF token is a header, so the admin guard leaves the body unread): fields
 * `folderId` ('' = root) and `file`.
 */
export async function uploadRequest(s: AssetScope, request: Request): Promise<AssetRow> {
  const r = await assets.receiveUpload(s.t, request, ['file'], assets.uploadLimit(s.kind.type));
  try {
    if (!r.staged) throw new ValidationError({ file: ['Choose a file to upload.'] });
    if (!r.staged.size) throw new ValidationError({ file: ['The file is empty.'] });
    const folder = await assets.folderOr404(assets.folderScope(s), r.fields.get('folderid') || null);
    return await assets.createAsset(s, { staged: r.staged, filename: r.filename, declaredType: r.contentType, path: folder.path });
  } finally {
    if (r.staged) await s.t.env.FILES.delete(r.staged.key).catch(() => {});
  }
}

export const THUMB_SIDE = 240;

/**
 * A JPEG (or SVG) thumbnail of an asset, or null when its kind has no picture (fonts, 3D
 * mockups) or its content cannot be drawn (the renderers' 4xx). Rendered once per content.
 */
export async function thumbnail(t: TenantContext, row: AssetRow): Promise<{ bytes: Uint8Array; type: string } | null> {
  if (!row.blobSha || row.type === 'font' || row.mockupType === 'Mockup3D') return null;
  if (row.type === 'image' && row.mimeType === 'image/svg+xml') {
    const bytes = await assets.readAssetBytes(t.env.FILES, row);
    return bytes && { bytes, type: 'image/svg+xml' };
  }
  const key = tenantKey(t.tenantId, 'cache', 'admin-thumbnails', `${row.type}-${row.blobSha}-${THUMB_SIDE}.jpg`);
  const cached = await t.env.FILES.get(key);
  if (cached) return { bytes: new Uint8Array(await cached.arrayBuffer()), type: 'image/jpeg' };
  let bytes: Uint8Array;
  try {
    bytes = await draw(t, row);
  } catch (e) {
    const mapped = e instanceof PlatformError ? e : assets.engineError(e);
    if (mapped instanceof PlatformError) return null;
    throw e;
  }
  await t.env.FILES.put(key, bytes, { httpMetadata: { contentType: 'image/jpeg' } });
  return { bytes, type: 'image/jpeg' };
}

async function draw(t: TenantContext, row: AssetRow): Promise<Uint8Array> {
  const box = { width: THUMB_SIDE, height: THUMB_SIDE };
  if (row.type === 'image') return (await renderImage(await storedImage(t, row.id, undefined, 0), { ...box, fileFormat: 'Jpeg', fitMode: 'Fit' })).bytes;
  if (row.type === 'design') return (await renderDesign(t, { designId: row.id, renderingConfig: { ...box, fileFormat: 'Jpeg', mockupStrategy: 'None' } }, false)).bytes;
  // A 2D mockup (or a link to one) as its PSD draws, artwork layers empty.
  const template = row.mockupType === 'MockupLink' && row.linkSourceId ? row.linkSourceId : row.id;
  const prepared = await preparePreview(
    new assets.TenantInputStore(t.env, t.tenantId),
    { template, format: 'jpg', size: box, jpegQuality: 80, unsharpMask: null },
    { urlImages: new UrlImages(imageFetcher(t.env)) },
  );
  return (await prepared.render()).bytes;
}

export interface DesignVariable {
  name: string;
  type: 'Text' | 'Image' | 'Barcode';
  value: string;
  required?: boolean;
}

/**
 * A design's variables: a print-product design's `isVariable` items (as GET /designs/{id}/variables
 * lists them); a PSD design's text layers and smart objects, which a render's `variableData`
 * fills by layer name.
 */
export async function designVariables(t: TenantContext, row: AssetRow): Promise<DesignVariable[]> {
  const d = await loadDesign(t, row.id, undefined);
  if (d.model) return listVariables(d.model).map((v) => ({ name: v.name, type: v.type, value: v.value, required: v.constraints?.required ?? false }));
  const hash = row.metadata._compiled as string | undefined;
  let compiled = hash ? await loadCompiledTemplate(t.env.FILES, hash) : null;
  if (!compiled) {
    const bytes = await assets.readAssetBytes(t.env.FILES, row);
    if (!bytes) return [];
    try {
      compiled = await compileTemplate(t.env.FILES, bytes);
    } catch (e) {
      throw assets.engineError(e);
    }
  }
  const out: DesignVariable[] = [];
  for (const n of walkLayers(compiled.layers)) {
    if (n.type === 'Text') out.push({ name: n.name, type: 'Text', value: n.text?.text ?? '' });
    else if (n.type === 'SmartObject') out.push({ name: n.name, type: 'Image', value: '' });
  }
  return out;
}

export type { AssetKind };
