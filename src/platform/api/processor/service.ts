/**
 * The asset processor's operations beyond import (contract, "Asset processor"): font check,
 * count per sheet, mockup artwork layers and groups, mockup links, designs from mockups, designs,
 * resources, PDF page extraction and embedding linked data. Free of HTTP.
 */
import { PDFDocument } from 'pdf-lib';
import { walkLayers } from '../../../engine';
import { sha256Hex } from '../../../engine/hash';
import { outboundFetch, OutboundError } from '../../../http/outbound';
import { decodeImage, encodeJpeg, encodePng, flattenOverWhite, resample } from '../../../engine/raster';
import { NotFoundError, tenantKey, UnprocessableError, ValidationError } from '../../core';
import * as assets from '../../assets';
import type { AssetRow, AssetScope } from '../../assets';
import { loadUserPdf } from '../../assets/pdf-pages';
import { artworkLayers, assetContent as contentOf, compiledOf, type ArtworkLayer } from '../../assets/mockup-layers';
import { countPerSheet, unionOf, type CountResult, type SheetParams } from '../../../engine/imposition/count-per-sheet';

// --- designs -------------------------------------------------------------------------------------

async function printProductOf(s: AssetScope, row: AssetRow): Promise<Record<string, any>> {
  return JSON.parse(new TextDecoder().decode(await contentOf(s, row)));
}

/** The fonts a design uses that the lookup cannot find (and the asset's flag brought up to date). */
export async function checkDesign(s: AssetScope, id: string): Promise<{ hasProblems: boolean; missingFonts: string[] }> {
  const row = await assets.getAsset(s, id);
  const names = row.designType === 'PrintProduct'
    ? assets.printProductFonts(await printProductOf(s, row))
    : ((row.metadata.fonts as Array<{ postscriptName: string }>) ?? []).map((f) => f.postscriptName);
  const lookup = await assets.FontLookup.load(s.t.env, s.t.tenantId);
  const { fonts, missing } = assets.resolveFonts(lookup, names);
  const hasProblems = missing.length > 0;
  if (hasProblems !== row.hasProblems || JSON.stringify(fonts) !== JSON.stringify(row.metadata.fonts ?? [])) {
    await assets.setDesignFonts(s.t.env.DB, s.t.tenantId, row.id, hasProblems, fonts);
  }
  return { hasProblems, missingFonts: missing };
}

export async function designCountPerSheet(s: AssetScope, id: string, p: SheetParams & { surfaceIndex?: number }): Promise<CountResult> {
  const row = await assets.getAsset(s, id);
  const index = p.surfaceIndex ?? 0;
  let area: { width: number; height: number };
  let largestBleed = 0;
  if (row.designType === 'PrintProduct') {
    const model = await printProductOf(s, row);
    const surface = model.surfaces?.[index];
    if (!surface) throw new ValidationError({ surfaceIndex: [`The design has ${model.surfaces?.length ?? 0} surfaces.`] });
    const areas = (surface.printAreas ?? []) as Array<{ bounds: { x?: number; y?: number; width: number; height: number }; bleed?: Record<string, number> }>;
    area = areas.length
      ? unionOf(areas.map((a) => ({ x: a.bounds.x ?? 0, y: a.bounds.y ?? 0, width: a.bounds.width, height: a.bounds.height })))
      : { width: surface.width, height: surface.height };
    for (const a of areas) largestBleed = Math.max(largestBleed, ...Object.values(a.bleed ?? {}).map(Number).filter(Number.isFinite));
  } else {
    // PSD: one surface, its canvas is the print area (px ÷ ppi × 72).
    if (index !== 0) throw new ValidationError({ surfaceIndex: ['A PSD design has one surface (index 0).'] });
    const surfaces = (row.metadata.surfaces as Array<{ width: number; height: number }>) ?? [];
    if (!surfaces[0]) throw new UnprocessableError('The design has no surface size.');
    area = surfaces[0];
  }
  if (p.bleed !== undefined && p.bleed < 0) throw new ValidationError({ bleed: ['Expected ≥ 0.'] });
  return countPerSheet(area, p.bleed ?? largestBleed, p);
}

