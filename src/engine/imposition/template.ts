/**
 * Template-driven imposition: the slots of a sheet are a PSD's smart objects (their placed
 * corners, so rotation and skew come with them), in reading order (rows top to bottom, left to
 * right within a row; a row = vertical extents overlapping by half the smaller height, as
 * populate-psd-template reads its slots). Each slot becomes the matrix that fits an item's bleed
 * box into the slot's parallelogram, keeping its proportions, centred. Template pixels become
 * points at the PSD's resolution; PDF space is y up.
 */
import { walkLayers } from '../compiled/info';
import type { CompiledTemplate, LayerNode } from '../types';
import type { Matrix } from './sheets';

export interface TemplateSlots {
  sheet: { width: number; height: number };
  /** Corners per slot in points, y up: top-left, top-right, bottom-right, bottom-left. */
  slots: Array<[number, number][]>;
  /** The slots' layer names, in the same order (to hide them when the PSD is the background). */
  names: string[];
}

export function templateSlots(t: Pick<CompiledTemplate, 'width' | 'height' | 'resolution' | 'layers'>): TemplateSlots {
  const k = 72 / (t.resolution || 72);
  const H = t.height * k;
  const nodes: LayerNode[] = [...walkLayers(t.layers)].filter((l) => l.smartObject && l.smartObject.corners.length === 8);
  nodes.sort((a, b) => {
    const overlap = Math.min(a.bounds.bottom, b.bounds.bottom) - Math.max(a.bounds.top, b.bounds.top);
    const minH = Math.min(a.bounds.bottom - a.bounds.top, b.bounds.bottom - b.bounds.top);
    if (overlap > minH / 2) return a.bounds.left - b.bounds.left;
    return a.bounds.top - b.bounds.top;
  });
  return {
    sheet: { width: t.width * k, height: H },
    slots: nodes.map((n) => {
      const c = n.smartObject!.corners;
      return [0, 1, 2, 3].map((i) => [c[2 * i]! * k, H - c[2 * i + 1]! * k] as [number, number]);
    }),
    names: nodes.map((n) => n.name),
  };
}

/** The matrix putting a w × h item (form space, origin at its lower-left) into a slot, fitted. */
export function slotMatrix(corners: [number, number][], w: number, h: number): Matrix {
  const [tl, , br, bl] = corners as [[number, number], [number, number], [number, number], [number, number]];
  // The slot's axes: along its bottom edge (x) and up its left edge (y).
  const ax = [br[0] - bl[0], br[1] - bl[1]];
  const ay = [tl[0] - bl[0], tl[1] - bl[1]];
  const slotW = Math.hypot(ax[0]!, ax[1]!);
  const slotH = Math.hypot(ay[0]!, ay[1]!);
  const s = Math.min(slotW / w, slotH / h);
  // Fractions of the slot's axes the fitted item takes, and its offset to centre it.
  const fx = (w * s) / slotW;
  const fy = (h * s) / slotH;
  const ox = (1 - fx) / 2;
  const oy = (1 - fy) / 2;
  return [
    (ax[0]! * fx) / w,
    (ax[1]! * fx) / w,
    (ay[0]! * fy) / h,
    (ay[1]! * fy) / h,
    bl[0] + ax[0]! * ox + ay[0]! * oy,
    bl[1] + ax[1]! * ox + ay[1]! * oy,
  ];
}
