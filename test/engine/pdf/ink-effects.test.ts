/**
 * Print PDFs of a CMYK template whose personalised layer carries a layer effect (docs/pdf.md,
 * "CMYK templates"): the changed pixels are composited in ink with the effect drawn on the inks,
 * as Photoshop composites a CMYK document, not the RGB render converted (which turns a K-only
 * shadow under a 100 K recolour into a four-colour mix). Read as a printer does: Ghostscript's
 * CMYK rendering of the PDF. Fixture: test/fixtures/psd-made/make-ae.mjs (its merged image and
 * what it rests on are described there).
 */
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { writePdf } from '../../../src/engine/pdf/document';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { FileStore } from '../../../src/dynamic-image/store';
import { madeFixture } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { gsCmyk, type Tiff } from './print';
import { renderDeps } from './helpers';

const NAME = 'made-ae-ink-shadow.psd';
const W = 24;
const H = 16;
/** The drop shadow of make-ae.mjs: opacity and offset straight down. */
const SHADOW = { opacity: 0.75, distance: 3 };

/**
 * The fixture's planes as ink (0..255): the merged image's C, M, Y, K and each layer's (bottom
 * first) with its alpha (0..1). Raw channels, every layer over the whole canvas (make-ae.mjs).
 */
function planes(psd: Uint8Array) {
  const v = new DataView(psd.buffer, psd.byteOffset, psd.byteLength);
  let at = 26;
  at += 4 + v.getUint32(at); // colour mode data
  at += 4 + v.getUint32(at); // image resources
  const sectionEnd = at + 4 + v.getUint32(at);
  const count = v.getInt16(at + 8);
  let rec = at + 10;
  for (let l = 0; l < count; l++) {
    rec += 18 + v.getUint16(rec + 16) * 6 + 12;
    rec += 4 + v.getUint32(rec); // extra data
  }
  // Each layer: C, M, Y, K, transparency, each a 2-byte compression code and W·H bytes.
  const plane = (layer: number, c: number) => psd.subarray(rec + (layer * 5 + c) * (2 + W * H) + 2);
  const merged = sectionEnd + 2;
  return {
    merged: (i: number) => [0, 1, 2, 3].map((c) => 255 - psd[merged + c * W * H + i]),
    ink: (layer: number, c: number, i: number) => 255 - plane(layer, c)[i],
    alpha: (layer: number, i: number) => plane(layer, 4)[i] / 255,
  };
}

const pixel = (t: Tiff, i: number) => [...t.data.subarray(i * 4, i * 4 + 4)];

async function print(options: Partial<HiresOptions> = {}) {
  const page = await prepareHires(new FileStore(env.FILES), { template: `ink-effects/${NAME}`, ...options }, renderDeps());
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { output: page.output });
  return gsCmyk(sink.bytes());
}

let psd: ReturnType<typeof planes>;
beforeAll(async () => {
  const bytes = await madeFixture(NAME);
  psd = planes(bytes);
  const res = await upload('templates', [[NAME, bytes]], '?destination=ink-effects&overwrite=true');
  expect(res.status).toBe(201);
});

describe('a CMYK template\'s personalised layer with a K-only drop shadow, printed', () => {
  it('unpersonalised: the merged ink everywhere', async () => {
    const ink = await print();
    for (let i = 0; i < W * H; i++) expect(pixel(ink, i), `${i % W},${Math.floor(i / W)}`).toEqual(psd.merged(i));
  });

  /**
   * Checks Ghostscript's CMYK rendering of a request pixel by pixel: unchanged pixels (`changes`
   * false) the merged ink as stored, the others `want(i, a, s)` within 1, a the disc's alpha and s
   * the shadow's coverage there (the disc's alpha 3 rows up, at the effect's opacity). Returns how
   * many pixels of the shadow were compared: under the disc's soft edge, and outside the disc.
   */
  async function expectPrint(data: HiresOptions['data'], changes: (a: number) => boolean, want: (i: number, a: number, s: number) => number[]) {
    const ink = await print({ data });
    const shadow = { underEdge: 0, outside: 0 };
    for (let i = 0; i < W * H; i++) {
      const [x, y] = [i % W, Math.floor(i / W)];
      const got = pixel(ink, i);
      const a = psd.alpha(1, i);
      if (!changes(a)) {
        expect(got, `${x},${y}`).toEqual(psd.merged(i));
        continue;
      }
      const s = y >= SHADOW.distance ? SHADOW.opacity * psd.alpha(1, i - SHADOW.distance * W) : 0;
      if (s > 0 && a === 0) shadow.outside++;
      if (s > 0 && a > 0 && a < 1) shadow.underEdge++;
      const expected = want(i, a, s);
      got.forEach((v, c) => expect(Math.abs(v - expected[c]), `${x},${y} channel ${c}: ${got} for ${expected.map(Math.round)}`).toBeLessThanOrEqual(1));
    }
    return shadow;
  }

  it('the layer recoloured cmyk(0,0,0,100): its pixels, the shadow under its soft edge included, are C from the cyan ground only, M = Y = 0, K from the shadow and the layer', async () => {
    const shadow = await expectPrint({ mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } }, (a) => a > 0, (i, a, s) => [psd.ink(0, 0, i) * (1 - a), 0, 0, 255 * (s * (1 - a) + a)]);
    expect(shadow.underEdge).toBeGreaterThan(8);
  });

  it('the ground recoloured cmyk(60,0,0,0) under the shadowed layer: the shadow\'s pixels are C = 153, M = Y = 0, K = the shadow\'s; the magenta disc over them in ink', async () => {
    const shadow = await expectPrint({ ground: { type: 'shape', color: 'cmyk(60,0,0,0)' } }, () => true, (i, a, s) => [153 * (1 - a), psd.ink(1, 1, i) * a, 0, 255 * s * (1 - a)]);
    expect(shadow.outside).toBeGreaterThan(20);
  });

  it('both recoloured: C from the ground only, M = Y = 0, K from the shadow and the layer on every pixel', async () => {
    const shadow = await expectPrint({ ground: { type: 'shape', color: 'cmyk(60,0,0,0)' }, mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } }, () => true, (_i, a, s) => [153 * (1 - a), 0, 0, 255 * (s * (1 - a) + a)]);
    expect(shadow.outside + shadow.underEdge).toBeGreaterThan(30);
  });
});
