/**
 * Personalisation: a render request's `data` → layer overrides for the compositor.
 *
 * @example
 *   const refs = imageReferences(data);                 // prefetch concurrently
 *   const overrides = await buildOverrides(tree, data, { scale, loadFont, loadImage });
 */
export { buildOverrides, drawDeferred, imageReferences, placementQuad, releaseOverrides, validateData, type LoadedPicture, type PersonaliseContext } from './overrides';
export { PersonalisationDataSchema, DataCommandSchema, normaliseCommand, type DataCommand, type PersonalisationData } from './commands';
export { parseColor, type RGBA } from './color';
export { resvgReady } from './resvg';
export { placementFromLayer, textInfoFromLayer } from './layer-info';
export { commandFor, layerMarkers, nameWithoutMarkers, type LayerMarkers, type TextFit } from './markers';
