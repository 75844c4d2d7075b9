import { decodeLayerPixels, type Layer } from 'ag-psd';
import { decodeComposite } from '../psd/composite';
import { parsePsd } from '../psd/parse';
import { readImageResources } from '../psd/resources';
import { buildTree, pixelMaskSource } from '../psd/tree';
import type { Bounds, CompiledTemplate, LayerNode } from '../types';
import { putBlob } from './blob';
import { halveGray, halveRGBA, levelCount } from './pyramid';
import { compositeKey, iccKey, loadCompiledTemplate, maskKey, pixelKey, prefix, treeKey } from './store';

/** Bumped whenever compiled output changes meaning; part of every compiled hash. */
export const ENGINE_VERSION = 'psd-engine/2';

/** Photoshop's composite is kept for fidelity checks only up to this many pixels. */
const MAX_STORED_COMPOSITE = 4096 * 4096;

export async function templateHash(psd: Uint8Array): Promise<string> {
  const suffix = new TextEncoder().encode(ENGINE_VERSION);
  const digest = new (crypto as unknown as { DigestStream: typeof DigestStream }).DigestStream('SHA-256');
  const writer = digest.getWriter();
  await writer.write(psd);
  await writer.write(suffix);
  await writer.close();
  return [...new Uint8Array(await digest.digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Compiles a PSD/PSB once into its R2 form (see ./store.ts for the layout). Idempotent by content
 * hash. Layer pixels are decoded one layer at a time and written as a pyramid before the next, so
 * memory stays near the PSD bytes plus one layer. Refuses unsupported files with a 422.
 */
export async function compileTemplate(bucket: R2Bucket, psd: Uint8Array): Promise<CompiledTemplate> {
  const hash = await templateHash(psd);
  const existing = await loadCompiledTemplate(bucket, hash);
  if (existing) return existing;

  const doc = parsePsd(psd);
  const resources = readImageResources(psd);
  const visited: Array<[Layer, LayerNode]> = [];
  const layers = buildTree(doc, (layer, node) => visited.push([layer, node]), resources.resolution ?? 72);
  const canvas: Bounds = { left: 0, top: 0, right: doc.width, bottom: doc.height };
  const levels = levelCount(doc.width, doc.height);
  const written: string[] = [];
  const put = async (key: string, data: Uint8Array) => {
    written.push(key);
    await putBlob(bucket, key, data);
  };

  try {
    for (const [layer, node] of visited) {
      if (layer.rawData && !layer.children) {
        decodeLayerPixels(layer, true);
        const img = layer.imageData;
        const crop = img && intersect(node.bounds, canvas);
        if (img && crop) {
          const data = cropRGBA(img.data as Uint8ClampedArray, node.bounds, crop);
          if (hasAlpha(data)) {
            node.hasPixels = true;
            node.pixelBounds = crop;
            await writePyramid(levels, data, crop, 4, 0, (k, d) => put(pixelKey(hash, node.id, k), d));
          }
        }
        const src = pixelMaskSource(layer);
        const maskImg = src?.mask.imageData;
        if (node.mask && maskImg) {
          const mcrop = intersect(node.mask.bounds, canvas);
          if (mcrop) {
            const gray = cropGray(maskImg.data as Uint8ClampedArray, node.mask.bounds, mcrop);
            node.mask.bounds = mcrop;
            await writePyramid(levels, gray, mcrop, 1, node.mask.defaultColor, (k, d) =>
              put(maskKey(hash, node.id, k), d),
            );
          } else {
            node.mask.hasPixels = false;
          }
        }
      }
      // Free this layer's pixels before the next one.
      delete layer.rawData;
      delete layer.imageData;
      if (layer.mask) delete layer.mask.imageData;
      if (layer.realMask) delete layer.realMask.imageData;
    }

    const compiled: CompiledTemplate = {
      hash,
      engineVersion: ENGINE_VERSION,
      width: doc.width,
      height: doc.height,
      resolution: resources.resolution ?? 72,
      levels,
      transparent: resources.mergedAlpha,
      globalAngle: doc.imageResources?.globalAngle,
      textGamma: /Photoshop CS\d?\b/.test(resources.creatorTool ?? '') ? 1 : 1.45,
      layers,
    };
    const merged = doc.rawCompositeData;
    delete doc.rawCompositeData;
    if (merged && merged.length > 2 && doc.width * doc.height <= MAX_STORED_COMPOSITE) {
      const large = psd[5] === 2;
      const composite = decodeComposite(merged, doc.width, doc.height, doc.channels ?? 3, large, resources.mergedAlpha);
      await put(compositeKey(hash), composite);
      compiled.compositeKey = compositeKey(hash);
    }
    if (resources.icc) {
      written.push(iccKey(hash));
      await bucket.put(iccKey(hash), resources.icc);
      compiled.iccKey = iccKey(hash);
    }
    written.push(treeKey(hash));
    await bucket.put(treeKey(hash), JSON.stringify(compiled), {
      httpMetadata: { contentType: 'application/json' },
    });
    return compiled;
  } catch (e) {
    // Nothing half-written stays behind.
    await Promise.allSettled(written.map((k) => bucket.delete(k)));
    throw e;
  }
}

/** Deletes every compiled object of one hash (a re-upload replaces what was derived). */
export async function deleteCompiledTemplate(bucket: R2Bucket, hash: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const list = await bucket.list({ prefix: prefix(hash), cursor });
    if (list.objects.length) await bucket.delete(list.objects.map((o) => o.key));
    cursor = list.truncated ? list.cursor : undefined;
  } while (cursor);
}

async function writePyramid(
  levels: number,
  data: Uint8Array,
  bounds: Bounds,
  channels: 1 | 4,
  fill: number,
  write: (level: number, data: Uint8Array) => Promise<void>,
): Promise<void> {
  let cur = { data, bounds };
  for (let k = 0; k < levels; k++) {
    await write(k, cur.data);
    if (k + 1 < levels) cur = channels === 4 ? halveRGBA(cur.data, cur.bounds) : halveGray(cur.data, cur.bounds, fill);
  }
}

function intersect(a: Bounds, b: Bounds): Bounds | null {
  const r = {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
  return r.right > r.left && r.bottom > r.top ? r : null;
}

function cropRGBA(src: Uint8ClampedArray, from: Bounds, to: Bounds): Uint8Array {
  const sw = from.right - from.left;
  const w = to.right - to.left;
  const h = to.bottom - to.top;
  const bytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength);
  if (w === sw && h === from.bottom - from.top) return bytes;
  const out = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    const s = ((to.top - from.top + y) * sw + (to.left - from.left)) * 4;
    out.set(bytes.subarray(s, s + w * 4), y * w * 4);
  }
  return out;
}

/** ag-psd hands masks as grey RGBA; we keep one byte per pixel. */
function cropGray(src: Uint8ClampedArray, from: Bounds, to: Bounds): Uint8Array {
  const sw = from.right - from.left;
  const w = to.right - to.left;
  const h = to.bottom - to.top;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    let s = ((to.top - from.top + y) * sw + (to.left - from.left)) * 4;
    for (let x = 0, o = y * w; x < w; x++, o++, s += 4) out[o] = src[s];
  }
  return out;
}

function hasAlpha(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i]) return true;
  return false;
}
