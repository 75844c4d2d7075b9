/**
 * extract-design-images: a PSD design → its images, one output member each, in Photoshop's panel
 * order (top first): a smart object gives its embedded source file as stored in the PSD (JPEG,
 * PNG, PSD…; its rendered pixels as PNG when the file is linked, not embedded), an image
 * (pixel) layer its own pixels as PNG, decoded row by row with the engine's channel reader (the
 * same path as the atoms' extract-image). Text, shape, fill, adjustment layers and groups are not
 * images. `outputArchiveType: Zip` gives one ZIP of them all instead. A print-product design
 * gives its Image items' sources in model order (its image variables filled by the item's fields).
 */
import type { Layer, LayerRawData, Psd } from 'ag-psd';
import { zipSync } from 'fflate';
import { layerRgba } from '../../../engine/psd/channels';
import { parsePsd } from '../../../engine/psd/parse';
import { encodePng } from '../../../engine/raster';
import { assetKey } from './assets';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, isPrintProduct } from './render';
import type { ArtifactRecord, TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';
import { applyVariableData } from '../../../engine/print-product';
import type { DesignAsset } from './assets';
import { itemFields, printProductVariables } from './personalise';
import { imageItems, loadModel, ownerImages } from './print-product';

/** Largest layer decoded (pixels), as the atoms' extract-image. */
const MAX_LAYER_PIXELS = 25_000_000;

interface Extracted {
  layer: string;
  ext: string;
  bytes: Uint8Array;
  contentType: string;
}

const MIME: Record<string, string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', tif: 'image/tiff', tiff: 'image/tiff', psd: 'image/vnd.adobe.photoshop', pdf: 'application/pdf', svg: 'image/svg+xml', webp: 'image/webp' };

async function layerPng(layer: Layer): Promise<Uint8Array | null> {
  const raw = layer.rawData as LayerRawData | undefined;
  const width = (layer.right ?? 0) - (layer.left ?? 0);
  const height = (layer.bottom ?? 0) - (layer.top ?? 0);
  if (!raw || width <= 0 || height <= 0) return null;
  if (width * height > MAX_LAYER_PIXELS) throw new TaskFailure(`the layer "${layer.name}" is ${width}×${height}; at most ${MAX_LAYER_PIXELS / 1e6} MP can be extracted`);
  return encodePng({ width, height, data: layerRgba(raw, width, height) });
}

/** Not an image: text, shapes and fills (vector content), adjustments, groups. */
const notImage = (l: Layer) => !!(l.children || l.text || l.adjustment || l.vectorFill || l.vectorOrigination || l.vectorStroke);

/** The design's images, top layer first. */
export async function designImages(psd: Psd): Promise<Extracted[]> {
  const out: Extracted[] = [];
  const walk = async (layers: Layer[] | undefined) => {
    // ag-psd lists children bottom first; the panel (and reading) order is top first.
    for (const l of [...(layers ?? [])].reverse()) {
      if (l.children) {
        await walk(l.children);
        continue;
      }
      if (l.placedLayer) {
        const file = psd.linkedFiles?.find((f) => f.id === l.placedLayer!.id);
        if (file?.data?.length) {
          const ext = (/\.([A-Za-z0-9]{1,5})$/.exec(file.name ?? '')?.[1] ?? 'bin').toLowerCase();
          out.push({ layer: l.name ?? 'smart object', ext, bytes: file.data, contentType: MIME[ext] ?? 'application/octet-stream' });
          continue;
        }
      } else if (notImage(l)) continue;
      const png = await layerPng(l);
      if (png) out.push({ layer: l.name ?? 'layer', ext: 'png', bytes: png, contentType: 'image/png' });
    }
  };
  await walk(psd.children);
  return out;
}

const EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg', 'application/pdf': 'pdf' };

/** A print product's Image items' sources as stored (a PDF page item: its page as PNG), the item's variables filled by its fields. */
async function printProductImages(ctx: UnitContext, design: DesignAsset & { blobSha: string }, input: ArtifactRecord): Promise<Extracted[]> {
  const stored = await loadModel(ctx, design);
  const vars = printProductVariables(stored, itemFields(ctx, input));
  const { model, errors } = vars ? applyVariableData(stored, vars) : { model: stored, errors: null };
  if (errors) throw new TaskFailure(Object.values(errors).flat().join('; '));
  const images = ownerImages(ctx);
  const out: Extracted[] = [];
  for (const item of imageItems(model)) {
    const img = await images(item.source, { pageIndex: item.pageIndex });
    if (!img) throw new TaskFailure(`${design.name}: the image of item "${item.name}" has no displayable content`);
    const ext = EXT[img.mime] ?? 'bin';
    out.push({ layer: item.name, ext, bytes: img.bytes, contentType: img.mime });
  }
  return out;
}

const safe = (s: string) => s.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_').trim() || 'layer';

export const extractDesignImages: TaskModule<'extract-design-images'> = {
  async run(ctx, p) {
    const input = unitInput(ctx);
    const design = await designOf(ctx, input);
    let images: Extracted[];
    if (isPrintProduct(design)) images = await printProductImages(ctx, design, input);
    else {
      const obj = await ctx.env.FILES.get(assetKey(ctx.tenantId, design.blobSha));
      if (!obj) throw new TaskFailure(`the design ${design.id} has no content`);
      let psd: Psd;
      try {
        psd = parsePsd(new Uint8Array(await obj.arrayBuffer()));
      } catch (e) {
        throw new TaskFailure(`${design.name} cannot be read as a PSD: ${(e as Error).message}`);
      }
      try {
        images = await designImages(psd);
      } catch (e) {
        // A corrupt channel is the file's fault, not a passing one: fail rather than retry.
        if (e instanceof TaskFailure) throw e;
        throw new TaskFailure(`${design.name}: a layer's pixels cannot be read: ${(e as Error).message}`);
      }
    }
    const base = outputBase(p, design.name);
    const used = new Set<string>();
    const named = images.map((img) => {
      let name = `${base}_${safe(img.layer)}.${img.ext}`;
      for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}_${safe(img.layer)}_${n}.${img.ext}`;
      used.add(name.toLowerCase());
      return { ...img, name };
    });
    const out = ctx.task.outputs[0]!.name;
    const itemId = input.itemId;
    if (p.outputArchiveType === 'Zip') {
      const archive = zipSync(Object.fromEntries(named.map((i) => [i.name, i.bytes])));
      await ctx.output(out, { ext: 'zip', fileName: `${base}.zip`, format: 'zip', bytes: archive, contentType: 'application/zip', source: design.id, itemId });
      return;
    }
    for (const i of named) await ctx.output(out, { ext: i.ext, fileName: i.name, format: i.ext === 'jpg' ? 'jpeg' : i.ext, bytes: i.bytes, contentType: i.contentType, source: design.id, itemId });
  },
};
