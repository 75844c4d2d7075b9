import type { AdjustmentLayer } from 'ag-psd';

/**
 * Adjustment layers as per-pixel functions over RGBA (alpha untouched). Returns false for kinds
 * we do not render (the layer is then skipped, which is what the composite looks like without it).
 */
export function applyAdjustment(adj: AdjustmentLayer, d: Uint8ClampedArray): boolean {
  switch (adj.type) {
    case 'invert':
      return applyLuts(d, lut((v) => 255 - v));
    case 'levels': {
      const master = levelsLut(adj.rgb);
      return applyLuts(d, chain(levelsLut(adj.red), master), chain(levelsLut(adj.green), master), chain(levelsLut(adj.blue), master));
    }
    case 'curves': {
      const master = curveLut(adj.rgb);
      return applyLuts(d, chain(curveLut(adj.red), master), chain(curveLut(adj.green), master), chain(curveLut(adj.blue), master));
    }
    case 'brightness/contrast':
      return applyLuts(d, brightnessContrastLut(adj.brightness ?? 0, adj.contrast ?? 0, !!adj.useLegacy));
    case 'hue/saturation':
      return hueSaturation(adj, d);
    case 'posterize': {
      const n = Math.max(2, adj.levels ?? 4);
      return applyLuts(d, lut((v) => (Math.round((v / 255) * (n - 1)) / (n - 1)) * 255));
    }
    case 'exposure': {
      const { exposure = 0, offset = 0, gamma = 1 } = adj;
      const gain = 2 ** exposure;
      // In linear light (sRGB ≈ gamma 2.2), as Photoshop does for 8-bit documents.
      return applyLuts(d, lut((v) => 255 * Math.pow(Math.max(0, Math.pow(v / 255, 2.2) * gain + offset), 1 / (2.2 * (gamma || 1)))));
    }
    case 'channel mixer':
      return channelMixer(adj, d);
    case 'gradient map':
      return gradientMap(adj, d);
    case 'black & white':
      return blackAndWhite(adj, d);
    case 'photo filter': {
      const c = rgbOf(adj.color);
      const density = adj.density ?? 0.25;
      for (let i = 0; i < d.length; i += 4) {
        const l0 = luma(d[i], d[i + 1], d[i + 2]);
        const out = [0, 1, 2].map((k) => d[i + k] + (((d[i + k] * c[k]) / 255) - d[i + k]) * density);
        if (adj.preserveLuminosity !== false) {
          const diff = l0 - luma(out[0], out[1], out[2]);
          for (let k = 0; k < 3; k++) out[k] += diff;
        }
        d[i] = out[0];
        d[i + 1] = out[1];
        d[i + 2] = out[2];
      }
      return true;
    }
    case 'threshold': {
      const t = adj.level ?? 128;
      return applyLumaMap(d, (l) => (l >= t ? 255 : 0));
    }
    default:
      return false;
  }
}

type Lut = Uint8Array;

const luma = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;

function rgbOf(c: unknown): [number, number, number] {
  const o = (c ?? {}) as Record<string, number>;
  if (o.r !== undefined) return [o.r, o.g, o.b];
  if (o.fr !== undefined) return [o.fr * 255, o.fg * 255, o.fb * 255];
  return [0, 0, 0];
}

/** Channel mixer: each output channel a weighted sum (percent) of the inputs plus a constant (percent of white). */
function channelMixer(adj: Extract<AdjustmentLayer, { type: 'channel mixer' }>, d: Uint8ClampedArray): boolean {
  const id = (r: number, g: number, b: number) => ({ red: r, green: g, blue: b, constant: 0 });
  const rows = adj.monochrome
    ? [adj.gray, adj.gray, adj.gray].map((c) => c ?? id(40, 40, 20))
    : [adj.red ?? id(100, 0, 0), adj.green ?? id(0, 100, 0), adj.blue ?? id(0, 0, 100)];
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    for (let k = 0; k < 3; k++) {
      const m = rows[k];
      d[i + k] = (m.red * r + m.green * g + m.blue * b + m.constant * 255) / 100;
    }
  }
  return true;
}

