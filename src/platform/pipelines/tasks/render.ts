/**
 * The engine calls the render tasks share: a design artifact (its source asset) rendered as a
 * print PDF (the same engine function as POST /api/rendering/hires: prepareHires + writePdf,
 * streamed into the output key) or as an image at a size. Print-product designs render through
 * the design atoms instead (print-product.ts).
 */
import type { Env } from '../../../env';
import { UrlImages } from '../../../engine/inputs';
import { writePdf, type Separation } from '../../../engine/pdf/document';
import { prepareHires, type TextOutputMode } from '../../../engine/pdf/prepare';
import { R2Sink, type ByteSink } from '../../../engine/pdf/sink';
import { PrintColourError, shippedProfile } from '../../../engine/pdf/output';
import type { HiresOptions } from '../../../engine/pdf/prepare';
import { Unprocessable } from '../../../engine/errors';
import { outputProfile } from '../../colour-profiles/service';
import { UnprocessableError } from '../../core/errors';
import { preparePreview, type EncodedImage } from '../../../engine/preview';
import type { PersonalisationData } from '../../../engine/personalise';
import { imageFetcher } from '../../../dynamic-image/context';
import { TenantInputStore } from '../../assets';
import { designOr404 } from './assets';
import type { HiresParams, PageRange } from '../language';
import { TaskFailure } from './errors';
import type { ArtifactRecord, UnitContext } from './types';

export const deps = (env: Env) => ({ urlImages: new UrlImages(imageFetcher(env)) });

/** The design asset a design artifact came from (a PSD, or a print product: `isPrintProduct`). */
export async function designOf(ctx: UnitContext, a: ArtifactRecord) {
  if (!a.source) throw new TaskFailure(`${a.name} is not a design`);
  return designOr404(ctx.env, ctx.tenantId, a.source);
}

export const isPrintProduct = (d: { designType: string | null }) => d.designType === 'PrintProduct';

/** A PSD design is one page: a print-area filter keeps it unless the filter leaves out page 1. */
export const includesFirstPage = (filter: PageRange[] | undefined) => !filter || !filter.length || filter.some((r) => r.from <= 1 && (r.to === null || r.to >= 1));

/** The profile-name parameter of each output colour space. */
const PROFILE_PARAM = { Cmyk: 'hiResOutputCmykColorProfileName', Rgb: 'hiResOutputRgbColorProfileName', Grayscale: 'hiResOutputGrayscaleColorProfileName' } as const;

/**
 * The print colour a hires task asks for (docs/pdf.md, "Colour"): `hiResOutputColorSpace`
 * (default Cmyk), the profile named for that space (a tenant colour-profile asset, else a shipped
 * profile by name), else the tenant's default for the space, else the template's own (CMYK
 * templates) or the shipped default; `renderingIntent`, `hiResOutputPdfFormat` and
 * `hiResOutputPdfKeepOriginalColors`. A named profile that does not exist or is of another
 * colour space fails the task naming the parameter.
 */
export async function printColourOf(ctx: UnitContext, p: HiresParams): Promise<Pick<HiresOptions, 'colorSpace' | 'pdfFormat' | 'profile' | 'renderingIntent' | 'keepOriginalColors'>> {
  const colorSpace = p.hiResOutputColorSpace;
  const param = PROFILE_PARAM[colorSpace];
  const named = p[param]?.trim() ?? '';
  let profile: Uint8Array | undefined;
  try {
    const found = await outputProfile(ctx.env, ctx.tenantId, colorSpace, named || null, param);
    // The shipped default is what prepareHires falls back to anyway, after a CMYK template's own profile.
    if (found.source !== 'shipped') profile = found.bytes;
  } catch (e) {
    if (!(e instanceof UnprocessableError)) throw e;
    profile = shippedProfile(named) ?? undefined;
    if (!profile) throw new TaskFailure(`${param}: ${e.message}`);
  }
  return {
    colorSpace,
    pdfFormat: p.hiResOutputPdfFormat,
    profile,
    renderingIntent: p.renderingIntent,
    keepOriginalColors: p.hiResOutputPdfKeepOriginalColors,
  };
}

/** Writes a one-page print PDF of the design (personalised by `data`) into `key`; returns its size. */
export function pdfWriter(ctx: UnitContext, p: HiresParams, designId: string, title: string, textOutputMode: TextOutputMode, data?: PersonalisationData, separation?: Separation) {
  return async (bucket: R2Bucket, key: string): Promise<number> => {
    return writeDesignPdf(ctx, p, designId, title, textOutputMode, data, new R2Sink(bucket, key, { httpMetadata: { contentType: 'application/pdf' } }), separation);
  };
}

/** The separations a design's print file splits into (process, then its spot channels), for one file each. */
export async function designSeparations(ctx: UnitContext, designId: string): Promise<Separation[]> {
  return (await prepareHires(new TenantInputStore(ctx.env, ctx.tenantId), { template: designId }, deps(ctx.env))).separations;
}

/** The design's print PDF written into `sink` (the task's colour parameters applied); returns its size. */
export async function writeDesignPdf(
  ctx: UnitContext,
  p: HiresParams,
  designId: string,
  title: string,
  textOutputMode: TextOutputMode,
  data: PersonalisationData | undefined,
  sink: ByteSink,
  separation?: Separation,
): Promise<number> {
  const store = new TenantInputStore(ctx.env, ctx.tenantId);
  let page;
  try {
    page = await prepareHires(store, { template: designId, textOutputMode, data, ...(await printColourOf(ctx, p)) }, deps(ctx.env));
  } catch (e) {
    // A profile that does not fit its colour space, or PDF/X-1a asked of RGB: the task's parameters.
    if (e instanceof PrintColourError || (e instanceof Unprocessable && e.details?.[0]?.path === 'colorProfile')) throw new TaskFailure(e.message);
    throw e;
  }
  const summary = await writePdf(sink, [page.load], { title, output: page.output, separation });
  // What the layer checks found while the page was built (issue 21): on the job, no second render
  // (once per design when it is split into separations).
  if (!separation || 'process' in separation) ctx.preflight(designId, page.problems());
  return summary.bytes;
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
  const image = await prepared.render();
  ctx.preflight(designId, prepared.problems());
  return image;
}
