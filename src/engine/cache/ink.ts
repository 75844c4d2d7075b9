/**
 * Where a drawn raster is not transparent, found while it was made (issue 25 §3): a personalised
 * text's pixels pass through the kernels' memory once to be unpremultiplied, and the same visit
 * finds their ink box (wasm/assembly/kernels.ts inkBox), which composite/dirty.ts `inkOf` would
 * otherwise find again by a JavaScript scan of every pixel (~0.3 ms a poster headline in
 * workerd). Keyed by the pixel array itself, for as long as it lives; the arrays recorded are not
 * written after they are made (overrides' pixels are read by the compositor, never changed).
 */
import type { Bounds } from '../types';

const inks = new WeakMap<object, { width: number; height: number; ink: Bounds | null }>();

/** Records the ink of `data` (`width` × `height` RGBA pixels) in its own pixels; null: wholly transparent. */
export function rememberInk(data: ArrayBufferView, width: number, height: number, ink: Bounds | null): void {
  inks.set(data, { width, height, ink });
}

/** The ink recorded for `data` of that size (its own pixels; null: none), or undefined when none was recorded. */
export function knownInk(data: ArrayBufferView, width: number, height: number): Bounds | null | undefined {
  const known = inks.get(data);
  return known && known.width === width && known.height === height ? known.ink : undefined;
}
