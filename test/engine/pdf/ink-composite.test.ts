/**
 * A CMYK template composited in CMYK where a request changes it (issue 20, "Keep original
 * colours"; docs/pdf.md, "CMYK templates"): Ghostscript's CMYK rendering of the PDF holds, on
 * changed pixels, the ink Photoshop's per-channel compositing of the document gives, and
 * elsewhere the PSD's merged ink. Fixtures: test/fixtures/psd-made/make-ink.mjs (raw channels,
 * read back here without the engine's reader).
 */
import { env } from 'cloudflare:workers';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { personalise, resolveRequest } from '../../../src/engine/preview';
import { renderTemplate } from '../../../src/engine';
import { srgbProfile } from '../../../src/engine/raster/icc';
import type { PersonalisationData } from '../../../src/engine/personalise';
import { beforeAll, describe, expect, it } from 'vitest';
import { writePdf } from '../../../src/engine/pdf/document';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { requestInks } from '../../../src/engine/pdf/ink-composite';
import { parseColor } from '../../../src/engine/personalise';
import type { LayerNode } from '../../../src/engine/types';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { FileStore } from '../../../src/dynamic-image/store';
import { fixtureServer, madeFixture } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { gsCmyk, pixel, type Tiff } from './print';
import { readInkPsd, renderDeps } from './helpers';

const W = 24;
const H = 16;
const FILES = ['made-ink-edge.psd', 'made-ink-multiply.psd', 'made-ink-fallback.psd', 'made-ink-stack.psd', 'made-ink-alpha.psd', 'made-ink-zip.psd', 'made-ink-shape.psd', 'made-ink-clipped-fallback.psd'];

/**
 * Checks Ghostscript's `ink` pixel by pixel: where the personalised layer's alpha `alphaAt(i)`
 * is 0, the merged ink exactly; elsewhere `want(x, y, i, a)` within `tolerance`. Returns how many
 * pixels were compared with `want`.
 */
function expectInk(ink: Tiff, merged: (x: number, y: number) => number[], alphaAt: (i: number) => number, want: (x: number, y: number, i: number, a: number) => number[], tolerance = 1): number {
  let changed = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const a = alphaAt(i);
      const got = pixel(ink, x, y);
      if (a === 0) {
        expect(got, `${x},${y}`).toEqual(merged(x, y));
        continue;
      }
      changed++;
      const expected = want(x, y, i, a);
      got.forEach((v, c) => expect(Math.abs(v - expected[c]), `${x},${y} channel ${c}: ${got} for ${expected}`).toBeLessThanOrEqual(tolerance));
    }
  }
  return changed;
}

/**
 * The engine's RGB render of a request at the document's size, as RGBA: what the PDF converts
 * where the ink compositor does not reach. (Not the preview: a preview of a CMYK document is
 * composited in ink where it models the stack, Luminosity included; composite/cmyk-ink.ts.)
 */
async function preview(name: string, data: PersonalisationData): Promise<Uint8Array> {
  const request = await resolveRequest(new FileStore(env.FILES), { template: `ink-composite/${name}`, data }, renderDeps());
  const overrides = await personalise(request, { scale: 1, report: () => {} });
  const image = await renderTemplate(env.FILES, request.template.compiled, { scale: 1, overrides, background: 'transparent' });
  return new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength);
}

/** The PDF of a request as Ghostscript's CMYK rendering; `rows`: strips of that many rows. */
async function print(name: string, options: Partial<HiresOptions> = {}, rows?: number) {
  const page = await prepareHires(new FileStore(env.FILES), { template: `ink-composite/${name}`, ...options }, renderDeps());
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { output: page.output, ...(rows ? { stripBytes: W * 4 * rows } : {}) });
  return gsCmyk(sink.bytes());
}

const psds = new Map<string, Uint8Array>();
beforeAll(async () => {
  for (const name of FILES) psds.set(name, await madeFixture(name));
  const res = await upload('templates', FILES.map((n) => [n, psds.get(n)!]), '?destination=ink-composite&overwrite=true');
  expect(res.status).toBe(201);
});

