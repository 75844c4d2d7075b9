/**
 * Fonts: names from the sfnt name table (for the store's listing), lookup of stored fonts by
 * PostScript name with an isolate-wide byte cache, substitution of missing fonts, and metrics
 * for line breaking.
 *
 * @example
 *   const catalog = new FontCatalog();
 *   for (const key of storedFontKeys) catalog.add(key, readFontInfo(await read(key)));
 *   const loadFont = fontLoader(catalog, read);   // → buildOverrides(…, { loadFont, … })
 */
export { readFontInfo, type FontInfo } from './font-info';
export { FontCache, FontCatalog, fontLoader, type CatalogEntry } from './catalog';
export { resolveFont, substitutesFor, type ResolvedFont } from './substitution';
export { fontMetrics, type FontMetrics } from './metrics';
export { fallbackFontNames } from './fallback';
export { shapedMetrics, shapeText, type ShapedRun, type ShapedGlyph } from './shaper';
