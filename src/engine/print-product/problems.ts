/**
 * Preflight checks of print-product items (issue 21), in the one problem shape of
 * src/engine/preflight/report.ts. Pure functions of what a render has at hand anyway (the text's
 * layout, the image's natural size, the surface's print areas), so the preview and the PDF report
 * while they draw and preflight.ts reports without drawing, all from the same numbers.
 *
 * - textOverflow (error): text the layout drops or that runs out of its box (`characters`,
 *   `overflow`); textShrunk (warning): copyfitting used a smaller size (`size`, `originalSize`);
 *   missingGlyphs (error): characters the item's font has no glyph for (`characters`).
 * - lowResolution: an image's effective ppi at its placed size below the thresholds (default
 *   warning < 200, error < 100, or the item's `minResolution` and half of it; `ppi`, `threshold`); imageUpscaled (warning): drawn at more than
 *   one point per pixel (`scale`, points per pixel). Vector images (SVG, PDF pages) have no ppi.
 * - outsideTrim: the ink of a Text item (its laid-out lines) or a Barcode's box, turned with the
 *   item and its groups, is not inside a print area's bounds (the trim; without print areas the
 *   surface): an error; inside the trim but over one of the area's safety lines: a warning.
 *   Shapes and images may run into the bleed: that is what bleed is for.
 * - emptyField (error): a variable whose `constraints.required` is set has no value.
 * - fontSubstituted does not arise: the renderers draw with the item's font or refuse an unknown
 *   font (400), and characters it lacks are missingGlyphs.
 */
import type { PreflightProblem } from '../preflight/report';
import { type BarcodeModel, type ImageModel, type ItemModel, type SurfaceModel, type TextModel } from './schema';
import type { TextLayout } from './text';

/** Effective-ppi thresholds of placed images. */
export interface ResolutionThresholds {
  /** Below this: a warning (default 200). */
  warning: number;
  /** Below this: an error (default 100). */
  error: number;
}
export const DEFAULT_RESOLUTION: ResolutionThresholds = { warning: 200, error: 100 };

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How a problem names an item: its name, else its id. */
export const itemLabel = (item: ItemModel) => item.name.trim() || item.id;

/** A text as a message quotes it: at most 40 characters. */
function quoted(text: string): string {
  const chars = [...text.replace(/\s+/g, ' ').trim()];
  return `"${chars.length > 40 ? `${chars.slice(0, 39).join('')}…` : chars.join('')}"`;
}

