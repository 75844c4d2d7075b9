/**
 * How many copies of a design fit a sheet (contract, "Asset processor"), all lengths in pt:
 * W×H = the union of the surface's print areas + 2·bleed; U = sheet − margins;
 * n(w, h) = ⌊(Uw + gapX)/(w + gapX)⌋ · ⌊(Uh + gapY)/(h + gapY)⌋ (≥ 0, tolerance 1e-6);
 * count = n(W, H), or with rotation max(n(W, H), n(H, W)), ties unrotated.
 */
export interface SheetParams {
  sheetWidth: number;
  sheetHeight: number;
  margin?: { left?: number; top?: number; right?: number; bottom?: number };
  gapX?: number;
  gapY?: number;
  /** Default: the largest bleed of the surface's print areas. */
  bleed?: number;
  allowRotation?: boolean;
}

export interface CountResult {
  count: number;
  columns: number;
  rows: number;
  rotated: boolean;
  itemWidth: number;
  itemHeight: number;
}

const EPS = 1e-6;
const fit = (room: number, size: number, gap: number) => Math.max(0, Math.floor((room + gap) / (size + gap) + EPS));

/** `area`: the union of the surface's print areas (pt); `bleed`: the bleed to add on each side. */
export function countPerSheet(area: { width: number; height: number }, bleed: number, p: SheetParams): CountResult {
  const W = area.width + 2 * bleed;
  const H = area.height + 2 * bleed;
  const m = { left: 0, top: 0, right: 0, bottom: 0, ...p.margin };
  const Uw = p.sheetWidth - m.left - m.right;
  const Uh = p.sheetHeight - m.top - m.bottom;
  const gx = p.gapX ?? 0;
  const gy = p.gapY ?? 0;
  const grid = (w: number, h: number) => {
    if (Uw < 0 || Uh < 0) return { columns: 0, rows: 0, count: 0 };
    const columns = fit(Uw, w, gx);
    const rows = fit(Uh, h, gy);
    return { columns, rows, count: columns * rows };
  };
  const straight = grid(W, H);
  if (p.allowRotation) {
    const turned = grid(H, W);
    if (turned.count > straight.count) return { ...turned, rotated: true, itemWidth: H, itemHeight: W };
  }
  return { ...straight, rotated: false, itemWidth: W, itemHeight: H };
}

/** The bounding box of print areas `{x, y, width, height}` (pt). */
export function unionOf(areas: Array<{ x: number; y: number; width: number; height: number }>): { width: number; height: number } {
  if (!areas.length) return { width: 0, height: 0 };
  const left = Math.min(...areas.map((a) => a.x));
  const top = Math.min(...areas.map((a) => a.y));
  const right = Math.max(...areas.map((a) => a.x + a.width));
  const bottom = Math.max(...areas.map((a) => a.y + a.height));
  return { width: right - left, height: bottom - top };
}
