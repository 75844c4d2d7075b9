/**
 * The design-atoms renders, free of HTTP: a design's preview and proof (print-product designs
 * through the model's SVG/resvg and pdf-lib renderers; PSD designs through the rendering
 * engine), image previews (an image fitted or filled into a box, drawn as a one-item model),
 * `/to-resource` outputs, extract-image and the recolour effect.
 */
import type { Layer, LayerRawData } from 'ag-psd';
import { layerRgba } from '../../engine/psd/channels';
import { parsePsd } from '../../engine/psd/parse';
import { sha256Hex } from '../../engine/hash';
import { UrlImages } from '../../engine/inputs';
import { writePdf } from '../../engine/pdf/document';
import { prepareHires } from '../../engine/pdf/prepare';
import { resolvePrintColour, shippedProfile } from '../../engine/pdf/output';
import type { OutputColorSpace, PdfFormat } from '../../engine/pdf/pdfx';
import type { RenderingIntent } from '../../engine/colour';
import type { PrintProductColour } from '../../engine/print-product/colour';
import { outputProfile } from '../colour-profiles/service';
import { MemorySink } from '../../engine/pdf/sink';
import { preparePreview } from '../../engine/preview';
import { decodeImage, encodeJpeg, encodePng, flattenOverWhite } from '../../engine/raster';
import { renderSvg } from '../../engine/personalise/resvg';
import type { PersonalisationData } from '../../engine/personalise';
import { ServerTiming } from '../../http/server-timing';
import { imageFetcher } from '../../dynamic-image/context';
import * as assets from '../assets';
import { ConflictError, NotFoundError, UnprocessableError, ValidationError, type TenantContext } from '../core';
import { artworkLayers } from '../assets/mockup-layers';
import {
  renderPdf,
  renderPreview,
  type ImageLookup,
  type ImageModel,
  type ItemModel,
  type PrintProductModel,
  type ResolvedImage,
  type SourceModel,
  type VariableInfo,
} from '../../engine/print-product';
import { fontsOf, imageLookup, sourceBytes } from './resolve';
import { InvalidInput, type ErrorDetail } from '../../engine/errors';
import { preflightReport, type PreflightProblem } from '../../engine/preflight/report';
import { loadDesign, type StoredDesign } from './store';

export interface RenderedFile {
  bytes: Uint8Array;
  mime: string;
  ext: string;
  /**
   * Design renders: the preflight problems the render found while drawing (issue 21; no second
   * pass), for callers that record them (pipeline jobs). Absent for other renders.
   */
  problems?: PreflightProblem[];
}

export interface RenderingConfig {
  width?: number;
  height?: number;
  fileFormat?: 'Jpeg' | 'Png' | 'Pdf';
  jpegQuality?: number;
  surfaceIndex?: number;
  stub?: boolean;
  visualizePrintAreas?: boolean;
  mockupStrategy?: 'Auto' | 'None' | 'DesignMockups' | 'SpecifiedMockup';
  pdfTextOutputMode?: 'Outlines' | 'Text';
  fitMode?: 'Fit' | 'Fill';
  pageIndex?: number;
  /**
   * PDF proofs' print colour (issue 20 §2, the Dynamic Image API's names): the output colour
   * space (absent: RGB for print products as before, a PSD design's own), a profile by name
   * (a tenant colour-profile asset or a shipped one; needs `colorSpace`), the PDF/X flavour,
   * the rendering intent, and whether `cmyk()` / CMYK source colours are kept as given.
   */
  colorSpace?: OutputColorSpace;
  colorProfile?: string;
  pdfFormat?: PdfFormat;
  renderingIntent?: RenderingIntent;
  keepOriginalColors?: boolean;
}

export interface DesignRenderRequest {
  designId: string;
  ownerId?: string;
  mockupId?: string;
  mockupOwnerId?: string;
  renderingConfig?: RenderingConfig;
  variableData?: VariableInfo[];
}

const EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'application/pdf': 'pdf' };

