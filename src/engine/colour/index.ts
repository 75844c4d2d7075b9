/**
 * Colour management: ICC transforms by LittleCMS (lcms2 compiled to WebAssembly, the
 * `lcms-wasm` package), loaded on first use so the Worker's start-up does not grow.
 *
 * ```ts
 * const toCmyk = await colourTransform({ from: defaultProfile('Rgb'), to: defaultProfile('Cmyk'), fromLayout: 'RGBA', toLayout: 'CMYK' });
 * for (let y = 0; y < height; y++) toCmyk.apply(rgbaRow, cmykRow, width); // a row (or a strip) at a time
 * ```
 *
 * Conventions (read before calling):
 * - Samples are 8 bits (`*16` layouts: 16-bit, native-endian `Uint16Array` viewed as bytes).
 * - CMYK is ink: 0 = no ink, 255 = full ink. Photoshop stores CMYK channels inverted
 *   (255 = no ink); invert (`255 - v`) before `apply`, or use the `CMYK_INVERTED` layout.
 * - `RGBA` → `CMYK` drops the alpha; `CMYK`/`RGB` → `RGBA` writes alpha 255; `RGBA` → `RGBA`
 *   copies the alpha through. Premultiplied data must be un-premultiplied first.
 * - Default intent: relative colorimetric with black-point compensation (Photoshop's default).
 * - Transforms are cached per isolate (bounded LRU) by (profile bytes, layouts, intent, BPC):
 *   asking again for the same pair is cheap. `apply` is synchronous and allocation-free per call
 *   (beyond growing its scratch buffer once); call it a row or a strip at a time.
 */
export type { RenderingIntent, PixelLayout, ColourSpace, ProfileInfo, ColourTransform, TransformOptions } from './types';
export { RENDERING_INTENTS } from './types';
export { colourTransform, colourTransformSync } from './transform';
export { defaultProfile } from './defaults';
export { cmykPercentToSrgb } from './colours';
export { readProfileInfo, InvalidProfile } from './profile';
