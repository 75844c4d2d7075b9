import { inArena, type KernelExports } from '../raster/kernels';
import type { Bounds } from '../types';
import { blurInPlace, blurWasm, boxRadii, effectKernels, Scratch, signedDistance } from './morphology';

/** A 256-entry curve table (0..255 both ways), as adjust.ts's curveLut makes. */
type Lut = Uint8Array;

/**
 * Bevel and emboss: the maps of highlight and shadow (0..1 per pixel) that effects.ts paints in
 * their colours, modes and opacities. Smooth technique below; the chisel techniques at `chisel`.
 *
 * A height field rises from 0 outside the shape to 1 inside it over the bevel's reach `r`, lit
 * from the light's angle and altitude: with the slope scaled by r·depth (a rise of 1 over r px is
 * a slope of `depth`), the part facing the light brightens (highlight), the part facing away
 * darkens (shadow). Adobe's styles place the reach:
 * - inner bevel: inside the edge, r = size (the shape blurred over the size, drawn inside it);
 * - outer bevel: outside the edge, r = size: the shape blurred over the size, as for an inner
 *   bevel, drawn outside it where the height rises (so it reaches the size out, not a pixel past
 *   it). photocraft's bevel_maps, compared with Photoshop's composite of its corpus file
 *   bevel-outer-smooth.psd; growing the shape by the size first, as we did, lit twice as far out;
 * - emboss: the size split across the edge, half inside and half outside: r = size / 2, drawn
 *   on both sides. Blurring over the whole size instead spread Photoshop's 41 px emboss of
 *   `psdtools-layer-effects-all.psd` twice as far and twice as steep (that text's region 13.7
 *   levels RMS from Photoshop's pixels; split in half, 1.6);
 * - pillow emboss: the same reach and height as an emboss, with the edge stamped into what is
 *   below: the inside lit as an emboss over the pixel's alpha, the outside with its slopes turned
 *   over, over the rest of the pixel (a 1 % edge pixel takes the outside's shading: photocraft's
 *   bevel_maps against Photoshop's bevel-pillow-smooth.psd). The groove |2·blurred − 1| we drew
 *   before sloped twice as steeply. Chisel the same way on the chisel emboss's height.
 * - stroke emboss: the bevel drawn on the stroke's band (Adobe: "embosses a stroke applied to the
 *   layer"): effects.ts passes the band's coverage as the shape, so both of its edges rise over the
 *   reach as an inner bevel's does, and nothing is drawn where there is no stroke.
 * Direction down turns the slopes over (highlight and shadow swap); soften blurs the height
 * field further.
 *
 * Two curves, as Adobe names them: the Contour element ("sculpts the ridges, valleys and bumps
 * that are shaded") reshapes the height profile before it is lit: the height (0 at the foot of
 * the bevel, 1 at its top) through the curve. Its Range is not modelled (the curve spans the
 * whole profile): at the dialog's default 50 %, dividing the height by it as for glows would cap
 * an inner bevel flat at its own edge, where the blurred height is already ½. The Gloss Contour ("applied after shading") maps the lit surface's brightness: the shade
 * s (0 facing away … 1 facing the light; the flat face is lit at sin(altitude)) goes through the
 * curve before it splits into highlight (above the flat face's level) and shadow (below it). A
 * Linear curve (the default) changes nothing; a curve that lifts the flat face's level lights the
 * face too, which is how Photoshop's ring and cove gloss contours give flat faces their sheen.
 */
export interface BevelOptions {
  style?: string;
  /** 'smooth' (default), 'chisel hard' or 'chisel soft'. */
  technique?: string;
  /** Size, output pixels (at least 1). */
  size: number;
  /** Depth as a fraction (ag-psd's strength: 1 = 100 %). */
  depth: number;
  up: boolean;
  /** Soften, output pixels. */
  soften: number;
  /** Light angle and altitude, degrees. */
  angle: number;
  altitude: number;
  /** Gloss contour as a 256-entry table (0..255 both ways); null/undefined = Linear. */
  gloss?: Lut | null;
  /** The Contour element's curve (256-entry table); null/undefined = none. */
  contour?: Lut | null;
}

/** A 0..1 value through a 256-entry curve, interpolated between entries. */
export function throughCurve(lut: Lut, v: number): number {
  const x = (v <= 0 ? 0 : v >= 1 ? 1 : v) * 255;
  const i = Math.floor(x);
  const j = i < 255 ? i + 1 : 255;
  return (lut[i] + (lut[j] - lut[i]) * (x - i)) / 255;
}