/** PSD variableData → the engine's personalisation data (Text → text, Image → image). */
export function psdData(variableData: VariableInfo[] | undefined) {
  if (!variableData?.length) return undefined;
  const data: PersonalisationData = {};
  variableData.forEach((v, i) => {
    if (!v || typeof v.name !== 'string' || typeof v.value !== 'string') throw new ValidationError({ [`variableData[${i}]`]: ['an object {name, value, type}'] });
    data[v.name] = String(v.type ?? '').toLowerCase() === 'image' ? { type: 'image', image: v.value } : { type: 'text', text: v.value };
  });
  return data;
}

/** What the rendering engine reads a PSD design with: the tenant's input store and URL images. */
export const psdInputs = (t: TenantContext) => ({
  store: new assets.TenantInputStore(t.env, t.tenantId),
  deps: { urlImages: new UrlImages(imageFetcher(t.env)) },
});

/** The engine's preview request of a PSD design (render-preview, render-proof images, preflight). */
export const psdPreviewOptions = (d: StoredDesign, cfg: RenderingConfig, variableData: VariableInfo[] | undefined, size: number) => ({
  template: d.row.id,
  format: cfg.fileFormat === 'Png' ? ('png' as const) : ('jpg' as const),
  size: { width: cfg.width ?? size, height: cfg.height ?? size },
  jpegQuality: cfg.jpegQuality ?? 85,
  unsharpMask: null,
  data: psdData(variableData),
});

/**
 * The output profile `renderingConfig.colorProfile` names for `space` (a tenant asset, else a
 * shipped profile by name), else the tenant's default for the space, else the shipped default
 * (`shipped`, so a PSD design can fall back on its own embedded profile instead).
 */
async function proofProfile(t: TenantContext, space: OutputColorSpace, name: string | undefined): Promise<{ bytes: Uint8Array; shipped: boolean }> {
  try {
    const found = await outputProfile(t.env, t.tenantId, space, name ?? null, 'renderingConfig.colorProfile');
    return { bytes: found.bytes, shipped: found.source === 'shipped' };
  } catch (e) {
    const shipped = e instanceof UnprocessableError && name ? shippedProfile(name) : null;
    if (!shipped) throw e;
    return { bytes: shipped, shipped: false };
  }
}

/** A profile is chosen for a colour space: naming one without the space is a 400. */
function checkProofColour(cfg: RenderingConfig): void {
  if (cfg.colorProfile && !cfg.colorSpace) throw new ValidationError({ 'renderingConfig.colorProfile': ['name colorSpace too: the profile is for that colour space'] });
}

/**
 * A print product's PDF proof colour (pdf.ts `colour`), or undefined (RGB as before) when the
 * config asks for none of colorSpace, colorProfile, pdfFormat.
 */
async function printProductProofColour(t: TenantContext, cfg: RenderingConfig): Promise<PrintProductColour | undefined> {
  checkProofColour(cfg);
  if (!cfg.colorSpace && !cfg.pdfFormat) return undefined;
  const colorSpace = cfg.colorSpace ?? 'Rgb';
  const { bytes } = await proofProfile(t, colorSpace, cfg.colorProfile);
  const output = await resolvePrintColour({ colorSpace, format: cfg.pdfFormat, profile: bytes, intent: cfg.renderingIntent }, 'renderingConfig.colorProfile');
  return { output, keepOriginalColors: cfg.keepOriginalColors };
}

/** A PSD design's PDF proof colour for prepareHires: nothing asked, the template's own as before. */
async function psdProofColour(t: TenantContext, cfg: RenderingConfig) {
  checkProofColour(cfg);
  const profile = cfg.colorSpace ? await proofProfile(t, cfg.colorSpace, cfg.colorProfile) : null;
  return {
    colorSpace: cfg.colorSpace,
    pdfFormat: cfg.pdfFormat,
    // The shipped default is prepareHires' own fallback, after a CMYK template's embedded profile.
    profile: profile && !profile.shipped ? profile.bytes : undefined,
    renderingIntent: cfg.renderingIntent,
    keepOriginalColors: cfg.keepOriginalColors,
  };
}

