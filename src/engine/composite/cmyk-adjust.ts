import type { AdjustmentLayer } from 'ag-psd';
import { colourTransformSync, defaultProfile } from '../colour';
import { cmykChannelLuts, type AdjustmentInCmyk } from './adjust';
import { encodeLut, type CompiledColorLookup } from './color-lookup';

/**
 * Adjustment layers of a CMYK document, applied as Photoshop applies them: on the C, M, Y and K
 * channels (their stored values, 255 = no ink, the values the Levels and Curves dialogs show as
 * channel levels), not on the RGB the compiled form holds. The compositor works in RGB, so at
 * compile time the whole step, RGB → the document's CMYK (its profile, relative colorimetric with
 * black-point compensation) → the adjustment on each ink → back to RGB, is sampled on a grid and
 * kept on the adjustment as a 3D lookup table (`inCmyk`, the colour lookup's compiled form), which
 * applyAdjustment applies in place of the RGB arithmetic. Nothing is converted at render time.
 *
 * What is modelled per ink (cmykChannelLuts): Invert, Levels and Curves (the composite record on
 * all four inks, after each ink's own: C, M, Y as ag-psd reads them, K's from the bytes when
 * psd/records.ts has read it), Posterize and Brightness/Contrast. Other kinds keep the RGB arithmetic.
 * Channel restrictions on such a layer in Normal mode leave the excluded inks as they were, which
 * the table holds too (the restriction is then dropped from the node and kept as `excludedInks`,
 * for the ink compositor, which applies the per-ink tables to the layers' own inks instead).
 *
 * The backdrop reaches the table as RGB, so its inks are the profile's separation of that colour
 * (its own black generation), not necessarily the inks the layers were drawn with: artwork
 * converted to CMYK by the profile comes out close to Photoshop; inks picked with another black
 * as far as that black differs (docs/colour.md gives the figures).
 */

/** Grid points per axis: 17³ nodes (~39 KB of base64 in the tree), interpolated trilinearly. */
const GRID = 17;

/**
 * The adjustment with its CMYK table, or unchanged (with `excludedChannels` returned as given)
 * when its kind is not modelled in CMYK. `profile` is the document's usable CMYK profile.
 */
export function adjustmentInCmyk(adj: AdjustmentLayer, profile: Uint8Array, excluded?: number[]): { adjustment: AdjustmentLayer; excludedChannels?: number[] } {
  const luts = cmykChannelLuts(adj);
  if (!luts) return { adjustment: adj, excludedChannels: excluded };
  const excludedInks = (excluded ?? []).filter((c) => c >= 0 && c < 4);
  for (const c of excludedInks) luts[c] = null;
  const table = cmykTable(luts, profile);
  const inCmyk: CompiledColorLookup = { type: 'color lookup', lut: table };
  const adjustment: AdjustmentInCmyk = { ...adj, inCmyk, excludedInks };
  return { adjustment };
}

/** The RGB → CMYK → per-ink tables → RGB step sampled on the grid (red fastest), as a compiled LUT. */
function cmykTable(luts: Array<Uint8Array | null>, profile: Uint8Array): NonNullable<CompiledColorLookup['lut']> {
  const count = GRID * GRID * GRID;
  const rgb = new Uint8Array(count * 3);
  for (let b = 0, i = 0; b < GRID; b++) {
    for (let g = 0; g < GRID; g++) {
      for (let r = 0; r < GRID; r++, i += 3) {
        rgb[i] = Math.round((r * 255) / (GRID - 1));
        rgb[i + 1] = Math.round((g * 255) / (GRID - 1));
        rgb[i + 2] = Math.round((b * 255) / (GRID - 1));
      }
    }
  }
  const srgb = defaultProfile('Rgb');
  const cmyk = new Uint8Array(count * 4);
  colourTransformSync({ from: srgb, to: profile, fromLayout: 'RGB', toLayout: 'CMYK_INVERTED' }).apply(rgb, cmyk, count);
  for (let i = 0; i < cmyk.length; i += 4) {
    for (let c = 0; c < 4; c++) {
      const t = luts[c];
      if (t) cmyk[i + c] = t[cmyk[i + c]];
    }
  }
  colourTransformSync({ from: profile, to: srgb, fromLayout: 'CMYK_INVERTED', toLayout: 'RGB' }).apply(cmyk, rgb, count);
  const nodes = new Float32Array(count * 3);
  for (let i = 0; i < nodes.length; i++) nodes[i] = rgb[i] / 255;
  const identity: [number[], number[]] = [[0, 1], [0, 1]];
  return encodeLut({ dims: 3, size: GRID, shaper: [identity, identity, identity], nodes });
}
