/** Small pieces the PSD reader's tests share. */
import { writePsdUint8Array, type Layer } from 'ag-psd';

/** An opaque black-to-white gradient as ag-psd writes an effect's stops. */
export const blackToWhite = {
  colorStops: [
    { color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 },
    { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 },
  ],
  opacityStops: [
    { opacity: 1, location: 0, midpoint: 0.5 },
    { opacity: 1, location: 1, midpoint: 0.5 },
  ],
};

/**
 * A 4 × 1 document, a red layer over white with a white pixel mask carrying `params` (mask
 * parameters: densities, feathers) and a vector mask over its left half: the layout of psd-tools'
 * mask-parameters-no-real-channel.psd (#693) when no real mask (-3) is given in `extra`.
 */
export const MASKED_WIDTH = 4;
const maskedWhite = { width: MASKED_WIDTH, height: 1, data: new Uint8ClampedArray(MASKED_WIDTH * 4).fill(255) };
export function maskedRow(params: object, extra: Partial<Layer> = {}): Uint8Array {
  const W = MASKED_WIDTH;
  const red = { width: W, height: 1, data: Uint8ClampedArray.from({ length: W * 4 }, (_, i) => [255, 0, 0, 255][i % 4]) };
  const knots = [[0, 0], [2, 0], [2, 1], [0, 1]].map(([x, y]) => ({ linked: true, points: [x, y, x, y, x, y] }));
  return writePsdUint8Array({
    width: W,
    height: 1,
    children: [
      { name: 'Background', left: 0, top: 0, imageData: maskedWhite },
      {
        name: 'heart',
        left: 0,
        top: 0,
        imageData: red,
        mask: { left: 0, top: 0, right: W, bottom: 1, defaultColor: 255, imageData: maskedWhite, ...params },
        vectorMask: { paths: [{ open: false, operation: 'combine', fillRule: 'even-odd', knots }] },
        ...extra,
      } as Layer,
    ],
  });
}
