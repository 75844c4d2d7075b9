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
import { gsCmyk, pixel } from './print';
import { readInkPsd, renderDeps } from './helpers';

const NAME = 'made-ae-ink-shadow.psd';
const W = 24;
const H = 16;
/** The drop shadow of make-ae.mjs: opacity and offset straight down. */
const SHADOW = { opacity: 0.75, distance: 3 };

async function print(options: Partial<HiresOptions> = {}) {
  const page = await prepareHires(new FileStore(env.FILES), { template: `ink-effects/${NAME}`, ...options }, renderDeps());
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { output: page.output });
  return gsCmyk(sink.bytes());
}

let psd: ReturnType<typeof readInkPsd>;
beforeAll(async () => {
  const bytes = await madeFixture(NAME);
  psd = readInkPsd(bytes);
  const res = await upload('templates', [[NAME, bytes]], '?destination=ink-effects&overwrite=true');
  expect(res.status).toBe(201);
});

describe('a CMYK template\'s personalised layer with a K-only drop shadow, printed', () => {
  it('unpersonalised: the merged ink everywhere', async () => {
    const ink = await print();
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) expect(pixel(ink, x, y), `${x},${y}`).toEqual(psd.merged(x, y));
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
      const got = pixel(ink, x, y);
      const a = psd.layers[1].alpha(i);
      if (!changes(a)) {
        expect(got, `${x},${y}`).toEqual(psd.merged(x, y));
        continue;
      }
      const s = y >= SHADOW.distance ? SHADOW.opacity * psd.layers[1].alpha(i - SHADOW.distance * W) : 0;
      if (s > 0 && a === 0) shadow.outside++;
      if (s > 0 && a > 0 && a < 1) shadow.underEdge++;
      const expected = want(i, a, s);
      got.forEach((v, c) => expect(Math.abs(v - expected[c]), `${x},${y} channel ${c}: ${got} for ${expected.map(Math.round)}`).toBeLessThanOrEqual(1));
    }
    return shadow;
  }

  it('the layer recoloured cmyk(0,0,0,100): its pixels, the shadow under its soft edge included, are C from the cyan ground only, M = Y = 0, K from the shadow and the layer', async () => {
    const shadow = await expectPrint({ mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } }, (a) => a > 0, (i, a, s) => [psd.layers[0].ink(0, i) * (1 - a), 0, 0, 255 * (s * (1 - a) + a)]);
    expect(shadow.underEdge).toBeGreaterThan(8);
  });

  it('the ground recoloured cmyk(60,0,0,0) under the shadowed layer: the shadow\'s pixels are C = 153, M = Y = 0, K = the shadow\'s; the magenta disc over them in ink', async () => {
    const shadow = await expectPrint({ ground: { type: 'shape', color: 'cmyk(60,0,0,0)' } }, () => true, (i, a, s) => [153 * (1 - a), psd.layers[1].ink(1, i) * a, 0, 255 * s * (1 - a)]);
    expect(shadow.outside).toBeGreaterThan(20);
  });

  it('both recoloured: C from the ground only, M = Y = 0, K from the shadow and the layer on every pixel', async () => {
    const shadow = await expectPrint({ ground: { type: 'shape', color: 'cmyk(60,0,0,0)' }, mark: { type: 'shape', color: 'cmyk(0,0,0,100)' } }, () => true, (_i, a, s) => [153 * (1 - a), 0, 0, 255 * (s * (1 - a) + a)]);
    expect(shadow.outside + shadow.underEdge).toBeGreaterThan(30);
  });
});
