import type { Bounds, VectorMask } from '../types';

/**
 * Rasterises a vector mask (Photoshop paths: cubic Béziers, combined by operation) into one byte
 * per pixel over rectangle r, in output coordinates (`scale` maps template pixels to output).
 * Coverage: SUB sample rows per pixel, exact horizontal span coverage.
 */
const SUB = 5;

type Poly = number[]; // x0,y0,x1,y1,...

function flatten(knots: number[][], closed: boolean, scale: number): Poly {
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

/** Coverage 0..1 of one filled path (one or more closed subpaths, one fill rule) over r. */
function coverage(polys: Poly[], evenOdd: boolean, r: Bounds): Float32Array {
  const w = r.right - r.left;
  const h = r.bottom - r.top;
  const out = new Float32Array(w * h);
  const xs: number[] = [];
  const dirs: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let sub = 0; sub < SUB; sub++) {
      const sy = r.top + y + (sub + 0.5) / SUB;
      xs.length = 0;
      dirs.length = 0;
      for (const poly of polys) {
        const n = poly.length / 2;
        for (let i = 0; i < n; i++) {
          const j = (i + 1) % n;
          const ay = poly[i * 2 + 1], by = poly[j * 2 + 1];
          if ((ay <= sy && by > sy) || (by <= sy && ay > sy)) {
            const ax = poly[i * 2], bx = poly[j * 2];
            xs.push(ax + ((sy - ay) / (by - ay)) * (bx - ax));
            dirs.push(by > ay ? 1 : -1);
          }
        }
      }
      if (!xs.length) continue;
      const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
      let wind = 0;
      for (let k = 0; k < order.length - 1; k++) {
        wind += dirs[order[k]];
        const inside = evenOdd ? (k + 1) % 2 === 1 : wind !== 0;
        if (inside) addSpan(out, y * w, w, xs[order[k]] - r.left, xs[order[k + 1]] - r.left, 1 / SUB);
      }
    }
  }
  return out;
}

function addSpan(out: Float32Array, row: number, w: number, a: number, b: number, amount: number): void {
  if (b <= 0 || a >= w || b <= a) return;
  a = Math.max(0, a);
  b = Math.min(w, b);
  const ia = Math.floor(a);
  const ib = Math.floor(b);
  if (ia === ib) {
    out[row + ia] += (b - a) * amount;
    return;
  }
  out[row + ia] += (ia + 1 - a) * amount;
  for (let x = ia + 1; x < ib; x++) out[row + x] += amount;
  if (ib < w) out[row + ib] += (b - ib) * amount;
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

export function rasterizeVectorMask(vm: VectorMask, scale: number, r: Bounds): Uint8ClampedArray {
  const w = r.right - r.left;
  const h = r.bottom - r.top;
  const acc = new Float32Array(w * h);
  if (vm.fillStartsWithAllPixels) acc.fill(1);
  for (const component of pathComponents(vm.paths)) {
    const drawn = component.filter((p) => p.knots.length >= 2);
    if (!drawn.length) continue;
    const first = component[0]!;
    const cov = coverage(
      drawn.map((p) => flatten(p.knots, !p.open, scale)),
      first.fillRule === 'even-odd',
      r,
    );
    const op = first.operation ?? 'combine';
    for (let i = 0; i < acc.length; i++) {
      const a = acc[i];
      const b = Math.min(1, cov[i]);
      acc[i] =
        op === 'subtract' ? a * (1 - b) : op === 'intersect' ? a * b : op === 'exclude' ? a + b - 2 * a * b : a + b - a * b;
    }
  }
  const out = new Uint8ClampedArray(w * h);
  for (let i = 0; i < acc.length; i++) out[i] = (vm.invert ? 1 - acc[i] : acc[i]) * 255;
  return out;
}
