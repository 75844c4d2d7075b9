/**
 * Reference conversions by LittleCMS's own `transicc` (Debian liblcms2-utils) for
 * test/engine/colour/conversions.test.ts: a grid of colours through each shipped profile,
 * relative colorimetric with black-point compensation, RGB and grey output bounded (clipped).
 *
 *   npx tsx scripts/colour/transicc-reference.ts   # rewrites test/engine/colour/transicc-reference.json
 *
 * Each case records the exact command line; transicc reads one colour a line (RGB and grey
 * 0–255, CMYK 0–100) and prints floats in the same ranges.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sgrayProfile, srgbProfile } from '../../src/engine/raster/icc';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'icc-'));
const files = {
  srgb: path.join(dir, 'srgb-compact.icc'),
  sgray: path.join(dir, 'sgray-compact.icc'),
  fogra39: path.join(root, 'assets/icc/CoatedFOGRA39-Argyll.icc'),
};
writeFileSync(files.srgb, srgbProfile());
writeFileSync(files.sgray, sgrayProfile());

const steps = (n: number, max: number) => Array.from({ length: n }, (_, i) => Math.round((i * max) / (n - 1)));
const rgbGrid = steps(6, 255).flatMap((r) => steps(6, 255).flatMap((g) => steps(6, 255).map((b) => [r, g, b])));
const cmykGrid = steps(5, 100).flatMap((c) => steps(5, 100).flatMap((m) => steps(5, 100).flatMap((y) => steps(5, 100).map((k) => [c, m, y, k]))));
const greyGrid = steps(18, 255).map((v) => [v]);

const cases = [
  { name: 'sRGB → FOGRA39', from: 'srgb', to: 'fogra39', fromLayout: 'RGB', toLayout: 'CMYK', input: rgbGrid },
  { name: 'FOGRA39 → sRGB', from: 'fogra39', to: 'srgb', fromLayout: 'CMYK', toLayout: 'RGB', input: cmykGrid },
  { name: 'sGray → sRGB', from: 'sgray', to: 'srgb', fromLayout: 'GRAY', toLayout: 'RGB', input: greyGrid },
  { name: 'sRGB → sGray', from: 'srgb', to: 'sgray', fromLayout: 'RGB', toLayout: 'GRAY', input: rgbGrid },
  { name: 'sGray → FOGRA39', from: 'sgray', to: 'fogra39', fromLayout: 'GRAY', toLayout: 'CMYK', input: greyGrid },
  { name: 'FOGRA39 → sGray', from: 'fogra39', to: 'sgray', fromLayout: 'CMYK', toLayout: 'GRAY', input: cmykGrid },
] as const;

const out = cases.map((c) => {
  // -s (bounded) clips RGB and grey output; transicc 2.14 clips CMYK output to 0–1 (not 0–100)
  // with it, and its CMYK output comes from the profile's B2A table, in range without it.
  const args = ['-n', ...(c.toLayout === 'CMYK' ? [] : ['-s']), '-t1', '-b', `-i${files[c.from]}`, `-o${files[c.to]}`];
  const stdout = execFileSync('transicc', args, { input: `${c.input.map((v) => v.join(' ')).join('\n')}\nq\n`, encoding: 'utf8' });
  const output = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^-?\d/.test(l))
    .map((l) => l.split(/\s+/).map((v) => Number(Number(v).toFixed(3))));
  if (output.length !== c.input.length) throw new Error(`${c.name}: ${output.length} results for ${c.input.length} inputs`);
  const command = `transicc ${args.join(' ')}`.replace(dir, '$TMP').replace(dir, '$TMP').replace(root + '/', '');
  return { ...c, command, input: c.input, output };
});

const version = execFileSync('sh', ['-c', 'transicc < /dev/null 2>&1 | head -1'], { encoding: 'utf8' }).trim();
const json = { made: 'npx tsx scripts/colour/transicc-reference.ts', transicc: version, cases: out };
writeFileSync(path.join(root, 'test/engine/colour/transicc-reference.json'), `${JSON.stringify(json)}\n`);
console.log(out.map((c) => `${c.name}: ${c.output.length}`).join('\n'), readFileSync(files.srgb).length);