/** A PSD design through the rendering engine (its errors are the engine's 4xx, mapped by assets.engineError). */
async function renderPsd(t: TenantContext, d: StoredDesign, cfg: RenderingConfig, variableData: VariableInfo[] | undefined, size: number, timing: ServerTiming): Promise<RenderedFile> {
  try {
    const { store, deps } = psdInputs(t);
    if (cfg.fileFormat === 'Pdf') {
      // The engine's print PDF of the template (as POST /api/rendering/hires and render-hires
      // make it): its own size, resolution and colour space; text as outlines unless asked.
      const page = await prepareHires(
        store,
        { template: d.row.id, textOutputMode: cfg.pdfTextOutputMode === 'Text' ? 'text' : 'outlines', data: psdData(variableData), ...(await psdProofColour(t, cfg)) },
        deps,
      );
      const sink = new MemorySink();
      await timing.time('pdf', () => writePdf(sink, [page.load], { title: d.row.name, output: page.output }));
      return { bytes: sink.bytes(), mime: 'application/pdf', ext: 'pdf', problems: page.problems() };
    }
    const prepared = await preparePreview(store, psdPreviewOptions(d, cfg, variableData, size), deps);
    const out = await prepared.render(timing);
    return { bytes: out.bytes, mime: out.contentType, ext: out.ext, problems: prepared.problems() };
  } catch (e) {
    throw assets.engineError(e);
  }
}

/**
 * render-preview (`proof` false) and render-proof (`proof` true: no stub or mockups, 1200 px,
 * also Pdf). `timing` receives the phases for Server-Timing.
 */
export async function renderDesign(t: TenantContext, req: DesignRenderRequest, proof: boolean, timing = new ServerTiming()): Promise<RenderedFile> {
  const cfg = req.renderingConfig ?? {};
  const size = proof ? 1200 : 800;
  if (!proof) checkMockupStrategy(cfg, req);
  // The tenant's font lookup loads beside the design (both are a row read and an R2 read).
  const fontLookup = timing.time('fonts', () => fontsOf(t, { cached: true }));
  fontLookup.catch(() => {});
  const d = await timing.time('load', () => loadDesign(t, req.designId, req.ownerId, 'designId'));
  if (!d.model) return renderPsd(t, d, cfg, req.variableData, size, timing);
  const { fonts } = await fontLookup;
  // Previews may use image rows looked up a moment ago (resolve.ts); proofs read afresh.
  const images = imageLookup(t, { cachedRows: !proof });
  // What the renderer reports while drawing (preflight's checks, from the drawing's own layout).
  const problems: PreflightProblem[] = [];
  const report = (p: PreflightProblem) => problems.push(p);
  if (cfg.fileFormat === 'Pdf') {
    if (!proof) throw new ValidationError({ 'renderingConfig.fileFormat': ['render-preview answers Jpeg or Png; Pdf is a proof (render-proof)'] });
    const colour = await fromPrintProduct(() => printProductProofColour(t, cfg));
    const pdf = await timing.time('pdf', () =>
      fromPrintProduct(() => renderPdf(d.model!, { fonts, images, surfaceIndex: cfg.surfaceIndex, textMode: cfg.pdfTextOutputMode, variableData: req.variableData, title: d.row.name, report, colour })),
    );
    return { bytes: pdf.bytes, mime: 'application/pdf', ext: 'pdf', problems: preflightReport(problems).problems };
  }
  const strategy = cfg.mockupStrategy ?? 'Auto';
  if (!proof && req.mockupId && (strategy === 'Auto' || strategy === 'SpecifiedMockup')) return renderInMockup(t, d, req, cfg, timing);
  const preview = await timing.time('render', () =>
    fromPrintProduct(() => renderPreview(d.model!, {
      report,
      timing,
      fonts,
      images,
      surfaceIndex: cfg.surfaceIndex,
      width: cfg.width ?? size,
      height: cfg.height ?? size,
      fileFormat: cfg.fileFormat === 'Png' ? 'Png' : 'Jpeg',
      jpegQuality: cfg.jpegQuality,
      stub: proof ? false : (cfg.stub ?? true),
      visualizePrintAreas: proof ? false : cfg.visualizePrintAreas,
      mockup: !proof && (strategy === 'Auto' || strategy === 'DesignMockups'),
      variableData: req.variableData,
    })),
  );
  return { bytes: preview.bytes, mime: preview.mime, ext: EXT[preview.mime]!, problems: preflightReport(problems).problems };
}

