/**
 * Project previews (contract: "items' first Preview resource, else an 800 px JPEG of the first
 * design kept as an anonymous resource").
 *
 * Built here: the first Preview resource (public or the owner's), streamed from its blob. Not yet:
 * rendering the first design when there is no Preview resource, and `preview-url`'s anonymous
 * URL — both need the asset store's resource creation and anonymous URLs (src/platform/assets),
 * which is not in main yet; until then they answer a 404 problem saying so.
 */
import { NotFoundError, tenantKey, type TenantContext } from '../core';
import { projectOr404 } from './service';

async function previewResource(t: TenantContext, projectId: string) {
  const { project, items } = await projectOr404(t, projectId);
  for (const item of items) {
    const resources = JSON.parse(item.resources || '[]') as Array<{ resourceId: string | null; type: string }>;
    for (const r of resources) {
      if (r.type !== 'Preview' || !r.resourceId) continue;
      const row = await t.env.DB.prepare(
        `SELECT id, blob_sha, mime_type FROM assets WHERE tenant_id = ?1 AND type = 'resource' AND id = ?2 AND owner_id IN ('', ?3)`,
      )
        .bind(t.tenantId, r.resourceId, project.owner_id)
        .first<{ id: string; blob_sha: string | null; mime_type: string | null }>();
      if (row?.blob_sha) return row;
    }
  }
  throw new NotFoundError('This project has no Preview resource; rendering a preview from its design is not available yet.');
}

export async function projectPreview(t: TenantContext, projectId: string): Promise<Response> {
  const row = await previewResource(t, projectId);
  const object = await t.env.FILES.get(tenantKey(t.tenantId, 'blobs', row.blob_sha!));
  if (!object) throw new NotFoundError('The preview file is missing.');
  return new Response(object.body, {
    status: 200,
    headers: { 'content-type': row.mime_type ?? 'application/octet-stream', 'content-disposition': `inline; filename="preview-${projectId}"` },
  });
}

export async function projectPreviewUrl(t: TenantContext, projectId: string): Promise<string> {
  await previewResource(t, projectId);
  throw new NotFoundError('Anonymous preview URLs are not available yet.');
}
