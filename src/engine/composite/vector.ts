import { drop, ownHere } from '../memory/drop';
import type { Bounds, VectorMask } from '../types';

/**
 * Rasterises a vector mask (Photoshop paths: cubic Béziers, combined by operation) into one byte
 * per pixel over rectangle r, in output coordinates (`scale` maps template pixels to output).
 * Coverage: the exact area of each pixel inside the path (see coverage).
 */

type Poly = number[]; // x0,y0,x1,y1,...

export function flatten(knots: number[][], closed: boolean, scale: number): Poly {
  const pts: Poly = [];
  const n = knots.length;
  if (!n) return pts;
  pts.push(knots[0][2] * scale, knots[0][3] * scale);
  const segs = closed ? n : n - 1;
  for (let i = 0; i < segs; i++) {
    const a = knots[i];
    const b = knots[(i + 1) % n];
    const x0 = a[2] * scale, y0 = a[3] * scale;
    const x1 = a[4] * scale, y1 = a[5] * scale;
    const x2 = b[0] * scale, y2 = b[1] * scale;
    const x3 = b[2] * scale, y3 = b[3] * scale;
    const len = Math.hypot(x1 - x0, y1 - y0) + Math.hypot(x2 - x1, y2 - y1) + Math.hypot(x3 - x2, y3 - y2);
    const steps = Math.max(1, Math.min(256, Math.ceil(len / 2)));
    const straight = x0 === x1 && y0 === y1 && x2 === x3 && y2 === y3;
    if (straight) {
      pts.push(x3, y3);
      continue;
    }
    for (let k = 1; k <= steps; k++) {
      const t = k / steps;
      const u = 1 - t;
      pts.push(
        u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3,
        u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3,
      );
    }
  }
  return pts;
}

/**
 * Coverage 0..1 of one filled path (one or more closed subpaths, one fill rule) over r: the exact
 * area of each pixel the path covers. Photoshop's own rasters of its paths are that area (psd-tools
 * #844: a shape's stored transparency matches the exact area "to the last bit", a 1.47 px band
 * covers 1 + 0.47 px); sampling rows put a fractional top or bottom edge up to a tenth off.
 * Signed edge areas are accumulated per cell and summed along each row (the winding number,
 * antialiased); non-zero clamps it, even-odd folds it about the odd counts.
 */
export function coverage(polys: Poly[], evenOdd: boolean, r: Bounds, rows: { top: number; bottom: number } = { top: 0, bottom: r.bottom - r.top }): Float32Array {
  const w = r.right - r.left;
  const h = rows.bottom - rows.top;
  const stride = w + 2;
  const acc = new Float32Array(stride * h);
  for (const poly of polys) {
    const n = poly.length / 2;
    for (let i = 0; i < n; i++) {
      const j = (i + 1) % n;
      edge(acc, stride, w, r.bottom - r.top, poly[i * 2] - r.left, poly[i * 2 + 1] - r.top, poly[j * 2] - r.left, poly[j * 2 + 1] - r.top, rows.top, rows.bottom);
    }
  }
  // Summed in place, each row moved down to width w (it never overtakes the row it reads): no
  // second plane of this size (a canvas-wide mask is w × h floats).
  for (let y = 0; y < h; y++) {
    let wind = 0;
    for (let x = 0; x < w; x++) {
      wind += acc[y * stride + x];
      const a = Math.abs(wind);
      let v: number;
      if (evenOdd) {
        v = a % 2;
        if (v > 1) v = 2 - v;
      } else v = Math.min(1, a);
      acc[y * w + x] = v;
    }
  }
  return acc.subarray(0, w * h);
}

/**
 * One edge into the accumulator. Left of the plane an edge covers every pixel of its rows, so it
 * is drawn at x = 0; right of it, it covers none, so it is drawn at x = w (a column never read).
 * An edge crossing either side is split there first, so the clamp is exact.
 */
function edge(acc: Float32Array, stride: number, w: number, h: number, x0: number, y0: number, x1: number, y1: number, b0 = 0, b1 = h): void {
  if (y0 === y1) return;
  for (const side of [0, w]) {
    if ((x0 < side && x1 > side) || (x0 > side && x1 < side)) {
      const ym = y0 + ((side - x0) / (x1 - x0)) * (y1 - y0);
      edge(acc, stride, w, h, x0, y0, side, ym, b0, b1);
      edge(acc, stride, w, h, side, ym, x1, y1, b0, b1);
      return;
    }
  }
  x0 = Math.min(w, Math.max(0, x0));
  x1 = Math.min(w, Math.max(0, x1));
  let dir = 1;
  if (y0 > y1) {
    [x0, y0, x1, y1] = [x1, y1, x0, y0];
    dir = -1;
  }
  const top = Math.max(0, y0);
  const bottom = Math.min(h, y1);
  if (bottom <= top) return;
  // Rows [b0, b1) of the plane only (acc holds those): an edge ending above them writes nothing
  // there, and one reaching them is walked from its own top as ever (x runs on row by row), its
  // rows before b0 not written and none after b1 walked.
  if (bottom <= b0 || Math.floor(top) >= b1) return;
  const dxdy = (x1 - x0) / (y1 - y0);
  let x = x0 + (top - y0) * dxdy;
  for (let y = Math.floor(top), end = Math.min(bottom, b1); y < end; y++) {
    const dy = Math.min(y + 1, bottom) - Math.max(y, top);
    if (dy <= 0) continue;
    const xNext = x + dxdy * dy;
    if (y < b0) {
      x = xNext;
      continue;
    }
    const d = dy * dir;
    const row = (y - b0) * stride;
    const lo = Math.min(x, xNext);
    const hi = Math.max(x, xNext);
    const loCell = Math.floor(lo);
    const hiCeil = Math.ceil(hi);
    if (hiCeil <= loCell + 1) {
      // Within one cell: the part right of the edge's mean x is this cell's, the rest the next one's.
      const m = (x + xNext) / 2 - loCell;
      acc[row + loCell] += d * (1 - m);
      acc[row + loCell + 1] += d * m;
    } else {
      // Across cells: the trapezoids under the edge, cell by cell.
      const s = 1 / (hi - lo);
      const f0 = lo - loCell;
      const a0 = 0.5 * s * (1 - f0) * (1 - f0);
      const f1 = hi - hiCeil + 1;
      const am = 0.5 * s * f1 * f1;
      acc[row + loCell] += d * a0;
      if (hiCeil === loCell + 2) acc[row + loCell + 1] += d * (1 - a0 - am);
      else {
        const a1 = s * (1.5 - f0);
        acc[row + loCell + 1] += d * (a1 - a0);
        for (let c = loCell + 2; c < hiCeil - 1; c++) acc[row + c] += d * s;
        const a2 = a1 + (hiCeil - loCell - 3) * s;
        acc[row + hiCeil - 1] += d * (1 - a2 - am);
      }
      acc[row + hiCeil] += d * am;
    }
    x = xNext;
  }
}