/**
 * The print-product renderer (src/engine/print-product) throws engine errors; the designs domain
 * hands them on as the platform's: invalid input (a model or variable data that does not fit) as
 * a 400 with its errors by path, anything else the engine refuses as a 422 (assets.engineError),
 * so callers that fall back on a refused render (item previews, thumbnails) see them as such.
 */
export async function fromPrintProduct<T>(render: () => Promise<T>): Promise<T> {
  try {
    return await render();
  } catch (e) {
    throw e instanceof InvalidInput ? new ValidationError(errorsByPath(e.details ?? []), e.message) : assets.engineError(e);
  }
}

const errorsByPath = (details: ErrorDetail[]): Record<string, string[]> => {
  const errors: Record<string, string[]> = {};
  for (const d of details) (errors[d.path || '$'] ??= []).push(d.reason);
  return errors;
};

/** SpecifiedMockup needs a mockup. */
function checkMockupStrategy(cfg: RenderingConfig, req: DesignRenderRequest): void {
  if (cfg.mockupStrategy === 'SpecifiedMockup' && !req.mockupId) throw new ValidationError({ mockupId: ['mockupStrategy SpecifiedMockup needs a mockupId'] });
}

/** The name the surface's render has in the engine's image store during a mockup render. */
const SURFACE_IMAGE = 'atoms-surface.png';

/**
 * A print-product surface inside a 2D mockup PSD (mockupId): the surface is rendered as PNG at
 * the artwork layer's size and placed into that smart object by the rendering engine (its
 * perspective placement); the artwork layer is the one named like the surface, else the first.
 */
async function renderInMockup(t: TenantContext, d: StoredDesign, req: DesignRenderRequest, cfg: RenderingConfig, timing: ServerTiming): Promise<RenderedFile> {
  const surface = d.model!.surfaces[cfg.surfaceIndex ?? 0];
  const { fonts } = await fontsOf(t, { cached: true });
  const problems: PreflightProblem[] = [];
  const file = await placeInMockup(t, req, cfg, surface?.name, timing, async (width, height) =>
    (
      await fromPrintProduct(() => renderPreview(d.model!, {
        report: (p) => problems.push(p),
        fonts,
        images: imageLookup(t),
        surfaceIndex: cfg.surfaceIndex,
        width,
        height,
        fileFormat: 'Png',
        stub: cfg.stub ?? true,
        visualizePrintAreas: cfg.visualizePrintAreas,
        variableData: req.variableData,
      }))
    ).bytes,
  );
  return { ...file, problems: preflightReport(problems).problems };
}

/** `art(width, height)` (a PNG at the artwork layer's size) placed into the mockup's artwork layer named `name`, else its first. */
export async function placeInMockup(
  t: TenantContext,
  req: { mockupId?: string; mockupOwnerId?: string },
  cfg: RenderingConfig,
  name: string | undefined,
  timing: ServerTiming,
  art: (width: number, height: number) => Promise<Uint8Array>,
): Promise<RenderedFile> {
  const scope = assets.scopeFor(t, assets.assetKind('mockup', !!(req.mockupOwnerId || t.storefrontUserId)), req.mockupOwnerId);
  const row = await assets.findAsset(scope, req.mockupId!);
  if (!row) throw new NotFoundError(`No mockup ${req.mockupId}.`, { mockupId: [`no mockup ${req.mockupId}`] });
  const source = row.mockupType === 'MockupLink' && row.linkSourceId ? row.linkSourceId : row.id;
  const only = row.mockupType === 'MockupLink' ? (row.metadata.artworkLayer as string | undefined) : undefined;
  if (row.mockupType === 'Mockup3D') throw new UnprocessableError('A 3D mockup cannot frame a preview; use a 2D (PSD) mockup.', { mockupId: ['a 3D mockup'] });
  const layers = (await artworkLayers({ ...scope, owner: row.ownerId }, source)).filter((l) => only === undefined || l.name === only);
  const layer = layers.find((l) => name !== undefined && l.name === name) ?? layers[0];
  if (!layer) throw new UnprocessableError(`The mockup ${req.mockupId} has no artwork layer (smart object) to place the design in.`, { mockupId: ['no artwork layer'] });
  const bytes = await timing.time('render', () => art(Math.max(1, Math.round(layer.width)), Math.max(1, Math.round(layer.height))));
  const surface = { bytes, sha: await sha256Hex(bytes), contentType: 'image/png' };
  const png = cfg.fileFormat === 'Png';
  try {
    const store = new assets.WithImages(new assets.TenantInputStore(t.env, t.tenantId), new Map([[SURFACE_IMAGE, surface]]));
    const prepared = await preparePreview(
      store,
      {
        template: row.mockupType === 'MockupLink' ? source : row.id,
        format: png ? 'png' : 'jpg',
        size: { width: cfg.width ?? 800, height: cfg.height ?? 800 },
        jpegQuality: cfg.jpegQuality ?? 85,
        unsharpMask: null,
        data: { [layer.name]: { type: 'image', image: SURFACE_IMAGE, resizeMode: 'fill' } },
      },
      { urlImages: new UrlImages(imageFetcher(t.env)) },
    );
    const out = await prepared.render(timing);
    return { bytes: out.bytes, mime: out.contentType, ext: out.ext };
  } catch (e) {
    throw assets.engineError(e);
  }
}

