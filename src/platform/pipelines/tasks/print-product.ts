/**
 * Print-product designs (`designType: PrintProduct`, the design atoms' model) in the render
 * tasks, through the design atoms' own renderers: previews are the model's SVG rasterised by
 * resvg (renderPreview), print PDFs come from renderPdf (pdf-lib: a page per print area,
 * MediaBox = BleedBox = area + bleed, TrimBox = area). Fonts and images resolve as in the atoms
 * API, for the job's tenant (Storage images: the tenant's public ones, the owner a source names,
 * and the project owner's private ones for sources naming no owner).
 *
 * Pages: a PDF page per print area, surfaces in order (a surface without print areas is one
 * page); previews are a picture per surface. Print-area filters count those.
 */
import { runnerTenant } from '../../jobs/d1';
import { applyVariableData, parseModel, pagePlan, renderPdf, renderPreview, renderPreviewPixels, type ImageLookup, type ItemModel, type PrintProductModel, type SourceModel, type VariableInfo } from '../../../engine/print-product';
import type { RGBAImage } from '../../../engine/types';
import type { ReportProblem } from '../../../engine/preflight/report';
import { PdfX1aTransparencyError, type PrintProductColour } from '../../../engine/print-product/colour';
import { fontsOf, imageLookup } from '../../designs/resolve';
import { NotFoundError, type TenantContext } from '../../core';
import type { HiresParams, PageRange } from '../language';
import { PrintColourError, resolvePrintColour } from '../../../engine/pdf/output';
import { printColourOf } from './render';
import { assetKey, type DesignAsset } from './assets';
import { TaskFailure } from './errors';
import type { UnitContext } from './types';

/** The tenant as the design's renders see it (the runner's). */
export const designTenant = (ctx: Pick<UnitContext, 'env' | 'tenantId' | 'baseUrl'>): TenantContext => runnerTenant(ctx.env, ctx.tenantId, ctx.baseUrl);

/**
 * The atoms' image lookup for the job's tenant, where a Storage source naming no owner is also
 * looked for among the project owner's private images (a shopper's photo given in the item's
 * fields) when the tenant has no public image of that id. Sources naming an owner stay as given.
 */
export function ownerImages(ctx: Pick<UnitContext, 'env' | 'tenantId' | 'baseUrl' | 'ownerId'>): ImageLookup {
  const lookup = imageLookup(designTenant(ctx));
  return async (source, context) => {
    try {
      return await lookup(source, context);
    } catch (e) {
      if (!(e instanceof NotFoundError) || source.type !== 'Storage' || source.ownerId || !ctx.ownerId) throw e;
      return lookup({ ...source, ownerId: ctx.ownerId }, context);
    }
  };
}

/** The design asset each loaded model came from, so its renders report problems under its id. */
const DESIGN_OF = new WeakMap<PrintProductModel, string>();

/** The stored model of a print-product design (read from its blob; the extract task found the asset). */
export async function loadModel(ctx: Pick<UnitContext, 'env' | 'tenantId'>, design: DesignAsset & { blobSha: string }): Promise<PrintProductModel> {
  const obj = await ctx.env.FILES.get(assetKey(ctx.tenantId, design.blobSha));
  if (!obj) throw new TaskFailure(`the design ${design.id} has no content`);
  try {
    const model = await parseModel(JSON.parse(await obj.text()));
    DESIGN_OF.set(model, design.id);
    return model;
  } catch (e) {
    throw new TaskFailure(`the stored model of design ${design.name} is not valid: ${(e as Error).message}`);
  }
}

/**
 * Where a render of `model` reports what the atoms' checks find while drawing (issue 21): on the
 * job under the model's design, which counts as checked even when nothing is found.
 */
function reportOf(ctx: Pick<UnitContext, 'preflight'>, model: PrintProductModel): ReportProblem {
  const design = DESIGN_OF.get(model) ?? null;
  ctx.preflight(design, []);
  return (problem) => ctx.preflight(design, [problem]);
}

