import type { LayerEffectsInfo } from 'ag-psd';
import { freeNow } from '../compiled/free';
import { drop } from '../memory/drop';
import type { LayerNode, RGBAImage } from '../types';

/**
 * Patterns (the document's pattern resources) tiled over a rectangle, as Photoshop tiles them for
 * pattern overlays and pattern strokes: repeated without end from an origin (the document's, or
 * the layer's effects reference point when "Link with Layer" is on, moved by the phase), at a
 * scale. Sampling at pixel centres: bilinear with wrap-around when the pattern is shown at or
 * above its size, averaged over each output pixel's footprint below it (previews), so a scaled
 * pattern neither aliases nor shifts. Colours are averaged premultiplied.
 */

/**
 * Whether a layer effect is drawn: switched on (`enabled`) and listed in the layer's fx list
 * (`present`). Photoshop keeps an effect's entry in the effects block after the effect is removed,
 * with `present` false: psd-tools' tests/psd_files hold 38 layers whose blocks list only such
 * entries ("every entry in all 38 is present=False", psd-tools #845, #830), among them
 * layer_comps.psd's "Фигура 1" with a drop shadow and a bevel still enabled, which Photoshop's
 * Layers panel does not show; psd-tools' Effects keeps only present effects. Absent (the old
 * 'lrFX' block, writers that omit it) counts as listed.
 */
export const effectOn = <T extends { enabled?: boolean; present?: boolean }>(e: T | undefined): e is T => !!e && e.enabled !== false && e.present !== false;
const on = effectOn;
const asList = <T>(e: T[] | T | undefined): T[] => (Array.isArray(e) ? e : e ? [e] : []);

/** The ids of the patterns a layer's effects draw (pattern overlay, pattern strokes). */
export function effectPatternIds(node: LayerNode): string[] {
  const fx = node.effects as LayerEffectsInfo | undefined;
  if (!fx || fx.disabled) return [];
  const ids = new Set<string>();
  const overlay = fx.patternOverlay;
  if (on(overlay) && overlay!.pattern?.id) ids.add(overlay!.pattern.id);
  for (const st of asList(fx.stroke)) if (on(st) && st.fillType === 'pattern' && st.pattern?.id) ids.add(st.pattern.id);
  return [...ids];
}

export interface Tiling {
  /** Output pixels where the pattern's pixel (0, 0) starts. */
  originX: number;
  originY: number;
  /** Output pixels per pattern pixel (pattern scale × render scale). */
  scale: number;
  /** Degrees the pattern is turned about its origin, counterclockwise on screen (Photoshop 2020's pattern Angle). */
  angle?: number;
}

/**
 * Where a layer effect's pattern starts (output pixels): from the layer's effects reference point
 * when linked with the layer (Photoshop's default), else the document origin; the phase moves it.
 */
export function effectTiling(node: LayerNode, renderScale: number, linked: boolean, phase: { x: number; y: number } | undefined, scale: number, angle = 0): Tiling {
  const origin = linked ? (node.referencePoint ?? { x: node.bounds.left, y: node.bounds.top }) : { x: 0, y: 0 };
  return {
    originX: (origin.x + (phase?.x ?? 0)) * renderScale,
    originY: (origin.y + (phase?.y ?? 0)) * renderScale,
    scale: (scale > 0 ? scale : 1) * renderScale,
    ...(Number.isFinite(angle) && angle % 360 !== 0 ? { angle } : {}),
  };
}

const wrap = (v: number, n: number) => ((v % n) + n) % n;

/**
 * The pattern over the rectangle (x, y, w, h) of output pixels: straight RGBA colours (alpha is
 * the pattern's own) for each pixel.
 */
export function tilePattern(tile: RGBAImage, tiling: Tiling, x0: number, y0: number, w: number, h: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4);
  const { width: tw, height: th, data: td } = tile;
  if (tw <= 0 || th <= 0) return out;
  const { originX, originY, scale } = tiling;
  // A turned pattern: each output point turned back about the origin (y runs down, so a turn
  // counterclockwise on screen is clockwise in these coordinates).
  const rad = ((tiling.angle ?? 0) * Math.PI) / 180;
  const cos = Math.cos(rad);
  const sin = Math.sin(rad);
  // Samples per output pixel along each axis: one when enlarging, the footprint when shrinking.
  const n = scale >= 1 ? 1 : Math.min(8, Math.ceil(1 / scale));
  if (sin === 0 && cos === 1) return tileUpright(td, tw, th, tiling, n, x0, y0, w, h, out);
  // The sums in locals, each corner in turn (no closure or array per sample: those were most of
  // a pattern overlay's time); the same terms in the same order, so the same bytes.
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const ox = x0 + x + (sx + 0.5) / n;
          const oy = y0 + y + (sy + 0.5) / n;
          const dx = ox - originX;
          const dy = oy - originY;
          // Bilinear at pattern coordinates (u, v) measured from pixel centres, wrapping around.
          const u = (dx * cos - dy * sin) / scale - 0.5;
          const v = (dx * sin + dy * cos) / scale - 0.5;
          const fu = Math.floor(u);
          const fv = Math.floor(v);
          const tx = u - fu;
          const ty = v - fv;
          const xa = wrap(fu, tw);
          const xb = wrap(fu + 1, tw);
          const ya = wrap(fv, th) * tw;
          const yb = wrap(fv + 1, th) * tw;
          for (let corner = 0; corner < 4; corner++) {
            const i = ((corner < 2 ? ya : yb) + (corner & 1 ? xb : xa)) * 4;
            const k = (corner & 1 ? tx : 1 - tx) * (corner < 2 ? 1 - ty : ty);
            if (k <= 0) continue;
            const c = (td[i + 3] / 255) * k;
            r += td[i] * c;
            g += td[i + 1] * c;
            b += td[i + 2] * c;
            a += c;
          }
        }
      }
      const o = (y * w + x) * 4;
      if (a > 0) {
        out[o] = r / a;
        out[o + 1] = g / a;
        out[o + 2] = b / a;
      }
      out[o + 3] = (a / (n * n)) * 255;
    }
  }
  return out;
}