// --- mockups -------------------------------------------------------------------------------------

// The artwork layers live with the assets (designs render into them too); the processor serves them.
export { artworkLayers, type ArtworkLayer };

/** Groups holding artwork layers: `[{name, layers: [artwork layer names]}]`. */
export async function mockupGroups(s: AssetScope, id: string): Promise<Array<{ name: string; layers: string[] }>> {
  const row = await assets.getAsset(s, id);
  const compiled = await compiledOf(s, row);
  const out: Array<{ name: string; layers: string[] }> = [];
  for (const g of walkLayers(compiled.layers)) {
    if (g.type !== 'Group' || !g.children) continue;
    const layers = [...walkLayers(g.children)].filter((l) => l.smartObject).map((l) => l.name);
    if (layers.length) out.push({ name: g.name, layers });
  }
  return out;
}

export interface LinkSpec {
  artworkLayer: string;
  name?: string;
  path?: string;
}

/** MockupLinks: 2D mockups that name one artwork layer of their source (content shared). */
export async function createMockupLinks(s: AssetScope, id: string, links: LinkSpec[]): Promise<AssetRow[]> {
  const source = await assets.getAsset(s, id);
  if (source.mockupType !== 'Mockup2D') throw new UnprocessableError('Links are made from a 2D mockup.');
  const layers = await artworkLayers(s, id);
  const errors: Record<string, string[]> = {};
  links.forEach((l, i) => {
    if (!layers.some((x) => x.name === l.artworkLayer)) errors[`[${i}].artworkLayer`] = [`The mockup has no artwork layer "${l.artworkLayer}".`];
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const scope = { ...s, owner: source.ownerId };
  const out: AssetRow[] = [];
  for (const l of links) {
    const staged = await stageSame(s, source);
    out.push(
      await assets.createAsset(scope, {
        staged,
        name: l.name ?? `${source.name} - ${l.artworkLayer}`,
        path: l.path,
        mockupType: 'MockupLink',
        linkSourceId: source.id,
        extraMetadata: { artworkLayer: l.artworkLayer },
      }),
    );
  }
  return out;
}

/** A staged copy of an asset's content (derived assets go through the normal create path). */
async function stageSame(s: AssetScope, row: AssetRow): Promise<assets.Staged> {
  return assets.stageBytes(s.t.env.FILES, s.t.tenantId, await contentOf(s, row));
}

export interface DesignParams {
  name?: string;
  path?: string;
  customFields?: Record<string, unknown>;
}

/**
 * A print-product design from a 2D mockup: a surface per artwork layer (its content size in pt at
 * the mockup's ppi), a full print area, one container, and the mockup as preview mockup.
 */
export async function designFromMockup(designs: AssetScope, mockups: AssetScope, mockupId: string, params: DesignParams): Promise<AssetRow> {
  const mockup = await assets.getAsset(mockups, mockupId);
  const compiled = await compiledOf(mockups, mockup);
  const ppi = compiled.resolution || 72;
  const pt = (px: number) => Math.round((px / ppi) * 72 * 1000) / 1000;
  let layers = [...walkLayers(compiled.layers)].filter((l) => l.smartObject);
  if (mockup.mockupType === 'MockupLink') layers = layers.filter((l) => l.name === mockup.metadata.artworkLayer);
  if (!layers.length) throw new UnprocessableError('The mockup has no artwork layer (smart object) to make a surface from.');
  const previewMockups: Array<Record<string, unknown>> = [];
  const surfaces = layers.map((l, i) => {
    const width = pt(l.smartObject!.width);
    const height = pt(l.smartObject!.height);
    previewMockups.push({ surfaceIndex: i, mockupId: mockup.id, ownerId: mockup.ownerId || null, artworkLayer: l.name });
    return {
      name: l.name,
      width,
      height,
      printAreas: [{ name: 'Print area', bounds: { x: 0, y: 0, width, height } }],
      containers: [{ name: 'Design', items: [] }],
      previewMockup: {
        up: { source: { type: 'Storage', id: mockup.id, ...(mockup.ownerId ? { ownerId: mockup.ownerId } : {}) }, x: 0, y: 0, width, height },
        down: null,
      },
    };
  });
  const doc = { version: 1, surfaces };
  const staged = await assets.stageBytes(designs.t.env.FILES, designs.t.tenantId, new TextEncoder().encode(JSON.stringify(doc)));
  return assets.createAsset(designs, {
    staged,
    name: params.name ?? mockup.name,
    path: params.path,
    customFields: params.customFields,
    extraMetadata: { previewMockups },
  });
}

/** A private design copied from a public design or resource (PSD or print-product content). */
export async function privateDesignFrom(
  target: AssetScope,
  source: AssetScope,
  sourceId: string,
  p: { privateDesignId?: string; name?: string; path?: string },
): Promise<AssetRow> {
  const row = await assets.getAsset(source, sourceId);
  const staged = await stageSame(source, row);
  return assets.createAsset(target, { staged, id: p.privateDesignId, name: p.name ?? row.name, path: p.path, customFields: row.customFields });
}

// --- PDF pages -------------------------------------------------------------------------------------

function pageCount(row: AssetRow): number {
  return Number(row.metadata.pages ?? 1) || 1;
}

export function checkPage(row: AssetRow, pageIndex: string): number {
  if (!/^\d{1,4}$/.test(pageIndex)) throw new NotFoundError(`No page ${pageIndex}.`);
  const n = Number(pageIndex);
  if (n >= pageCount(row)) throw new NotFoundError(`The image has ${pageCount(row)} page(s); there is no page index ${n}.`);
  return n;
}

const MAX_PREVIEW_SIDE = 4096;

function previewSide(v: string | undefined, field: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > MAX_PREVIEW_SIDE) throw new ValidationError({ [field]: [`An integer 1–${MAX_PREVIEW_SIDE}.`] });
  return Number(v);
}

/** The stored 2,048 px PNG of a page of a PDF image (drawn first if the asset has none yet). */
export async function pagePng(s: AssetScope, id: string, pageIndex: string): Promise<Uint8Array> {
  const row = await assets.getAsset(s, id);
  const n = checkPage(row, pageIndex);
  if (row.format !== 'pdf') throw new UnprocessableError('Page previews are made of PDF images only.');
  return assets.pdfPagePng(s.t.env.FILES, row, n);
}

/**
 * A page of a PDF image as PNG or JPEG: the page's stored 2,048 px raster (drawn at import),
 * fitted inside `width` × `height` (either alone scales by that side; neither → as stored).
 */
export async function pagePreview(
  s: AssetScope,
  id: string,
  pageIndex: string,
  q: { width?: string; height?: string; format?: string },
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const width = previewSide(q.width, 'width');
  const height = previewSide(q.height, 'height');
  const format = (q.format ?? 'png').toLowerCase();
  if (!['png', 'jpeg', 'jpg'].includes(format)) throw new ValidationError({ format: ['png or jpeg.'] });
  let img = await decodeImage(await pagePng(s, id, pageIndex));
  const scale = Math.min(width ? width / img.width : Infinity, height ? height / img.height : Infinity);
  if (Number.isFinite(scale)) img = await resample(img, Math.max(1, Math.round(img.width * scale)), Math.max(1, Math.round(img.height * scale)));
  if (format === 'png') return { bytes: await encodePng(img), contentType: 'image/png' };
  await flattenOverWhite(img.data);
  return { bytes: await encodeJpeg(img, 90), contentType: 'image/jpeg' };
}

/** A new one-page PDF image `<name>_p<n+1>` in the same folder (pdf-lib copies the page). */
export async function extractPage(s: AssetScope, id: string, pageIndex: string): Promise<AssetRow> {
  const row = await assets.getAsset(s, id);
  const n = checkPage(row, pageIndex);
  if (row.format !== 'pdf') throw new UnprocessableError('Pages can be extracted from PDF images only.');
  const src = await loadUserPdf(await contentOf(s, row), { ignoreEncryption: true, updateMetadata: false }); // bounded: issue 18 item 3
  const out = await PDFDocument.create();
  const [page] = await out.copyPages(src, [n]);
  out.addPage(page!);
  const bytes = await out.save();
  const scope = { ...s, owner: row.ownerId };
  const folder = row.folderId ? await assets.folderById(assets.folderScope(scope), row.folderId) : null;
  const staged = await assets.stageBytes(s.t.env.FILES, s.t.tenantId, bytes);
  return assets.createAsset(scope, { staged, name: `${row.name}_p${n + 1}`, path: folder?.path ?? '/', customFields: row.customFields });
}

// --- embedding ---------------------------------------------------------------------------------------

/**
 * Copies every Storage and Url image source of a print-product design into `p/<t>/embedded/<sha>`
 * and points the source there (`{type: 'Embedded', key}`); fonts stay linked. A PSD design has
 * everything embedded already and is answered as it is.
 */
export async function embedAllLinkedData(s: AssetScope, id: string): Promise<AssetRow> {
  const row = await assets.getAsset(s, id);
  if (row.designType !== 'PrintProduct') return row;
  const model = await printProductOf(s, row);
  const images = { ...s, kind: assets.assetKind('image', false), owner: undefined as string | undefined };
  let changed = 0;
  const visit = async (node: unknown, path: string): Promise<void> => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) await visit(node[i], `${path}[${i}]`);
      return;
    }
    const o = node as Record<string, any>;
    for (const [k, v] of Object.entries(o)) {
      if (k === 'source' && v && typeof v === 'object' && (v.type === 'Storage' || v.type === 'Url')) {
        const bytes = await sourceBytes(s, images, v, `${path}.source`);
        const digest = await sha256Hex(bytes);
        const key = tenantKey(s.t.tenantId, 'embedded', digest);
        if (!(await s.t.env.FILES.head(key))) await s.t.env.FILES.put(key, bytes);
        o[k] = { type: 'Embedded', key };
        changed++;
      } else await visit(v, `${path}.${k}`);
    }
  };
  await visit(model, '$');
  if (!changed) return row;
  const staged = await assets.stageBytes(s.t.env.FILES, s.t.tenantId, new TextEncoder().encode(JSON.stringify(model)));
  return assets.replaceContent({ ...s, owner: row.ownerId }, row.id, staged);
}

async function sourceBytes(s: AssetScope, images: AssetScope, source: Record<string, any>, path: string): Promise<Uint8Array> {
  if (source.type === 'Storage') {
    const owner = source.ownerId as string | undefined;
    const scope = owner ? { ...images, kind: assets.assetKind('image', true), owner } : { ...images, owner: '' };
    const img = await assets.findAsset(scope, String(source.id));
    if (!img) throw new NotFoundError(`The image ${source.id} named at ${path} does not exist.`, { [path]: ['No such image.'] });
    return contentOf(s, img);
  }
  try {
    const res = await outboundFetch(String(source.url), { env: s.t.env, headers: source.headers, timeoutMs: assets.IMPORT_TIMEOUT_MS, maxBytes: assets.LIMITS.image });
    return res.bytes;
  } catch (e) {
    if (e instanceof OutboundError) throw new UnprocessableError(`The image at ${path} could not be fetched: ${e.message}`, { [path]: [e.message] });
    throw e;
  }
}
