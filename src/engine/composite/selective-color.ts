import type { AdjustmentLayer } from 'ag-psd';

type SelectiveColor = Extract<AdjustmentLayer, { type: 'selective color' }>;

/** The nine ranges in the order Photoshop stores them ('selc' record). */
const RANGES = ['reds', 'yellows', 'greens', 'cyans', 'blues', 'magentas', 'whites', 'neutrals', 'blacks'] as const;

/**
 * Photoshop's Selective Color (docs/fidelity.md, "Selective Color"), as Clément Bœsch derived it
 * by observing Photoshop (blog.pkh.me, "Understanding selective coloring in Adobe Photoshop",
 * the basis of FFmpeg's selectivecolor filter). Per pixel, with max ≥ mid ≥ min its channels:
 * - how much a range acts on the pixel (in channel units, 0..255): reds, greens, blues act where
 *   the pixel's largest channel is theirs, by max − mid; cyans, magentas, yellows where its
 *   smallest is R, G or B respectively, by mid − min; whites by 2·min − 255 (pixels brighter than
 *   middle grey on every channel), blacks by 255 − 2·max, neutrals by
 *   255 − (|2·max − 255| + |2·min − 255|)/2;
 * - each ink slider moves its channel (cyan → R, magenta → G, yellow → B), black all three: the
 *   change, as a fraction, is −a − (1 + a)·k for ink a and black k (−1..1), times 1 − v (the
 *   channel's own ink, v its value 0..1) in relative mode, not in absolute; clipped to
 *   [−v, 1 − v] and multiplied by the range's weight. The ranges' changes add up.
 */
export function selectiveColor(adj: SelectiveColor, d: Uint8ClampedArray): boolean {
  const relative = adj.mode !== 'absolute';
  // Per active range and channel, the clipped change for each channel value (a fraction of the
  // range's weight), so a pixel costs a weight and three lookups per range.
  const kinds: number[] = [];
  const tables: Float64Array[] = [];
  RANGES.forEach((name, kind) => {
    const v = adj[name];
    if (!v || !(v.c || v.m || v.y || v.k)) return;
    const k = clamp1((v.k ?? 0) / 100);
    kinds.push(kind);
    for (const a of [v.c, v.m, v.y]) {
      const ink = clamp1((a ?? 0) / 100);
      const res = -ink - (1 + ink) * k;
      const t = new Float64Array(256);
      for (let x = 0; x < 256; x++) t[x] = change(res, x / 255, relative);
      tables.push(t);
    }
  });
  const n = kinds.length;
  if (!n) return true;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    const mx = r > g ? (r > b ? r : b) : g > b ? g : b;
    const mn = r < g ? (r < b ? r : b) : g < b ? g : b;
    const mid = r + g + b - mx - mn;
    let dr = 0, dg = 0, db = 0;
    for (let j = 0; j < n; j++) {
      const w = rangeWeight(kinds[j], r, g, b, mx, mid, mn);
      if (w <= 0) continue;
      dr += tables[j * 3][r] * w;
      dg += tables[j * 3 + 1][g] * w;
      db += tables[j * 3 + 2][b] * w;
    }
    if (dr === 0 && dg === 0 && db === 0) continue;
    d[i] = r + dr;
    d[i + 1] = g + dg;
    d[i + 2] = b + db;
  }
  return true;
}

/** How much range `kind` (index into RANGES) acts on a pixel, in channel units (0..255). */
export function rangeWeight(kind: number, r: number, g: number, b: number, mx: number, mid: number, mn: number): number {
  switch (kind) {
    case 0: return r === mx ? mx - mid : 0; // reds
    case 1: return b === mn ? mid - mn : 0; // yellows
    case 2: return g === mx ? mx - mid : 0; // greens
    case 3: return r === mn ? mid - mn : 0; // cyans
    case 4: return b === mx ? mx - mid : 0; // blues
    case 5: return g === mn ? mid - mn : 0; // magentas
    case 6: return 2 * mn - 255; // whites
    case 7: return 255 - (Math.abs(2 * mx - 255) + Math.abs(2 * mn - 255)) / 2; // neutrals
    default: return 255 - 2 * mx; // blacks
  }
}

/** One range's change of a channel at value v (0..1), as a fraction of the range's weight. */
function change(res: number, v: number, relative: boolean): number {
  const x = relative ? res * (1 - v) : res;
  return x < -v ? -v : x > 1 - v ? 1 - v : x;
}

const clamp1 = (v: number) => (v < -1 ? -1 : v > 1 ? 1 : v);