/**
 * The chisel techniques' height: Adobe describes chisel hard as a distance measurement (flat
 * facets, where smooth blurs) and chisel soft as a modified, less exact one. The height is linear
 * in the Euclidean distance d from the anti-aliased edge (positive outside) over the reach: inner
 * bevel 0 at the edge → 1 at the size inside, outer bevel 0 at the size outside → 1 at the edge,
 * emboss (and pillow emboss, lit the other way outside) 0 at half the size outside → 1 at half the
 * size inside, its slope scaled by the size as an inner bevel's is (photocraft's bevel_geom: depth ×
 * size for chisel, so a facet slopes by the depth whatever the style; ours halved an emboss's).
 * Chisel soft: that ramp blurred over a quarter of the size (photocraft's chisel_soft; no
 * Photoshop-made fixture here has either technique).
 */
function chisel(alpha: Float32Array, w: number, h: number, style: string, reach: number): Float32Array {
  const d = signedDistance(alpha, w, h);
  // Each distance is read once, then replaced by its height.
  const out = d;
  for (let i = 0; i < d.length; i++) {
    let v: number;
    if (style === 'outer bevel') v = 1 - d[i] / reach;
    else if (style === 'emboss') v = 0.5 - d[i] / (2 * reach);
    else v = -d[i] / reach;
    out[i] = v < 0 ? 0 : v > 1 ? 1 : v;
  }
  return out;
}

/** A height above the blur's float noise: an outer bevel's pixel there is on the bevel (photocraft's BEVEL_H_EPS). */
const RAISED = 1e-5;

export function bevelMaps(alpha: Float32Array, w: number, h: number, o: BevelOptions): { hi: Float32Array; lo: Float32Array } {
  const light = bevelLight(alpha, w, h, o, new Scratch());
  return { hi: light('highlight', new Float32Array(alpha.length)), lo: light('shadow', new Float32Array(alpha.length)) };
}

/**
 * The bevel's height field, then its highlight or its shadow map on demand, written into `out`
 * (as long as alpha): a caller that paints one before it asks for the other needs one array for
 * both. With the alpha and the height that is three arrays a tile, reused from one tile to the
 * next through `scratch` (issue 25 §1: a size-250 outer bevel's are 14 MB each).
 *
 * `to` (within w × h; tiles past BOTH_PIXELS, bevelCut): the maps are asked over `to` alone, the
 * part a tile paints, and `out` is as long as `to`. `alpha` is then handed over: its values over
 * `to` are kept (the lighting reads a pixel's own alpha, the height's around it) and the height
 * is blurred over it, so the tile holds one array of its arrays' size, not three (issue 25 §1). The
 * same floats: the height is the alpha blurred either way, each map value the same sum of its
 * pixel's alpha and the height's neighbours, and the arrays' border pixels, never lit, stay 0.
 */
