/**
 * CMYK templates with an adjustment layer (issue 20): accepted at upload (they were a 422), the
 * preview Photoshop's merged image through the profile (composited in ink since issue 25: the
 * adjustment's tables on the layers' own inks; the RGB arithmetic was 29.2 and 8.6 dB), the
 * unpersonalised print PDF the merged ink exactly, and a personalised one the adjusted inks too
 * (the ink compositor models the adjustment; it fell back to the RGB render before). The fixtures
 * and their merged images: test/fixtures/psd-made/make-cmyk-adjust.mjs.
 */
import type { AdjustmentLayer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import UPNG from '@pdf-lib/upng';
import { beforeAll, describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { applyAdjustment } from '../../../src/engine/composite/adjust';
import { writePdf } from '../../../src/engine/pdf/document';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { preparePreview } from '../../../src/engine/preview';
import { srgbProfile } from '../../../src/engine/raster/icc';
import { FileStore } from '../../../src/dynamic-image/store';
import { madeFixture } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { gsCmyk } from '../pdf/print';
import { renderDeps } from '../pdf/helpers';

const W = 16;
const H = 12;
const BOX = { left: 4, top: 3, right: 12, bottom: 9, ink: [0.2, 0.6, 0.1, 0.1] };
const inBox = (x: number, y: number) => x >= BOX.left && x < BOX.right && y >= BOX.top && y < BOX.bottom;

// make-cmyk-adjust.mjs's ramp, Levels (composite: 20..235, midtone 1.3; C: shadow output 30)
// and Invert with magenta left out.
const ramp = (c: number, x: number, y: number) => [0.05 + x * 0.035, 0.1 + y * 0.03, 0.6 - x * 0.03, 0.05 + (x + y) * 0.005][c];
const levels = (i0: number, i1: number, o0: number, o1: number, g: number) => (v: number) =>
  Math.round(o0 + Math.pow(Math.max(0, Math.min(1, (v - i0) / (i1 - i0))), 1 / g) * (o1 - o0));
const record = (i0: number, i1: number, o0: number, o1: number, midtoneInput: number) => ({ shadowInput: i0, highlightInput: i1, shadowOutput: o0, highlightOutput: o1, midtoneInput });

interface Doc {
  name: string;
  /** The adjustment on channel c's stored value, as the script works the merged image out. */
  adjust: (c: number, v: number) => number;
  /** The same adjustment for the RGB arithmetic, and the RGB channels it left out. */
  rgb: AdjustmentLayer;
  rgbExcluded: number[];
  floor: number;
}
const DOCS: Doc[] = [
  {
    name: 'made-cmyk-adjust-levels.psd',
    adjust: (c, v) => levels(20, 235, 0, 255, 1.3)(c === 0 ? levels(0, 255, 30, 255, 1)(v) : v),
    rgb: { type: 'levels', rgb: record(20, 235, 0, 255, 1.3), red: record(0, 255, 30, 255, 1) },
    rgbExcluded: [],
    floor: 50,
  },
  { name: 'made-cmyk-adjust-invert.psd', adjust: (c, v) => (c === 1 ? v : 255 - v), rgb: { type: 'invert' }, rgbExcluded: [1], floor: 50 },
];
const psds = new Map<string, Uint8Array>();

/** The merged image's ink (0 = none) at (x, y), read raw after the file format (8 bits, 4 channels). */
function mergedInk(name: string, x: number, y: number): number[] {
  const psd = psds.get(name)!;
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  let at = 26;
  for (let section = 0; section < 3; section++) at += 4 + v.getUint32(at);
  at += 2; // raw
  return [0, 1, 2, 3].map((c) => 255 - psd[at + c * W * H + y * W + x]);
}

async function print(name: string, options: Partial<HiresOptions> = {}) {
  const page = await prepareHires(new FileStore(env.FILES), { template: `cmyk-adjust/${name}`, ...options }, renderDeps());
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { output: page.output });
  return gsCmyk(sink.bytes());
}

const inkAt = (t: Awaited<ReturnType<typeof gsCmyk>>, x: number, y: number) => [...t.data.subarray((y * t.width + x) * 4, (y * t.width + x) * 4 + 4)];

let toRgb: Awaited<ReturnType<typeof colourTransform>>;
const rgbOf = (ink: number[]) => {
  const out = new Uint8Array(3);
  toRgb.apply(Uint8Array.from(ink), out, 1);
  return [...out];
};
const psnrOf = (got: (x: number, y: number) => number[], want: (x: number, y: number) => number[]) => {
  let se = 0;
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) want(x, y).forEach((v, c) => (se += (got(x, y)[c] - v) ** 2));
  return 10 * Math.log10((255 * 255) / (se / (W * H * 3)));
};