/** Gradient map: luminosity picks a colour along the gradient. */
function gradientMap(adj: Extract<AdjustmentLayer, { type: 'gradient map' }>, d: Uint8ClampedArray): boolean {
  const stops = [...(adj.colorStops ?? [])].sort((a, b) => a.location - b.location);
  if (adj.gradientType !== 'solid' || !stops.length) return false;
  const ramp = new Uint8ClampedArray(256 * 3);
  for (let v = 0; v < 256; v++) {
    const t = adj.reverse ? 1 - v / 255 : v / 255;
    let k = 0;
    while (k + 1 < stops.length && stops[k + 1].location < t) k++;
    const a = stops[k];
    const b = stops[Math.min(k + 1, stops.length - 1)];
    const span = b.location - a.location;
    const u = t <= a.location ? 0 : span > 0 ? Math.min(1, (t - a.location) / span) : 1;
    const ca = rgbOf(a.color);
    const cb = rgbOf(b.color);
    for (let c = 0; c < 3; c++) ramp[v * 3 + c] = ca[c] + (cb[c] - ca[c]) * u;
  }
  for (let i = 0; i < d.length; i += 4) {
    const l = Math.round(luma(d[i], d[i + 1], d[i + 2])) * 3;
    d[i] = ramp[l];
    d[i + 1] = ramp[l + 1];
    d[i + 2] = ramp[l + 2];
  }
  return true;
}

/**
 * Black & White: grey = min + (mid − min)·w(secondary colour) + (max − mid)·w(primary colour),
 * the primary being the largest channel's colour and the secondary the two largest mixed.
 */
function blackAndWhite(adj: Extract<AdjustmentLayer, { type: 'black & white' }>, d: Uint8ClampedArray): boolean {
  const w = {
    r: (adj.reds ?? 40) / 100, y: (adj.yellows ?? 60) / 100, g: (adj.greens ?? 40) / 100,
    c: (adj.cyans ?? 60) / 100, b: (adj.blues ?? 20) / 100, m: (adj.magentas ?? 80) / 100,
  };
  const tint = adj.useTint ? rgbOf(adj.tintColor) : null;
  for (let i = 0; i < d.length; i += 4) {
    const r = d[i], g = d[i + 1], b = d[i + 2];
    const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
    const mid = r + g + b - mx - mn;
    let primary: number, secondary: number;
    if (mx === r) {
      primary = w.r;
      secondary = g >= b ? w.y : w.m;
    } else if (mx === g) {
      primary = w.g;
      secondary = r >= b ? w.y : w.c;
    } else {
      primary = w.b;
      secondary = r >= g ? w.m : w.c;
    }
    const grey = Math.max(0, Math.min(255, mn + (mid - mn) * secondary + (mx - mid) * primary));
    if (tint) {
      const t = grey / 255;
      // Tint like a colour blend: keep the grey's luminosity, take the tint's hue.
      for (let c = 0; c < 3; c++) d[i + c] = t <= 0.5 ? 2 * t * tint[c] : 255 - 2 * (1 - t) * (255 - tint[c]);
    } else {
      d[i] = d[i + 1] = d[i + 2] = grey;
    }
  }
  return true;
}

function lut(f: (v: number) => number): Lut {
  const out = new Uint8Array(256);
  for (let v = 0; v < 256; v++) out[v] = Math.max(0, Math.min(255, Math.round(f(v))));
  return out;
}

function chain(a: Lut | null, b: Lut | null): Lut | null {
  if (!a) return b;
  if (!b) return a;
  return lut((v) => b[a[v]]);
}

function applyLuts(d: Uint8ClampedArray, r: Lut | null, g: Lut | null = r, b: Lut | null = r): boolean {
  for (let i = 0; i < d.length; i += 4) {
    if (r) d[i] = r[d[i]];
    if (g) d[i + 1] = g[d[i + 1]];
    if (b) d[i + 2] = b[d[i + 2]];
  }
  return true;
}

function applyLumaMap(d: Uint8ClampedArray, f: (l: number) => number): boolean {
  for (let i = 0; i < d.length; i += 4) {
    const v = f(0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]);
    d[i] = d[i + 1] = d[i + 2] = v;
  }
  return true;
}

interface LevelsChannel {
  shadowInput: number;
  highlightInput: number;
  shadowOutput: number;
  highlightOutput: number;
  midtoneInput: number;
}

