/**
 * Multichannel documents (mode 7): Photoshop keeps no layers in them and no colour channels; each
 * channel is an ink, stored as a spot channel is (0 = full ink, 255 = none), named by image
 * resource 1045/1006 and shown in the colour and solidity of its DisplayInfo (1077/1007). We show
 * them the way spot channels are previewed (compiled/spots.ts): over white paper, one channel
 * after the other, a pixel c with tint k of an ink of colour i and solidity s becomes
 *
 *   (1 − k)·c + k·((1 − s)·c·i + s·i)
 *
 * Converting to Multichannel makes the colour channels spot channels (Adobe's help, "Multichannel
 * mode"); an alpha channel (DisplayInfo kind 0 or 1) stays one and, hidden as Photoshop shows it
 * by default, is not drawn. A channel without DisplayInfo, or whose colour is unusable (a colour
 * book without an alternate), is black ink.
 */
import { cmykPercentToSrgb } from '../colour';
import { displayInfo, imageResources, inkDisplayRgb, psdLayout } from './spots';

export interface ChannelInk {
  /** The ink's sRGB colour, 0..1. */
  rgb: [number, number, number];
  /** 0..1: 0 overprints (multiplies), 1 covers. */
  solidity: number;
}

/** Each channel's ink, in channel order (one per channel of the header; null: an alpha channel, not drawn). */
export function multichannelInks(psd: Uint8Array): (ChannelInk | null)[] {
  const layout = psdLayout(psd);
  if (!layout) return [];
  const infos = displayInfo(imageResources(layout.resources));
  return Array.from({ length: layout.channels }, (_, i) => {
    const info = infos[i];
    if (info && info.kind !== 2) return null;
    if (!info?.ink) return { rgb: [0, 0, 0], solidity: info?.solidity ?? 0 };
    const rgb = inkDisplayRgb(info.ink, (cmyk) => cmykPercentToSrgb(cmyk));
    return { rgb: rgb.map((v) => v / 255) as [number, number, number], solidity: info.solidity };
  });
}

/** One RGBA row (opaque) from the channels' stored rows (255 = no ink) and their inks. */
export function inksToRgba(rows: Uint8Array[], inks: (ChannelInk | null)[], out: Uint8Array, width: number): void {
  for (let x = 0, o = 0; x < width; x++, o += 4) {
    let r = 1;
    let g = 1;
    let b = 1;
    for (let c = 0; c < rows.length; c++) {
      const k = 1 - rows[c][x] / 255;
      const ink = inks[c] === undefined ? BLACK : inks[c];
      if (k === 0 || !ink) continue;
      const { rgb, solidity: s } = ink;
      r = (1 - k) * r + k * ((1 - s) * r * rgb[0] + s * rgb[0]);
      g = (1 - k) * g + k * ((1 - s) * g * rgb[1] + s * rgb[1]);
      b = (1 - k) * b + k * ((1 - s) * b * rgb[2] + s * rgb[2]);
    }
    out[o] = Math.round(r * 255);
    out[o + 1] = Math.round(g * 255);
    out[o + 2] = Math.round(b * 255);
    out[o + 3] = 255;
  }
}

const BLACK: ChannelInk = { rgb: [0, 0, 0], solidity: 0 };
