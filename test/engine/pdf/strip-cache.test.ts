import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HiresOptions } from '../../../src/engine/pdf/prepare';
import { decodeStoredStrip, encodeStoredStrip, hiddenLayersKey, stripKey, stripLru } from '../../../src/engine/pdf/strip-cache';
import { resolveTemplate } from '../../../src/engine/preview';
import { encodePng } from '../../../src/engine/raster';
import { FileStore } from '../../../src/dynamic-image/store';
import { bundledFont } from '../../helpers/fixtures';
import { call, form, keys, upload, uploadFixture, withKey } from '../../dynamic-image/helpers';
import { contentStreams, rasterisePage, makePdf } from './helpers';

const store = () => new FileStore(env.FILES);

/** Every image XObject of a PDF written by our writer: its dictionary (object numbers blanked) and data. */
function imageStreams(pdf: Uint8Array): Array<{ dict: string; data: Uint8Array }> {
  const text = new TextDecoder('latin1').decode(pdf);
  const out: Array<{ dict: string; data: Uint8Array }> = [];
  for (const m of text.matchAll(/<< (\/Type \/XObject \/Subtype \/Image [^\n]*?)\/Length (\d+) >>\nstream\n/g)) {
    const start = m.index! + m[0].length;
    out.push({ dict: m[1].replace(/\d+ 0 R/g, 'R'), data: pdf.slice(start, start + Number(m[2])) });
  }
  return out;
}

const make = makePdf;

/** The same page: equal image streams (dicts and bytes) and equal page content. */
async function expectSamePage(a: Uint8Array, b: Uint8Array) {
  const [ia, ib] = [imageStreams(a), imageStreams(b)];
  expect(ia.length).toBeGreaterThan(0);
  expect(ib.map((s) => s.dict)).toEqual(ia.map((s) => s.dict));
  for (const [i, s] of ia.entries()) expect(ib[i].data, `image ${i}`).toEqual(s.data);
  expect(await contentStreams(b)).toEqual(await contentStreams(a));
}

/**
 * The bench template's layout (scripts/make-bench-templates.mjs) at 400²: blend modes, a group,
 * a mask, a picture layer (rows 35–60 %), a text layer (40–46 %) and layers below and above.
 */
async function cardPsd(S = 400): Promise<Uint8Array> {
  const { writePsdUint8Array } = await import('ag-psd');
  const u = S / 100;
  const px = (w: number, h: number, f: (x: number, y: number) => number[]) => {
    const data = new Uint8ClampedArray(w * h * 4);
    for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set(f(x, y), i);
    return { width: w, height: h, data };
  };
  const at = (name: string, left: number, top: number, imageData: ReturnType<typeof px>, extra: Record<string, unknown> = {}) => ({
    name, left, top, right: left + imageData.width, bottom: top + imageData.height, imageData, ...extra,
  });
  const circle = (r: number, rgb: number[]) => px(2 * r, 2 * r, (x, y) => [...rgb, (x - r) ** 2 + (y - r) ** 2 < r * r ? 255 : 0]);
  const palette = [[236, 229, 214], [214, 196, 170], [188, 210, 220], [240, 240, 232]];
  const title = at('Title', 52 * u, 40 * u, px(30 * u, 6 * u, (x, y) => (y > u && y < 5 * u && Math.floor(x / (1.5 * u)) % 2 ? [20, 40, 90, 255] : [0, 0, 0, 0])), {
    text: { text: 'Sample title', transform: [1, 0, 0, 1, 52 * u, 45 * u], style: { font: { name: 'ArialMT' }, fontSize: 4 * u, fillColor: { r: 20, g: 40, b: 90 } } },
  });
  return writePsdUint8Array({
    width: S,
    height: S,
    children: [
      at('Background', 0, 0, px(S, S, (x) => [...palette[Math.floor(x / (5 * u)) % 4], 255])),
      at('Shadow', 10 * u, 55 * u, circle(20 * u, [90, 80, 120]), { blendMode: 'multiply', opacity: 0.7 }),
      at('Glow', 55 * u, 8 * u, circle(18 * u, [250, 180, 60]), { blendMode: 'screen', opacity: 0.9 }),
      {
        name: 'Card',
        opened: true,
        children: [
          at('Panel', 20 * u, 30 * u, px(60 * u, 40 * u, (x, y) => (x < u || y < u || x >= 59 * u || y >= 39 * u ? [30, 30, 30, 255] : [252, 250, 245, 255])), {
            opacity: 0.85,
            mask: { left: 20 * u, top: 30 * u, right: 80 * u, bottom: 70 * u, defaultColor: 255, imageData: px(60 * u, 40 * u, (x) => (x < 30 * u ? [255, 255, 255, 255] : [128, 128, 128, 255])) },
          }),
          at('Photo', 25 * u, 35 * u, px(25 * u, 25 * u, (x, y) => ((Math.floor(x / (5 * u)) + Math.floor(y / (5 * u))) % 2 ? [120, 160, 90, 255] : [60, 110, 70, 255]))),
          title,
        ],
      },
      at('Stripes', 0, 80 * u, px(S, 20 * u, (x, y) => (Math.floor((x + y) / (2 * u)) % 2 ? [200, 60, 60, 255] : [40, 90, 160, 255])), { blendMode: 'overlay' }),
      at('Badge', 82 * u, 82 * u, circle(6 * u, [200, 30, 50])),
    ],
  } as never);
}