// --- image previews ------------------------------------------------------------------------------

/**
 * An image drawn into a width × height box: `Fit` gives the image's own aspect inside the box,
 * `Fill` the whole box covered (centre-cropped). Drawn as a one-item model, so the same renderer
 * (and its limits) serves designs and images.
 */
export async function renderImage(resolved: ResolvedImage, cfg: RenderingConfig, what = 'image'): Promise<RenderedFile> {
  if (cfg.fileFormat === 'Pdf') throw new ValidationError({ 'renderingConfig.fileFormat': ['Jpeg or Png'] });
  if (!/^image\/(jpeg|png|gif|webp|svg\+xml)$/.test(resolved.mime)) {
    throw new UnprocessableError(`The ${what} cannot be previewed (${resolved.mime}); PDF pages preview once the import has rasterised them.`);
  }
  const boxW = cfg.width ?? 800;
  const boxH = cfg.height ?? 800;
  const fill = cfg.fitMode === 'Fill';
  const iw = resolved.width || boxW;
  const ih = resolved.height || boxH;
  const s = Math.min(boxW / iw, boxH / ih);
  const [w, h] = fill ? [boxW, boxH] : [Math.max(1, Math.round(iw * s)), Math.max(1, Math.round(ih * s))];
  const model = {
    version: 1 as const,
    surfaces: [
      {
        id: 's', name: '', width: w, height: h, printAreas: [], mockup: { up: null, down: null }, previewMockup: null,
        containers: [{ id: 'c', name: '', visible: true, locked: false, items: [imageItem({ type: 'Embedded', key: 'image' }, w, h, fill ? 'Fill' : 'Stretch')] }],
      },
    ],
  } as PrintProductModel;
  const preview = await fromPrintProduct(() => renderPreview(model, {
    fonts: async () => undefined,
    images: async () => resolved,
    width: w,
    height: h,
    fileFormat: cfg.fileFormat === 'Png' ? 'Png' : 'Jpeg',
    jpegQuality: cfg.jpegQuality,
  }));
  return { bytes: preview.bytes, mime: preview.mime, ext: EXT[preview.mime]! };
}

function imageItem(source: SourceModel, width: number, height: number, fitMode: ImageModel['fitMode']): ImageModel {
  return { id: 'i', name: '', type: 'Image', x: 0, y: 0, width, height, rotation: 0, opacity: 1, visible: true, locked: false, isVariable: false, source, pageIndex: 0, fitMode };
}

/** A stored image asset (tenancy through the lookup) for `/images/render-preview`. */
export async function storedImage(t: TenantContext, imageId: string, ownerId: string | undefined, pageIndex: number): Promise<ResolvedImage> {
  const resolved = await imageLookup(t)({ type: 'Storage', id: imageId, ownerId }, { pageIndex });
  if (!resolved) throw new UnprocessableError(`The image ${imageId} has no previewable content (a PDF page not rasterised yet?).`);
  return resolved;
}

// --- to-resource ---------------------------------------------------------------------------------

