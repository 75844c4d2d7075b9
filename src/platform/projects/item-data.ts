// A project item's data for previews of its designs (the project preview and the back office's
// item previews); the ordered files use the render tasks' own mapping (pipelines/tasks/personalise).
import { walkLayers } from '../../engine/compiled/info';
import { resolveTemplate } from '../../engine/preview';
import { nameWithoutMarkers } from '../../engine/personalise';
import * as assets from '../assets';
import { listVariables, type VariableInfo } from '../../engine/print-product';
import type { StoredDesign } from '../designs/store';
import type { TenantContext } from '../core';
import { assign } from '../pipelines/tasks/personalise';

/**
 * A project item's fields that name something its design can take, as render-preview's
 * variableData: a variable of a print product, a text or image layer (or smart object) of a PSD,
 * matched as the ordered PDF's render tasks match them (exact name, then ignoring case). The
 * rest of an order's fields (paper, a note) are not the design's and are left out, so the
 * render does not refuse them.
 */
export async function itemVariableData(t: TenantContext, d: StoredDesign, fields: Record<string, unknown>): Promise<VariableInfo[]> {
  const given = Object.entries(fields).filter((e): e is [string, string] => typeof e[1] === 'string');
  if (!given.length) return [];
  // Barcode variables take their value as text; an empty one is left as the design has it (it cannot be encoded).
  let kinds: Map<string, 'Text' | 'Image' | 'Barcode'>;
  if (d.model) {
    kinds = new Map(listVariables(d.model).map((v) => [v.name, v.type]));
  } else {
    const { compiled } = await resolveTemplate(new assets.TenantInputStore(t.env, t.tenantId), d.row.id).catch((e) => {
      throw assets.engineError(e);
    });
    kinds = new Map();
    for (const layer of walkLayers(compiled.layers)) {
      const kind = layer.type === 'Text' ? 'Text' : layer.type === 'Image' || layer.type === 'SmartObject' ? 'Image' : undefined;
      if (kind) for (const name of new Set([layer.name, nameWithoutMarkers(layer.name)])) kinds.set(name, kind);
    }
  }
  // Names match as the ordered PDF's do (render tasks): exactly first, then ignoring case.
  return [...assign(Object.fromEntries(given), kinds.keys())]
    .map(([name, { value }]) => ({ name, value: value as string, type: kinds.get(name)! }))
    .filter((v) => v.type === 'Text' || v.value.trim() !== '');
}