beforeAll(async () => {
  toRgb = await colourTransform({ from: defaultProfile('Cmyk'), to: srgbProfile(), fromLayout: 'CMYK', toLayout: 'RGB' });
  for (const { name } of DOCS) psds.set(name, await madeFixture(name));
  const up = await upload('templates', DOCS.map(({ name }) => [name, psds.get(name)!]), '?destination=cmyk-adjust&overwrite=true');
  expect(up.status).toBe(201); // a 422 before: "… is an adjustment layer in a CMYK document"
});

describe('CMYK templates with an adjustment layer (issue 20)', () => {
  for (const doc of DOCS) {
    it(`${doc.name}: previews within ${doc.floor} dB PSNR of the merged image through the profile, closer than the RGB arithmetic`, async () => {
      const options = { template: `cmyk-adjust/${doc.name}`, format: 'png', size: { width: W, height: H }, jpegQuality: 95, unsharpMask: null } as const;
      const png = (await (await preparePreview(new FileStore(env.FILES), options, renderDeps())).render()).bytes;
      const render = new Uint8Array(UPNG.toRGBA8(UPNG.decode(png.slice().buffer))[0]);
      const merged = (x: number, y: number) => rgbOf(mergedInk(doc.name, x, y));
      const psnr = psnrOf((x, y) => [...render.subarray((y * W + x) * 4, (y * W + x) * 4 + 3)], merged);
      // What the RGB arithmetic gave: the layers converted, the adjustment on R, G, B, the
      // restricted RGB channels kept.
      const before = new Uint8ClampedArray(W * H * 4);
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) before.set([...rgbOf([0, 1, 2, 3].map((c) => Math.round((inBox(x, y) ? BOX.ink[c] : ramp(c, x, y)) * 255))), 255], (y * W + x) * 4);
      const after = before.slice();
      applyAdjustment(doc.rgb, after);
      for (let i = 0; i < after.length; i += 4) for (const c of doc.rgbExcluded) after[i + c] = before[i + c];
      const psnrRgb = psnrOf((x, y) => [...after.subarray((y * W + x) * 4, (y * W + x) * 4 + 3)], merged);
      console.log(`${doc.name}: preview PSNR ${psnr.toFixed(1)} dB of the merged image (the RGB arithmetic: ${psnrRgb.toFixed(1)} dB)`);
      expect(psnr).toBeGreaterThanOrEqual(doc.floor);
      expect(psnr).toBeGreaterThan(psnrRgb);
    });

    it(`${doc.name}: an unpersonalised print PDF holds the merged ink exactly`, async () => {
      const ink = await print(doc.name);
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(inkAt(ink, x, y), `${x},${y}`).toEqual(mergedInk(doc.name, x, y));
    });

    it(`${doc.name}: personalised (the box under the adjustment hidden), the merged ink outside the box; inside, the ramp's own inks adjusted (composited in ink)`, async () => {
      const ink = await print(doc.name, { data: { box: { visible: false } } });
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          if (!inBox(x, y)) expect(inkAt(ink, x, y), `${x},${y}`).toEqual(mergedInk(doc.name, x, y));
          else {
            // The ramp under the adjustment, as make-cmyk-adjust.mjs works it out, ink by ink.
            const want = [0, 1, 2, 3].map((c) => 255 - doc.adjust(c, Math.round((1 - ramp(c, x, y)) * 255)));
            inkAt(ink, x, y).forEach((v, c) => expect(Math.abs(v - want[c]), `${x},${y} ink ${c}`).toBeLessThanOrEqual(1));
          }
        }
      }
    });
  }
});
