/**
 * Copyfitting (issue 21): the size at which personalised text fits its frame, and what does not
 * fit. Frames: paragraph (box) text its box, every line shown and no word cut if a smaller size
 * avoids it; point text the layer's original line width widened to the template's `<MW_n>`
 * (template pixels), else to the trim box (or canvas) measured from the text's anchor as it is
 * aligned. `shrink` searches the largest size (to 0.1 pt) that fits, down to `minSize` (default
 * half the starting size); leading follows the size and tracking is in em, so both scale along.
 * `shrinkToLine` sets the text on one line no wider than the original line (or the box).
 * Sizes here are as Photoshop shows them: template pixels after the layer's transform scale,
 * which are points at 72 ppi.
 */
import type { Bounds, TextInfo } from '../types';
import { clusters } from './line-break';
import type { TextFit } from './markers';
import { layoutParagraphs, measure, splitParagraphs, type LaidOutLine, type LayoutStyle, type MeasuringMetrics } from './text-layout';

export interface FitSettings {
  /** The size asked for (shown size); default the layer's. */
  size?: number;
  fit?: TextFit;
  /** Smallest shown size `shrink` and `shrinkToLine` may use; default half the starting size. */
  minSize?: number;
  /** How wide point text may run (template pixels, the `<MW_n>` marker). */
  maxWidth?: number;
  /** Where point text may run without `maxWidth` (template pixels: the trim box or the canvas); absent: anywhere. */
  area?: Bounds;
}

export interface Fitted {
  lines: LaidOutLine[];
  /** Size in the text's own space. */
  size: number;
  tracking: number;
  shownSize: number;
  startSize: number;
  /** What does not fit at `size`, as typed ('' when everything fits). */
  overflow: string;
}

/** Frame of point text in its own space: how wide each line may be and how low the last may reach. */
interface PointFrame {
  width: number;
  bottom: number;
}


/** Distance from `p` along the unit vector `u` to where it leaves `area` (0 outside it). */
function distanceToEdge(p: [number, number], u: [number, number], area: Bounds): number {
  let t = Infinity;
  if (u[0] > 1e-9) t = Math.min(t, (area.right - p[0]) / u[0]);
  if (u[0] < -1e-9) t = Math.min(t, (area.left - p[0]) / u[0]);
  if (u[1] > 1e-9) t = Math.min(t, (area.bottom - p[1]) / u[1]);
  if (u[1] < -1e-9) t = Math.min(t, (area.top - p[1]) / u[1]);
  return Math.max(0, t);
}

const inside = (p: [number, number], b: Bounds) => p[0] >= b.left && p[0] <= b.right && p[1] >= b.top && p[1] <= b.bottom;

function pointFrame(info: TextInfo, metrics: MeasuringMetrics, settings: FitSettings, oneLine: boolean): PointFrame {
  const [xx, xy, yx, yy, tx, ty] = info.transform?.length === 6 ? info.transform : [1, 0, 0, 1, 0, 0];
  const alongBaseline = Math.hypot(xx, xy) || 1;
  const tracking = info.tracking ?? 0;
  const original = splitParagraphs(info.allCaps ? info.text.toUpperCase() : info.text);
  const originalWidth = Math.max(0, ...original.map((line) => measure(line, metrics, { size: info.size, tracking })));
  if (oneLine || settings.maxWidth !== undefined) {
    return { width: Math.max(originalWidth, (settings.maxWidth ?? 0) / alongBaseline), bottom: Infinity };
  }
  const area = settings.area;
  const anchor: [number, number] = [tx, ty];
  if (!area || !inside(anchor, area)) return { width: Infinity, bottom: Infinity };
  const u: [number, number] = [xx / alongBaseline, xy / alongBaseline];
  const forward = distanceToEdge(anchor, u, area);
  const backward = distanceToEdge(anchor, [-u[0], -u[1]], area);
  const reach = info.alignment === 'right' ? backward : info.alignment === 'center' ? 2 * Math.min(forward, backward) : forward;
  // Lines run down the page only when the text is upright; then its last line must stay above the area's bottom.
  const leading = info.leading ?? info.size * 1.2;
  const originalBottom = (original.length - 1) * leading - metrics.descender * info.size;
  const bottom = xy === 0 && yx === 0 && yy > 0 ? Math.max(originalBottom, (area.bottom - ty) / yy) : Infinity;
  return { width: Math.max(originalWidth, reach / alongBaseline), bottom };
}