export function bevelLight(
  alpha: Float32Array,
  w: number,
  h: number,
  o: BevelOptions,
  scratch: Scratch,
  to?: Bounds,
): (which: 'highlight' | 'shadow', out: Float32Array) => Float32Array {
  const style = o.style ?? 'inner bevel';
  const emboss = style === 'emboss' || style === 'pillow emboss';
  const reach = emboss ? o.size / 2 : o.size;
  const n = alpha.length;
  let height: Float32Array;
  const chiselled = o.technique === 'chisel hard' || o.technique === 'chisel soft';
  // The maps' rectangle (all of w × h without `to`) and the alpha the lighting reads over it.
  const cut = to ?? { left: 0, top: 0, right: w, bottom: h };
  const cw = cut.right - cut.left;
  let lightAlpha = alpha;
  if (to) {
    lightAlpha = scratch.take('alphaCut', cw * (cut.bottom - cut.top));
    for (let y = cut.top; y < cut.bottom; y++) lightAlpha.set(alpha.subarray(y * w + cut.left, y * w + cut.right), (y - cut.top) * cw);
  }
  if (chiselled) {
    height = chisel(alpha, w, h, style === 'pillow emboss' ? 'emboss' : style, reach);
    if (o.technique === 'chisel soft') blurInPlace(height, w, h, o.size / 4);
  } else {
    if (to) height = alpha;
    else (height = scratch.take('height', n)).set(alpha);
    blurHeight(height, w, h, reach);
  }
  // A pillow emboss is the emboss's height lit the other way round outside the shape.
  const pillow = style === 'pillow emboss';
  const contour = o.contour;
  if (contour) for (let i = 0; i < n; i++) height[i] = throughCurve(contour, height[i]);
  if (o.soften > 0) blurHeight(height, w, h, o.soften);
  const angle = (o.angle * Math.PI) / 180;
  const altitude = (o.altitude * Math.PI) / 180;
  const lx = Math.cos(altitude) * Math.cos(angle);
  const ly = -Math.cos(altitude) * Math.sin(angle);
  const lz = Math.sin(altitude);
  // The slopes' scale: a rise of 1 over the height's ramp is a slope of `depth`. The chisel ramp
  // spans the whole size (an emboss's half inside and half outside), the smooth blur its reach.
  const k = (chiselled ? o.size : reach) * o.depth * (o.up ? 1 : -1);
  // Where the bevel lies, per pixel (hoisted out of the loop): the alpha (inner, stroke emboss),
  // the rest of the pixel where the height rises (outer), everywhere (emboss, pillow).
  const place = style === 'inner bevel' || style === 'stroke emboss' ? ALPHA : style === 'outer bevel' ? OUTSIDE : EVERYWHERE;
  const gloss = o.gloss ?? null;
  // Tiles up to BOTH_PIXELS light both maps in one pass (the shade once a pixel), the shadow into
  // a fourth array of the scratch that the shadow's call copies out.
  const both = n <= BOTH_PIXELS && !to ? scratch.take('shadow', n) : null;
  let pending = false;
  return (which, out) => {
    if (both && which === 'shadow' && pending) {
      pending = false;
      out.set(both);
      return out;
    }
    out.fill(0);
    if (both && which === 'highlight' && lightInKernels(alpha, height, out, both, w, h, place, pillow, k, lx, ly, lz, gloss)) {
      pending = true;
      return out;
    }
    if (both && which === 'highlight') {
      both.fill(0);
      for (let y = 1; y < h - 1; y++) {
        for (let x = 1; x < w - 1; x++) {
          const i = y * w + x;
          const a = alpha[i];
          const where = place === ALPHA ? a : place === OUTSIDE ? (height[i] > RAISED ? 1 - a : 0) : 1;
          if (where <= 0) continue;
          const gx = (height[i + 1] - height[i - 1]) / 2;
          const gy = (height[i + w] - height[i - w]) / 2;
          if (pillow) {
            const outside = shadeOf(gx, gy, -k, lx, ly, lz, gloss);
            if (a > 0) {
              const inside = shadeOf(gx, gy, k, lx, ly, lz, gloss);
              out[i] = a * highOf(inside, lz) + (1 - a) * highOf(outside, lz);
              both[i] = a * lowOf(inside, lz) + (1 - a) * lowOf(outside, lz);
            } else {
              out[i] = 0 + (1 - a) * highOf(outside, lz);
              both[i] = 0 + (1 - a) * lowOf(outside, lz);
            }
          } else {
            const shade = shadeOf(gx, gy, k, lx, ly, lz, gloss);
            out[i] = highOf(shade, lz) * where;
            both[i] = lowOf(shade, lz) * where;
          }
        }
      }
      pending = true;
      return out;
    }
    const high = which === 'highlight';
    for (let y = Math.max(1, cut.top); y < Math.min(h - 1, cut.bottom); y++) {
      for (let x = Math.max(1, cut.left); x < Math.min(w - 1, cut.right); x++) {
        const i = y * w + x;
        const at = (y - cut.top) * cw + (x - cut.left);
        const a = lightAlpha[at];
        // An outer bevel lies where its height rises, and not a pixel past it.
        const where = place === ALPHA ? a : place === OUTSIDE ? (height[i] > RAISED ? 1 - a : 0) : 1;
        if (where <= 0) continue;
        const gx = (height[i + 1] - height[i - 1]) / 2;
        const gy = (height[i + w] - height[i - w]) / 2;
        // Pillow: the inside lit as an emboss over the pixel's alpha, the outside facing the other
        // way over the rest of it.
        out[at] = pillow ? (a > 0 ? a * lit(high, gx, gy, k, lx, ly, lz, gloss) : 0) + (1 - a) * lit(high, gx, gy, -k, lx, ly, lz, gloss) : lit(high, gx, gy, k, lx, ly, lz, gloss) * where;
      }
    }
    return out;
  };
}

