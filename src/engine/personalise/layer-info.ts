/**
 * What personalisation needs from a PSD layer, read from ag-psd's layer record while the engine
 * compiles a template: text settings to re-render a text layer, and a smart object's placement.
 */
import type { Color, Layer, TextStyle } from 'ag-psd';
import type { SmartObjectPlacement, TextInfo } from '../types';
import { toHex } from './color';

/** Photoshop's default auto leading: 120 % of the font size. */
export const DEFAULT_AUTO_LEADING = 1.2;

/** ag-psd colour (RGB 0–255, fractional RGB 0–1 or grey) → '#rrggbb'; black for other models. */
export function colorToHex(color: Color | undefined): string {
  if (!color) return '#000000';
  if ('r' in color) return toHex({ r: clamp255(color.r), g: clamp255(color.g), b: clamp255(color.b), a: 1 });
  if ('fr' in color) return toHex({ r: clamp255(color.fr * 255), g: clamp255(color.fg * 255), b: clamp255(color.fb * 255), a: 1 });
  if ('k' in color && Object.keys(color).length === 1) {
    const v = clamp255(255 - (color.k / 100) * 255);
    return toHex({ r: v, g: v, b: v, a: 1 });
  }
  return '#000000';
}

const clamp255 = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

const JUSTIFICATION: Record<string, TextInfo['alignment']> = {
  left: 'left',
  right: 'right',
  center: 'center',
  'justify-left': 'justify',
  'justify-right': 'justify',
  'justify-center': 'justify',
  'justify-all': 'justify',
};

/**
 * Text settings of a text layer (undefined for other layers). Sizes and leading are in the
 * text's own space (template pixels before `transform`); tracking in 1/1000 em; `box` is the
 * paragraph box in that same space (only for box text); the first run's style is the layer's
 * style, which is what Photoshop applies when the whole text is replaced.
 */
export function textInfoFromLayer(layer: Layer): TextInfo | undefined {
  const t = layer.text;
  if (!t) return undefined;
  const runs = t.styleRuns?.length ? t.styleRuns : [{ length: t.text.length, style: t.style ?? {} }];
  const first: TextStyle = { ...t.style, ...runs[0]?.style };
  const paragraph = { ...t.paragraphStyle, ...t.paragraphStyleRuns?.[0]?.style };
  const size = first.fontSize ?? 12;
  const autoLeading = paragraph.autoLeading ?? DEFAULT_AUTO_LEADING;
  const info: TextInfo = {
    text: t.text,
    font: first.font?.name ?? 'ArialMT',
    size,
    color: colorToHex(first.fillColor),
    tracking: first.tracking ?? 0,
    leading: first.autoLeading === false && first.leading ? first.leading : size * autoLeading,
    alignment: JUSTIFICATION[paragraph.justification ?? 'left'] ?? 'left',
    transform: t.transform ?? [1, 0, 0, 1, 0, 0],
    warped: !!t.warp && t.warp.style !== 'none' && t.warp.style !== undefined,
  };
  const indents = {
    startIndent: paragraph.startIndent ?? 0,
    endIndent: paragraph.endIndent ?? 0,
    firstLineIndent: paragraph.firstLineIndent ?? 0,
    spaceBefore: paragraph.spaceBefore ?? 0,
    spaceAfter: paragraph.spaceAfter ?? 0,
    justifyLast: paragraph.justification === 'justify-all',
  };
  // Justify Last Centered or Right: the last line's place (Adobe's Paragraph panel; left by default).
  const lastLine = paragraph.justification === 'justify-center' ? 'center' : paragraph.justification === 'justify-right' ? 'right' : undefined;
  if (Object.values(indents).some(Boolean) || lastLine) info.paragraph = lastLine ? { ...indents, lastLine } : indents;
  if (t.antiAlias) info.antiAlias = t.antiAlias;
  if (first.fontCaps === 2) info.allCaps = true;
  if (t.shapeType === 'box' && t.boxBounds?.length === 4) {
    const [left, top, right, bottom] = t.boxBounds;
    info.box = { left, top, right, bottom };
  }
  if (runs.length > 1) {
    info.runs = runs.map((run) => {
      const style = { ...t.style, ...run.style };
      return { length: run.length, font: style.font?.name ?? info.font, size: style.fontSize ?? size, color: colorToHex(style.fillColor) };
    });
  }
  return info;
}

/**
 * Placement of a smart object (undefined for other layers): the four corners of its content in
 * template pixels, clockwise from top-left, including rotation and perspective (Photoshop keeps
 * the perspective corners in `nonAffineTransform`, the affine ones in `transform`), and the
 * size of the embedded content.
 */
export function placementFromLayer(layer: Layer): SmartObjectPlacement | undefined {
  const placed = layer.placedLayer;
  if (!placed) return undefined;
  const corners = validCorners(placed.nonAffineTransform) ?? validCorners(placed.transform);
  if (!corners) return undefined;
  const warpBounds = placed.warp?.bounds;
  const width = placed.width || (warpBounds ? warpBounds.right.value - warpBounds.left.value : 0) || distance(corners, 0, 1);
  const height = placed.height || (warpBounds ? warpBounds.bottom.value - warpBounds.top.value : 0) || distance(corners, 1, 2);
  return { corners, width, height };
}

function validCorners(c: number[] | undefined): number[] | undefined {
  if (!c || c.length !== 8 || c.some((v) => !Number.isFinite(v))) return undefined;
  // A degenerate quad (all points on a line) cannot be drawn into.
  const area = Math.abs((c[4] - c[0]) * (c[7] - c[3]) - (c[6] - c[2]) * (c[5] - c[1])) / 2;
  return area > 1e-6 ? [...c] : undefined;
}

const distance = (c: number[], i: number, j: number) => Math.hypot(c[2 * j] - c[2 * i], c[2 * j + 1] - c[2 * i + 1]);
