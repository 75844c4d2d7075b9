// The bevel's lighting (src/engine/composite/bevel.ts bevelLight, both maps in one pass),
// bit-identical to its TypeScript: the f32 alpha and height are promoted to f64 before any
// arithmetic, the same f64 operations run in the same order (f64.sqrt is correctly rounded as
// Math.sqrt is; the gloss curve's Math.floor is f64.floor), and each result is demoted to f32 on
// store (round to nearest even), as a Float32Array store does.

const RAISED: f64 = 1e-5;

/** bevel.ts throughCurve: a 0..1 value through a 256-entry u8 curve at `lut`. */
@inline
function throughCurve(lut: usize, v: f64): f64 {
  const x = (v <= 0 ? 0 : v >= 1 ? 1 : v) * 255;
  const fi = Math.floor(x);
  const i = <i32>fi;
  const j = i < 255 ? i + 1 : 255;
  const li = <f64>load<u8>(lut + <usize>i);
  const lj = <f64>load<u8>(lut + <usize>j);
  return (li + (lj - li) * (x - fi)) / 255;
}

@inline
function shadeOf(gx: f64, gy: f64, k: f64, lx: f64, ly: f64, lz: f64, gloss: usize): f64 {
  const nx = -gx * k;
  const ny = -gy * k;
  const shade = (nx * lx + ny * ly + lz) / Math.sqrt(nx * nx + ny * ny + 1);
  return gloss ? throughCurve(gloss, shade) : shade;
}

@inline
function highOf(shade: f64, lz: f64): f64 {
  return shade > lz && lz < 1 ? Math.min(1, (shade - lz) / (1 - lz)) : 0;
}

@inline
function lowOf(shade: f64, lz: f64): f64 {
  return shade < lz ? Math.min(1, (lz - shade) / lz) : 0;
}

/**
 * Highlight into `hi` and shadow into `lo` (w × h f32 each, zeroed here) from the alpha and the
 * height (w × h f32). place: 0 alpha (inner bevel, stroke emboss), 1 outside where the height
 * rises (outer bevel), 2 everywhere (emboss, pillow); pillow: 1 for the pillow emboss; gloss: the
 * 256-entry curve's address, 0 for none.
 */
export function bevelLightBoth(alpha: usize, height: usize, hi: usize, lo: usize, w: i32, h: i32, place: i32, pillow: i32, k: f64, lx: f64, ly: f64, lz: f64, gloss: usize): void {
  const bytes = <usize>(w * h) << 2;
  memory.fill(hi, 0, bytes);
  memory.fill(lo, 0, bytes);
  const row = <usize>w << 2;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const at = (<usize>(y * w + x)) << 2;
      const a = <f64>load<f32>(alpha + at);
      const here = height + at;
      const where: f64 = place == 0 ? a : place == 1 ? (<f64>load<f32>(here) > RAISED ? 1 - a : 0) : 1;
      if (where <= 0) continue;
      const gx = (<f64>load<f32>(here + 4) - <f64>load<f32>(here - 4)) / 2;
      const gy = (<f64>load<f32>(here + row) - <f64>load<f32>(here - row)) / 2;
      if (pillow) {
        const outside = shadeOf(gx, gy, -k, lx, ly, lz, gloss);
        if (a > 0) {
          const inside = shadeOf(gx, gy, k, lx, ly, lz, gloss);
          store<f32>(hi + at, <f32>(a * highOf(inside, lz) + (1 - a) * highOf(outside, lz)));
          store<f32>(lo + at, <f32>(a * lowOf(inside, lz) + (1 - a) * lowOf(outside, lz)));
        } else {
          store<f32>(hi + at, <f32>(0 + (1 - a) * highOf(outside, lz)));
          store<f32>(lo + at, <f32>(0 + (1 - a) * lowOf(outside, lz)));
        }
      } else {
        const shade = shadeOf(gx, gy, k, lx, ly, lz, gloss);
        store<f32>(hi + at, <f32>(highOf(shade, lz) * where));
        store<f32>(lo + at, <f32>(lowOf(shade, lz) * where));
      }
    }
  }
}
