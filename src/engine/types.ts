/**
 * The engine's public shapes, shared by the compositor (src/engine/composite, src/engine/psd),
 * personalisation (src/engine/personalise) and the HTTP layers (src/dynamic-image, PDFs).
 * The engine knows nothing of HTTP.
 */
import type { AdjustmentLayer, LayerEffectsInfo, VectorContent } from 'ag-psd';

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
/** A text's paragraph settings, as Photoshop's Paragraph panel holds them (text-space pixels). */
export interface ParagraphSettings {
  startIndent: number;
  endIndent: number;
  firstLineIndent: number;
  spaceBefore: number;
  spaceAfter: number;
  /** Justify the last line of each paragraph too (Photoshop's "justify all"). */
  justifyLast: boolean;
  /**
   * Where a justified paragraph's last line sits (Photoshop's Justify Last Left, Centered or
   * Right; default left). Point text, whose every line ends its paragraph, aligns so too.
   */
  lastLine?: 'left' | 'center' | 'right';
}

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
  /** First paragraph's indents and spacing (text-space pixels), its Justify All and Justify Last. */
  paragraph?: ParagraphSettings;
  /** Photoshop's anti-aliasing method ('crisp' draws baselines on whole pixels: docs/fonts.md). */
  antiAlias?: 'none' | 'sharp' | 'crisp' | 'strong' | 'smooth' | 'platform' | 'platformLCD';
  /** Photoshop's All Caps character setting. */
  allCaps?: boolean;
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
  /**
   * The gradient of a gradient fill layer (or gradient-filled shape), as ag-psd reads it. Drawn
   * (composite/gradient-fill.ts) only when the record stores no pixels (16- and 32-bit documents).
   */
  fillGradient?: Exclude<VectorContent, { type: 'color' } | { type: 'pattern' }>;
  children?: LayerNode[];
  /** True when the compiled template stores pixels for this layer (`compiled/<hash>/px/<id>/<level>`). */
  hasPixels?: boolean;
  /** Bounds of the stored level-0 pixels: `bounds` cropped to the canvas. */
  pixelBounds?: Bounds;
  /**
   * Box of the layer's non-zero alpha (template pixels), found at compile: what "Align with
   * Layer" gradients span (issue 25 §2). Where the layer runs off the canvas its rows there are
   * not read, so a side the pixels reach the canvas's edge with is the layer's `bounds` side.
   * Absent in templates compiled before it (and for layers with no visible pixels): `bounds`.
   */
  alphaBounds?: Bounds;
  /** The layer's pixel (user) mask; its pixels are stored beside the layer's (`mask/<id>/<level>`). */
  mask?: LayerMask;
  /** Vector mask: paths in template pixels, rasterised at render time. */
  vectorMask?: VectorMask;
  /** Layer style, as ag-psd reads it (plain JSON). Not baked into the stored pixels. */
  effects?: LayerEffectsInfo;
  /** Adjustment layer parameters, as ag-psd reads them (plain JSON). */
  adjustment?: AdjustmentLayer;
  /** A shape layer's fill and stroke switches as the PSD records them (any fill or stroke content). */
  shapeStyle?: { fill: boolean; stroke: boolean };
  /** A shape layer's own stroke (vector stroke), width in template pixels. */
  vectorStroke?: { width: number; alignment: 'inside' | 'center' | 'outside'; color: string; opacity: number; blendMode: string };
  /**
   * A shape whose fill can leave pixels inside its path less than opaque (a gradient with
   * transparent stops, a noise gradient with transparency, a pattern): its effects trace the path
   * (× its masks), not its stored alpha (composite/effects.ts shapeFrom). Set by psd/tree.ts.
   */
  softFill?: boolean;
  /**
   * Blend-if ("Blending Options"), only when not the default: for the grey channel and then
   * R, G, B, ranges [black low, black high, white low, white high] of this layer (`source`) and
   * the layers beneath (`dest`) outside which the layer fades out.
   */
  blendIf?: Array<{ source: number[]; dest: number[] }>;
  /** An artboard group: its rectangle clips its layers, over its background colour (none: transparent). */
  artboard?: { bounds: Bounds; background?: string };
  /** Photoshop's effects reference point (origin of linked pattern overlays), template pixels. */
  referencePoint?: { x: number; y: number };
  /** Channels (0 R, 1 G, 2 B) left out of blending ("Advanced Blending: Channels"). */
  excludedChannels?: number[];
  /** Photoshop's "Blend Clipped Layers as Group" (default true). */
  blendClipped?: boolean;
  /**
   * Photoshop's "Blend Interior Effects as Group" (default off): the layer's interior effects
   * are composited into it before its blend mode, and its Fill fades them with it
   * (composite/compositor.ts drawClipGroup).
   */
  blendInterior?: boolean;
  /**
   * Photoshop's Knockout (Blending Options): where the layer is, it blends onto the backdrop its
   * group started from (shallow) or the document's Background (deep) instead of the layers
   * between. See composite/knockout.ts.
   */
  knockout?: 'shallow' | 'deep';
  /** The document's Background layer (the bottom one, stored without transparency). */
  background?: boolean;
  /** Photoshop's "Transparency Shapes Layer" (default true). */
  transparencyShapes?: boolean;
}

