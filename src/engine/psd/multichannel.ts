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
import type { ChannelInk } from './color-modes';
import { displayInfo, imageResources, inkDisplayRgb, psdLayout } from './spots';

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
