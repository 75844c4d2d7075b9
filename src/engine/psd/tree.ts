import type { AdjustmentLayer, Layer, Psd } from 'ag-psd';
import { placementFromLayer, textInfoFromLayer } from '../personalise/layer-info';
import { EngineError, unprocessable } from '../errors';
import { compileColorLookup } from '../composite/color-lookup';
import { rgbOf } from '../composite/gradient';
import { fileOrder } from './layer-section';
import { channelDataLength } from './skeleton';
import type { RecordExtras } from './records';
import type { GradientMapAdjustment } from '../composite/adjust';
import type { Bounds, LayerMask, LayerNode, LayerType, VectorMask } from '../types';

/**
 * ag-psd's layer objects → our LayerNode tree (top first, Photoshop's panel order). Ids number the
 * layers in ag-psd's depth-first, bottom-first order, so they are stable for one PSD file.
 *
 * `visit` is called for every layer with its node, so the compiler can attach pixels.
 */
export function buildTree(
  psd: Psd,
  visit?: (layer: Layer, node: LayerNode) => void,
  resolution = 72,
  records: Array<RecordExtras | undefined> = [],
): LayerNode[] {
  let nextId = 0;
  const extras = new Map<Layer, RecordExtras>();
  fileOrder(psd.children ?? []).forEach((layer, i) => {
    const r = records[i];
    if (layer && r) extras.set(layer, r);
  });
  const bottom = psd.children?.[0];
  const walk = (layers: Layer[]): LayerNode[] => {
    const nodes: LayerNode[] = [];
    for (const layer of layers) {
      const extra = extras.get(layer);
      if (extra?.unknownEffectGradientMethod && !layer.hidden) {
        // ag-psd dropped the layer's effects (see RecordExtras): drawing it would leave them out.
        const method = extra.unknownEffectGradientMethod.trim();
        throw unprocessable(
          `Layer "${layer.name ?? ''}" has a layer effect whose gradient uses an interpolation method that is not supported ("${method}"; Photoshop 2026's Stripes is one); Classic, Perceptual, Linear and Smooth are.`,
          [{ path: `layers.${layer.name ?? ''}`, reason: `gradient method ${method}` }],
        );
      }
      if (extra?.unknownEffectGradientType && !layer.hidden) {
        // The same for a gradient type ag-psd does not know (a stroke's Shape Burst is read in
        // psd/records.ts instead, and drawn).
        const type = extra.unknownEffectGradientType.trim();
        throw unprocessable(
          `Layer "${layer.name ?? ''}" has a layer effect whose gradient style is not supported ("${type}"); Linear, Radial, Angle, Reflected, Diamond and a stroke's Shape Burst are.`,
          [{ path: `layers.${layer.name ?? ''}`, reason: `gradient style ${type}` }],
        );
      }
      if (extra?.unreadableEffects && !layer.hidden) {
        // Any other value ag-psd cannot decode in the effects block: the same loss.
        throw unprocessable(
          `Layer "${layer.name ?? ''}" has layer effects that cannot be read (${extra.unreadableEffects}); drawn without them it would not look as in Photoshop.`,
          [{ path: `layers.${layer.name ?? ''}`, reason: 'unreadable layer effects' }],
        );
      }
      // Effects ag-psd dropped (a stroke's Shape Burst) and psd/records.ts read: the layer's own.
      const node = readNode(extra?.effects ? { ...layer, effects: extra.effects } : layer, nextId++, resolution);
      const excluded = extra?.restricted?.filter((c) => c >= 0 && c < 3);
      if (excluded?.length) node.excludedChannels = excluded;
      if (extra?.knockout) node.knockout = extra.knockout;
      if (extra?.vectorMaskHidesEffects && node.vectorMask) node.vectorMask.hidesEffects = true;
      // A field of our own, not ag-psd's `method` (always 'perceptual', see RecordExtras), so
      // that trees compiled before it was read stay Classic as they were drawn.
      if (extra?.gradientMethod && node.adjustment?.type === 'gradient map') {
        node.adjustment = { ...node.adjustment, interpolationMethod: extra.gradientMethod } as GradientMapAdjustment;
      }
      // Levels' and Curves' K record (RecordExtras; composite/adjust.ts cmykChannelLuts reads it
      // in a CMYK document, where the fifth channel is K).
      if (extra?.blackLevels && node.adjustment?.type === 'levels') node.adjustment = { ...node.adjustment, black: extra.blackLevels } as AdjustmentLayer;
      if (extra?.blackCurve && node.adjustment?.type === 'curves') node.adjustment = { ...node.adjustment, black: extra.blackCurve } as AdjustmentLayer;
      // A pattern stroke's scale (RecordExtras; ag-psd drops it): on the stroke's pattern, as the
      // overlay carries its own.
      const strokes = (node.effects as { stroke?: Array<{ pattern?: object }> } | undefined)?.stroke;
      extra?.strokePatternScales?.forEach((scale, i) => {
        const st = strokes?.[i];
        if (scale !== undefined && st?.pattern) st.pattern = { ...st.pattern, scale };
      });
      if (layer === bottom && !layer.children && extra?.opaque) node.background = true;
      if (layer.children) node.children = walk(layer.children);
      visit?.(layer, node);
      nodes.push(node);
    }
    return nodes.reverse();
  };
  return walk(psd.children ?? []);
}