export interface LayerMask {
  /** Bounds of the stored mask pixels (template pixels); outside them the mask is `defaultColor`. */
  bounds: Bounds;
  /** 0 or 255. */
  defaultColor: number;
  disabled: boolean;
  /** Whether mask pixels are stored (false: the mask is `defaultColor` everywhere). */
  hasPixels: boolean;
  /** 0..1, Photoshop's mask density. */
  density?: number;
  /** Feather radius in template pixels. */
  feather?: number;
  /** Photoshop's "Layer Mask Hides Effects": effects come from the unmasked layer, then this mask hides layer and effects together. */
  hidesEffects?: boolean;
}

export interface VectorMask {
  invert: boolean;
  disabled: boolean;
  /** Photoshop's "fill starts with all pixels": the path set subtracts from a full canvas. */
  fillStartsWithAllPixels: boolean;
  /** 0..1, the vector mask's density (what its outside keeps). */
  density?: number;
  /** Photoshop's "Vector Mask Hides Effects" ('vmgm'): as LayerMask.hidesEffects, for the vector mask. */
  hidesEffects?: boolean;
  /** Feather radius in template pixels. */
  feather?: number;
  paths: Array<{
    open: boolean;
    operation?: 'exclude' | 'combine' | 'subtract' | 'intersect';
    fillRule: 'even-odd' | 'non-zero';
    /** Knots: [inX, inY, anchorX, anchorY, outX, outY] in template pixels. */
    knots: number[][];
  }>;
}

/** Everything a render needs, kept in R2 under `compiled/<hash>/` (see src/engine/compiled). */
export interface CompiledTemplate {
  /** SHA-256 hex of the PSD bytes and the engine version. */
  hash: string;
  engineVersion: string;
  width: number;
  height: number;
  /** Pixels per inch (72 when the PSD stores none). */
  resolution: number;
  /** R2 key of the embedded ICC profile, when the PSD has one. */
  iccKey?: string;
  /** Pyramid: level k holds pixels at scale 1/2^k, k = 0..levels-1. */
  levels: number;
  /** R2 key of Photoshop's own composite (raw RGBA, deflated), when the file carries one. */
  compositeKey?: string;
  /**
   * Gamma Photoshop used to blend text edges ("Blend Text Colors Using Gamma": 1.45 in Photoshop CC
   * and later, 1 (off) in CS versions). Taken from the file's XMP CreatorTool.
   */
  textGamma?: number;
  /** The document's patterns (for pattern overlays), each stored raw RGBA at `key`. */
  patterns?: Array<{ id: string; name: string; width: number; height: number; key: string }>;
  /** Photoshop's global light angle (degrees), used by effects with "use global light". */
  globalAngle?: number;
  /** Photoshop's global light altitude (degrees). */
  globalAltitude?: number;
  /** Whether the document has transparency (Photoshop's composite has an alpha channel). */
  transparent: boolean;
  layers: LayerNode[];
  /**
   * Small bands stored together, a few R2 objects instead of one each (compiled/packs.ts): each
   * pack's key under `compiled/<hash>/` and its blobs in order as `key:length` (key under the same
   * prefix, stored bytes) separated by spaces; a blob's offset is the sum of the lengths before it.
   */
  packs?: Array<{ key: string; blobs: string }>;
}

export interface RenderOptions {
  /** Output scale: output size is (round(W·scale), round(H·scale)). */
  scale: number;
  overrides?: LayerOverrides;
  /**
   * Output rows [top, bottom) to render (strip rendering), and optionally columns [left, right)
   * (default: the whole width): a personalised preview over a kept template frame redraws only
   * the rectangle its overrides reach (frame.ts).
   */
  region?: { top: number; bottom: number; left?: number; right?: number };
  background?: 'transparent';
}

/** FramesInfo of the spec: size and the layer tree in panel order (top first). */
export interface FramesInfo {
  size: { width: number; height: number };
  layers: FrameLayer[];
}

export interface FrameLayer {
  name: string;
  type: LayerType;
  bounds?: Bounds;
  visible?: boolean;
  opacity?: number;
  blendMode?: string;
  text?: TextInfo;
  smartObject?: SmartObjectPlacement;
  fillColor?: string;
  layers?: FrameLayer[];
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
  /** The SVG `pixels` were drawn from (origin at `bounds` top-left) and its fonts: print PDFs draw it as vector. */
  vector?: { svg: string; fonts: Uint8Array[] };
  /** A text not drawn yet (PersonaliseContext.textsAsVector): its pixels and their bounds, drawn when the raster needs them. */
  drawLater?: () => Promise<LayerOverride>;
}

export type LayerOverrides = Map<number, LayerOverride>;
