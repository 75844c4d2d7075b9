/** ICC rendering intents (ICC.1 §7.2.15), in the order of their numeric codes 0..3. */
export const RENDERING_INTENTS = ['Perceptual', 'RelativeColorimetric', 'Saturation', 'AbsoluteColorimetric'] as const;
export type RenderingIntent = (typeof RENDERING_INTENTS)[number];

/**
 * Interleaved pixel layouts, 8 bits a sample unless suffixed 16 (native-endian 16-bit samples,
 * the bytes of a `Uint16Array`). CMYK is ink (0 = none); `CMYK_INVERTED` is Photoshop's stored
 * form (255 = no ink), read and written without a separate inversion pass.
 */
export type PixelLayout = 'RGB' | 'RGBA' | 'CMYK' | 'CMYK_INVERTED' | 'GRAY' | 'RGB16' | 'RGBA16' | 'CMYK16' | 'GRAY16';

/** A profile's data colour space, as the platform names it (the API's `colorSpace`). */
export type ColourSpace = 'Rgb' | 'Cmyk' | 'Grayscale';

export interface ProfileInfo {
  colorSpace: ColourSpace;
  /** The profile's own description tag (`desc`), e.g. "sRGB IEC61966-2.1". */
  description: string;
  /** Copyright tag (`cprt`) when present. */
  copyright?: string;
  /** Device class: 'mntr' (display), 'prtr' (output), 'scnr', 'spac', 'abst', 'link', 'nmcl'. */
  deviceClass: string;
  /** Profile version, e.g. "2.1" or "4.3". */
  version: string;
  /** The header's rendering intent. */
  renderingIntent: RenderingIntent;
}

export interface TransformOptions {
  /** Source ICC profile bytes. */
  from: Uint8Array;
  /** Destination ICC profile bytes. */
  to: Uint8Array;
  fromLayout: PixelLayout;
  toLayout: PixelLayout;
  /** Default RelativeColorimetric. */
  intent?: RenderingIntent;
  /** Default true (as Photoshop's colour settings). */
  blackPointCompensation?: boolean;
}

export interface ColourTransform {
  /** Converts `pixelCount` pixels from `src` into `dst` (byte views, layouts as built). */
  apply(src: Uint8Array, dst: Uint8Array, pixelCount: number): void;
}
