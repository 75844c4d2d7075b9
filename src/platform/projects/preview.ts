/**
 * Project previews (contract: "items' first Preview resource, else an 800 px JPEG of the first
 * design kept as an anonymous resource"). The first design is the one the pipeline's
 * extract-project-design takes: item-designs.ts answers for both.
 *
 * The rendered preview is a public resource in namespace `project-previews` with source
 * `project-<id>` and an anonymous URL; it is rendered once (the first preview call) and reused.
 */
import { renderDesign, toResource } from '../designs/outputs';
import * as assets from '../assets';
import { loadDesign } from '../designs/store';
import { NotFoundError, PlatformError, tenantKey, type TenantContext } from '../core';
import { itemDesignIds } from './item-designs';
import { itemVariableData } from './item-data';
import { projectOr404 } from './service';

export const PREVIEW_NAMESPACE = 'project-previews';
const PREVIEW_SIZE = 800;

interface PreviewFile {
  id: string;
  blobSha: string;
  mime: string | null;
  /** A Preview resource the shop attached, or the rendered one (anonymous URL). */
  rendered: boolean;
}

/** The preview of a project, rendering and storing it when the items carry no Preview resource. */
async function previewOf(t: TenantContext, projectId: string): Promise<PreviewFile> {
  const { project, items } = await projectOr404(t, projectId);
  for (const item of items) {
    for (const r of JSON.parse(item.resources || '[]') as Array<{ resourceId: string | null; type: string }>) {
      if (r.type !== 'Preview' || !r.resourceId) continue;
      const row = await assets.resourceByIdFor(t.env.DB, t.tenantId, r.resourceId, project.owner_id);
      if (row?.blob_sha) return { id: row.id, blobSha: row.blob_sha, mime: row.mime_type, rendered: false };
    }
  }
  const source = `project-${project.id}`;
  const kept = await assets.publicResourceBySource(t.env.DB, t.tenantId, PREVIEW_NAMESPACE, source);
  if (kept?.blob_sha) return { id: kept.id, blobSha: kept.blob_sha, mime: kept.mime_type, rendered: true };

  // The first item with a design: its own designIds, else its product variant's (as extract-project-design finds them).
  let item: (typeof items)[number] | undefined;
  let designId: string | undefined;
  for (const i of items) {
    const ids = await itemDesignIds(t.env.DB, t.tenantId, {
      designIds: JSON.parse(i.design_ids || '[]') as string[],
      productVersionId: i.product_version_id,
      productVariantId: i.product_variant_id,
    });
    if (ids.length) {
      [item, designId] = [i, ids[0]];
      break;
    }
  }
  if (!item || !designId) throw new NotFoundError('This project has no Preview resource and no design to render one from.');
  const ownerId = await assets.designOwner(t.env.DB, t.tenantId, designId);
  if (ownerId === null) throw new NotFoundError(`The project's design ${designId} no longer exists.`);
  // Drawn with the item's fields (the shopper's data, as the ordered PDF has it); data the
  // render refuses (an image since deleted) leaves the design as it is rather than no preview.
  const request = { designId, ownerId: ownerId || undefined, renderingConfig: { fileFormat: 'Jpeg' as const, width: PREVIEW_SIZE, height: PREVIEW_SIZE, mockupStrategy: 'None' as const } };
  const variableData = await itemVariableData(t, await loadDesign(t, designId, ownerId || undefined), JSON.parse(item.fields || '{}'));
  const file = await renderDesign(t, { ...request, variableData }, false).catch((e) => {
    if (!variableData.length || !(e instanceof PlatformError) || e.status >= 500) throw e;
    return renderDesign(t, request, false);
  });
  const info = await toResource(
    t,
    file,
    { resourceName: `project-${project.id}-preview.jpg`, resourceNamespace: PREVIEW_NAMESPACE, resourceSourceId: source, resourceType: 'Preview', anonymousAccess: true, overwriteExistingResource: true },
    `project-${project.id}-preview`,
  );
  const row = await assets.resourceById(t.env.DB, t.tenantId, String(info.id));
  return { id: row!.id, blobSha: row!.blob_sha!, mime: row!.mime_type, rendered: true };
}

export async function projectPreview(t: TenantContext, projectId: string): Promise<Response> {
  const p = await previewOf(t, projectId);
  const object = await t.env.FILES.get(tenantKey(t.tenantId, 'blobs', p.blobSha));
  if (!object) throw new NotFoundError('The preview file is missing.');
  return new Response(object.body, {
    status: 200,
    headers: { 'content-type': p.mime ?? 'application/octet-stream', 'content-disposition': `inline; filename="project-${projectId}-preview"` },
  });
}

/** The preview's URL: the anonymous URL of the resource (one is issued when it has none). */
export async function projectPreviewUrl(t: TenantContext, projectId: string): Promise<string> {
  const p = await previewOf(t, projectId);
  return (await assets.anonymousUrlOf(t, 'asset', p.id)) ?? (await assets.issueAnonymous(t, 'asset', p.id));
}
