import { describe, expect, it } from 'vitest';
import { resolveFont } from '../../../src/engine/fonts/substitution';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { renderText } from '../../../src/engine/personalise/text';
import { layoutText, measure } from '../../../src/engine/personalise/text-layout';
import type { RGBAImage, TextInfo } from '../../../src/engine/types';
import { bundledFont, bundledFontStore } from '../fonts/helpers';
import { findNode, fixtureTree, inkStats } from './helpers';

/**
 * Glyph placement against Photoshop: re-render an unchanged text layer with the substitute font
 * (Liberation Sans is metric-compatible with Arial) and compare with the pixels Photoshop stored.
 * Tolerances (template pixels at scale 1): ink bounding box edges within 2 px, centroid within
 * 1.5 px. Documented in docs/personalisation.md.
 */
const EDGE_TOLERANCE = 2;
const CENTROID_TOLERANCE = 1.5;

const cases: Array<[string, string]> = [
  ['psdtools-text.psd', 'Line 1 Line 2 Line 3 and text'], // point text, three lines, auto leading
  ['psapi-text-paragraph.psd', 'ParagraphSecondary'], // box text, right aligned, tracking 20
  ['psapi-text-character-styles.psd', 'CharacterStyleSecondary'], // box text, left aligned
];

describe('text re-render matches Photoshop glyph placement', () => {
  it.each(cases)('%s / %s', async (file, layerName) => {
    const { tree, layers } = await fixtureTree(file);
    const node = findNode(tree, layerName);
    const layer = layers.get(node.id)!;
    const font = (await resolveFont(node.text!.font, bundledFontStore))!;
    expect(font.postscriptName).toBe('LiberationSans');
    const drawn = (await renderText({ info: node.text!, text: node.text!.text, font: font.bytes, scale: 1 }))!;
    const ours = inkStats(drawn.pixels, drawn.bounds.left, drawn.bounds.top);
    const photoshop = inkStats(layer.imageData as unknown as RGBAImage, layer.left!, layer.top!);
    for (const edge of ['left', 'top', 'right', 'bottom'] as const) {
      expect(Math.abs(ours[edge] - photoshop[edge]), `${edge}: ${ours[edge]} vs ${photoshop[edge]}`).toBeLessThanOrEqual(EDGE_TOLERANCE);
    }
    expect(Math.abs(ours.cx - photoshop.cx)).toBeLessThanOrEqual(CENTROID_TOLERANCE);
    expect(Math.abs(ours.cy - photoshop.cy)).toBeLessThanOrEqual(CENTROID_TOLERANCE);
  });

  it('renders at the output scale directly: half scale gives the same placement, halved', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const info = findNode(tree, 'Line 1 Line 2 Line 3 and text').text!;
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const full = (await renderText({ info, text: info.text, font, scale: 1 }))!;
    const half = (await renderText({ info, text: info.text, font, scale: 0.5 }))!;
    const a = inkStats(full.pixels, full.bounds.left, full.bounds.top, 1);
    const b = inkStats(half.pixels, half.bounds.left, half.bounds.top, 1);
    expect(Math.abs(b.cx * 2 - a.cx)).toBeLessThan(1);
    expect(Math.abs(b.cy * 2 - a.cy)).toBeLessThan(1);
    expect(Math.abs(b.ink * 4 - a.ink) / a.ink).toBeLessThan(0.1);
  });
});

const baseInfo = (extra: Partial<TextInfo> = {}): TextInfo => ({
  text: '',
  font: 'ArialMT',
  size: 20,
  color: '#000000',
  tracking: 0,
  leading: 24,
  alignment: 'left',
  transform: [1, 0, 0, 1, 100, 100],
  ...extra,
});

