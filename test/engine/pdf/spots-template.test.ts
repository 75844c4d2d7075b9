import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { writePdf, type Separation } from '../../../src/engine/pdf/document';
import { prepareHires, type HiresOptions } from '../../../src/engine/pdf/prepare';
import { psdInk } from '../../../src/engine/pdf/psd-ink';
import { MemorySink } from '../../../src/engine/pdf/sink';
import { FileStore } from '../../../src/dynamic-image/store';
import { runTool, madeFixture } from '../../helpers/fixtures';
import { upload } from '../../dynamic-image/helpers';
import { decodeTiff, printTool, type Tiff } from './print';
import { rasterise, renderDeps } from './helpers';

/** test/fixtures/psd-made/make-spot.mjs's tints. */
const tints = [
  (x: number, y: number) => (y < 8 ? [255, 128, 64, 0][Math.floor(x / 10)] : y < 16 ? Math.min(255, x * 7) : 0),
  (x: number, y: number) => (y >= 12 && x >= 20 ? 200 : y >= 12 ? 30 : 0),
];
const W = 40;
const H = 24;
const PROCESS = ['Cyan', 'Magenta', 'Yellow', 'Black'];


async function pdf(options: HiresOptions, separation?: Separation) {
  const page = await prepareHires(new FileStore(env.FILES), options, renderDeps());
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { output: page.output, separation });
  return { bytes: sink.bytes(), page };
}

/** Ghostscript's separations by ink name (tiffsep, 255 = no ink), read as ink rows. */
async function plates(bytes: Uint8Array, inks: string[]): Promise<Map<string, number[][]>> {
  const out = await printTool('gs-tiffsep', bytes, { r: 72 });
  if (out.code !== 0) throw new Error(`gs failed: ${out.stderr}`);
  const files = [...inks.map((n) => `page1(${n}).tif`), 'page1.tif'].sort();
  expect(out.pages.length).toBe(files.length);
  const ink = (t: Tiff) => Array.from({ length: t.height }, (_, y) => Array.from({ length: t.width }, (_, x) => 255 - t.data[y * t.width + x]));
  return new Map(inks.map((n) => [n, ink(decodeTiff(Uint8Array.from(atob(out.pages[files.indexOf(`page1(${n}).tif`)]), (c) => c.charCodeAt(0))))]));
}
const grid = (f: (x: number, y: number) => number) => Array.from({ length: H }, (_, y) => Array.from({ length: W }, (_, x) => f(x, y)));

let cmykPsd: Uint8Array;
beforeAll(async () => {
  cmykPsd = await madeFixture('made-spot-cmyk8.psd');
  const res = await upload('templates', [['spot-cmyk.psd', cmykPsd], ['spot-rgb.psd', await madeFixture('made-spot-rgb8.psd')]], '?destination=spots&overwrite=true');
  expect(res.status).toBe(201);
});

describe('print PDFs of templates with spot channels (issue 20 §2)', () => {
  it('a CMYK template: its own ink on the process plates, each spot channel on its own plate', async () => {
    const { bytes, page } = await pdf({ template: 'spots/spot-cmyk.psd' });
    expect(page.separations).toEqual([{ process: true }, { spot: 'PANTONE 185 C' }, { spot: 'Gloss Varnish (UV)#2' }]);
    expect((await runTool('qpdf-check', bytes)).code).toBe(0);
    const got = await plates(bytes, [...PROCESS, 'PANTONE 185 C', 'Gloss Varnish (UV)#2']);
    expect(got.get('PANTONE 185 C')).toEqual(grid(tints[0]));
    expect(got.get('Gloss Varnish (UV)#2')).toEqual(grid(tints[1]));
    // The process plates are the PSD's own CMYK (the preview's spot layers are not in them).
    const own = psdInk(cmykPsd)!.rows(0, H);
    PROCESS.forEach((ink, c) => expect(got.get(ink), ink).toEqual(grid((x, y) => own[(y * W + x) * 4 + c])));
  });

  it('an RGB template: the process image without the spot preview, the spot as a separation; one file per separation', async () => {
    const options = { template: 'spots/spot-rgb.psd' };
    const { bytes } = await pdf(options);
    expect((await plates(bytes, [...PROCESS, 'Spot Blue'])).get('Spot Blue')).toEqual(grid(tints[0]));
    const [process] = await rasterise((await pdf(options, { process: true })).bytes, { r: 72 });
    const at = (x: number, y: number) => [...process.data.subarray((y * W + x) * 4, (y * W + x) * 4 + 3)];
    expect(at(0, 0)).toEqual([230, 220, 200]); // full ink in the preview, none in the process plates
    expect(at(0, 20)).toEqual([120, 110, 100]);
    const spotFile = (await pdf(options, { spot: 'Spot Blue' })).bytes;
    const alone = await plates(spotFile, [...PROCESS, 'Spot Blue']);
    expect(alone.get('Spot Blue')).toEqual(grid(tints[0]));
    expect(alone.get('Black')!.flat().every((v) => v === 0)).toBe(true);
  });
});