/** toNode, with a failure on an unexpected record refused as a 422 that names the layer. */
function readNode(layer: Layer, id: number, resolution: number): LayerNode {
  try {
    return toNode(layer, id, resolution);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    const kind = layerType(layer).toLowerCase();
    throw unprocessable(`Layer "${layer.name ?? ''}" (${kind} layer) could not be read: ${(e as Error).message}`, [
      { path: `layers.${layer.name ?? ''}`, reason: kind },
    ]);
  }
}

export function layerType(layer: Layer): LayerType {
  if (layer.children) return 'Group';
  if (layer.adjustment) return 'Adjustment';
  if (layer.text) return 'Text';
  if (layer.placedLayer) return 'SmartObject';
  if (layer.vectorFill || layer.vectorOrigination) return 'Shape';
  return 'Image';
}

function toNode(layer: Layer, id: number, resolution: number): LayerNode {
  const node: LayerNode = {
    id,
    name: layer.name ?? '',
    type: layerType(layer),
    bounds: boundsOf(layer),
    visible: !layer.hidden,
    opacity: layer.opacity ?? 1,
    fillOpacity: layer.fillOpacity ?? 1,
    blendMode: layer.blendMode ?? 'normal',
    clipping: !!layer.clipping,
  };
  if (layer.blendClippendElements === false) node.blendClipped = false;
  if (layer.blendInteriorElements) node.blendInterior = true;
  if (layer.artboard && layer.children) {
    const type = layer.artboard.backgroundType ?? 1;
    const background = type === 1 ? '#ffffff' : type === 2 ? '#000000' : type === 4 ? hexColor(layer.artboard.color) : undefined;
    node.artboard = { bounds: boundsOf(layer.artboard.rect), ...(background ? { background } : {}) };
  }
  const blendIf = blendIfOf(layer);
  if (blendIf) node.blendIf = blendIf;
  if (layer.transparencyShapesLayer === false) node.transparencyShapes = false;
  const mask = maskOf(layer);
  if (mask) node.mask = layer.layerMaskAsGlobalMask ? { ...mask, hidesEffects: true } : mask;
  const vectorMask = vectorMaskOf(layer);
  if (vectorMask) node.vectorMask = vectorMask;
  if (layer.effects && !layer.effects.disabled) {
    node.effects = layer.effects;
    if (layer.referencePoint) node.referencePoint = { ...layer.referencePoint };
  }
  if (layer.adjustment) {
    // A colour lookup's LUT file is parsed here, once: the tree keeps the table, not the bytes.
    node.adjustment = layer.adjustment.type === 'color lookup' ? compileColorLookup(layer.adjustment) : layer.adjustment;
  }
  const text = textInfoFromLayer(layer);
  if (text) node.text = text;
  const placement = placementFromLayer(layer);
  if (placement) node.smartObject = placement;
  const stroke = layer.vectorStroke;
  if (stroke) node.shapeStyle = { fill: stroke.fillEnabled !== false, stroke: !!stroke.strokeEnabled };
  const strokeColor = stroke?.content?.type === 'color' ? hexColor(stroke.content.color) : undefined;
  if (stroke?.strokeEnabled && strokeColor && stroke.lineWidth) {
    const w = stroke.lineWidth;
    node.vectorStroke = {
      width: w.units === 'Points' ? (w.value * resolution) / 72 : w.value,
      alignment: stroke.lineAlignment ?? 'center',
      color: strokeColor,
      opacity: stroke.opacity ?? 1,
      blendMode: stroke.blendMode ?? 'normal',
    };
  }
  const fill = layer.vectorFill;
  if (fill && fill.type === 'color') node.fillColor = hexColor(fill.color);
  // Kept for a gradient fill whose record stores no pixels (16- and 32-bit documents), which the
  // compositor draws from it (composite/gradient-fill.ts); one with pixels is drawn as stored.
  if (fill && (fill.type === 'solid' || fill.type === 'noise')) node.fillGradient = fill;
  // (A fill that is off shows nothing to fade: a shape with only its stroke on keeps its pixels.)
  if (softFill(fill) && stroke?.fillEnabled !== false) node.softFill = true;
  if (node.type === 'Shape' && node.vectorMask && hollow(stroke)) {
    // A shape with neither fill nor stroke: nothing of its own shows, but its effects trace its
    // path, as at Fill 0, whatever its stored pixels hold (composite/compositor.ts fillFromPath
    // draws it from its path; docs/effects.md, "Shapes without fill or stroke").
    node.fillOpacity = 0;
    node.shapeStyle = { fill: false, stroke: false };
  }
  return node;
}

