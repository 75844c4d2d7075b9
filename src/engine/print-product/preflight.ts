/**
 * Preflight of a print-product design without drawing (issue 21): variable data applied as a
 * render applies it, text laid out by the renderers' own layout (text.ts, cached per isolate, so a
 * preview after a preflight does not lay out again), images resolved for their natural size only,
 * and the checks of problems.ts. Every surface unless `surfaceIndex`, as the print PDF has them.
 *
 * @example
 *   const report = await preflightModel(model, { fonts, images, variableData });   // {ok, problems}
 */
import { preflightReport, type PreflightProblem, type PreflightReport } from '../preflight/report';
import { barcodeProblems, emptyFields, imageProblems, textProblems, type ResolutionThresholds } from './problems';
import type { ItemModel, PrintProductModel, SurfaceModel } from './schema';
import { placeImage, prepareModel, type FontLookup, type ImageLookup } from './svg';
import { layoutItemText } from './text';
import { ModelValidationError } from './validate';
import type { VariableInfo } from './variables';

export interface PreflightOptions {
  fonts: FontLookup;
  images: ImageLookup;
  variableData?: VariableInfo[];
  /** One surface; absent: every surface. */
  surfaceIndex?: number;
  resolution?: ResolutionThresholds;
}

/** The problems of a design as its print PDF would have them (malformed variable data: 400, as renders). */
export async function preflightModel(model: PrintProductModel, opts: PreflightOptions): Promise<PreflightReport> {
  const prepared = prepareModel(model, { surfaceIndex: opts.surfaceIndex ?? 0, variableData: opts.variableData, enforceRequired: false });
  const surfaces = opts.surfaceIndex === undefined ? prepared.model.surfaces.map((s, i) => [s, i] as const) : [[prepared.surface, prepared.index] as const];
  const fonts = new Map<string, Promise<Uint8Array | null | undefined>>();
  const checks: Array<Promise<PreflightProblem[]>> = [];
  for (const [surface, s] of surfaces) {
    checks.push(Promise.resolve(emptyFields(surface)));
    for (const [c, container] of surface.containers.entries()) {
      if (!container.visible) continue;
      container.items.forEach((item, i) => checks.push(...itemChecks(item, `surfaces[${s}].containers[${c}].items[${i}]`, surface, [], fonts, opts)));
    }
  }
  return preflightReport((await Promise.all(checks)).flat());
}

function itemChecks(
  item: ItemModel,
  path: string,
  surface: SurfaceModel,
  parents: ItemModel[],
  fonts: Map<string, Promise<Uint8Array | null | undefined>>,
  opts: PreflightOptions,
): Array<Promise<PreflightProblem[]>> {
  if (!item.visible) return [];
  switch (item.type) {
    case 'Text': {
      if (!item.text.trim()) return [];
      const name = item.font.postscriptName;
      if (!fonts.has(name)) fonts.set(name, opts.fonts(name));
      return [
        fonts.get(name)!.then((font) => {
          if (!font) throw new ModelValidationError({ [`${path}.font.postscriptName`]: [`unknown font "${name}"`] });
          return textProblems(item, item.text, layoutItemText(item, item.text, font), surface, parents);
        }),
      ];
    }
    case 'Image': {
      if (!item.source) return [];
      return [
        opts.images(item.source, { item, pageIndex: item.pageIndex }).then((img) =>
          img ? imageProblems(item, img, placeImage(item, img.width, img.height, item.fitMode), opts.resolution) : [],
        ),
      ];
    }
    case 'Barcode':
      return [Promise.resolve(barcodeProblems(item, surface, parents))];
    case 'Group':
      return item.items.flatMap((child, i) => itemChecks(child, `${path}.items[${i}]`, surface, [...parents, item], fonts, opts));
    default:
      return [];
  }
}