let template: string;
let other: string;
const data: NonNullable<HiresOptions['data']> = {
  Title: { type: 'text', text: 'Reused strips' },
  Photo: { type: 'image', image: 'strips/picture.png', resizeMode: 'fill' },
};
const hidden: NonNullable<HiresOptions['data']> = { Badge: { visible: false } };

beforeAll(async () => {
  const card = await upload('templates', [['card.psd', await cardPsd()]], '?destination=strips&overwrite=true');
  expect(card.status).toBe(201);
  template = ((await card.json()) as string[])[0];
  other = await uploadFixture('psdtools-text.psd', 'strips');
  // The text layer's ArialMT is drawn with its metric-compatible substitute from the font store.
  await call('/api/resources/fonts?overwrite=true', withKey({ method: 'POST', body: form([['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]]) }));
  const w = 120;
  const h = 90;
  const pixels = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) pixels.set([(i * 7) & 255, (i >> 3) & 255, 200, 255], i * 4);
  const res = await upload('images', [['picture.png', await encodePng({ width: w, height: h, data: pixels })]], '?destination=strips&overwrite=true');
  expect(res.status).toBe(201);
});

describe('reused PDF strips', () => {
  it('a personalised page made with cached strips is the page made without them (text as vector, an image)', async () => {
    stripLru.clear();
    const reference = await make({ template, data }, 40, false);
    expect(reference.page.vectors?.length, 'the text is drawn as vector (hidden in the strips)').toBeGreaterThan(0);
    expect(reference.summary.strips.reused).toBe(0);

    // The unpersonalised page fills the cache; the personalised one then renders only its dirty strips.
    await make({ template }, 40);
    const reused = await make({ template, data }, 40);
    expect(reused.summary.strips.reused).toBeGreaterThan(0);
    expect(reused.rendered.length, 'the dirty strips are rendered').toBeGreaterThan(0);
    expect(reused.rendered.length + reused.summary.strips.reused).toBe(reference.rendered.length);
    await expectSamePage(reference.bytes, reused.bytes);

    // The same page from R2 alone (another isolate): encoded clean strips, and the dirty strips
    // drawn over their stored backdrops. And the same raster for a printer.
    stripLru.clear();
    const { compiled } = await resolveTemplate(store(), template);
    expect((await keys(`compiled/${compiled.hash}/backdrop/`)).length).toBe(reused.rendered.length);
    const fromR2 = await make({ template, data }, 40);
    expect(fromR2.summary.strips.reused).toBe(reused.summary.strips.reused);
    await expectSamePage(reference.bytes, fromR2.bytes);
    const { width, height } = reference.page;
    expect((await rasterisePage(fromR2.bytes, 1, width, height)).data).toEqual((await rasterisePage(reference.bytes, 1, width, height)).data);
  });

  it('a visibility change and an unpersonalised page: equal with and without cached strips', async () => {
    for (const options of [{ template, data: hidden }, { template }]) {
      const reference = await make(options, 56, false);
      await make(options, 56); // clean strips rendered here are stored
      const reused = await make(options, 56);
      expect(reused.summary.strips.reused).toBeGreaterThan(0);
      if (!options.data) expect(reused.rendered).toEqual([]);
      else expect(reused.rendered.length).toBeGreaterThan(0);
      await expectSamePage(reference.bytes, reused.bytes);
    }
  });

  it('strips are keyed by content: another template, or another strip height, never hits', async () => {
    await make({ template }, 64);
    const elsewhere = await make({ template: other }, 64);
    expect(elsewhere.summary.strips.reused).toBe(0);
    const otherRows = await make({ template }, 48);
    expect(otherRows.summary.strips.reused).toBe(0);

    const a = (await resolveTemplate(store(), template)).compiled;
    const b = (await resolveTemplate(store(), other)).compiled;
    const g = { width: 400, height: 400, rowsPerStrip: 64, top: 0 };
    const none = await hiddenLayersKey([]);
    expect(stripKey(a.hash, g, none)).toContain(`compiled/${a.hash}/`);
    expect(stripKey(a.hash, g, none)).not.toBe(stripKey(b.hash, g, none));
    expect(stripKey(a.hash, g, none)).not.toBe(stripKey(a.hash, { ...g, rowsPerStrip: 65 }, none));
    // Strips drawn with other layers hidden (the always-vector shapes) never mix.
    expect(stripKey(a.hash, g, none)).not.toBe(stripKey(a.hash, g, await hiddenLayersKey([3])));
    expect(await hiddenLayersKey([3, 1])).toBe(await hiddenLayersKey([1, 3]));
  });

  it('stored strips round-trip, and bytes that do not fit the geometry are a miss', () => {
    const g = { width: 3, height: 10, rowsPerStrip: 4, top: 4 };
    const strip = {
      rows: 5,
      encoded: {
        kind: 'flate' as const,
        width: 3,
        height: 5,
        image: { filter: 'FlateDecode' as const, colors: 3 as const, predictor: true, data: new Uint8Array([1, 2, 3]) },
        smask: { filter: 'FlateDecode' as const, colors: 1 as const, predictor: true, data: new Uint8Array([4, 5]) },
      },
    };
    expect(decodeStoredStrip(encodeStoredStrip(strip), g)).toEqual(strip);
    expect(decodeStoredStrip(encodeStoredStrip({ rows: 0, encoded: null }), g)).toEqual({ rows: 0, encoded: null });
    expect(decodeStoredStrip(encodeStoredStrip(strip), { ...g, width: 4 })).toBeNull();
    expect(decodeStoredStrip(encodeStoredStrip(strip).subarray(0, 20), g)).toBeNull();
  });
});
