import { describe, expect, it } from 'vitest';
import { resolveFont } from '../../../src/engine/fonts/substitution';
import { growInk, inkGrowthFor, PHOTOSHOP_INK_GROWTH, renderText } from '../../../src/engine/personalise/text';
import type { LayerNode } from '../../../src/engine/types';
import { bundledFontStore } from '../fonts/helpers';
import { fixtureTree } from './helpers';

/**
 * Photoshop's Crisp and Smooth text carries more ink than resvg's coverage of the same outline:
 * personalised texts with those methods grow every edge by PHOTOSHOP_INK_GROWTH em
 * (docs/fonts.md, "Photoshop's ink weight").
 */

const flat = (nodes: LayerNode[]): LayerNode[] => nodes.flatMap((n) => [n, ...flat(n.children ?? [])]);

/** Our re-render of a fixture's text layer, unchanged, and Photoshop's stored pixels of it, as alpha PSNR and ink ratio. */
async function againstPhotoshop(file: string, name: string, inkGrowth?: number) {
  const { tree, layers } = await fixtureTree(file);
  const node = flat(tree).find((n) => n.text && n.name.replace(/\s+/g, ' ') === name)!;
  const info = node.text!;
  const layer = layers.get(node.id)!;
  const font = (await resolveFont(info.font, bundledFontStore))!;
  const drawn = (await renderText({ info, text: info.text, font: font.bytes, scale: 1, inkGrowth }))!;
  const photoshop = layer.imageData as unknown as { width: number; height: number; data: Uint8ClampedArray };
  // Both rasters' union and 2 px around it.
  const left = Math.min(layer.left!, drawn.bounds.left) - 2;
  const top = Math.min(layer.top!, drawn.bounds.top) - 2;
  const right = Math.max(layer.left! + photoshop.width, drawn.bounds.right) + 2;
  const bottom = Math.max(layer.top! + photoshop.height, drawn.bounds.bottom) + 2;
  const at = (img: { width: number; data: Uint8ClampedArray }, ox: number, oy: number, x: number, y: number, h: number) =>
    x >= ox && y >= oy && x < ox + img.width && y < oy + h ? img.data[((y - oy) * img.width + (x - ox)) * 4 + 3]! : 0;
  let squared = 0;
  let inkOurs = 0;
  let inkPhotoshop = 0;
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const a = at(photoshop, layer.left!, layer.top!, x, y, photoshop.height);
      const b = at(drawn.pixels, drawn.bounds.left, drawn.bounds.top, x, y, drawn.pixels.height);
      squared += (a - b) ** 2;
      inkPhotoshop += a;
      inkOurs += b;
    }
  }
  const psnr = 10 * Math.log10((255 * 255 * (right - left) * (bottom - top)) / squared);
  return { psnr, ink: inkPhotoshop / inkOurs };
}

describe("Photoshop's ink weight (its own pixels: Arial drawn in Liberation Sans)", () => {
  // [file, layer, alpha PSNR with resvg's coverage alone, with the growth] (measured in session 17)
  const layersMeasured: Array<[string, string, number, number]> = [
    ['psapi-text-paragraph.psd', 'ParagraphMain', 13.46, 13.5],
    ['psapi-text-paragraph.psd', 'ParagraphSecondary', 19.62, 19.67],
    ['psapi-text-character-styles.psd', 'CharacterStyleSecondary', 23.15, 23.6],
    ['psapi-text-character-styles.psd', 'CharacterStylePrimary', 9.53, 9.61],
    ['psdtools-text.psd', 'Line 1 Line 2 Line 3 and text', 24.54, 24.88],
  ];
  for (const [file, name, before, after] of layersMeasured) {
    it(`${name} (${file}) comes closer to Photoshop's pixels`, async () => {
      const grown = await againstPhotoshop(file, name);
      const plain = await againstPhotoshop(file, name, 0);
      console.log(`${name}: alpha PSNR ${plain.psnr.toFixed(3)} -> ${grown.psnr.toFixed(3)} dB, Photoshop's ink / ours ${plain.ink.toFixed(3)} -> ${grown.ink.toFixed(3)}`);
      expect(plain.psnr).toBeCloseTo(before, 1);
      expect(grown.psnr).toBeGreaterThan(plain.psnr);
      expect(grown.psnr).toBeGreaterThanOrEqual(after - 0.02);
    });
  }

  it('the clean single-style layers carry within 5 % of Photoshop’s ink (resvg alone: 5–11 % less)', async () => {
    for (const [file, name] of [
      ['psapi-text-paragraph.psd', 'ParagraphSecondary'],
      ['psapi-text-character-styles.psd', 'CharacterStyleSecondary'],
      ['psdtools-text.psd', 'Line 1 Line 2 Line 3 and text'],
    ]) {
      const { ink } = await againstPhotoshop(file!, name!);
      expect(ink, name).toBeGreaterThan(0.95);
      expect(ink, name).toBeLessThan(1.06);
    }
  });
});