/**
 * tilePattern over the rectangle (x0, y0, w, h), made by rows: `rows(top, bottom)` gives the
 * colours of its rows top to bottom − 1 (y0 ≤ top < bottom ≤ y0 + h), each band's bytes those of
 * tilePattern over the whole rectangle's rows there (issue 25 §1: an overlay or stroke draws its
 * colours in bands of rows instead of holding the tile's). An unturned pattern's plan (uprightPlan)
 * is made once for the rectangle, so its columns' taps are not worked out again for each band,
 * and a row that repeats a row of an earlier band is copied from that row's bytes, kept in one
 * store (the first `keep` pixels of such rows), else summed again: the same bytes either way. The
 * bands are asked for top to bottom, once each; the plan and store are freed with the last.
 */
export function patternRows(tile: RGBAImage, tiling: Tiling, x0: number, y0: number, w: number, h: number, keep = KEPT_ROW_PIXELS): (top: number, bottom: number) => Uint8ClampedArray {
  const { width: tw, height: th } = tile;
  // Turned (tilePattern's own test), or no tile: tilePattern over each band's rows.
  const rad = ((tiling.angle ?? 0) * Math.PI) / 180;
  if (tw <= 0 || th <= 0 || !(Math.sin(rad) === 0 && Math.cos(rad) === 1)) return (top, bottom) => tilePattern(tile, tiling, x0, top, w, bottom - top);
  const n = tiling.scale >= 1 ? 1 : Math.min(8, Math.ceil(1 / tiling.scale));
  const plan = uprightPlan(tiling, tw, th, n, x0, y0, w, h);
  // The rows a later row repeats, each given a slot in one store (the first `keep` pixels of them),
  // made once a band is not the last: a row of an earlier band is copied from there.
  const lastUse = new Int32Array(h).fill(-1);
  for (let y = 0; y < h; y++) lastUse[plan.rows.first[y]!] = y;
  const slotOf = new Int32Array(h).fill(-1);
  let slots = 0;
  for (let y = 0, most = Math.floor(keep / Math.max(1, w)); y < h && slots < most; y++) if (plan.rows.first[y] === y && lastUse[y]! > y) slotOf[y] = slots++;
  let store: Uint32Array | null = null;
  return (top, bottom) => {
    const out = new Uint8ClampedArray(w * (bottom - top) * 4);
    uprightRows(tile.data, tw, plan, top - y0, bottom - y0, out, (from, row) => {
      // A row before this band's: its stored bytes, or false (summed again).
      const slot = slotOf[from]!;
      if (!store || slot < 0) return false;
      row.set(store.subarray(slot * w, slot * w + w));
      return true;
    });
    if (bottom < y0 + h && slots) {
      store ??= new Uint32Array(slots * w);
      const words = new Uint32Array(out.buffer, out.byteOffset, out.length >> 2);
      for (let y = top - y0; y < bottom - y0; y++) {
        const slot = slotOf[y]!;
        if (slot >= 0) store.set(words.subarray((y - (top - y0)) * w, (y - (top - y0)) * w + w), slot * w);
      }
    }
    // Freed once the last band is made (issue 25 §1: not left to the collector).
    if (bottom === y0 + h) {
      dropPlan(plan);
      drop(store);
      freeNow([lastUse, slotOf]);
    }
    return out;
  };
}

/** The most pixels patternRows keeps of rows that later bands repeat (4 MB). */
const KEPT_ROW_PIXELS = 1 << 20;

/**
 * tilePattern of an unturned pattern (angle 0: cos 1, sin 0), the same bytes with less work. There
 * a sample's pattern column depends on its output column alone and its row on its output row
 * alone: u = (dx·1 − dy·0) ÷ scale − 0.5 is dx ÷ scale − 0.5 to the bit (dy·0 is ±0, and dx is
 * never −0: a difference of equal numbers is +0), v likewise. So each column's taps and weights
 * (xa, xb, tx per sample) and each row's (ya, yb, ty) are worked out once, and a pixel whose
 * row and column repeat an earlier row's and column's taps and weights exactly (the pattern's
 * period, when the floats repeat) is that pixel's four bytes copied; the others are summed as
 * tilePattern sums them, the same terms in the same order. A personalised pattern overlay's
 * tile is mostly copies (issue 25 §3: tilePattern was ~40 % of its render).
 */