/**
 * A shape whose fill and stroke are both off ('vstk' fillEnabled and strokeEnabled false, or a
 * stroke of no width). Photoshop still draws its layer effects, from the path (Photopea #1618: "use
 * layer properties on said shapes (for strokes, drop shadows, pattern fill, etc) in cases where I
 * wanted only the frame to show up"; Photopea then draws such a shape at Fill 0). A shape with its
 * stroke on keeps its stored pixels, the stroke, as what its effects trace (psd2svg #40).
 */
function hollow(stroke: Layer['vectorStroke']): boolean {
  if (!stroke || stroke.fillEnabled !== false) return false;
  return !stroke.strokeEnabled || !((stroke.lineWidth?.value ?? 0) > 0);
}

/**
 * Whether a shape's fill can leave pixels inside its path less than opaque: a gradient with an
 * opacity stop below 100 %, a noise gradient with transparency, or a pattern (whose tile may hold
 * transparency). Its effects then trace the path, not the stored pixels (composite/effects.ts
 * shapeFrom; psd-tools' stroke-effects.psd: "Photoshop strokes the path").
 */
function softFill(fill: Layer['vectorFill']): boolean {
  if (!fill || fill.type === 'color') return false;
  if (fill.type === 'pattern') return true;
  if (fill.type === 'noise') return !!fill.addTransparency;
  return (fill.opacityStops ?? []).some((s) => (s.opacity ?? 1) < 1);
}

function blendIfOf(layer: Layer): LayerNode['blendIf'] {
  const br = layer.blendingRanges;
  if (!br) return undefined;
  const all = [
    { source: br.compositeGrayBlendSource, dest: br.compositeGraphBlendDestinationRange },
    ...br.ranges.slice(0, 3).map((r) => ({ source: r.sourceRange, dest: r.destRange })),
  ];
  const isDefault = (r: number[]) => r[0] === 0 && r[1] === 0 && r[2] === 255 && r[3] === 255;
  if (all.every((r) => isDefault(r.source) && isDefault(r.dest))) return undefined;
  return all.map((r) => ({ source: [...r.source], dest: [...r.dest] }));
}

