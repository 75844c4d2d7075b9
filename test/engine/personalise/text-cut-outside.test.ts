// A text too large to draw whole is drawn only where it can show (text.ts `within`: the canvas
// grown by its effects' reach). A rotated paragraph box hanging off the page can be cut to rows or
// columns its glyphs are far from: the cut SVG's clipped group then lies wholly outside resvg's
// pixmap, and resvg 2.6.2 panics drawing such a group more than about twice the pixmap's size away
// ("unreachable"; freeing the Resvg then throws "recursive use of an object"): a 500 for a text
// that draws nothing on the page. Session 21 review.
import { describe, expect, it } from 'vitest';
import { buildOverrides } from '../../../src/engine/personalise';
import { MAX_TEXT_PIXELS, renderText } from '../../../src/engine/personalise/text';
import type { LayerNode, TextInfo } from '../../../src/engine/types';
import { bundledFont, bundledFontStore } from '../fonts/helpers';
import { layerNode as node } from './helpers';

const turn = (3 * Math.PI) / 180;
const [c, s] = [Math.cos(turn), Math.sin(turn)];

/** A paragraph box 4,000 × 3,000 px turned 3°, its top 2,700 px above the page: its first lines are far above it. */
const info = (top: number): TextInfo => ({
  text: 'Note',
  font: 'LiberationSans',
  size: 40,
  color: '#203040',
  tracking: 0,
  leading: 48,
  alignment: 'left',
  transform: [c, s, -s, c, 0, top],
  box: { left: 0, top: 0, right: 4000, bottom: 3000 },
});

const alpha = (data: Uint8ClampedArray) => data.reduce((sum, v, i) => (i % 4 === 3 ? sum + v : sum), 0);

describe('a text cut to where it shows, its glyphs far from the cut', () => {
  it('draws nothing there (resvg is not asked to draw a clipped group far outside its pixmap)', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // Whole: ~4,160 × 3,210 px (13 MP, over one render's 5.6 MP), so drawn within the page: rows 0..~510.
    const drawn = await renderText({ info: info(-2700), text: 'Short note', font, scale: 1, within: () => ({ left: 0, top: 0, right: 3000, bottom: 3000 }) });
    expect(drawn && alpha(drawn.pixels.data)).toBe(0);
    // Columns far from the glyphs too: the page cut to its right part.
    const right = await renderText({ info: info(0), text: 'Short note', font, scale: 1, within: () => ({ left: 3600, top: 0, right: 4200, bottom: 3000 }) });
    expect(right && alpha(right.pixels.data)).toBe(0);
  });

  it('drawn in bands, its glyphs far left of the cut: nothing drawn, no panic', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    // A 20,000 × 800 px box turned 3° (~20,000 × 1,850 px), cut to 4,000 columns 12,000 px right of its text: 7.4 MP, in bands.
    const wide = { ...info(0), box: { left: 0, top: 0, right: 20_000, bottom: 800 } };
    const drawn = await renderText({ info: wide, text: 'Short note', font, scale: 1, memory: 64 * 1024 * 1024, within: () => ({ left: 12_000, top: 0, right: 16_000, bottom: 3000 }) });
    expect(drawn!.pixels.width * drawn!.pixels.height).toBeGreaterThan(MAX_TEXT_PIXELS);
    expect(alpha(drawn!.pixels.data)).toBe(0);
  });

  it('in a request: the overrides are built, not a 500', async () => {
    const font = (await bundledFontStore('LiberationSans'))!;
    const tree: LayerNode[] = [node(1, 'Note', 'Text', { bounds: { left: 0, top: 0, right: 3000, bottom: 300 }, text: info(-2700) })];
    const overrides = await buildOverrides(tree, { Note: { type: 'text', text: 'Short note' } }, {
      scale: 1,
      canvas: { width: 3000, height: 3000 },
      loadFont: async () => font,
      loadImage: async () => {
        throw new Error('no pictures here');
      },
    });
    expect(overrides.get(1)?.pixels).toBeDefined();
  });

  it('still draws the glyphs where the cut reaches them', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const drawn = await renderText({ info: info(-20), text: 'Short note', font, scale: 1, within: () => ({ left: 0, top: 0, right: 3000, bottom: 1000 }) });
    expect(alpha(drawn!.pixels.data)).toBeGreaterThan(0);
  });
});
