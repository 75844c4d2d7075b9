// A marked layer (`Title <REQ>`) named twice in one request, by its full and its bare name:
// buildOverrides applies both in data order, so the later command is what is drawn. commandFor
// (what a print PDF's vector fill and a CMYK template's ink composite take the layer's cmyk(…)
// colour from, c8752fd) must name the same command, or a cmyk(0,0,0,100) text drawn last prints
// as a converted rich black. Session 21 review.
import { describe, expect, it } from 'vitest';
import { buildOverrides, commandFor, parseColor } from '../../../src/engine/personalise';
import type { LayerNode } from '../../../src/engine/types';
import { bundledFontStore } from '../fonts/helpers';
import { layerNode as node } from './helpers';

const title = node(1, 'Title <REQ>', 'Text', {
  bounds: { left: 100, top: 60, right: 600, bottom: 110 },
  text: { text: 'Hello', font: 'LiberationSans', size: 48, color: '#203040', tracking: 0, leading: 58, alignment: 'left', transform: [1, 0, 0, 1, 100, 100] },
});

async function drawnFill(data: Record<string, unknown>): Promise<string | undefined> {
  const font = (await bundledFontStore('LiberationSans'))!;
  const tree: LayerNode[] = [title];
  const overrides = await buildOverrides(tree, data, {
    scale: 1,
    canvas: { width: 800, height: 800 },
    loadFont: async () => font,
    loadImage: async () => {
      throw new Error('no pictures here');
    },
    textsAsVector: true,
  });
  return /fill="([^"]+)"/.exec(overrides.get(1)?.vector?.svg ?? '')?.[1];
}

const rgbOf = (colour: string) => {
  const c = parseColor(colour);
  if ('error' in c) throw new Error(c.error);
  return `rgb(${c.r},${c.g},${c.b})`;
};

describe('commandFor names the command buildOverrides drew', () => {
  const black = { type: 'text', text: 'Black', color: 'cmyk(0,0,0,100)' };
  const red = { type: 'text', text: 'Red', color: '#ff0000' };
  it.each([
    ['full name, then bare', { 'Title <REQ>': red, Title: black }],
    ['bare, then full name', { Title: black, 'Title <REQ>': red }],
  ])('%s', async (_, data) => {
    const command = commandFor(data as Record<string, { color: string }>, title.name)!;
    expect(await drawnFill(data)).toBe(rgbOf(command.color));
  });
});
