/**
 * The PrintProduct design model of the design-atoms API, free of HTTP and storage: schema and
 * validator, variables, SVG/raster previews (resvg) and print PDFs (pdf-lib). docs/design-atoms.md
 * describes the model and the rendering rules.
 *
 * @example
 *   const model = await parseModel(json, { fontExists: async (n) => !!(await loadFont(n)) });
 *   const preview = await renderPreview(model, { fonts: loadFont, images: resolveImage, width: 800, height: 800, stub: true });
 *   const pdf = await renderPdf(model, { fonts: loadFont, images: resolveImage, textMode: 'Outlines' });
 */
export {
  Color,
  Container,
  Item,
  MODEL_LIMITS,
  MODEL_VERSION,
  PrintArea,
  PrintProduct,
  Source,
  Surface,
  resolveColor,
  walkItems,
  type ContainerModel,
  type ItemModel,
  type PrintAreaModel,
  type PrintProductModel,
  type ResolvedColor,
  type SourceModel,
  type SurfaceModel,
  type TextModel,
  type ImageModel,
} from './schema';
export { ModelValidationError, jsonPath, parseModel, validateModel, type ModelErrors, type ValidateOptions, type ValidationResult } from './validate';
export { applyItemsData, applyVariableData, listVariables, sourceFromValue, type VariableEntry, type VariableInfo } from './variables';
export {
  fitSize,
  printAreaStroke,
  renderPreview,
  renderPreviewPixels,
  surfaceSvg,
  type FontLookup,
  type ImageLookup,
  type Preview,
  type PreviewOptions,
  type ResolvedImage,
  type SurfaceSvg,
  type SurfaceSvgOptions,
} from './svg';
export { MAX_PDF_BYTES, PdfTooLargeError, pagePlan, renderPdf, type PdfOptions, type PdfResult } from './pdf';
export { layoutItemText, shrinkFloor, SHRINK_MIN, SHRINK_STEP, type TextLayout } from './text';
export { DEFAULT_RESOLUTION, itemLabel, trimAreas, type ResolutionThresholds } from './problems';
export { preflightModel, type PreflightOptions } from './preflight';