const round = (v: number, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The bounding box of `rect` turned by the item's rotation, then each enclosing group's (innermost first). */
function turned(rect: Rect, item: ItemModel, parents: readonly ItemModel[]): Rect {
  let corners = [
    [rect.x, rect.y],
    [rect.x + rect.width, rect.y],
    [rect.x, rect.y + rect.height],
    [rect.x + rect.width, rect.y + rect.height],
  ];
  for (const owner of [item, ...[...parents].reverse()]) {
    if (!(owner.rotation % 360)) continue;
    const t = (owner.rotation * Math.PI) / 180;
    const [c, s] = [Math.cos(t), Math.sin(t)];
    const cx = owner.x + owner.width / 2;
    const cy = owner.y + owner.height / 2;
    corners = corners.map(([x, y]) => [cx + (x! - cx) * c - (y! - cy) * s, cy + (x! - cx) * s + (y! - cy) * c]);
  }
  const xs = corners.map((p) => p[0]!);
  const ys = corners.map((p) => p[1]!);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** A trim box and, when the print area has safety lines, the safe box inside it (the innermost line per side). */
export interface TrimArea extends Rect {
  name: string;
  safe?: Rect;
}

/** The trim boxes of a surface: its print areas' bounds, or the surface itself. */
export function trimAreas(surface: SurfaceModel): TrimArea[] {
  if (!surface.printAreas.length) return [{ name: surface.name || surface.id, x: 0, y: 0, width: surface.width, height: surface.height }];
  return surface.printAreas.map((a) => {
    const lines = a.safetyLines ?? [];
    if (!lines.length) return { name: a.name || a.id, ...a.bounds };
    const inset = (side: 'left' | 'top' | 'right' | 'bottom') => Math.max(...lines.map((l) => l.margin[side]));
    const [left, top, right, bottom] = [inset('left'), inset('top'), inset('right'), inset('bottom')];
    const safe = { x: a.bounds.x + left, y: a.bounds.y + top, width: Math.max(0, a.bounds.width - left - right), height: Math.max(0, a.bounds.height - top - bottom) };
    return { name: a.name || a.id, ...a.bounds, safe };
  });
}

/** Tolerance of the trim check (points): rounding, not design. */
const TRIM_SLACK = 0.01;

function outsideTrim(item: ItemModel, ink: Rect, surface: SurfaceModel, parents: readonly ItemModel[]): PreflightProblem[] {
  const box = turned(ink, item, parents);
  const areas = trimAreas(surface);
  const inside = (a: Rect) =>
    box.x >= a.x - TRIM_SLACK && box.y >= a.y - TRIM_SLACK && box.x + box.width <= a.x + a.width + TRIM_SLACK && box.y + box.height <= a.y + a.height + TRIM_SLACK;
  if (areas.some((a) => inside(a.safe ?? a))) return [];
  const bounds = { x: round(box.x), y: round(box.y), width: round(box.width), height: round(box.height) };
  const layer = itemLabel(item);
  // Inside the trim but over a safety line: the cutter's tolerance may touch it.
  const trimmed = areas.find(inside);
  if (trimmed) {
    return [{ layer, code: 'outsideTrim', severity: 'warning', message: `${layer} is too close to the edge and may be cut off.`, details: { bounds, area: trimmed.name, line: 'safety' } }];
  }
  const overlaps = (a: Rect) => box.x < a.x + a.width && a.x < box.x + box.width && box.y < a.y + a.height && a.y < box.y + box.height;
  const area = areas.find(overlaps) ?? areas[0]!;
  return [
    {
      layer,
      code: 'outsideTrim',
      severity: 'error',
      message: areas.some(overlaps) ? `${layer} runs over the edge of the print area and would be cut off.` : `${layer} is outside the print area and would not be printed.`,
      details: { bounds, area: area.name, line: 'trim' },
    },
  ];
}

/** The extent of laid-out lines (surface points): each line's advance, from ascent to descent. */
function inkOf(layout: TextLayout): Rect | null {
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const l of layout.lines) {
    if (!l.text.trim()) continue;
    const width = l.width + (l.wordSpacing ? l.wordSpacing * (l.text.split(' ').length - 1) : 0);
    const x0 = l.anchor === 'middle' ? l.x - width / 2 : l.anchor === 'end' ? l.x - width : l.x;
    left = Math.min(left, x0);
    right = Math.max(right, x0 + width);
    top = Math.min(top, l.y - layout.metrics.ascender * layout.size);
    bottom = Math.max(bottom, l.y - layout.metrics.descender * layout.size);
  }
  return left <= right ? { x: left, y: top, width: right - left, height: bottom - top } : null;
}

/** A Text item's problems from the layout that draws it. */
export function textProblems(item: TextModel, text: string, layout: TextLayout, surface: SurfaceModel, parents: readonly ItemModel[] = []): PreflightProblem[] {
  const layer = itemLabel(item);
  const out: PreflightProblem[] = [];
  if (layout.overflowCharacters > 0) {
    out.push({
      layer,
      code: 'textOverflow',
      severity: 'error',
      message: `${quoted(text)} is too long for ${layer}: ${plural(layout.overflowCharacters, 'character does', 'characters do')} not fit.`,
      details: { characters: layout.overflowCharacters, overflow: layout.overflow, size: layout.size },
    });
  }
  if (layout.size < layout.originalSize - 1e-9) {
    out.push({
      layer,
      code: 'textShrunk',
      severity: 'warning',
      message: `${layer} was shrunk to ${round(layout.size, 1)} pt to fit.`,
      details: { size: layout.size, originalSize: layout.originalSize },
    });
  }
  if (layout.missing.length) {
    out.push({
      layer,
      code: 'missingGlyphs',
      severity: 'error',
      message: `The font of ${layer} has no ${plural(layout.missing.length, 'character', 'characters')} for ${layout.missing.join(' ')}; they would print as empty boxes.`,
      details: { characters: layout.missing.join(''), font: item.font.postscriptName },
    });
  }
  const ink = inkOf(layout);
  if (ink) out.push(...outsideTrim(item, ink, surface, parents));
  return out;
}

/** A Barcode's problems: a code cut by the trim does not scan. */
export const barcodeProblems = (item: BarcodeModel, surface: SurfaceModel, parents: readonly ItemModel[] = []): PreflightProblem[] =>
  item.value ? outsideTrim(item, item, surface, parents) : [];

/**
 * An Image item's problems at its placed size (`placed`: the image's drawn size in points, as
 * placeImage gives it; Fill is larger than the box), against the item's `minResolution` (error
 * below half of it) or else `defaults`. Vector images have none.
 */
export function imageProblems(
  item: ImageModel,
  image: { mime: string; width: number; height: number },
  placed: { width: number; height: number },
  defaults: ResolutionThresholds = DEFAULT_RESOLUTION,
): PreflightProblem[] {
  const thresholds = item.minResolution ? { warning: item.minResolution, error: item.minResolution / 2 } : defaults;
  if (!/^image\/(jpeg|png|gif|webp)$/.test(image.mime) || !(image.width > 0) || !(image.height > 0) || !(placed.width > 0) || !(placed.height > 0)) return [];
  const layer = itemLabel(item);
  const ppi = Math.floor(Math.min(image.width / (placed.width / 72), image.height / (placed.height / 72)));
  const out: PreflightProblem[] = [];
  if (ppi < thresholds.error) {
    out.push({
      layer,
      code: 'lowResolution',
      severity: 'error',
      message: `The picture in ${layer} is too small to print sharply: ${ppi} ppi at this size (at least ${thresholds.error} ppi needed, ${thresholds.warning} recommended).`,
      details: { ppi, threshold: thresholds.error },
    });
  } else if (ppi < thresholds.warning) {
    out.push({
      layer,
      code: 'lowResolution',
      severity: 'warning',
      message: `The picture in ${layer} may print blurry: ${ppi} ppi at this size (${thresholds.warning} ppi recommended).`,
      details: { ppi, threshold: thresholds.warning },
    });
  }
  const scale = Math.max(placed.width / image.width, placed.height / image.height);
  if (scale > 1 + 1e-6) {
    out.push({
      layer,
      code: 'imageUpscaled',
      severity: 'warning',
      message: `The picture in ${layer} is enlarged ${round(scale, 1)}× beyond its own pixels.`,
      details: { scale: round(scale, 3) },
    });
  }
  return out;
}

/** Required variables of a surface left empty (visible ones: a hidden item prints nothing). */
export function emptyFields(surface: SurfaceModel): PreflightProblem[] {
  const out: PreflightProblem[] = [];
  const visit = (items: ItemModel[]) => {
    for (const item of items) {
      if (!item.visible) continue;
      if (item.type === 'Group') visit(item.items);
      if (!item.isVariable || !item.constraints?.required) continue;
      const empty = item.type === 'Text' ? !item.text.trim() : item.type === 'Image' ? !item.source : item.type === 'Barcode' ? !item.value.trim() : false;
      if (empty) out.push({ layer: itemLabel(item), code: 'emptyField', severity: 'error', message: `Please fill in ${itemLabel(item)}: it is required.` });
    }
  };
  for (const container of surface.containers) if (container.visible) visit(container.items);
  return out;
}
