import type { LayerEffectsInfo } from 'ag-psd';

/**
 * A black → white linear gradient overlay at `angle`, "Align with Layer", opaque throughout
 * (smoothness 100 %: ag-psd reads 0 % back with its stops at NaN and Infinity). Shared by the
 * tests of where a gradient's ramp sits (gradient-ends, compiled/alpha-box).
 */
export function blackToWhiteOverlay(angle: number): LayerEffectsInfo {
  return {
    gradientOverlay: [
      {
        enabled: true,
        present: true,
        blendMode: 'normal',
        opacity: 1,
        gradient: {
          type: 'solid',
          name: 'ramp',
          smoothness: 1,
          colorStops: [0, 1].map((location) => ({ color: { r: 255 * location, g: 255 * location, b: 255 * location }, location, midpoint: 0.5 })),
          opacityStops: [0, 1].map((location) => ({ opacity: 1, location, midpoint: 0.5 })),
        },
        angle,
        type: 'linear',
        align: true,
        scale: 1,
        offset: { x: 0, y: 0 },
      },
    ],
  };
}