export interface ResourceTarget {
  resourceName?: string;
  resourceNamespace?: string;
  resourceOwnerId?: string;
  resourceSourceId?: string;
  resourceType?: string;
  anonymousAccess?: boolean;
  overwriteExistingResource?: boolean;
}

/**
 * Stores a render as a resource: a new one, or (overwriteExistingResource) the content of the
 * owner's resource of that name and namespace replaced, keeping its id. A taken name without
 * overwrite → 409 NameConflict.
 */
export async function toResource(t: TenantContext, file: RenderedFile, target: ResourceTarget, defaultName: string): Promise<Record<string, unknown>> {
  const kind = assets.assetKind('resource', !!(target.resourceOwnerId || t.storefrontUserId));
  const scope = assets.scopeFor(t, kind, target.resourceOwnerId, kind.private);
  const name = target.resourceName ?? `${defaultName}.${file.ext}`;
  const namespace = target.resourceNamespace ?? null;
  const existingId = await assets.resourceIdNamed(t.env.DB, t.tenantId, scope.owner ?? '', name, namespace);
  const staged = await assets.stageBytes(t.env.FILES, t.tenantId, file.bytes);
  let row: assets.AssetRow;
  if (existingId) {
    if (!target.overwriteExistingResource) {
      await t.env.FILES.delete(staged.key).catch(() => {});
      throw new ConflictError('NameConflict', `A resource named "${name}" already exists${namespace ? ` in namespace ${namespace}` : ''}; set overwriteExistingResource to replace it.`, { name });
    }
    row = await assets.replaceContent(scope, existingId, staged, file.mime);
    if (target.anonymousAccess !== undefined && target.anonymousAccess !== row.anonymousAccess) await assets.setAnonymousAccess(scope, row, target.anonymousAccess);
  } else {
    row = await assets.createAsset(scope, {
      staged,
      name,
      declaredType: file.mime,
      namespace,
      sourceId: target.resourceSourceId ?? null,
      resourceType: target.resourceType ?? null,
      anonymousAccess: target.anonymousAccess,
    });
  }
  row = (await assets.findAsset(scope, row.id)) ?? row;
  const info = assets.toResourceInfo(row, t.baseUrl);
  if (row.anonymousAccess) info.url = (await assets.anonymousUrlOf(t, 'asset', row.id)) ?? info.url;
  return info;
}

// --- items: extract-image, effects ------------------------------------------------------------------

/** An Image item's source image as Jpeg or Png (SVG rasterised at its size). */
export async function extractImage(t: TenantContext, item: ItemModel, outputType: 'Jpeg' | 'Png' = 'Png', path = 'item'): Promise<RenderedFile> {
  if (item.type !== 'Image') throw new UnprocessableError(`Item ${item.id} is a ${item.type}, not an Image.`, { [path]: ['not an Image item'] });
  if (!item.source) throw new UnprocessableError(`Item ${item.id} has no image.`, { [`${path}.source`]: ['empty'] });
  const resolved = await sourceBytes(t, item.source, `${path}.source`, item.pageIndex);
  const pixels = await decodeAny(resolved);
  if (outputType === 'Jpeg') {
    await flattenOverWhite(pixels.data);
    return { bytes: await encodeJpeg(pixels, 92), mime: 'image/jpeg', ext: 'jpg' };
  }
  return { bytes: await encodePng(pixels), mime: 'image/png', ext: 'png' };
}

/** Largest PSD layer extract-image decodes (pixels). */
const MAX_LAYER_EXTRACT = 25_000_000;

/**
 * A PSD design's layer (by name, the first of that name) as its own pixels, decoded row by row
 * from the PSD with the engine's channel reader. Layers without pixels (groups, empty) → 422.
 */