function levelsLut(c: LevelsChannel | undefined): Lut | null {
  if (!c) return null;
  const { shadowInput: i0, highlightInput: i1, shadowOutput: o0, highlightOutput: o1 } = c;
  const gamma = c.midtoneInput || 1;
  if (i0 === 0 && i1 === 255 && o0 === 0 && o1 === 255 && gamma === 1) return null;
  return lut((v) => {
    const t = Math.max(0, Math.min(1, (v - i0) / Math.max(1, i1 - i0)));
    return o0 + Math.pow(t, 1 / gamma) * (o1 - o0);
  });
}

/** Photoshop curves: a natural cubic spline through the points, clamped, flat beyond the ends. */
export function curveLut(points: Array<{ input: number; output: number }> | undefined): Lut | null {
  if (!points || points.length < 2) return null;
  const p = [...points].sort((a, b) => a.input - b.input);
  if (p.length === 2 && p[0].input === 0 && p[0].output === 0 && p[1].input === 255 && p[1].output === 255) return null;
  const n = p.length;
  const x = p.map((q) => q.input);
  const y = p.map((q) => q.output);
  // Second derivatives of the natural spline (tridiagonal solve).
  const m = new Float64Array(n);
  if (n > 2) {
    const a = new Float64Array(n), b = new Float64Array(n), c = new Float64Array(n), r = new Float64Array(n);
    for (let i = 1; i < n - 1; i++) {
      a[i] = x[i] - x[i - 1];
      b[i] = 2 * (x[i + 1] - x[i - 1]);
      c[i] = x[i + 1] - x[i];
      r[i] = 6 * ((y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1]));
    }
    for (let i = 2; i < n - 1; i++) {
      const w = a[i] / b[i - 1];
      b[i] -= w * c[i - 1];
      r[i] -= w * r[i - 1];
    }
    for (let i = n - 2; i >= 1; i--) m[i] = (r[i] - c[i] * m[i + 1]) / b[i];
  }
  return lut((v) => {
    if (v <= x[0]) return y[0];
    if (v >= x[n - 1]) return y[n - 1];
    let i = 0;
    while (v > x[i + 1]) i++;
    const h = x[i + 1] - x[i];
    const t = (v - x[i]) / h;
    const s = 1 - t;
    return s * y[i] + t * y[i + 1] + ((s * s * s - s) * m[i] + (t * t * t - t) * m[i + 1]) * (h * h) / 6;
  });
}

function brightnessContrastLut(brightness: number, contrast: number, legacy: boolean): Lut | null {
  if (!brightness && !contrast) return null;
  if (legacy) {
    const k = contrast >= 0 ? 1 / Math.max(0.01, 1 - contrast / 100) : 1 + contrast / 100;
    return lut((v) => (v + brightness - 127.5) * k + 127.5);
  }
  // Modern mode: brightness is a gamma-like curve that keeps black and white; contrast an S-slope
  // around mid-grey.
  const k = contrast >= 0 ? 1 + contrast / 100 * 1.5 : 1 + contrast / 100;
  const g = Math.pow(2, -brightness / 100);
  return lut((v) => {
    const b = 255 * Math.pow(v / 255, g);
    return (b - 127.5) * k + 127.5;
  });
}

/**
 * Photoshop's Hue/Saturation: the colour ranges' changes (weights ramp over [a, b] and [c, d],
 * degrees, wrapping; summed where ranges overlap), then the master's, or colorize. Each change
 * turns hue in HSL, blends toward white or black for lightness, then pushes channels away from
 * (or toward) the HSL lightness for saturation: lightness before saturation, as Photoshop's
 * output shows.
 */
