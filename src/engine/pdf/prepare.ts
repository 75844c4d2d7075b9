/**
 * From a print request to a PDF page source, free of HTTP. The template, the inputs `data` names
 * and the personalisation overrides are resolved exactly as for previews (src/engine/render-request.ts),
 * then the page is rendered at scale 1 in strips instead of being downscaled and encoded.
 *
 * `prepareHires` validates and fingerprints (so callers can consult the result cache and fail a
 * multipage request before anything is written); `load()` builds the overrides and the strip
 * renderer when the page's turn comes.
 */
import type { InputStore } from '../inputs';
import { sha256Hex } from '../hash';
import { dirtyBounds } from '../composite/dirty';
import { renderTemplate } from '../index';
import { buildOverrides, type PersonalisationData } from '../personalise';
import { canonicalJson } from '../hash';
import { requestFingerprint, resolveRequest, type RenderDeps, type ResolvedTemplate } from '../render-request';
import { srgbProfile } from '../raster/icc';
import type { CompiledTemplate, LayerOverrides } from '../types';
import type { PdfPage, PdfVectorLayer } from './document';
import { shapeLayer, svgOutlines, vectorCandidates } from './vector';
import { hiddenLayersKey, noBackdrops, persistedBackdrops, templateStrips } from './strip-cache';
import { PDF_WRITER_VERSION } from './version';

export { PDF_WRITER_VERSION };

/**
 * `outlines` (the spec's PdfTextOutputMode default): vector text as glyph outlines;
 * `text`: embedded font subsets where the font's licence (OS/2 fsType) allows.
 */
export type TextOutputMode = 'outlines' | 'text';

export interface HiresOptions {
  template: string;
  data?: PersonalisationData;
  preloadImages?: boolean;
  textOutputMode?: TextOutputMode;
}

export interface PreparedPdfPage {
  /** SHA-256 of the canonical request, the inputs' content hashes and the engine/writer versions. */
  fingerprint: string;
  template: ResolvedTemplate;
  load(): Promise<PdfPage>;
}

export async function prepareHires(store: InputStore, options: HiresOptions, deps: RenderDeps): Promise<PreparedPdfPage> {
  const request = await resolveRequest(store, options, deps);
  const { template, data, gathered } = request;
  const { compiled } = template;
  const fingerprint = await requestFingerprint('hires', request, {
    pdf: PDF_WRITER_VERSION,
    textOutputMode: options.textOutputMode ?? 'outlines',
  });

  return {
    fingerprint,
    template,
    async load() {
      const scale = 1;
      const overrides = data && gathered ? await buildOverrides(compiled.layers, data, { ...gathered.context, scale }) : undefined;
      const { raster, vectors } = splitVectors(compiled, overrides ?? new Map(), options.textOutputMode ?? 'outlines');
      // Stored strips are the template with its always-vector shapes hidden; the strips here are
      // rendered with `raster`: rows where the two cannot differ are taken from the store.
      const base = templateVectorBase(compiled);
      const dirty = dirtyBounds(compiled, raster, scale, base.hidden);
      const strips = templateStrips(store.bucket, compiled, dirty && { top: dirty.top, bottom: dirty.bottom }, await base.key);
      const backdrops = persistedBackdrops(store.bucket);
      const icc = compiled.iccKey ? await store.bucket.get(compiled.iccKey) : null;
      return {
        width: compiled.width,
        height: compiled.height,
        resolution: compiled.resolution || 72,
        icc: icc ? new Uint8Array(await icc.arrayBuffer()) : srgbProfile(),
        vectors,
        strips,
        // A clean strip is drawn as the template alone (its stored base), not with this request's
        // overrides: it is stored for every later PDF, so no request's data can ever reach it.
        renderRows: (top, bottom, fresh) =>
          renderTemplate(store.bucket, compiled, {
            scale,
            overrides: fresh || strips.dirty(top, bottom) ? raster : base.hidden,
            region: { top, bottom },
            background: 'transparent',
            backdrops: fresh || !strips.dirty(top, bottom) ? noBackdrops : backdrops,
          }),
      };
    },
  };
}

/**
 * Layers drawn as vector (docs/pdf.md) and the overrides for the raster strips, which then leave
 * those layers out. Outlines always; in `text` mode also selectable text in an embedded subset.
 */
function splitVectors(
  compiled: CompiledTemplate,
  overrides: LayerOverrides,
  mode: TextOutputMode,
): { raster: LayerOverrides; vectors: PdfVectorLayer[] } {
  const raster = new Map(overrides);
  const vectors: PdfVectorLayer[] = [];
  for (const candidate of vectorCandidates(compiled.layers, overrides, canvasOf(compiled))) {
    const layer = candidate.kind === 'text' ? svgOutlines(candidate.override.vector, candidate.override.bounds!, mode) : shapeLayer(candidate);
    if (!layer) continue;
    vectors.push(layer);
    // A hidden shape draws nothing whatever its colour: hidden alone, it matches the stored
    // strips' base (a recoloured always-vector shape leaves its rows clean).
    raster.set(candidate.node.id, candidate.kind === 'shape' ? { visible: false } : { ...candidate.override, visible: false });
  }
  return { raster, vectors };
}

const canvasOf = (c: CompiledTemplate) => ({ left: 0, top: 0, right: c.width, bottom: c.height });

/**
 * The shapes a PDF of the template draws as vector when the request changes nothing: hidden in
 * the stored strips (a request that draws one of them in the raster after all, e.g. because a
 * layer it shows now covers it, finds those rows dirty). Per compiled template.
 */
const vectorBases = new Map<string, { hidden: LayerOverrides; key: Promise<string> }>();
function templateVectorBase(compiled: CompiledTemplate): { hidden: LayerOverrides; key: Promise<string> } {
  let base = vectorBases.get(compiled.hash);
  if (!base) {
    const ids = vectorCandidates(compiled.layers, new Map(), canvasOf(compiled)).map((c) => c.node.id);
    base = { hidden: new Map(ids.map((id) => [id, { visible: false }])), key: hiddenLayersKey(ids) };
    if (vectorBases.size >= 64) vectorBases.delete(vectorBases.keys().next().value!);
    vectorBases.set(compiled.hash, base);
  }
  return base;
}

/** Fingerprint of a document made of several pages (combined multipage PDF). */
export async function documentFingerprint(pages: PreparedPdfPage[]): Promise<string> {
  return sha256Hex(canonicalJson({ kind: 'hires-document', pages: pages.map((p) => p.fingerprint) }));
}