/** The most pixels a tile lights both maps of at once (a fourth array of 1 MB at most). */
const BOTH_PIXELS = 1 << 18;

/** Whether a tile's arrays of `n` pixels are lit over the tile alone (bevelLight's `to`): past BOTH_PIXELS, where both maps are lit one by one in the TypeScript anyway. */
export const bevelCut = (n: number): boolean => n > BOTH_PIXELS;

/** wasm/assembly/bevel.ts, exported by the kernels once kernels.ts lists it. */
interface BevelKernels {
  bevelLightBoth(alpha: number, height: number, hi: number, lo: number, w: number, h: number, place: number, pillow: number, k: number, lx: number, ly: number, lz: number, gloss: number): void;
}

/**
 * Both maps lit in the kernels (the same floats as the loop in bevelLight), on tiles whose four
 * arrays fit the memory the kernels already hold (half the WASM passes' size): false where they
 * are not there, and the TypeScript lights.
 */
function lightInKernels(alpha: Float32Array, height: Float32Array, hi: Float32Array, lo: Float32Array, w: number, h: number, place: number, pillow: boolean, k: number, lx: number, ly: number, lz: number, gloss: Lut | null): boolean {
  const n = w * h;
  const kernels = effectKernels(2 * n) as (KernelExports & Partial<BevelKernels>) | undefined;
  if (!kernels?.bevelLightBoth) return false;
  inArena(kernels, (kk, arena) => {
    const a = arena.alloc(n * 4);
    const t = arena.alloc(n * 4);
    const p = arena.alloc(n * 4);
    const q = arena.alloc(n * 4);
    const g = gloss ? arena.alloc(256) : 0;
    if (gloss) arena.u8().set(gloss.subarray(0, 256), g);
    const f32 = arena.f32();
    f32.set(alpha.subarray(0, n), a >> 2);
    f32.set(height.subarray(0, n), t >> 2);
    (kk as KernelExports & BevelKernels).bevelLightBoth(a, t, p, q, w, h, place, pillow ? 1 : 0, k, lx, ly, lz, g);
    hi.set(f32.subarray(p >> 2, (p >> 2) + n));
    lo.set(f32.subarray(q >> 2, (q >> 2) + n));
  });
  return true;
}

const ALPHA = 0;
const OUTSIDE = 1;
const EVERYWHERE = 2;

/**
 * The share of the pixel lit by the slopes (gx, gy) at scale `k`: its highlight (`high`) or its
 * shadow. A module function, not a closure made per tile: the same arithmetic in the same order.
 */
function lit(high: boolean, gx: number, gy: number, k: number, lx: number, ly: number, lz: number, gloss: Lut | null): number {
  const shade = shadeOf(gx, gy, k, lx, ly, lz, gloss);
  return high ? highOf(shade, lz) : lowOf(shade, lz);
}

/** The lit surface's brightness at slopes (gx, gy) scaled by k, through the gloss contour. */
function shadeOf(gx: number, gy: number, k: number, lx: number, ly: number, lz: number, gloss: Lut | null): number {
  const nx = -gx * k;
  const ny = -gy * k;
  const shade = (nx * lx + ny * ly + lz) / Math.sqrt(nx * nx + ny * ny + 1);
  return gloss ? throughCurve(gloss, shade) : shade;
}

/** The highlight of a shade: above the flat face's level lz. */
function highOf(shade: number, lz: number): number {
  return shade > lz && lz < 1 ? Math.min(1, (shade - lz) / (1 - lz)) : 0;
}

/** The shadow of a shade: below the flat face's level lz. */
function lowOf(shade: number, lz: number): number {
  return shade < lz ? Math.min(1, (lz - shade) / lz) : 0;
}

/**
 * blurInPlace over the height, in the kernels (wasm/assembly/effects.ts boxBlur, the same box
 * passes to the bit) where the tile fits their memory: the TypeScript passes were the bevel's
 * largest cost in a personalised text's request (issue 25 §3).
 */
function blurHeight(a: Float32Array, w: number, h: number, radius: number): void {
  if (radius <= 0) return;
  const k = effectKernels(a.length);
  if (!k) {
    blurInPlace(a, w, h, radius);
    return;
  }
  const [r0, r1] = boxRadii(radius);
  blurWasm(k, a, w, h, r0, r1, a);
}