/**
 * Paths grouped into Photoshop's shape components: a subpath stored with operation -1 (ag-psd:
 * no operation) continues the component before it ("Merge Shape Components"; a ring is an outer
 * and an inner circle in one component, filled once with its rule). The first subpath of a
 * component carries its operation and fill rule.
 */
export function pathComponents<P extends VectorMask['paths'][number]>(paths: P[]): P[][] {
  const components: P[][] = [];
  for (const p of paths) {
    if (p.operation === undefined && components.length) components[components.length - 1]!.push(p);
    else components.push([p]);
  }
  return components;
}

/** Pixels a vector mask's float planes cover at once: larger masks are drawn in bands of rows. */
const MASK_BAND_PIXELS = 1 << 20;

export function rasterizeVectorMask(vm: VectorMask, scale: number, r: Bounds): Uint8ClampedArray {
  const w = r.right - r.left;
  const h = r.bottom - r.top;
  // Made for the caller alone (ownHere): the compositor drops a layer's mask with its content
  // once the layer is drawn (dropOwn). Unmarked, every vector-masked layer's mask over its
  // effects' sources stayed until workerd next collected: fx-heavy's five, 12 MB at its peak
  // (issue 25 §1).
  const out = ownHere(new Uint8ClampedArray(w * h));
  const components = pathComponents(vm.paths)
    .map((component) => ({ first: component[0]!, polys: component.filter((p) => p.knots.length >= 2).map((p) => flatten(p.knots, !p.open, scale)) }))
    .filter((c) => c.polys.length);
  // A first component that subtracts or intersects acts on all pixels, as "fill starts with all
  // pixels" says: from nothing it would leave nothing (psd-tools' model, held to Photoshop's
  // composites of its path-operations subtract-first and intersect-first files).
  const firstOp = pathComponents(vm.paths)[0]?.[0]?.operation;
  const allPixels = !!vm.fillStartsWithAllPixels || firstOp === 'subtract' || firstOp === 'intersect';
  // In bands of rows (issue 25 §1: a print strip's mask spans the strip grown by the effects'
  // reach, 10,000 px wide): each band's coverage walks every edge as the whole plane's does, so
  // its floats are the whole plane's rows (coverage).
  const rows = w * h > MASK_BAND_PIXELS ? Math.max(1, Math.floor(MASK_BAND_PIXELS / Math.max(1, w))) : h;
  for (let top = 0; top < h; top += rows) {
    const band = { top, bottom: Math.min(h, top + rows) };
    const n = w * (band.bottom - band.top);
    // Null while nothing is drawn (all zeros): the first component drawn onto nothing is its own
    // coverage (0 + b − 0·b and 0 + b − 0 are b; subtracting or intersecting leaves 0), so a mask
    // of one component holds one float plane, not two.
    let acc: Float32Array | null = allPixels ? new Float32Array(n).fill(1) : null;
    for (const { first, polys } of components) {
      const op = first.operation ?? 'combine';
      if (!acc && (op === 'subtract' || op === 'intersect')) continue;
      const cov = coverage(polys, first.fillRule === 'even-odd', r, band);
      if (!acc) {
        for (let i = 0; i < n; i++) cov[i] = Math.min(1, cov[i]!);
        acc = cov;
        continue;
      }
      for (let i = 0; i < n; i++) {
        const a = acc[i]!;
        const b = Math.min(1, cov[i]!);
        acc[i] =
          op === 'subtract' ? a * (1 - b) : op === 'intersect' ? a * b : op === 'exclude' ? a + b - 2 * a * b : a + b - a * b;
      }
      drop(cov); // combined into acc: read no more
    }
    const at = band.top * w;
    if (!acc) {
      if (vm.invert) out.fill(255, at, at + n);
      continue;
    }
    for (let i = 0; i < n; i++) out[at + i] = (vm.invert ? 1 - acc[i]! : acc[i]!) * 255;
    // The band's float plane goes now (issue 25 §1: a print strip's or preview strip's mask makes
    // one a band, which workerd kept until its heap next filled: 22 MB of g21052's 800² JPEG).
    drop(acc);
  }
  return out;
}
