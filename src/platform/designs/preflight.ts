/**
 * Preflight of a design (issue 21), free of HTTP: what its print output would have wrong, in the
 * one problem shape (src/engine/preflight/report.ts), without rendering pixels. Print-product
 * designs through the model's checks (src/engine/print-product/preflight.ts: the renderers' own
 * text layout, images resolved for their size only); PSD designs through the rendering engine's
 * preflightPreview with the same template, store and `variableData` → `data` mapping as their
 * render-preview. Errors are the renders' own: malformed variable data a 400, an engine refusal
 * a 4xx (assets.engineError), an unknown design a 404.
 *
 * @example
 *   const report = await preflightDesign(t, { designId, variableData: [{ name: 'Name', value: 'Ada' }] });
 *   // {ok: false, problems: [{layer: 'Name', code: 'textOverflow', severity: 'error', message, details}]}
 */
import { preflightPreview } from '../../engine/preview';
import type { PreflightReport } from '../../engine/preflight/report';
import { preflightModel, type VariableInfo } from '../../engine/print-product';
import * as assets from '../assets';
import type { TenantContext } from '../core';
import { fromPrintProduct, psdInputs, psdPreviewOptions } from './outputs';
import { fontsOf, imageLookup } from './resolve';
import { loadDesign } from './store';

export interface DesignPreflightRequest {
  designId: string;
  /** The private owner of the design (as the render routes take it). */
  ownerId?: string;
  variableData?: VariableInfo[];
}

/** The design's preflight report `{ok, problems}` (every surface of a print product). */
export async function preflightDesign(t: TenantContext, req: DesignPreflightRequest): Promise<PreflightReport> {
  // The tenant's font lookup loads beside the design, as for a render.
  const fontLookup = fontsOf(t, { cached: true });
  fontLookup.catch(() => {});
  const d = await loadDesign(t, req.designId, req.ownerId, 'designId');
  if (!d.model) {
    try {
      const { store, deps } = psdInputs(t);
      return await preflightPreview(store, psdPreviewOptions(d, {}, req.variableData, 800), deps);
    } catch (e) {
      throw assets.engineError(e);
    }
  }
  const { fonts } = await fontLookup;
  const model = d.model;
  return fromPrintProduct(() => preflightModel(model, { fonts, images: imageLookup(t, { cachedRows: true }), variableData: req.variableData }));
}
