/**
 * Spot channels in the compiled template (issue 20 §2, docs/pdf.md "Spot channels"). Previews
 * show them as Photoshop does: the ink's colour over the image where the channel has ink, at the
 * channel's solidity, 0 % a transparent ink (multiplied with what lies under it), 100 % an opaque
 * one (covering it). With tint k and solidity s, a pixel c becomes
 *
 *   (1 − k)·c + k·((1 − s)·c·ink + s·ink)
 *
 * which two ordinary layers over the stack draw exactly: a Multiply layer of the ink's colour at
 * alpha k(1 − s)/(1 − ks), then a Normal one at alpha ks. So the compositor draws spot channels
 * like any layer (pyramids, strips, scale), and documents without them are unchanged. The layers
 * are listed in `spots` of the compiled tree and left out of the template's information; print
 * PDFs hide them and write each channel as its own separation instead (src/engine/pdf/spots.ts).
 */
import { cmykPercentToSrgb, defaultProfile, readProfileInfo } from '../colour';
import { ColorMode } from '../psd/color-modes';
import { imageResources, inkDisplayRgb, psdLayout, spotRows, type PsdLayout, type SpotChannel, type SpotInk } from '../psd/spots';
import type { Bounds, CompiledTemplate, LayerNode } from '../types';
import { compilerLayer } from './canvas-layer';
import { PyramidWriter } from './pyramid';

export interface CompiledSpot {
  /** The ink's name as in the PSD. */
  name: string;
  /** The channel's plane in the merged image (print PDFs read its tints from the PSD). */
  plane: number;
  ink: SpotInk;
  solidity: number;
  /** Ids of the layers that show it (its Multiply and Normal parts, as far as it has them). */
  layers: number[];
}

/** The compiled tree with its spot channels (kept in tree.json beside the layers). */
export type CompiledWithSpots = CompiledTemplate & { spots?: CompiledSpot[] };

export const spotsOf = (compiled: CompiledTemplate): CompiledSpot[] => (compiled as CompiledWithSpots).spots ?? [];

/** Ids of the layers that only show spot channels. */
export const spotLayerIds = (compiled: CompiledTemplate): Set<number> => new Set(spotsOf(compiled).flatMap((s) => s.layers));

/**
 * Writes the preview layers of `channels` (pixels through `write`, ids from `firstId`) and
 * returns them top first, ready to go over the document's layers, with their descriptions.
 */
export async function spotLayers(
  psd: Uint8Array,
  channels: SpotChannel[],
  firstId: number,
  levels: number,
  write: (id: number, level: number, band: number, data: Uint8Array) => Promise<void>,
): Promise<{ layers: LayerNode[]; spots: CompiledSpot[] }> {
  const layout = psdLayout(psd)!;
  const cmykProfile = documentCmykProfile(layout);
  const layers: LayerNode[] = [];
  const spots: CompiledSpot[] = [];
  let id = firstId;
  for (const channel of channels) {
    const [r, g, b] = inkDisplayRgb(channel.ink, (cmyk) => cmykPercentToSrgb(cmyk, cmykProfile));
    const s = channel.solidity;
    // Alpha of each part for a tint k (0..255); a part that is zero everywhere is left out.
    const parts = [
      { blendMode: 'multiply', alpha: (k: number) => (k * (1 - s)) / (1 - (k / 255) * s || 1) },
      { blendMode: 'normal', alpha: (k: number) => k * s },
    ].filter((p) => p.alpha(255) > 0);
    // Only where the channel has ink (a varnished logo need not cost a full-canvas layer).
    const bounds = inkBounds(layout, channel.plane);
    const nodes = bounds ? parts.map((p) => ({ ...p, id: id++, row: new Uint8Array((bounds.right - bounds.left) * 4) })) : [];
    const writers = nodes.map((n) => new PyramidWriter(bounds!, levels, 4, 0, (k, band, d) => write(n.id, k, band, d)));
    const rows = spotRows(layout, channel.plane);
    for (let y = 0; bounds && y < bounds.bottom; y++) {
      const tints = rows.next();
      if (y < bounds.top) continue;
      for (const [i, n] of nodes.entries()) {
        for (let x = bounds.left, o = 0; x < bounds.right; x++, o += 4) {
          n.row[o] = r;
          n.row[o + 1] = g;
          n.row[o + 2] = b;
          n.row[o + 3] = Math.round(n.alpha(tints[x]));
        }
        await writers[i].push(y, n.row);
      }
    }
    for (const w of writers) await w.finish();
    // Multiply below Normal; the last channel on top (top first, as the tree lists layers).
    for (const n of nodes) {
      // No data key can name it: a spot channel is not a personalisable layer.
      layers.unshift(compilerLayer(n.id, `\u0000spot ${channel.name}`, bounds!, n.blendMode));
    }
    spots.push({ name: channel.name, plane: channel.plane, ink: channel.ink, solidity: s, layers: nodes.map((n) => n.id) });
  }
  return { layers, spots };
}

/** The rectangle of a channel's inked pixels (null: none). */
function inkBounds(layout: PsdLayout, plane: number): Bounds | null {
  const rows = spotRows(layout, plane);
  let box: Bounds | null = null;
  for (let y = 0; y < layout.height; y++) {
    const tints = rows.next();
    let left = 0;
    while (left < layout.width && tints[left] === 0) left++;
    if (left === layout.width) continue;
    let right = layout.width;
    while (tints[right - 1] === 0) right--;
    if (!box) box = { left, top: y, right, bottom: y + 1 };
    else box = { left: Math.min(box.left, left), top: box.top, right: Math.max(box.right, right), bottom: y + 1 };
  }
  return box;
}

/** A CMYK document's own profile for showing CMYK inks (else the default CMYK profile). */
function documentCmykProfile(layout: PsdLayout): Uint8Array {
  if (layout.mode !== ColorMode.CMYK) return defaultProfile('Cmyk');
  const icc = imageResources(layout.resources).get(1039);
  try {
    if (icc && readProfileInfo(icc).colorSpace === 'Cmyk') return icc;
  } catch {
    // unreadable: the default, as for the document's pixels
  }
  return defaultProfile('Cmyk');
}
