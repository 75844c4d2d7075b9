import type { Bounds, CompiledTemplate, LayerNode } from '../types';
import { getBlob } from './blob';
import { levelBounds } from './pyramid';

/**
 * R2 layout of a compiled template (prefix `compiled/<hash>/`, hash = SHA-256 hex of the PSD
 * bytes followed by ENGINE_VERSION):
 *
 *   tree.json          CompiledTemplate: size, ppi, levels, the LayerNode tree (written last:
 *                      its presence means the compile finished)
 *   px/<id>/<k>        layer <id> RGBA (straight alpha) at pyramid level k, deflate-raw; it covers
 *                      levelBounds(node.pixelBounds, k)
 *   mask/<id>/<k>      the layer's pixel mask, one byte per pixel, covering
 *                      levelBounds(node.mask.bounds, k)
 *   composite          Photoshop's stored composite, RGBA at level 0 (tests, fidelity)
 *   icc                the embedded ICC profile, as stored in the PSD
 */
export const prefix = (hash: string) => `compiled/${hash}/`;
export const treeKey = (hash: string) => `${prefix(hash)}tree.json`;
export const pixelKey = (hash: string, id: number, level: number) => `${prefix(hash)}px/${id}/${level}`;
export const maskKey = (hash: string, id: number, level: number) => `${prefix(hash)}mask/${id}/${level}`;
export const compositeKey = (hash: string) => `${prefix(hash)}composite`;
export const iccKey = (hash: string) => `${prefix(hash)}icc`;

export async function loadCompiledTemplate(bucket: R2Bucket, hash: string): Promise<CompiledTemplate | null> {
  const obj = await bucket.get(treeKey(hash));
  if (!obj) return null;
  return (await obj.json()) as CompiledTemplate;
}

export interface Pixels {
  data: Uint8Array;
  /** Coverage in level coordinates. */
  bounds: Bounds;
}

export async function loadLayerPixels(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  node: LayerNode,
  level: number,
): Promise<Pixels | null> {
  if (!node.hasPixels || !node.pixelBounds) return null;
  const bounds = levelBounds(node.pixelBounds, level);
  const size = (bounds.right - bounds.left) * (bounds.bottom - bounds.top) * 4;
  const data = await getBlob(bucket, pixelKey(compiled.hash, node.id, level), size);
  if (!data) throw new Error(`compiled template ${compiled.hash}: layer ${node.id} level ${level} missing`);
  return { data, bounds };
}

export async function loadMaskPixels(
  bucket: R2Bucket,
  compiled: CompiledTemplate,
  node: LayerNode,
  level: number,
): Promise<Pixels | null> {
  if (!node.mask?.hasPixels) return null;
  const bounds = levelBounds(node.mask.bounds, level);
  const size = (bounds.right - bounds.left) * (bounds.bottom - bounds.top);
  const data = await getBlob(bucket, maskKey(compiled.hash, node.id, level), size);
  if (!data) throw new Error(`compiled template ${compiled.hash}: mask ${node.id} level ${level} missing`);
  return { data, bounds };
}

/** Photoshop's own composite (RGBA, full size), when the compiled template kept one. */
export async function loadStoredComposite(bucket: R2Bucket, compiled: CompiledTemplate): Promise<Uint8Array | null> {
  if (!compiled.compositeKey) return null;
  return getBlob(bucket, compiled.compositeKey, compiled.width * compiled.height * 4);
}
