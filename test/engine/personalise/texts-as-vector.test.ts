// Print PDFs write plain texts as vector outlines, so their overrides are built without a raster
// (PersonaliseContext.textsAsVector): the raster is drawn later, by drawDeferred, only for the texts
// the page still rasterises, with the same pixels as a text drawn at once. A text too large to
// rasterise refuses only the requests that need its raster.
import { describe, expect, it } from 'vitest';
import { buildOverrides, drawDeferred } from '../../../src/engine/personalise';
import { MAX_TEXT_PIXELS } from '../../../src/engine/personalise/text';
import { EngineError } from '../../../src/engine/errors';
import type { LayerNode, LayerOverrides } from '../../../src/engine/types';
import { bundledFontStore } from '../fonts/helpers';
import { layerNode as node } from './helpers';

const text = (id: number, name: string, y: number) =>
  node(id, name, 'Text', { bounds: { left: 100, top: y - 40, right: 600, bottom: y + 10 }, text: { text: 'Hello', font: 'LiberationSans', size: 48, color: '#203040', transform: [1, 0, 0, 1, 100, y] } });
const tree: LayerNode[] = [text(2, 'Title', 1500), text(1, 'Subtitle', 2500)];

async function overrides(data: Record<string, unknown>, textsAsVector: boolean): Promise<LayerOverrides> {
  const font = (await bundledFontStore('LiberationSans'))!;
  return buildOverrides(tree, data, {
    scale: 1,
    canvas: { width: 3000, height: 3000 },
    loadFont: async () => font,
    loadImage: async () => {
      throw new Error('no pictures here');
    },
    textsAsVector,
  });
}

// At 1,500 px a line of 12 capitals covers ~16,000 × 2,400 px: over MAX_TEXT_PIXELS even cut to the 3,000² canvas
// (its baseline well inside it).
const huge = { type: 'text', text: 'HELLO HELLO!', size: 1500 };

describe('texts as vector (print PDFs)', () => {
  it('builds each text with its vector and no raster; drawDeferred draws the same pixels as a text drawn at once', async () => {
    const data = { Title: { type: 'text', text: 'Grand opening' }, Subtitle: { type: 'text', text: 'Saturday, 10 am', color: '#c02020' } };
    const now = await overrides(data, false);
    const later = await overrides(data, true);
    for (const id of [1, 2]) {
      const o = later.get(id)!;
      expect(o.pixels).toBeUndefined();
      expect(o.drawLater).toBeTypeOf('function');
      expect(o.vector!.svg).toBe(now.get(id)!.vector!.svg);
      expect(o.bounds).toEqual(now.get(id)!.bounds);
    }
    await drawDeferred(later);
    for (const id of [1, 2]) {
      const [a, b] = [now.get(id)!, later.get(id)!];
      expect(b.drawLater).toBeUndefined();
      expect(b.bounds).toEqual(a.bounds);
      expect(b.pixels!.width).toBe(a.pixels!.width);
      expect(Buffer.from(b.pixels!.data).equals(Buffer.from(a.pixels!.data))).toBe(true);
    }
  });

  it('a text too large to rasterise: a 400 at once, nothing drawn as vector, a 400 again only if the raster needs it', async () => {
    await expect(overrides({ Title: huge }, false)).rejects.toMatchObject({ details: [{ path: 'data.Title.text' }] });
    const later = await overrides({ Title: huge }, true);
    const title = later.get(2)!;
    expect(title.vector!.svg).toContain('HELLO HELLO!');
    expect((title.bounds!.right - title.bounds!.left) * (title.bounds!.bottom - title.bounds!.top)).toBeGreaterThan(MAX_TEXT_PIXELS);
    // Written as vector (the PDF hides it in the raster): never drawn.
    later.set(2, { ...title, visible: false });
    await drawDeferred(later);
    expect(later.get(2)!.pixels).toBeUndefined();
    expect(later.get(2)!.drawLater).toBeUndefined();
    // Left in the raster: refused, naming the text, as a text drawn at once is.
    const raster = await overrides({ Title: huge }, true);
    await expect(drawDeferred(raster)).rejects.toMatchObject({ details: [{ path: 'data.Title.text' }] });
  });

  it('every text too large to draw is named in one error', async () => {
    const raster = await overrides({ Title: huge, Subtitle: huge }, true);
    const err = await drawDeferred(raster).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).details!.map((d) => d.path).sort()).toEqual(['data.Subtitle.text', 'data.Title.text']);
  });
});
