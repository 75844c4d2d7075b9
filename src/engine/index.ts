/**
 * The PSD engine: compile a template once into R2, render it at any scale (or a strip of rows),
 * describe it as FramesInfo. Free of HTTP; bad templates throw Unprocessable (src/engine/errors.ts).
 *
 * ```ts
 * const compiled = await compileTemplate(env.FILES, psdBytes);      // idempotent by content hash
 * const image = await renderTemplate(env.FILES, compiled, { scale: 0.25 });
 * const info = templateInfo(compiled, true);
 * ```
 */
export { compileTemplate, deleteCompiledTemplate, ENGINE_VERSION, templateHash, templateHasher } from './compiled/compile';
export { bytesSource, r2Source, type PsdSource } from './psd/source';
export { loadCompiledTemplate, loadCompiledTemplateCached, loadStoredComposite } from './compiled/store';
export { renderTemplate, outputSize } from './composite/compositor';
export { flattenOverWhite } from './raster/pixels';
export { BLEND_MODES } from './composite/blend';
export { templateInfo, walkLayers } from './compiled/info';
export { readHeader, MAX_GROUP_DEPTH, MAX_LAYERS, MAX_SIDE } from './psd/parse';
export type * from './types';
