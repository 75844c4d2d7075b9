// A layer whose name carries markers (`Name <REQ>`) answers to `data.Name` (personalise/markers.ts);
// its `cmyk(…)` colour must then reach the print PDF as given, as it does under the full name: the
// vector text's fill (pdf/prepare.ts layerOperands) and a CMYK template's ink composite
// (pdf/ink-composite.ts requestInks). Both looked the command up under the full name only, so a
// `cmyk(0,0,0,100)` text addressed as `Name` printed as a rich black (pdffuzz, session 21:
// 0.4667 0.3882 0.3647 0.9451 sc instead of 0 0 0 1 sc).
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { beforeAll, describe, expect, it } from 'vitest';
import { requestInks } from '../../../src/engine/pdf/ink-composite';
import type { LayerNode } from '../../../src/engine/types';
import { upload } from '../../dynamic-image/helpers';
import { bundledFont } from '../fonts/helpers';
import { contentStreams, makePdf } from './helpers';

const W = 400;

let template: string;
beforeAll(async () => {
  expect((await upload('fonts', [['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]], '?overwrite=true')).status).toBe(201);
  const ground: Layer = { name: 'ground', left: 0, top: 0, right: W, bottom: 200, imageData: { width: W, height: 200, data: new Uint8ClampedArray(W * 200 * 4).fill(255) } };
  const marked: Layer = {
    name: 'Name <REQ>',
    left: 20,
    top: 40,
    right: 300,
    bottom: 120,
    text: { text: 'Hello', transform: [1, 0, 0, 1, 20, 100], style: { font: { name: 'LiberationSans' }, fontSize: 60, fillColor: { r: 20, g: 30, b: 60 } } },
  };
  const psd = writePsdUint8Array({ width: W, height: 200, children: [ground, marked] }, { generateThumbnail: false, invalidateTextLayers: true });
  const res = await upload('templates', [['marked.psd', psd]], '?destination=marked-names&overwrite=true');
  expect(res.status).toBe(201);
  template = ((await res.json()) as string[])[0]!;
});

/** The fill operators of the page's vector text. */
async function fills(key: string): Promise<string[]> {
  const made = await makePdf({ template, colorSpace: 'Cmyk', data: { [key]: { type: 'text', text: 'Black', color: 'cmyk(0,0,0,100)' } } }, 100);
  expect(made.page.vectors?.length).toBe(1);
  return [...new Set((await contentStreams(made.bytes)).join('\n').match(/[\d. ]+ sc/g) ?? [])];
}

describe('a marked layer addressed by its name without markers', () => {
  it('its vector text keeps the cmyk(…) colour as given, as under its full name', async () => {
    expect(await fills('Name <REQ>')).toEqual([' 0 0 0 1 sc']);
    expect(await fills('Name')).toEqual([' 0 0 0 1 sc']);
  }, 60_000);

  it("a CMYK template's ink composite takes the cmyk(…) text colour on every pixel", () => {
    const node = { id: 1, name: 'Name <REQ>', type: 'Text' } as LayerNode;
    const pixels = { width: 2, height: 1, data: Uint8ClampedArray.of(35, 31, 32, 255, 35, 31, 32, 128) };
    // A conversion that would never give pure K: only the exact colour does.
    const convert = (_src: Uint8Array | Uint8ClampedArray, dst: Uint8Array) => dst.fill(99);
    for (const key of ['Name <REQ>', 'Name']) {
      const ink = requestInks(convert, { [key]: { type: 'text', text: 'Black', color: 'cmyk(0,0,0,100)' } })(node, { pixels, bounds: { left: 0, top: 0, right: 2, bottom: 1 } });
      expect([...ink!], key).toEqual([0, 0, 0, 255, 0, 0, 0, 255]);
    }
  });
});