function boundsOf(b: { left?: number; top?: number; right?: number; bottom?: number }): Bounds {
  return { left: b.left ?? 0, top: b.top ?? 0, right: b.right ?? 0, bottom: b.bottom ?? 0 };
}

/**
 * The pixel mask. With both a vector and a pixel mask Photoshop stores the pixel mask as the "real"
 * mask; a `mask` flagged fromVectorData is only a rasterised copy of the vector mask, which we
 * rasterise ourselves.
 */
export function pixelMaskSource(layer: Layer): { mask: NonNullable<Layer['mask']>; real: boolean } | undefined {
  if (layer.realMask) return { mask: layer.realMask, real: true };
  const m = layer.mask;
  if (!m || (m.fromVectorData && layer.vectorMask)) return undefined;
  // A mask record that only carries a vector mask's density or feather: no pixels, no rectangle,
  // no user-mask parameters. Read as a pixel mask (default black) it would hide the whole layer.
  const empty = (m.right ?? 0) <= (m.left ?? 0) || (m.bottom ?? 0) <= (m.top ?? 0);
  const pixels = layer.rawData?.channels.some((c) => c.id === -2 && channelDataLength(c) > 0);
  const vectorParams = m.vectorMaskDensity !== undefined || m.vectorMaskFeather !== undefined;
  const userParams = m.userMaskDensity !== undefined || m.userMaskFeather !== undefined;
  if (layer.vectorMask && empty && !pixels && vectorParams && !userParams) return undefined;
  return { mask: m, real: false };
}

function maskOf(layer: Layer): LayerMask | undefined {
  const src = pixelMaskSource(layer);
  if (!src) return undefined;
  const m = src.mask;
  const bounds = boundsOf(m);
  const out: LayerMask = {
    bounds,
    defaultColor: m.defaultColor ?? 0,
    disabled: !!m.disabled || !!layer.mask?.disabled,
    hasPixels: bounds.right > bounds.left && bounds.bottom > bounds.top,
  };
  const params = layer.mask;
  if (params?.userMaskDensity !== undefined) out.density = params.userMaskDensity;
  if (params?.userMaskFeather) out.feather = params.userMaskFeather;
  return out;
}

function vectorMaskOf(layer: Layer): VectorMask | undefined {
  const vm = layer.vectorMask;
  if (!vm || !vm.paths?.length) return undefined;
  const params = layer.mask;
  return {
    ...(params?.vectorMaskDensity !== undefined && params.vectorMaskDensity < 1 ? { density: params.vectorMaskDensity } : {}),
    ...(params?.vectorMaskFeather ? { feather: params.vectorMaskFeather } : {}),
    invert: !!vm.invert,
    disabled: !!vm.disable,
    fillStartsWithAllPixels: !!vm.fillStartsWithAllPixels,
    paths: vm.paths.map((p) => ({
      open: p.open,
      operation: p.operation,
      fillRule: p.fillRule,
      knots: p.knots.map((k) => k.points.slice()),
    })),
  };
}

/**
 * A descriptor colour as #rrggbb: 8-bit RGB, or a float RGB, HSB or Lab one through rgbOf
 * (composite/gradient.ts; grey and CMYK ones are RGB already, psd/color-modes.ts). A shape's
 * fill or stroke picked in HSB (psd-tools' stroke-color-descriptors-hsb-with-rgb-mode.psd) was
 * left undrawn.
 */
export function hexColor(c: unknown): string | undefined {
  const o = c as { r?: number; g?: number; b?: number; fr?: number; h?: number; l?: number } | undefined;
  if (!o) return undefined;
  const known = (o.r !== undefined && o.g !== undefined && o.b !== undefined) || o.fr !== undefined || o.h !== undefined || o.l !== undefined;
  if (!known) return undefined;
  const h = (v: number) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0');
  const [r, g, b] = rgbOf(o);
  return `#${h(r)}${h(g)}${h(b)}`;
}