describe('growInk', () => {
  /** A vertical edge at x = edge (coverage ramps over one pixel), premultiplied red at `opacity`. */
  const edge = (edgeAt: number, opacity = 1) => {
    const width = 12, height = 3;
    const data = new Uint8ClampedArray(width * height * 4);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const coverage = Math.min(1, Math.max(0, edgeAt - x));
        const a = Math.round(coverage * opacity * 255);
        data.set([a, 0, 0, a], (y * width + x) * 4);
      }
    }
    return { width, height, data };
  };
  const rowInk = (img: { width: number; data: Uint8ClampedArray }) => {
    let sum = 0;
    for (let x = 0; x < img.width; x++) sum += img.data[(img.width + x) * 4 + 3]!;
    return sum / 255;
  };

  it('moves a straight edge out by the distance (up to 1.6 times it where the edge pixel is more than half covered)', () => {
    for (const [edgeAt, most] of [[5, 1], [5.3, 1], [5.5, 1], [5.8, 1.6]] as const) {
      const img = edge(edgeAt);
      const before = rowInk(img);
      growInk(img, 0.25);
      expect(rowInk(img) - before, `edge at ${edgeAt}`).toBeGreaterThan(0.24);
      expect(rowInk(img) - before, `edge at ${edgeAt}`).toBeLessThan(0.25 * most + 0.01);
    }
  });

  it('keeps the colour premultiplied, also in pixels it newly reaches', () => {
    const img = edge(5, 0.6);
    growInk(img, 0.5);
    for (let i = 0; i < img.width * img.height; i++) {
      expect(img.data[i * 4]).toBe(img.data[i * 4 + 3]);
      expect(img.data[i * 4 + 1]).toBe(0);
    }
    expect(img.data[(img.width + 5) * 4 + 3]).toBeGreaterThan(0); // reached
  });

  it('gives the same pixels from a view that does not start on a word', () => {
    const img = edge(5.3, 0.8);
    const backing = new Uint8ClampedArray(img.data.length + 1);
    backing.set(img.data, 1);
    const unaligned = { ...img, data: backing.subarray(1) };
    growInk(img, 0.4);
    growInk(unaligned, 0.4);
    expect(unaligned.data).toEqual(img.data);
  });

  it('grows Crisp and Smooth text only: Sharp, Strong, None and unset stay as resvg draws them', () => {
    expect(inkGrowthFor('crisp')).toBe(PHOTOSHOP_INK_GROWTH);
    expect(inkGrowthFor('smooth')).toBe(PHOTOSHOP_INK_GROWTH);
    for (const method of ['sharp', 'strong', 'none', 'platform', undefined] as const) expect(inkGrowthFor(method)).toBe(0);
    const img = edge(5);
    const copy = img.data.slice();
    growInk(img, 0);
    expect(img.data).toEqual(copy);
  });
});
