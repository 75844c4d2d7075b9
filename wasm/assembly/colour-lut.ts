// Tetrahedral interpolation of a colour transform sampled on a grid (src/engine/colour/rgb-lut.ts
// fills the tables): 8-bit RGB in, up to four 8-bit channels out, the four channels of a grid
// node in one i32x4 (node values in 1/256 of a level; the weights of a tetrahedron total 256).
//
// `offsets`: three 256-entry i32 tables (byte offsets of the grid cell below each input value
// along R, G and B) then one of the fractions (0–256). `table`: GRID³ nodes × 4 i32.
// `strides`: i32 byte strides of one step along R, G and B in `table`.

export function lutTetrahedral(
  src: usize,
  srcStride: i32,
  dst: usize,
  dstStride: i32,
  channels: i32,
  alpha: i32, // 0: none, 1: copy the source's 4th byte, 2: write 255
  count: i32,
  offsets: usize,
  table: usize,
  dr: i32,
  dg: i32,
  db: i32,
): void {
  const fractions = offsets + 3 * 1024;
  const round = i32x4.splat(32768);
  for (let i = 0; i < count; i++) {
    const s = src + <usize>(i * srcStride);
    const r = <usize>load<u8>(s);
    const g = <usize>load<u8>(s, 1);
    const b = <usize>load<u8>(s, 2);
    const fr = load<i32>(fractions + (r << 2));
    const fg = load<i32>(fractions + (g << 2));
    const fb = load<i32>(fractions + (b << 2));
    const base = table + <usize>(load<i32>(offsets + (r << 2)) + load<i32>(offsets + 1024 + (g << 2)) + load<i32>(offsets + 2048 + (b << 2)));
    // Sakamoto's six tetrahedra, by the order of the fractions.
    let c1: i32, c2: i32, f1: i32, f2: i32, f3: i32;
    if (fr >= fg) {
      if (fg >= fb) { c1 = dr; c2 = dr + dg; f1 = fr; f2 = fg; f3 = fb; }
      else if (fr >= fb) { c1 = dr; c2 = dr + db; f1 = fr; f2 = fb; f3 = fg; }
      else { c1 = db; c2 = dr + db; f1 = fb; f2 = fr; f3 = fg; }
    } else if (fr >= fb) { c1 = dg; c2 = dr + dg; f1 = fg; f2 = fr; f3 = fb; }
    else if (fg >= fb) { c1 = dg; c2 = dg + db; f1 = fg; f2 = fb; f3 = fr; }
    else { c1 = db; c2 = dg + db; f1 = fb; f2 = fg; f3 = fr; }
    let acc = i32x4.add(i32x4.mul(v128.load(base), i32x4.splat(256 - f1)), round);
    acc = i32x4.add(acc, i32x4.mul(v128.load(base + <usize>c1), i32x4.splat(f1 - f2)));
    acc = i32x4.add(acc, i32x4.mul(v128.load(base + <usize>c2), i32x4.splat(f2 - f3)));
    acc = i32x4.add(acc, i32x4.mul(v128.load(base + <usize>(dr + dg + db)), i32x4.splat(f3)));
    const wide = i32x4.shr_s(acc, 16);
    const packed = i32x4.extract_lane(i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_s(wide, wide), i16x8.splat(0)), 0);
    const d = dst + <usize>(i * dstStride);
    if (channels == 4) store<u32>(d, packed);
    else if (channels == 3) {
      store<u16>(d, <u16>packed);
      store<u8>(d, <u8>(packed >>> 16), 2);
    } else store<u8>(d, <u8>packed);
    if (alpha == 1) store<u8>(d + <usize>channels, load<u8>(s, 3));
    else if (alpha == 2) store<u8>(d + <usize>channels, 255);
  }
}
