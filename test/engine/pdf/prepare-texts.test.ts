// A print PDF writes a plain text as vector outlines and never rasterises it (pdf/prepare.ts,
// PersonaliseContext.textsAsVector): a headline too large to rasterise at print resolution prints;
// the same size under a drop shadow, which only the raster draws, is still refused naming the text.
import { writePsdUint8Array, type Layer } from 'ag-psd';
import { beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../../dynamic-image/helpers';
import { runTool } from '../../helpers/fixtures';
import { bundledFont } from '../fonts/helpers';
import { contentStreams, makePdf } from './helpers';

const W = 3300;

function textLayer(name: string, y: number, extra: Partial<Layer> = {}): Layer {
  return {
    name,
    left: 100,
    top: y - 80,
    right: 700,
    bottom: y + 20,
    text: { text: 'Hello', transform: [1, 0, 0, 1, 100, y], style: { font: { name: 'LiberationSans' }, fontSize: 96, fillColor: { r: 20, g: 30, b: 60 } } },
    ...extra,
  };
}

let template: string;
beforeAll(async () => {
  expect((await upload('fonts', [['LiberationSans-Regular.ttf', await bundledFont('LiberationSans-Regular.ttf')]], '?overwrite=true')).status).toBe(201);
  const ground: Layer = { name: 'ground', left: 0, top: 0, right: W, bottom: W, imageData: { width: W, height: W, data: new Uint8ClampedArray(W * W * 4).fill(255) } };
  const shadow = { enabled: true, present: true, color: { r: 0, g: 0, b: 0 }, opacity: 0.6, size: { units: 'Pixels' as const, value: 8 }, distance: { units: 'Pixels' as const, value: 10 }, angle: 120 };
  const psd = writePsdUint8Array(
    { width: W, height: W, children: [ground, textLayer('Shadowed', 2900, { effects: { dropShadow: [shadow] } }), textLayer('Title', 2000)] },
    { generateThumbnail: false, invalidateTextLayers: true },
  );
  const res = await upload('templates', [['big-texts.psd', psd]], '?destination=prepare-texts&overwrite=true');
  expect(res.status).toBe(201);
  template = ((await res.json()) as string[])[0]!;
});

// At 3,600 px, 12 capitals cover ~38,000 × 5,800 px: cut to the 3,300² page (10.9 MP), over what the
// page's strips (52.9 MB) leave a text drawn in bands (43.1 MB: 9.7 MP; text.ts `memory`).
const huge = { type: 'text' as const, text: 'HELLO HELLO!', size: 3600 };

describe('print PDFs: plain texts are not rasterised', () => {
  it('a plain headline too large to rasterise prints as vector outlines', async () => {
    const made = await makePdf({ template, data: { Title: huge } }, 200);
    expect((await runTool('qpdf-check', made.bytes)).code).toBe(0);
    expect(made.page.vectors?.length).toBe(1);
    const content = (await contentStreams(made.bytes)).join('\n');
    // Its glyphs' outlines filled on the page: a path of a subpath or more a letter.
    expect(content).toMatch(/\nh\nf\*? Q/);
    expect(content.match(/ m\n/g)?.length ?? 0).toBeGreaterThan(12);
  }, 120_000);

  it('a text under a drop shadow over the ~5.6 MP of one render where it shows is drawn in bands within what the page leaves it', async () => {
    // At 1,800 px: ~19,000 × 2,900 px, cut to the page and the shadow's reach: ~9.1 MP.
    const made = await makePdf({ template, data: { Shadowed: { ...huge, size: 1800 } } }, 200);
    expect((await runTool('qpdf-check', made.bytes)).code).toBe(0);
    expect(made.page.vectors?.length ?? 0).toBe(0);
  }, 120_000);

  it('the same size under a drop shadow (drawn in the raster) is refused naming the text', async () => {
    await expect(makePdf({ template, data: { Shadowed: huge } }, 200)).rejects.toMatchObject({ details: [{ path: 'data.Shadowed.text' }] });
  }, 120_000);
});
