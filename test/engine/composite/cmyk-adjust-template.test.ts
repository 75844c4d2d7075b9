/**
 * A CMYK template with an adjustment layer (issue 20): accepted at upload (it was a 422), its
 * preview close to Photoshop's merged image through the profile, its unpersonalised print PDF the
 * merged ink exactly, and a personalised one made (the changed pixels converted from the RGB
 * render, which the ink compositor falls back to under an adjustment). The fixture and its
 * merged image: test/fixtures/psd-made/make-cmyk-adjust.mjs.
 */
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
import { fixtureServer } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { gsCmyk } from '../pdf/print';
import { renderDeps } from '../pdf/helpers';

const NAME = 'made-cmyk-adjust-levels.psd';
const W = 16;
const H = 12;
const BOX = { left: 4, top: 3, right: 12, bottom: 9 };
let psd: Uint8Array;

// make-cmyk-adjust.mjs's ramp and Levels (composite: 20..235, midtone 1.3; C: shadow output 30).
const ramp = (c: number, x: number, y: number) => [0.05 + x * 0.035, 0.1 + y * 0.03, 0.6 - x * 0.03, 0.05 + (x + y) * 0.005][c];
const levels = (i0: number, i1: number, o0: number, o1: number, g: number) => (v: number) =>
  Math.round(o0 + Math.pow(Math.max(0, Math.min(1, (v - i0) / (i1 - i0))), 1 / g) * (o1 - o0));
const adjusted = (c: number, v: number) => levels(20, 235, 0, 255, 1.3)(c === 0 ? levels(0, 255, 30, 255, 1)(v) : v);

/** The merged image's ink (0 = none) at (x, y), read raw after the file format (8 bits, 4 channels). */
function mergedInk(x: number, y: number): number[] {
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  let at = 26;
  for (let section = 0; section < 3; section++) at += 4 + v.getUint32(at);
  at += 2; // raw
  return [0, 1, 2, 3].map((c) => 255 - psd[at + c * W * H + y * W + x]);
}

async function print(options: Partial<HiresOptions> = {}) {
  const page = await prepareHires(new FileStore(env.FILES), { template: `cmyk-adjust/${NAME}`, ...options }, renderDeps());
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { output: page.output });
  return gsCmyk(sink.bytes());
}

const inkAt = (t: Awaited<ReturnType<typeof gsCmyk>>, x: number, y: number) => [...t.data.subarray((y * t.width + x) * 4, (y * t.width + x) * 4 + 4)];

beforeAll(async () => {
  const res = await fetch(`${fixtureServer()}/fixtures/psd-made/${NAME}`);
  psd = new Uint8Array(await res.arrayBuffer());
  const up = await upload('templates', [[NAME, psd]], '?destination=cmyk-adjust&overwrite=true');
  expect(up.status).toBe(201); // a 422 before: "… is an adjustment layer in a CMYK document"
});

describe('CMYK template with a Levels adjustment layer (issue 20)', () => {
  it('previews within 30 dB PSNR of the merged image through the profile (the Levels worked on the inks)', async () => {
    const options = { template: `cmyk-adjust/${NAME}`, format: 'png', size: { width: W, height: H }, jpegQuality: 95, unsharpMask: null } as const;
    const png = (await (await preparePreview(new FileStore(env.FILES), options, renderDeps())).render()).bytes;
    const render = new Uint8Array(UPNG.toRGBA8(UPNG.decode(png.slice().buffer))[0]);
    const toRgb = await colourTransform({ from: defaultProfile('Cmyk'), to: srgbProfile(), fromLayout: 'CMYK', toLayout: 'RGB' });
    let se = 0, worst = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const want = new Uint8Array(3);
        toRgb.apply(Uint8Array.from(mergedInk(x, y)), want, 1);
        want.forEach((v, c) => {
          const d = render[(y * W + x) * 4 + c] - v;
          se += d * d;
          worst = Math.max(worst, Math.abs(d));
        });
      }
    }
    const psnr = 10 * Math.log10((255 * 255) / (se / (W * H * 3)));
    // What the RGB arithmetic gave (the Levels on R, G, B of the converted layers, the C record on R).
    const before = new Uint8ClampedArray(W * H * 4);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inBox = x >= BOX.left && x < BOX.right && y >= BOX.top && y < BOX.bottom;
        const stored = [0, 1, 2, 3].map((c) => Math.round((1 - (inBox ? [0.2, 0.6, 0.1, 0.1][c] : ramp(c, x, y))) * 255));
        const px = new Uint8Array(3);
        toRgb.apply(Uint8Array.from(stored.map((v) => 255 - v)), px, 1);
        before.set([...px, 255], (y * W + x) * 4);
      }
    }
    const record = (i0: number, i1: number, o0: number, o1: number, midtoneInput: number) => ({ shadowInput: i0, highlightInput: i1, shadowOutput: o0, highlightOutput: o1, midtoneInput });
    applyAdjustment({ type: 'levels', rgb: record(20, 235, 0, 255, 1.3), red: record(0, 255, 30, 255, 1) }, before);
    let seRgb = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const want = new Uint8Array(3);
        toRgb.apply(Uint8Array.from(mergedInk(x, y)), want, 1);
        want.forEach((v, c) => (seRgb += (before[(y * W + x) * 4 + c] - v) ** 2));
      }
    }
    const psnrRgb = 10 * Math.log10((255 * 255) / (seRgb / (W * H * 3)));
    console.log(`preview vs merged through the profile: PSNR ${psnr.toFixed(1)} dB, worst ${worst} levels (the RGB arithmetic: ${psnrRgb.toFixed(1)} dB)`);
    expect(psnr).toBeGreaterThanOrEqual(30);
    expect(psnr).toBeGreaterThan(psnrRgb);
  });

  it('an unpersonalised print PDF holds the merged ink exactly', async () => {
    const ink = await print();
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(inkAt(ink, x, y), `${x},${y}`).toEqual(mergedInk(x, y));
  });

  it('personalised (the box under the adjustment hidden): the merged ink outside the box; inside, the ramp adjusted, from the RGB render', async () => {
    const ink = await print({ data: { box: { visible: false } } });
    const toRgb = await colourTransform({ from: defaultProfile('Cmyk'), to: srgbProfile(), fromLayout: 'CMYK', toLayout: 'RGB' });
    const rgb = (v: number[]) => {
      const out = new Uint8Array(3);
      toRgb.apply(Uint8Array.from(v), out, 1);
      return [...out];
    };
    let worst = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const inBox = x >= BOX.left && x < BOX.right && y >= BOX.top && y < BOX.bottom;
        if (!inBox) expect(inkAt(ink, x, y), `${x},${y}`).toEqual(mergedInk(x, y));
        else {
          // The ramp under the Levels, as make-cmyk-adjust.mjs works it out. The fallback's inks are
          // the profile's separation of the RGB render (its own black), so compared as colours.
          const want = rgb([0, 1, 2, 3].map((c) => 255 - adjusted(c, Math.round((1 - ramp(c, x, y)) * 255))));
          const got = rgb(inkAt(ink, x, y));
          worst = Math.max(worst, ...want.map((v, c) => Math.abs(got[c] - v)));
        }
      }
    }
    console.log(`personalised: box pixels within ${worst} levels (sRGB) of the adjusted ramp`);
    expect(worst).toBeLessThanOrEqual(24);
  });
});
