/**
 * render-image-preview: images (a collection input, one unit per member; or storage images
 * `images[]`, one unit for all) → a preview per image fitting `previewOutput{Width,Height}`
 * (`fitMode` Fit: the whole image inside the box; Fill: the box covered, centre-cropped), JPEG or
 * PNG. Decoding is bounded (decodeBounded: 50 MP sources, bombs refused). With `mockups`
 * (render-image-preview-with-mockup), each image is placed into each mockup instead (mockup.ts).
 */
import { decodeBounded, encodeJpeg, encodePng, flattenOverWhite, resample } from '../../../engine/raster';
import type { RGBAImage } from '../../../engine/types';
import { assetById } from './assets';
import { TaskFailure } from './errors';
import { onMockups } from './mockup';
import { outputBase } from './project';
import type { TaskModule, UnitContext } from './types';
import type { TaskParams } from '../language';

/** Both image-preview types: the with-mockup one has `mockups` required, else the same parameters. */
type ImagePreviewType = 'render-image-preview' | 'render-image-preview-with-mockup';
import { blobKey } from '../../assets';

function crop(img: RGBAImage, x: number, y: number, w: number, h: number): RGBAImage {
  const out = new Uint8ClampedArray(w * h * 4);
  for (let r = 0; r < h; r++) out.set(img.data.subarray(((y + r) * img.width + x) * 4, ((y + r) * img.width + x + w) * 4), r * w * 4);
  return { width: w, height: h, data: out };
}

/** The image fitted to `box`: Fit keeps it whole inside, Fill covers the box (centre-cropped). */
async function fitted(bytes: Uint8Array, sourceName: string, box: { width: number; height: number }, fitMode: 'Fit' | 'Fill'): Promise<RGBAImage> {
  let img: RGBAImage = await decodeBounded(bytes, { path: sourceName });
  if (fitMode === 'Fill') {
    const s = Math.max(box.width / img.width, box.height / img.height);
    const w = Math.min(img.width, Math.round(box.width / s));
    const h = Math.min(img.height, Math.round(box.height / s));
    img = crop(img, Math.floor((img.width - w) / 2), Math.floor((img.height - h) / 2), w, h);
  }
  const s = Math.min(box.width / img.width, box.height / img.height);
  return resample(img, Math.max(1, Math.round(img.width * s)), Math.max(1, Math.round(img.height * s)));
}

async function preview(ctx: UnitContext, p: TaskParams<ImagePreviewType>, bytes: Uint8Array, sourceName: string, itemId: number | null | undefined, source: string | null) {
  if (p.mockups?.length) {
    // Placed into each mockup's artwork layer, covering it.
    await onMockups(ctx, p, sourceName, async (width, height) => encodePng(await fitted(bytes, sourceName, { width, height }, 'Fill')), source, itemId);
    return;
  }
  const img = await fitted(bytes, sourceName, { width: p.previewOutputWidth, height: p.previewOutputHeight }, p.fitMode);
  const png = p.previewOutputFileFormat === 'Png';
  if (!png) await flattenOverWhite(img.data);
  const encoded = png ? await encodePng(img) : await encodeJpeg(img, 85);
  const ext = png ? 'png' : 'jpg';
  await ctx.output(ctx.task.outputs[0]!.name, {
    ext, fileName: `${outputBase(p, sourceName)}.${ext}`, format: png ? 'png' : 'jpeg', bytes: encoded, contentType: png ? 'image/png' : 'image/jpeg', itemId, source,
  });
}

export const renderImagePreview: TaskModule<ImagePreviewType> = {
  async run(ctx, p) {
    if (ctx.member) return preview(ctx, p, await ctx.read(ctx.member), ctx.member.fileName, ctx.member.itemId, ctx.member.source);
    const fromInputs = ctx.task.inputs.flatMap((r) => ctx.inputs(r.name));
    for (const a of fromInputs) await preview(ctx, p, await ctx.read(a), a.fileName, a.itemId, a.source);
    for (const id of p.images ?? []) {
      const asset = await assetById(ctx.env, ctx.tenantId, id, ['image']);
      if (!asset?.blobSha) throw new TaskFailure(`there is no image ${id}`);
      const obj = await ctx.env.FILES.get(blobKey(ctx.tenantId, asset.blobSha));
      if (!obj) throw new TaskFailure(`the image ${id} has no content`);
      await preview(ctx, p, new Uint8Array(await obj.arrayBuffer()), asset.name, null, asset.id);
    }
  },
};
