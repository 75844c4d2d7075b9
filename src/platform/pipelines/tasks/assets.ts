/**
 * The few asset-store reads the tasks need (designs by id, project items' variant designs),
 * behind one module so they can move onto the asset store's API.
 */
import type { Env } from '../../../env';
import { blobKey } from '../../assets';
import { TaskFailure } from './errors';

export interface DesignAsset {
  id: string;
  name: string;
  blobSha: string | null;
  designType: string | null;
  type: string;
  mimeType: string | null;
  format: string | null;
}

export async function assetById(env: Env, tenantId: number, id: string, types: string[]): Promise<DesignAsset | null> {
  return env.DB.prepare(
    `SELECT id, name, blob_sha AS blobSha, design_type AS designType, type, mime_type AS mimeType, format FROM assets
     WHERE tenant_id = ?1 AND id = ?2 AND type IN (SELECT value FROM json_each(?3))`,
  )
    .bind(tenantId, id, JSON.stringify(types))
    .first<DesignAsset>();
}

export async function designOr404(env: Env, tenantId: number, id: string): Promise<DesignAsset & { blobSha: string }> {
  const d = await assetById(env, tenantId, id, ['design']);
  if (!d || !d.blobSha) throw new TaskFailure(`there is no design ${id}`);
  return d as DesignAsset & { blobSha: string };
}

export const assetKey = (tenantId: number, sha: string) => blobKey(tenantId, sha);