/** 1-based page numbers kept by a filter (none or empty keeps all). */
export const inFilter = (filter: PageRange[] | undefined, page: number) => !filter || !filter.length || filter.some((r) => r.from <= page && (r.to === null || r.to >= page));

export interface SurfacePicture {
  /** 0-based surface index. */
  index: number;
  bytes: Uint8Array;
  contentType: string;
  ext: 'jpg' | 'png';
}

export interface PreviewSettings {
  width: number;
  height: number;
  format: 'jpg' | 'png';
  jpegQuality?: number;
  stub?: boolean;
  visualizePrintAreas?: boolean;
  mockup?: boolean;
}

/** One surface as a picture fitting the box. */
export async function surfacePicture(ctx: UnitContext, model: PrintProductModel, index: number, s: PreviewSettings, variableData?: VariableInfo[]): Promise<SurfacePicture> {
  const t = designTenant(ctx);
  const { fonts } = await fontsOf(t);
  const out = await renderPreview(model, {
    fonts,
    images: ownerImages(ctx),
    surfaceIndex: index,
    width: s.width,
    height: s.height,
    fileFormat: s.format === 'png' ? 'Png' : 'Jpeg',
    jpegQuality: s.jpegQuality,
    stub: s.stub ?? false,
    visualizePrintAreas: s.visualizePrintAreas ?? false,
    mockup: s.mockup ?? false,
    variableData,
    report: reportOf(ctx, model),
  });
  return { index, bytes: out.bytes, contentType: out.mime, ext: s.format };
}

/** The surfaces a preview filter keeps, as pictures (surface n is page n). */
export async function surfacePictures(ctx: UnitContext, model: PrintProductModel, filter: PageRange[] | undefined, s: PreviewSettings, variableData?: VariableInfo[]): Promise<SurfacePicture[]> {
  const out: SurfacePicture[] = [];
  for (let i = 0; i < model.surfaces.length; i++) if (inFilter(filter, i + 1)) out.push(await surfacePicture(ctx, model, i, s, variableData));
  return out;
}

/**
 * The output colour of a print-product PDF in a hires task: the same parameters and resolution
 * as PSD designs (render.ts printColourOf: `hiResOutputColorSpace`, default Cmyk, the named
 * profile, else the tenant's default, else the shipped one; `renderingIntent`,
 * `hiResOutputPdfFormat`, `hiResOutputPdfKeepOriginalColors`), checked as PSD print PDFs are.
 */
export async function printProductColour(ctx: UnitContext, p: HiresParams): Promise<PrintProductColour> {
  const c = await printColourOf(ctx, p);
  try {
    const output = await resolvePrintColour({ colorSpace: c.colorSpace ?? 'Cmyk', format: c.pdfFormat, profile: c.profile, intent: c.renderingIntent });
    return { output, keepOriginalColors: c.keepOriginalColors };
  } catch (e) {
    if (e instanceof PrintColourError) throw new TaskFailure(e.message);
    throw e;
  }
}

/** Print output: a required variable left empty fails the task (the data will not get better on a retry). */
function requireVariables(model: PrintProductModel, variableData: VariableInfo[] | undefined): void {
  const { errors } = applyVariableData(model, variableData ?? [], { enforceRequired: true });
  if (errors) throw new TaskFailure(Object.values(errors).flat().join('; '));
}

/**
 * The print PDF of every surface (required variables must have values), in `colour` (render-hires:
 * the task's output colour, `printProductColour`; absent: RGB as the atoms API writes it).
 */
