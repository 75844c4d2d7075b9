/**
 * PackBits of one row as Photoshop writes it (RLE channels): repeats of 2 to 128, literal runs of
 * 1 to 128. Tests that build RLE channels in workerd use it (test/fixtures/psd-made/lib.mjs has the
 * same for the Node fixture scripts, which workerd cannot import).
 */
export function packBits(row: Uint8Array): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < row.length) {
    let run = 1;
    while (i + run < row.length && run < 128 && row[i + run] === row[i]) run++;
    if (run > 1) {
      out.push(257 - run, row[i]);
      i += run;
      continue;
    }
    let literal = 1;
    while (i + literal < row.length && literal < 128 && !(i + literal + 1 < row.length && row[i + literal] === row[i + literal + 1])) literal++;
    out.push(literal - 1, ...row.subarray(i, i + literal));
    i += literal;
  }
  return Uint8Array.from(out);
}
