/** What the Hue/Saturation kernel's tests share: settings as ag-psd reads them, and the kernel held to the TypeScript. */
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { adjustedByTypescript } from './kit';

export type HueSatRange = { a: number; b: number; c: number; d: number; hue: number; saturation: number; lightness: number };
export type HueSatSetting = { master: { hue: number; saturation: number; lightness: number } } & Partial<Record<'reds' | 'yellows' | 'greens' | 'cyans' | 'blues' | 'magentas', HueSatRange>>;

/** The adjustment record of a setting (the master's range ends are 0). */
export const hueSatAdjustment = (s: HueSatSetting) => ({ type: 'hue/saturation', ...s, master: { a: 0, b: 0, c: 0, d: 0, ...s.master } });

/** Bytes where the kernel and the TypeScript disagree on `px` under `setting`. */
export function differing(setting: HueSatSetting, px: Uint8ClampedArray): number {
  const adj = hueSatAdjustment(setting);
  const actual = px.slice();
  applyAdjustment(adj as never, actual);
  const expected = adjustedByTypescript(adj, px);
  let n = 0;
  for (let i = 0; i < px.length; i++) if (actual[i] !== expected[i]) n++;
  return n;
}

/** n random RGBA pixels (alpha random too) from `rnd`. */
export function randomColours(n: number, rnd: () => number): Uint8ClampedArray {
  const px = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < px.length; i++) px[i] = Math.floor(rnd() * 256);
  return px;
}
