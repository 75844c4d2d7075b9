/**
 * From a print request to a PDF page source, free of HTTP. The template, the inputs `data` names
 * and the personalisation overrides are resolved exactly as for previews (src/engine/pipeline),
 * then the page is rendered at scale 1 in strips instead of being downscaled and encoded.
 *
 * `prepareHires` validates and fingerprints (so callers can consult the result cache and fail a
 * multipage request before anything is written); `load()` builds the overrides and the strip
 * renderer when the page's turn comes.
 */
import type { FileStore } from '../../storage/files';
import { sha256Hex } from '../../storage/files';
import { dirtyBounds } from '../composite/dirty';
import { renderTemplate } from '../index';
import { buildOverrides, type PersonalisationData } from '../personalise';
import { canonicalJson, requestFingerprint, resolveRequest, type PipelineDeps, type ResolvedTemplate } from '../pipeline';
import { srgbProfile } from '../raster/icc';
import type { CompiledTemplate, LayerOverrides } from '../types';
import type { PdfPage, PdfVectorLayer } from './document';
import { svgOutlines, vectorCandidates } from './vector';
import { noBackdrops, persistedBackdrops, templateStrips } from './strip-cache';
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

export async function prepareHires(store: FileStore, options: HiresOptions, deps: PipelineDeps): Promise<PreparedPdfPage> {
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
      const { raster, vectors } = splitVectors(compiled, overrides, options.textOutputMode ?? 'outlines');
      // The strips are rendered with `raster`: rows it cannot reach are the template's own.
      const dirty = raster ? dirtyBounds(compiled, raster, scale) : null;
      const strips = templateStrips(store.bucket, compiled, dirty && { top: dirty.top, bottom: dirty.bottom });
      const backdrops = persistedBackdrops(store.bucket);
      const icc = compiled.iccKey ? await store.bucket.get(compiled.iccKey) : null;
      return {
        width: compiled.width,
        height: compiled.height,
        resolution: compiled.resolution || 72,
        icc: icc ? new Uint8Array(await icc.arrayBuffer()) : srgbProfile(),
        vectors,
        strips,
        renderRows: (top, bottom, fresh) =>
          renderTemplate(store.bucket, compiled, {
            scale,
            overrides: raster,
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
  overrides: LayerOverrides | undefined,
  mode: TextOutputMode,
): { raster?: LayerOverrides; vectors: PdfVectorLayer[] } {
  if (!overrides) return { raster: overrides, vectors: [] };
  const canvas = { left: 0, top: 0, right: compiled.width, bottom: compiled.height };
  const raster = new Map(overrides);
  const vectors: PdfVectorLayer[] = [];
  for (const { node, override } of vectorCandidates(compiled.layers, overrides, canvas)) {
    const layer = svgOutlines(override.vector, override.bounds!, mode);
    if (!layer) continue;
    vectors.push(layer);
    raster.set(node.id, { ...override, visible: false });
  }
  return { raster, vectors };
}

/** Fingerprint of a document made of several pages (combined multipage PDF). */
export async function documentFingerprint(pages: PreparedPdfPage[]): Promise<string> {
  return sha256Hex(canonicalJson({ kind: 'hires-document', pages: pages.map((p) => p.fingerprint) }));
}
