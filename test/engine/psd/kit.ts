/** Small pieces the PSD reader's tests share. */

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