/** The clusters at the end of `line` that stick out of `width`. */
function overhang(line: string, width: number, metrics: MeasuringMetrics, style: Pick<LayoutStyle, 'size' | 'tracking'>): string {
  const parts = clusters(line);
  let lo = 0;
  let hi = parts.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(parts.slice(0, mid).join(''), metrics, style) <= width + 1e-6) lo = mid;
    else hi = mid - 1;
  }
  return parts.slice(lo).join('');
}

/** Largest integer in [lo, hi] for which `ok` holds, assuming it holds below any that does; null if none. */
function largest(lo: number, hi: number, ok: (k: number) => boolean): number | null {
  if (lo > hi || !ok(lo)) return null;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ok(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Lays `text` out on the layer, copyfitted as `settings` ask. */
export function fitText(info: TextInfo, text: string, metrics: MeasuringMetrics, settings: FitSettings): Fitted {
  const [xx, xy, yx, yy] = info.transform?.length === 6 ? info.transform : [1, 0, 0, 1];
  // A requested size is what Photoshop shows (after the layer's transform scale); layout happens before it.
  const transformScale = Math.sqrt(Math.abs(xx * yy - xy * yx)) || 1;
  const startSize = settings.size ?? info.size * transformScale;
  const tracking = info.tracking ?? 0;
  const leadingPerSize = (info.leading ?? info.size * 1.2) / info.size;
  const fit = settings.fit ?? 'none';
  const oneLine = fit === 'shrinkToLine';
  const content = oneLine ? splitParagraphs(text).join(' ') : text;
  const frame = info.box ? null : pointFrame(info, metrics, settings, oneLine);
  // Photoshop's text layout (docs/fonts.md, "Photoshop's text layout"): box text's first baseline
  // at the top of 'd'; upright Crisp text's baselines on whole template pixels (Smooth's where they
  // fall); no tracking after a line's last character (resvg anchors without it too).
  const ty = info.transform?.length === 6 ? info.transform[5] : 0;
  const pixelRows = info.antiAlias === 'crisp' && xy === 0 && yx === 0 && yy > 0 ? { origin: ty, scale: yy } : undefined;

  const attempt = (shown: number) => {
    const size = shown / transformScale;
    const style: LayoutStyle = { size, leading: leadingPerSize * size, tracking, alignment: info.alignment ?? 'left', box: info.box, paragraph: info.paragraph, firstBaseline: 'lowercase', pixelRows, lineEndTracking: 'none' };
    const layout = layoutParagraphs(content, metrics, style);
    let overflow = layout.overset;
    if (info.box && oneLine && layout.lines.length > 1) overflow = [layout.lines.slice(1).map((l) => l.text).join(' '), overflow].filter(Boolean).join('\n');
    if (frame) {
      const pieces = layout.lines.map((l) => {
        const descends = l.y - metrics.descender * size > frame.bottom + 0.5;
        return descends ? l.text : l.width > frame.width + 1e-6 ? overhang(l.text, frame.width, metrics, style) : '';
      });
      overflow = pieces.filter(Boolean).join('\n');
    }
    return { lines: layout.lines, size, shownSize: shown, overflow, clean: !overflow && !layout.brokenWord };
  };
  const done = (a: ReturnType<typeof attempt>): Fitted => ({ lines: a.lines, size: a.size, tracking, shownSize: a.shownSize, startSize, overflow: a.overflow });

  const first = attempt(startSize);
  if (fit === 'none' || first.clean) return done(first);
  const minSize = Math.min(startSize, settings.minSize ?? startSize / 2);
  // Tenths of a point, largest first: a size where everything fits whole, else one where words are cut.
  const lo = Math.ceil(minSize * 10 - 1e-9);
  let hi = Math.floor(startSize * 10 + 1e-9);
  if (hi / 10 >= startSize - 1e-9) hi--; // the starting size itself was tried first
  const tried = new Map<number, ReturnType<typeof attempt>>();
  const at = (k: number) => tried.get(k) ?? tried.set(k, attempt(k / 10)).get(k)!;
  const whole = largest(lo, hi, (k) => at(k).clean);
  if (whole !== null) return done(at(whole));
  if (!first.overflow) return done(first);
  const cut = largest(lo, hi, (k) => !at(k).overflow);
  return done(cut !== null ? at(cut) : attempt(minSize));
}