export async function extractPsdLayer(t: TenantContext, row: assets.AssetRow, layerName: string, outputType: 'Jpeg' | 'Png' = 'Png'): Promise<RenderedFile> {
  const bytes = await assets.readAssetBytes(t.env.FILES, row);
  if (!bytes) throw new UnprocessableError(`The design ${row.id} has no content.`);
  let psd;
  try {
    psd = parsePsd(bytes);
  } catch (e) {
    throw assets.engineError(e);
  }
  const find = (layers: Layer[] | undefined): Layer | undefined => {
    for (const l of layers ?? []) {
      if (l.name === layerName) return l;
      const inner = find(l.children);
      if (inner) return inner;
    }
    return undefined;
  };
  const layer = find(psd.children);
  if (!layer) throw new NotFoundError(`The design has no layer named "${layerName}".`, { itemId: [`no layer "${layerName}"`] });
  const raw = layer.rawData as LayerRawData | undefined;
  const [left, top, right, bottom] = [layer.left ?? 0, layer.top ?? 0, layer.right ?? 0, layer.bottom ?? 0];
  const width = right - left;
  const height = bottom - top;
  if (!raw || layer.children || width <= 0 || height <= 0) throw new UnprocessableError(`The layer "${layerName}" has no pixels of its own.`, { itemId: ['no pixels'] });
  if (width * height > MAX_LAYER_EXTRACT) throw new UnprocessableError(`The layer is ${width}×${height}; at most ${MAX_LAYER_EXTRACT / 1e6} MP can be extracted.`, { itemId: ['too large'] });
  let data: Uint8ClampedArray;
  try {
    data = layerRgba(raw, width, height);
  } catch (e) {
    throw assets.engineError(e);
  }
  const pixels = { width, height, data };
  if (outputType === 'Jpeg') {
    await flattenOverWhite(pixels.data);
    return { bytes: await encodeJpeg(pixels, 92), mime: 'image/jpeg', ext: 'jpg' };
  }
  return { bytes: await encodePng(pixels), mime: 'image/png', ext: 'png' };
}

async function decodeAny(resolved: ResolvedImage) {
  if (resolved.mime === 'image/svg+xml') return renderSvg(new TextDecoder().decode(resolved.bytes), []);
  if (resolved.mime !== 'image/jpeg' && resolved.mime !== 'image/png') throw new UnprocessableError(`A ${resolved.mime} image cannot be extracted as pixels.`);
  try {
    return await decodeImage(resolved.bytes);
  } catch {
    throw new UnprocessableError('The image data is corrupt.');
  }
}

/**
 * `apply-effects` `{recolor}`: only an Image item whose picture has transparency can be
 * recoloured (recolouring paints every visible pixel, so an opaque image would become a flat
 * box) → 409 GeneralConflict otherwise. `recolor: null` removes the effect.
 */
export async function applyEffects(t: TenantContext, item: ItemModel, effects: { recolor?: string | null }): Promise<ItemModel> {
  if (item.type !== 'Image') throw new ConflictError('GeneralConflict', `Effects apply to Image items; this is a ${item.type}.`, { itemType: item.type });
  if (effects.recolor === undefined || effects.recolor === null) return { ...item, recolor: null };
  if (!item.source) throw new ConflictError('GeneralConflict', 'The image item has no image to recolour.');
  const resolved = await sourceBytes(t, item.source, 'item.source', item.pageIndex);
  if (resolved.mime !== 'image/svg+xml') {
    if (resolved.mime === 'image/jpeg') throw new ConflictError('GeneralConflict', 'The image is opaque (JPEG): recolouring would paint a solid box.');
    const pixels = await decodeAny(resolved);
    let transparent = false;
    for (let i = 3; i < pixels.data.length; i += 4) if (pixels.data[i]! < 255) { transparent = true; break; }
    if (!transparent) throw new ConflictError('GeneralConflict', 'The image is opaque: recolouring would paint a solid box.');
  }
  return { ...item, recolor: effects.recolor };
}

/** An Image item at the image's natural size (points at its dpi, 72 when unknown) at (x, y). */
export function naturalItem(source: SourceModel, facts: { width: number; height: number; dpi?: number | null }, at: { x?: number; y?: number; name?: string }): Record<string, unknown> {
  const k = 72 / (facts.dpi && facts.dpi > 0 ? facts.dpi : 72);
  return {
    type: 'Image',
    name: at.name ?? '',
    x: at.x ?? 0,
    y: at.y ?? 0,
    width: Math.max(1, facts.width * k),
    height: Math.max(1, facts.height * k),
    source,
    fitMode: 'Fit',
  };
}

export type { ImageLookup };
