/**
 * The few asset-store reads the tasks need (designs by id, project items' variant designs),
 * behind one module so they can move onto the asset store's API.
 */
import type { Env } from '../../../env';
import { assetOfTypes, blobKey, type TaskAssetRow } from '../../assets';
import { TaskFailure } from './errors';

export type DesignAsset = TaskAssetRow;

export async function assetById(env: Env, tenantId: number, id: string, types: string[]): Promise<DesignAsset | null> {
  return assetOfTypes(env.DB, tenantId, id, types);
}

export async function designOr404(env: Env, tenantId: number, id: string): Promise<DesignAsset & { blobSha: string }> {
  const d = await assetById(env, tenantId, id, ['design']);
  if (!d || !d.blobSha) throw new TaskFailure(`there is no design ${id}`);
  return d as DesignAsset & { blobSha: string };
}

export const assetKey = (tenantId: number, sha: string) => blobKey(tenantId, sha);