describe('a CMYK template composited in CMYK where the request changes it (issue 20)', () => {
  it('unpersonalised: the merged ink everywhere', async () => {
    for (const name of FILES) {
      const psd = readInkPsd(psds.get(name)!);
      const ink = await print(name);
      for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(pixel(ink, x, y), `${name} ${x},${y}`).toEqual(psd.merged(x, y));
    }
  });

  it('a cmyk(0,0,0,100) recolour over cyan: edges are C = cyan·(1 − a), K = 255·a, M = Y = 0; elsewhere the merged ink', async () => {
    const psd = readInkPsd(psds.get('made-ink-edge.psd')!);
    const [cyan, mark] = psd.layers;
    const ink = await print('made-ink-edge.psd', { data: { mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } } });
    let edges = 0;
    expectInk(ink, psd.merged, mark.alpha, (_x, _y, i, a) => {
      if (a < 1) edges++;
      return [cyan.ink(0, i) * (1 - a), 0, 0, 255 * a];
    });
    expect(edges).toBeGreaterThan(20);
  });

  it('a recoloured layer in Multiply: per-channel ink multiply, ink = b + a·s·(1 − b) (stored values multiplied); elsewhere the merged ink', async () => {
    const psd = readInkPsd(psds.get('made-ink-multiply.psd')!);
    const [art, tint] = psd.layers;
    // cmyk(0,60,0,10) as ink bytes (0..255): 0, 153, 0, 26.
    const s = [0, 153, 0, 26].map((v) => v / 255);
    const ink = await print('made-ink-multiply.psd', { data: { tint: { type: 'shape', color: 'cmyk(0,60,0,10)' } } });
    const changed = expectInk(ink, psd.merged, tint.alpha, (_x, _y, i, a) =>
      [0, 1, 2, 3].map((c) => {
        const b = art.ink(c, i) / 255;
        return 255 * (b + a * s[c] * (1 - b));
      }),
    );
    expect(changed).toBeGreaterThan(100);
  });

  it('a hidden layer reveals the ink of the layer under it exactly', async () => {
    const psd = readInkPsd(psds.get('made-ink-multiply.psd')!);
    const [art] = psd.layers;
    const ink = await print('made-ink-multiply.psd', { data: { tint: { type: 'shape', color: '#000000', visible: false } } });
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(pixel(ink, x, y), `${x},${y}`).toEqual([0, 1, 2, 3].map((c) => art.ink(c, y * W + x)));
  });

  it('over a shape layer (vector mask, its pixels Photoshop\'s rendering of the path): composited in ink there too', async () => {
    const psd = readInkPsd(psds.get('made-ink-shape.psd')!);
    const [cyan, panel, mark] = psd.layers;
    const ink = await print('made-ink-shape.psd', { data: { mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } } });
    let overPanel = 0;
    expectInk(ink, psd.merged, mark.alpha, (_x, _y, i, a) => {
      const p = panel.alpha(i);
      if (p > 0) overPanel++;
      const under = [0, 1, 2, 3].map((c) => panel.ink(c, i) * p + cyan.ink(c, i) * (1 - p));
      return under.map((v, c) => v * (1 - a) + (c === 3 ? 255 * a : 0));
    });
    expect(overPanel).toBeGreaterThan(10);
  });

  it('where a mode the ink compositor does not model (Luminosity) reaches, changed pixels are the RGB render converted; elsewhere in ink', async () => {
    const psd = readInkPsd(psds.get('made-ink-fallback.psd')!);
    const [cyan, , mark] = psd.layers;
    const data: PersonalisationData = { mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } };
    const ink = await print('made-ink-fallback.psd', { data });
    const render = await preview('made-ink-fallback.psd', data);
    const toCmyk = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGB', toLayout: 'CMYK' });
    let converted = 0;
    expectInk(ink, psd.merged, mark.alpha, (x, _y, i, a) => {
      if (x >= 12) return [cyan.ink(0, i) * (1 - a), 0, 0, 255 * a];
      converted++;
      const cmyk = new Uint8Array(4);
      toCmyk.apply(render.subarray(i * 4, i * 4 + 3), cmyk, 1);
      return [...cmyk];
    });
    expect(converted).toBeGreaterThan(20);
  });

  it('an unmodelled layer clipped to a panel leaves only the panel\'s rectangle to the fallback', async () => {
    const psd = readInkPsd(psds.get('made-ink-clipped-fallback.psd')!);
    const [cyan, , , mark] = psd.layers;
    const data: PersonalisationData = { mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } };
    const ink = await print('made-ink-clipped-fallback.psd', { data });
    const render = await preview('made-ink-clipped-fallback.psd', data);
    const toCmyk = await colourTransform({ from: srgbProfile(), to: defaultProfile('Cmyk'), fromLayout: 'RGB', toLayout: 'CMYK' });
    let inInk = 0;
    expectInk(ink, psd.merged, mark.alpha, (x, _y, i, a) => {
      // The panel's pixels lie in columns 0..9 (its layer rectangle).
      if (x >= 10) {
        inInk++;
        return [cyan.ink(0, i) * (1 - a), 0, 0, 255 * a];
      }
      const cmyk = new Uint8Array(4);
      toCmyk.apply(render.subarray(i * 4, i * 4 + 3), cmyk, 1);
      return [...cmyk];
    });
    expect(inInk).toBeGreaterThan(40);
  });

  it.each([
    { name: 'made-ink-stack.psd', rows: undefined },
    { name: 'made-ink-zip.psd', rows: 3 },
  ])('groups, masks and clipping: a pass-through group at opacity 0.75, a masked base, the recoloured layer clipped to it in Multiply, Screen over it ($name, strips of $rows rows)', async ({ name, rows }) => {
    const psd = readInkPsd(psds.get(name)!);
    const want = (await (await fetch(`${fixtureServer()}/fixtures/psd-made/made-ink-stack.json`)).json()) as { data: PersonalisationData; ink: number[][] };
    const ink = await print(name, { data: want.data }, rows);
    let changed = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const got = pixel(ink, x, y);
        const merged = psd.merged(x, y);
        const expected = want.ink[y * W + x];
        if (expected.every((v, c) => Math.abs(v - merged[c]) <= 0.5)) expect(got, `${x},${y}`).toEqual(merged);
        else {
          changed++;
          // The engine rounds to 8 bits after every layer; the script once, at the end.
          got.forEach((v, c) => expect(Math.abs(v - expected[c]), `${x},${y} channel ${c}: ${got} for ${expected}`).toBeLessThanOrEqual(2));
        }
      }
    }
    expect(changed).toBeGreaterThan(50);
  });

  it('a merged transparency: composited in ink over paper, the recolour\'s edge C = cyan·(1 − a), K = 255·a over cyan and K = 255·a over nothing', async () => {
    const psd = readInkPsd(psds.get('made-ink-alpha.psd')!);
    const [cyan, mark] = psd.layers;
    const ink = await print('made-ink-alpha.psd', { data: { mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } } });
    let overNothing = 0;
    // Unchanged pixels: the merged ink as stored (matted over white), none where transparent.
    expectInk(ink, psd.merged, mark.alpha, (x, y, _i, a) => {
      if (x >= 16) overNothing++;
      return [x < 16 ? cyan.ink(0, y * 16 + x) * (1 - a) : 0, 0, 0, 255 * a];
    });
    expect(overNothing).toBeGreaterThan(5);
  });

  it('personalised content as ink: text takes its cmyk() colour on every pixel (edges too), other pixels where exactly the drawn colour, the rest converted', () => {
    const convert = (src: Uint8Array | Uint8ClampedArray, dst: Uint8Array, n: number) => {
      for (let i = 0; i < n; i++) dst.set([src[i * 4], 1, 2, 3], i * 4); // marks a converted pixel by its R
    };
    const drawn = parseColor('cmyk(0,0,0,100)') as { r: number; g: number; b: number };
    // An anti-aliased edge pixel unpremultiplied from alpha 10: its RGB is no longer the colour.
    const pixels = { width: 2, height: 1, data: new Uint8ClampedArray([drawn.r, drawn.g, drawn.b, 255, 25, 25, 25, 10]) };
    const node = (name: string) => ({ name }) as LayerNode;
    const text = requestInks(convert, { Title: { type: 'text', text: 'Hi', color: 'cmyk(0,0,0,100)' } });
    expect([...text(node('Title'), { pixels, bounds: { left: 0, top: 0, right: 2, bottom: 1 } })!]).toEqual([0, 0, 0, 255, 0, 0, 0, 255]);
    const picture = requestInks(convert, { Logo: { type: 'shape', color: 'cmyk(0,0,0,100)' } });
    expect([...picture(node('Logo'), { pixels })!]).toEqual([0, 0, 0, 255, 25, 1, 2, 3]);
    expect([...picture(node('Logo'), { color: { ...drawn, a: 1 } })!]).toEqual([0, 0, 0, 255]);
    expect([...requestInks(convert, {})(node('Logo'), { color: { r: 9, g: 0, b: 0, a: 1 } })!]).toEqual([9, 1, 2, 3]);
  });
});