describe('text layout rules', () => {
  it('point text starts its first baseline at the transform origin and never wraps', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const m = fontMetrics(font);
    const lines = layoutText('A long line that would wrap in a box\nsecond', m, { size: 20, leading: 24, tracking: 0, alignment: 'left' });
    expect(lines.map((l) => [l.text, l.x, l.y])).toEqual([
      ['A long line that would wrap in a box', 0, 0],
      ['second', 0, 24],
    ]);
  });

  it('point text alignment anchors at the origin: centre and right', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const left = (await renderText({ info: baseInfo(), text: 'HHHH', font, scale: 1 }))!;
    const centre = (await renderText({ info: baseInfo({ alignment: 'center' }), text: 'HHHH', font, scale: 1 }))!;
    const right = (await renderText({ info: baseInfo({ alignment: 'right' }), text: 'HHHH', font, scale: 1 }))!;
    const l = inkStats(left.pixels, left.bounds.left, left.bounds.top);
    const c = inkStats(centre.pixels, centre.bounds.left, centre.bounds.top);
    const r = inkStats(right.pixels, right.bounds.left, right.bounds.top);
    expect(Math.abs(l.left - 100)).toBeLessThanOrEqual(3); // H has a small left side bearing
    expect(Math.abs(c.cx - 100)).toBeLessThanOrEqual(1);
    expect(Math.abs(r.right - 100)).toBeLessThanOrEqual(3);
    // Baseline at y = 100: capitals sit on it.
    expect(Math.abs(l.bottom - 100)).toBeLessThanOrEqual(1);
  });

  it('box text wraps within the box, and drops lines that do not fit (overset)', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const m = fontMetrics(font);
    const box = { left: 0, top: 0, right: 120, bottom: 60 };
    const lines = layoutText('one two three four five six seven eight nine ten', m, { size: 20, leading: 24, tracking: 0, alignment: 'left', box });
    expect(lines.length).toBe(2); // a third line's descent would cross the bottom
    for (const l of lines) expect(measure(l.text, m, { size: 20, tracking: 0 })).toBeLessThanOrEqual(120);
    expect(lines[0].y).toBeCloseTo(m.ascender * 20, 5);
    expect(lines[1].y - lines[0].y).toBe(24);
  });

  it('a word wider than the box breaks between characters', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    const lines = layoutText('Supercalifragilistic', m, { size: 20, leading: 24, tracking: 0, alignment: 'left', box: { left: 0, top: 0, right: 60, bottom: 500 } });
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.map((l) => l.text).join('')).toBe('Supercalifragilistic');
  });

  it('tracking widens lines by 1/1000 em between characters', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    const plain = measure('abcd', m, { size: 20, tracking: 0 });
    expect(measure('abcd', m, { size: 20, tracking: 100 }) - plain).toBeCloseTo(3 * 0.1 * 20, 5);
  });

  it('justified lines are stretched to the box width by word spacing (last line not)', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    const lines = layoutText('aa bb cc dd ee ff gg hh', m, { size: 20, leading: 24, tracking: 0, alignment: 'justify', box: { left: 0, top: 0, right: 100, bottom: 500 } });
    expect(lines.length).toBeGreaterThan(1);
    const first = lines[0];
    const spaces = first.text.split(' ').length - 1;
    expect(first.width + spaces * first.wordSpacing).toBeCloseTo(100, 5);
    expect(lines[lines.length - 1].wordSpacing).toBe(0);
  });

  it('paragraph settings: indents narrow the lines, spacing separates paragraphs, justify-all justifies last lines', async () => {
    const m = fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
    const box = { left: 0, top: 0, right: 200, bottom: 1000 };
    const paragraph = { startIndent: 10, endIndent: 20, firstLineIndent: 15, spaceBefore: 6, spaceAfter: 4, justifyLast: true };
    const lines = layoutText('aa bb cc dd ee ff gg hh ii jj kk ll\nmm nn', m, { size: 20, leading: 24, tracking: 0, alignment: 'justify', box, paragraph });
    expect(lines[0].x).toBe(25); // start + first-line indent
    expect(lines[1].x).toBe(10);
    for (const [i, l] of lines.entries()) {
      const spaces = l.text.split(' ').length - 1;
      expect(l.x + l.width + spaces * l.wordSpacing, `line ${i}`).toBeCloseTo(180, 5); // right edge less end indent
    }
    const secondParagraph = lines.findIndex((l) => l.text.startsWith('mm'));
    expect(lines[secondParagraph].y - lines[secondParagraph - 1].y).toBeCloseTo(24 + 4 + 6, 5);
  });

  it('all caps (a character setting) upper-cases the new text', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const lower = (await renderText({ info: baseInfo(), text: 'xxxx', font, scale: 1 }))!;
    const caps = (await renderText({ info: baseInfo({ allCaps: true }), text: 'xxxx', font, scale: 1 }))!;
    const a = inkStats(lower.pixels, lower.bounds.left, lower.bounds.top);
    const b = inkStats(caps.pixels, caps.bounds.left, caps.bounds.top);
    expect(b.bottom - b.top).toBeGreaterThan((a.bottom - a.top) * 1.2);
  });

  it('box text is clipped to its box', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const info = baseInfo({ box: { left: 0, top: 0, right: 50, bottom: 100 }, transform: [1, 0, 0, 1, 10, 10] });
    const drawn = (await renderText({ info, text: 'WWWWWWWWWWWW', font, scale: 1 }))!;
    const ink = inkStats(drawn.pixels, drawn.bounds.left, drawn.bounds.top, 1);
    expect(ink.left).toBeGreaterThanOrEqual(10);
    expect(ink.right).toBeLessThanOrEqual(60);
  });

  it('follows the layer transform: a 90° rotation turns the text', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const flat = (await renderText({ info: baseInfo(), text: 'Rotate me', font, scale: 1 }))!;
    const turned = (await renderText({ info: baseInfo({ transform: [0, 1, -1, 0, 100, 100] }), text: 'Rotate me', font, scale: 1 }))!;
    const a = inkStats(flat.pixels, flat.bounds.left, flat.bounds.top);
    const b = inkStats(turned.pixels, turned.bounds.left, turned.bounds.top);
    expect(a.right - a.left).toBeGreaterThan(2 * (a.bottom - a.top));
    expect(b.bottom - b.top).toBeGreaterThan(2 * (b.right - b.left));
    // Rotating (x, y) → (−y, x) about the origin (100, 100).
    expect(Math.abs(b.cx - (100 - (a.cy - 100)))).toBeLessThanOrEqual(1);
    expect(Math.abs(b.cy - (100 + (a.cx - 100)))).toBeLessThanOrEqual(1);
  });

  it('a requested size is the size Photoshop shows: the layer transform scale is taken out', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const plain = (await renderText({ info: baseInfo(), text: 'Hx', font, size: 40, scale: 1 }))!;
    const scaled = (await renderText({ info: baseInfo({ size: 10, leading: 12, transform: [2, 0, 0, 2, 100, 100] }), text: 'Hx', font, size: 40, scale: 1 }))!;
    const a = inkStats(plain.pixels, plain.bounds.left, plain.bounds.top);
    const b = inkStats(scaled.pixels, scaled.bounds.left, scaled.bounds.top);
    expect(Math.abs(a.bottom - a.top - (b.bottom - b.top))).toBeLessThanOrEqual(1);
    expect(Math.abs(a.cx - b.cx)).toBeLessThanOrEqual(1);
  });

  it('characters the font lacks come from the fallback font', async () => {
    const liberation = await bundledFont('LiberationSans-Regular.ttf');
    const dejavu = await bundledFont('DejaVuSans.ttf');
    const smiley = 0x2654; // ♔
    expect(fontMetrics(liberation).has(smiley)).toBe(false);
    expect(fontMetrics(dejavu).has(smiley)).toBe(true);
    const text = 'A' + String.fromCodePoint(smiley);
    const alone = (await renderText({ info: baseInfo(), text: 'A', font: liberation, scale: 1 }))!;
    const withFallback = (await renderText({ info: baseInfo(), text, font: liberation, fallbackFonts: [dejavu], scale: 1 }))!;
    const a = inkStats(alone.pixels, alone.bounds.left, alone.bounds.top);
    const b = inkStats(withFallback.pixels, withFallback.bounds.left, withFallback.bounds.top);
    expect(b.right - a.right).toBeGreaterThan(10); // the smiley is drawn after the A
    expect(b.ink).toBeGreaterThan(a.ink * 1.5);
  });

  it('uses the requested colour and size', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const small = (await renderText({ info: baseInfo(), text: 'Size', font, scale: 1 }))!;
    const big = (await renderText({ info: baseInfo(), text: 'Size', font, size: 40, color: { r: 255, g: 0, b: 0, a: 1 }, scale: 1 }))!;
    const a = inkStats(small.pixels, 0, 0);
    const b = inkStats(big.pixels, 0, 0);
    expect((b.bottom - b.top) / (a.bottom - a.top)).toBeCloseTo(2, 0);
    const d = big.pixels.data;
    let opaque = -1;
    for (let i = 3; i < d.length; i += 4) if (d[i] === 255) { opaque = i - 3; break; }
    expect([d[opaque], d[opaque + 1], d[opaque + 2]]).toEqual([255, 0, 0]);
  });
});