function tileUpright(td: Uint8ClampedArray, tw: number, th: number, tiling: Tiling, n: number, x0: number, y0: number, w: number, h: number, out: Uint8ClampedArray): Uint8ClampedArray {
  const plan = uprightPlan(tiling, tw, th, n, x0, y0, w, h);
  uprightRows(td, tw, plan, 0, h, out, () => false);
  dropPlan(plan);
  return out;
}

/**
 * Frees a plan's arrays once its rows are made: each is the plan's own, so all of them, small ones
 * too (drop leaves arrays under 64 KB to the collector). A 6,000 px wide tile's column arrays are
 * 24–144 KB, its rows' less: a print PDF of bench/workerd-memory's pattern-heavy.psd (a plan per
 * strip for each unturned overlay and pattern stroke) left 3.8 MB of them to workerd's collector.
 */
const dropPlan = ({ cols, rows }: UprightPlan) => freeNow([cols.lo, cols.hi, cols.t, cols.first, rows.lo, rows.hi, rows.t, rows.first]);

type UprightPlan = ReturnType<typeof uprightPlan>;

/** tileUpright's taps and weights: per column (n samples each) the two pattern columns and the fraction, per row likewise. */
function uprightPlan(tiling: Tiling, tw: number, th: number, n: number, x0: number, y0: number, w: number, h: number) {
  const { originX, originY, scale } = tiling;
  const axis = (len: number, start: number, origin: number, size: number) => {
    const lo = new Int32Array(len * n);
    const hi = new Int32Array(len * n);
    const t = new Float64Array(len * n);
    // Each index's first index with the very same taps and weights (itself when none before).
    const first = new Int32Array(len);
    const seen = new Map<string, number>();
    for (let i = 0; i < len; i++) {
      let key = '';
      for (let s = 0; s < n; s++) {
        const d = start + i + (s + 0.5) / n - origin;
        const c = d / scale - 0.5;
        const f = Math.floor(c);
        const j = i * n + s;
        t[j] = c - f;
        lo[j] = wrap(f, size);
        hi[j] = wrap(f + 1, size);
        key += `${lo[j]},${hi[j]},${t[j]};`;
      }
      const at = seen.get(key);
      if (at === undefined) seen.set(key, i);
      first[i] = at ?? i;
    }
    return { lo, hi, t, first };
  };
  return { n, w, cols: axis(w, x0, originX, tw), rows: axis(h, y0, originY, th) };
}

/**
 * The plan's rows `from` to `to` − 1 (of its rectangle) into `out` (their RGBA, row `from` first).
 * A row repeating a row of these is copied; one repeating an earlier row is `earlier(row, into)`'s
 * (true: it copied that row's bytes into `into`), else summed.
 */
function uprightRows(td: Uint8ClampedArray, tw: number, plan: UprightPlan, from: number, to: number, out: Uint8ClampedArray, earlier: (row: number, into: Uint32Array) => boolean): void {
  const { n, w, cols, rows } = plan;
  const words = new Uint32Array(out.buffer, out.byteOffset, w * (to - from));
  for (let y = from; y < to; y++) {
    const same = rows.first[y]!;
    const at = (y - from) * w;
    if (same !== y) {
      if (same >= from) {
        words.copyWithin(at, (same - from) * w, (same - from) * w + w);
        continue;
      }
      if (earlier(same, words.subarray(at, at + w))) continue;
    }
    for (let x = 0; x < w; x++) {
      const o = at + x;
      const col = cols.first[x]!;
      if (col !== x) {
        words[o] = words[at + col]!;
        continue;
      }
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++) {
        const ty = rows.t[y * n + sy]!;
        const ya = rows.lo[y * n + sy]! * tw;
        const yb = rows.hi[y * n + sy]! * tw;
        for (let sx = 0; sx < n; sx++) {
          const tx = cols.t[x * n + sx]!;
          const xa = cols.lo[x * n + sx]!;
          const xb = cols.hi[x * n + sx]!;
          for (let corner = 0; corner < 4; corner++) {
            const i = ((corner < 2 ? ya : yb) + (corner & 1 ? xb : xa)) * 4;
            const k = (corner & 1 ? tx : 1 - tx) * (corner < 2 ? 1 - ty : ty);
            if (k <= 0) continue;
            const c = (td[i + 3]! / 255) * k;
            r += td[i]! * c;
            g += td[i + 1]! * c;
            b += td[i + 2]! * c;
            a += c;
          }
        }
      }
      const p = o * 4;
      if (a > 0) {
        out[p] = r / a;
        out[p + 1] = g / a;
        out[p + 2] = b / a;
      }
      out[p + 3] = (a / (n * n)) * 255;
    }
  }
}