function hueSaturation(adj: Extract<AdjustmentLayer, { type: 'hue/saturation' }>, d: Uint8ClampedArray): boolean {
  const ranges = [adj.reds, adj.yellows, adj.greens, adj.cyans, adj.blues, adj.magentas].filter(
    (rg): rg is NonNullable<typeof rg> => !!rg && !!(rg.hue || rg.saturation || rg.lightness),
  );
  const master = adj.master ?? { a: 0, b: 0, c: 0, d: 0, hue: 0, saturation: 0, lightness: 0 };
  // ag-psd's "master" record holds the colorize flag and colorize settings in a..d.
  const colorize = (master.a & 0xff00) !== 0 || master.a === 1;
  const hsl = new Float64Array(3);
  const rgb = new Float64Array(3);
  for (let i = 0; i < d.length; i += 4) {
    rgb[0] = d[i];
    rgb[1] = d[i + 1];
    rgb[2] = d[i + 2];
    if (colorize) {
      rgbToHsl(rgb[0], rgb[1], rgb[2], hsl);
      const [r, g, b] = hslToRgb((((master.b % 360) + 360) % 360) / 360, master.c / 100, hsl[2]);
      rgb[0] = r;
      rgb[1] = g;
      rgb[2] = b;
      hslStep(rgb, 0, 0, master.d);
    } else {
      if (ranges.length) {
        rgbToHsl(rgb[0], rgb[1], rgb[2], hsl);
        const h = hsl[0] * 360;
        let hue = 0, sat = 0, light = 0;
        for (const rg of ranges) {
          const w = rangeWeight(h, rg.a, rg.b, rg.c, rg.d);
          hue += rg.hue * w;
          sat += rg.saturation * w;
          light += rg.lightness * w;
        }
        hslStep(rgb, hue, sat, light);
      }
      hslStep(rgb, master.hue, master.saturation, master.lightness);
    }
    d[i] = rgb[0];
    d[i + 1] = rgb[1];
    d[i + 2] = rgb[2];
  }
  return true;
}

const stepHsl = new Float64Array(3);
/** One hue/lightness/saturation change on rgb (0..255, in place). */
function hslStep(rgb: Float64Array, hue: number, sat: number, light: number): void {
  if (hue) {
    rgbToHsl(rgb[0], rgb[1], rgb[2], stepHsl);
    const [r, g, b] = hslToRgb((((stepHsl[0] + hue / 360) % 1) + 1) % 1, stepHsl[1], stepHsl[2]);
    rgb[0] = r;
    rgb[1] = g;
    rgb[2] = b;
  }
  if (light) {
    const l = Math.max(-1, Math.min(1, light / 100));
    for (let c = 0; c < 3; c++) rgb[c] = l > 0 ? rgb[c] + (255 - rgb[c]) * l : rgb[c] * (1 + l);
  }
  if (sat) {
    const mx = Math.max(rgb[0], rgb[1], rgb[2]);
    const mn = Math.min(rgb[0], rgb[1], rgb[2]);
    const delta = (mx - mn) / 255;
    if (delta > 0) {
      const sum = (mx + mn) / 255;
      const L = sum / 2;
      const S = L < 0.5 ? delta / sum : delta / (2 - sum);
      const k = Math.max(-1, Math.min(1, sat / 100));
      const alpha = k >= 0 ? 1 / (k + S >= 1 ? S : 1 - k) - 1 : k;
      const Lp = L * 255;
      for (let c = 0; c < 3; c++) rgb[c] = Math.max(0, Math.min(255, Lp + (rgb[c] - Lp) * (1 + alpha)));
    }
  }
}

function rangeWeight(h: number, a: number, b: number, c: number, d: number): number {
  // Unwrap so that a <= b <= c <= d, then test h and h ± 360.
  while (b < a) b += 360;
  while (c < b) c += 360;
  while (d < c) d += 360;
  for (const x of [h - 360, h, h + 360, h + 720]) {
    if (x < a || x > d) continue;
    if (x < b) return b > a ? (x - a) / (b - a) : 1;
    if (x <= c) return 1;
    return d > c ? (d - x) / (d - c) : 1;
  }
  return 0;
}

function rgbToHsl(r: number, g: number, b: number, out: Float64Array): void {
  r /= 255; g /= 255; b /= 255;
  const mx = Math.max(r, g, b), mn = Math.min(r, g, b);
  const l = (mx + mn) / 2;
  let h = 0, s = 0;
  if (mx !== mn) {
    const dd = mx - mn;
    s = l > 0.5 ? dd / (2 - mx - mn) : dd / (mx + mn);
    h = mx === r ? (g - b) / dd + (g < b ? 6 : 0) : mx === g ? (b - r) / dd + 2 : (r - g) / dd + 4;
    h /= 6;
  }
  out[0] = h; out[1] = s; out[2] = l;
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  if (s === 0) return [l * 255, l * 255, l * 255];
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const f = (t: number) => {
    t = ((t % 1) + 1) % 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * (2 / 3 - t) * 6;
    return p;
  };
  return [f(h + 1 / 3) * 255, f(h) * 255, f(h - 1 / 3) * 255];
}
