/**
 * The engine calls the render tasks share: a design artifact (its source asset) rendered as a
 * print PDF (the same engine function as POST /api/rendering/hires: prepareHires + writePdf,
 * streamed into the output key) or as an image at a size. Print-product designs render through
 * the design atoms instead (print-product.ts).
 */
import type { Env } from '../../../env';
import { UrlImages } from '../../../engine/inputs';
import { writePdf } from '../../../engine/pdf/document';
import { prepareHires, type TextOutputMode } from '../../../engine/pdf/prepare';
import { R2Sink } from '../../../engine/pdf/sink';
import { preparePreview, type EncodedImage } from '../../../engine/render-request';
import type { PersonalisationData } from '../../../engine/personalise';
import { imageFetcher } from '../../../rendering/context';
import { TenantInputStore } from '../../assets';
import { designOr404 } from './assets';
import { TaskFailure } from './errors';
import type { ArtifactRecord, UnitContext } from './types';

export const deps = (env: Env) => ({ urlImages: new UrlImages(imageFetcher(env)) });

/** The design asset a design artifact came from (a PSD, or a print product: `isPrintProduct`). */
export async function designOf(ctx: UnitContext, a: ArtifactRecord) {
  if (!a.source) throw new TaskFailure(`${a.name} is not a design`);
  return designOr404(ctx.env, ctx.tenantId, a.source);
}

export const isPrintProduct = (d: { designType: string | null }) => d.designType === 'PrintProduct';

/** Writes a one-page print PDF of the design (personalised by `data`) into `key`; returns its size. */
export function pdfWriter(ctx: UnitContext, designId: string, title: string, textOutputMode: TextOutputMode, data?: PersonalisationData) {
  return async (bucket: R2Bucket, key: string): Promise<number> => {
    const store = new TenantInputStore(ctx.env, ctx.tenantId);
    const page = await prepareHires(store, { template: designId, textOutputMode, data }, deps(ctx.env));
    const sink = new R2Sink(bucket, key, { httpMetadata: { contentType: 'application/pdf' } });
    const summary = await writePdf(sink, [page.load], { title });
    return summary.bytes;
  };
}

/** The design as an image fitting `box` (previews) or at `dpi` (hires rasters). */
export async function renderImage(
  ctx: UnitContext,
  designId: string,
  format: 'jpg' | 'png',
  size: { box?: { width: number; height: number }; dpi?: number },
  jpegQuality = 90,
  data?: PersonalisationData,
): Promise<EncodedImage> {
  const store = new TenantInputStore(ctx.env, ctx.tenantId);
  let box = size.box;
  if (!box) {
    // The template's physical size at the requested dpi.
    const probe = await preparePreview(store, { template: designId, format, size: { width: 1, height: 1 }, jpegQuality, unsharpMask: null }, deps(ctx.env));
    const compiled = probe.template.compiled;
    const ppi = compiled.resolution || 72;
    const scale = (size.dpi ?? ppi) / ppi;
    box = { width: Math.max(1, Math.round(compiled.width * scale)), height: Math.max(1, Math.round(compiled.height * scale)) };
  }
  const prepared = await preparePreview(store, { template: designId, format, size: box, jpegQuality, unsharpMask: null, data }, deps(ctx.env));
  return prepared.render();
}