export async function printPdf(
  ctx: UnitContext,
  model: PrintProductModel,
  textMode: 'Outlines' | 'Text',
  title: string,
  variableData?: VariableInfo[],
  colour?: PrintProductColour,
): Promise<{ bytes: Uint8Array; pages: number }> {
  requireVariables(model, variableData);
  const t = designTenant(ctx);
  const { fonts } = await fontsOf(t);
  let pdf;
  try {
    pdf = await renderPdf(model, { fonts, images: ownerImages(ctx), textMode, variableData, title, report: reportOf(ctx, model), colour });
  } catch (e) {
    // PDF/X-1a of translucent content it cannot flatten (a placed PDF page among it): the task's parameters, not a retry.
    if (e instanceof PdfX1aTransparencyError) throw new TaskFailure(e.message);
    throw e;
  }
  return { bytes: pdf.bytes, pages: pdf.pages };
}

export interface PagePicture {
  /** 1-based page number (print area in document order). */
  page: number;
  /** The page's MediaBox (print area + bleed) at the dpi, straight RGBA. */
  image: RGBAImage;
}

/** Largest raster print file (pixels), as for PSD designs. */
export const MAX_RASTER_PIXELS = 25_000_000;

function crop(img: RGBAImage, r: { x: number; y: number; width: number; height: number }): RGBAImage {
  const out = new Uint8ClampedArray(r.width * r.height * 4);
  for (let y = 0; y < r.height; y++) {
    const sy = r.y + y;
    if (sy < 0 || sy >= img.height) continue;
    const x0 = Math.max(0, r.x);
    const x1 = Math.min(img.width, r.x + r.width);
    if (x1 <= x0) continue;
    out.set(img.data.subarray((sy * img.width + x0) * 4, (sy * img.width + x1) * 4), (y * r.width + (x0 - r.x)) * 4);
  }
  return { width: r.width, height: r.height, data: out };
}

/**
 * Raster pages at `dpi`: each surface drawn at dpi with a transparent background, cropped to
 * its pages' MediaBoxes (bleed outside the surface stays transparent); ≤ 25 MP per surface.
 */
export async function pagePictures(ctx: UnitContext, model: PrintProductModel, filter: PageRange[] | undefined, dpi: number, variableData?: VariableInfo[]): Promise<PagePicture[]> {
  requireVariables(model, variableData);
  const t = designTenant(ctx);
  const { fonts } = await fontsOf(t);
  const out: PagePicture[] = [];
  let page = 0;
  for (const [index, surface] of model.surfaces.entries()) {
    const plans = pagePlan(surface, index).map((plan) => ({ plan, page: ++page })).filter((p) => inFilter(filter, p.page));
    if (!plans.length) continue;
    const k = dpi / 72;
    const width = Math.max(1, Math.round(surface.width * k));
    const height = Math.max(1, Math.round(surface.height * k));
    if (width * height > MAX_RASTER_PIXELS) throw new TaskFailure(`surface ${index + 1} would be ${width}×${height} px at ${dpi} dpi; at most ${MAX_RASTER_PIXELS / 1e6} MP`);
    const pixels = await renderPreviewPixels(model, { fonts, images: ownerImages(ctx), surfaceIndex: index, width, height, fileFormat: 'Png', stub: false, visualizePrintAreas: false, mockup: false, variableData, report: reportOf(ctx, model) });
    for (const { plan, page: n } of plans) {
      const m = plan.media;
      out.push({ page: n, image: crop(pixels, { x: Math.round(m.x * k), y: Math.round(m.y * k), width: Math.max(1, Math.round(m.width * k)), height: Math.max(1, Math.round(m.height * k)) }) });
    }
  }
  return out;
}

/** The design's Image items with a source, in model order (extract-design-images). */
export function imageItems(model: PrintProductModel): Array<{ name: string; source: SourceModel; pageIndex: number }> {
  const out: Array<{ name: string; source: SourceModel; pageIndex: number }> = [];
  const walk = (items: ItemModel[]) => {
    for (const item of items) {
      if (item.type === 'Group') walk(item.items);
      else if (item.type === 'Image' && item.source) out.push({ name: item.name || item.id, source: item.source, pageIndex: item.pageIndex ?? 0 });
    }
  };
  for (const s of model.surfaces) for (const c of s.containers) walk(c.items);
  return out;
}
