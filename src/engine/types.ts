/**
 * The engine's public shapes, shared by the compositor (src/engine/composite, src/engine/psd),
 * personalisation (src/engine/personalise) and the HTTP layers (src/rendering, PDFs).
 * The engine knows nothing of HTTP.
 */

/** 8-bit RGBA, straight (non-premultiplied) alpha, row-major. */
export interface RGBAImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

export interface Bounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** FramesInfo layer types (rendering contract: Image, Text, Shape, SmartObject, Group, Adjustment). */
export type LayerType = 'Image' | 'Text' | 'Shape' | 'SmartObject' | 'Group' | 'Adjustment';

/** Text settings read from the PSD, enough to re-render a text layer. Units: template pixels. */
export interface TextInfo {
  text: string;
  /** PostScript name of the first run's font. */
  font: string;
  size: number;
  /** '#rrggbb' */
  color: string;
  tracking?: number;
  leading?: number;
  alignment?: 'left' | 'center' | 'right' | 'justify';
  /** Point text has no box; box (paragraph) text wraps and clips to `box` (template pixels). */
  box?: Bounds;
  /** The text's affine transform [xx, xy, yx, yy, tx, ty] from the PSD. */
  transform?: number[];
  /** Per-run styles when the layer mixes fonts, sizes or colours. */
  runs?: Array<{ length: number; font: string; size: number; color: string }>;
  warped?: boolean;
}

export interface SmartObjectPlacement {
  /** Four corners in template pixels, clockwise from top-left: [x0,y0, x1,y1, x2,y2, x3,y3]. */
  corners: number[];
  /** Size of the embedded content in its own pixels. */
  width: number;
  height: number;
}

/** One node of the compiled layer tree, top first (Photoshop's panel order). */
export interface LayerNode {
  /** Stable id inside one compiled template (index in ag-psd's flattened order). */
  id: number;
  name: string;
  type: LayerType;
  bounds: Bounds;
  visible: boolean;
  /** 0..1 */
  opacity: number;
  /** 0..1 (Photoshop's "fill"): applies to content, not effects. */
  fillOpacity: number;
  /** Photoshop blend mode key as ag-psd names it ('normal', 'multiply', 'pass through', ...). */
  blendMode: string;
  clipping: boolean;
  text?: TextInfo;
  smartObject?: SmartObjectPlacement;
  /** Solid colour of a shape/fill layer, '#rrggbb', when it has one. */
  fillColor?: string;
  children?: LayerNode[];
}

/**
 * What personalisation hands the compositor: per layer id, changes to apply before compositing.
 * Pixels are given in OUTPUT space (already at the render scale) with their bounds there too.
 */
export interface LayerOverride {
  visible?: boolean;
  /** Replacement content pixels (at render scale), positioned at `bounds` (render-scale pixels). */
  pixels?: RGBAImage;
  bounds?: Bounds;
  /** Recolour a shape/fill layer: keep its alpha, replace its colour. */
  color?: { r: number; g: number; b: number; a: number };
}

export type LayerOverrides = Map<number, LayerOverride>;
