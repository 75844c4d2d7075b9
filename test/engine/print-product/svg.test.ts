import { describe, expect, it } from 'vitest';
import { decodeImage } from '../../../src/engine/raster/codecs';
import { renderPreview, renderPreviewPixels, surfaceSvg } from '../../../src/engine/print-product/svg';
import { layoutItemText } from '../../../src/engine/print-product/text';
import { ModelValidationError } from '../../../src/engine/print-product/validate';
import { bundledFont } from '../fonts/helpers';
import { fonts, halves, imageStore, inkBox, near, oneSurface, pngImage, px } from './helpers';

const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];
const CLEAR = [0, 0, 0, 0];
const png = { fileFormat: 'Png' as const };

describe('preview: shapes', () => {
  it('rectangles, ellipses, borders, rotation and opacity at known points', async () => {
    const m = await oneSurface(200, 100, [
      { type: 'Rectangle', x: 10, y: 10, width: 40, height: 30, fillColor: '#ff0000' },
      { type: 'Ellipse', x: 60, y: 10, width: 40, height: 30, fillColor: 'rgb(0,0,255)' },
      { type: 'Rectangle', x: 110, y: 10, width: 40, height: 30, fillColor: '#00ff00', borderColor: '#000', borderWidth: 4 },
      { type: 'Rectangle', x: 150, y: 40, width: 40, height: 10, fillColor: '#f00', rotation: 90 },
      { type: 'Rectangle', x: 10, y: 60, width: 40, height: 30, fillColor: '#0000ff', opacity: 0.5 },
      { type: 'Rectangle', x: 60, y: 60, width: 40, height: 30, fillColor: 'rgba(255,0,0,0.25)' },
      { type: 'Rectangle', x: 110, y: 60, width: 20, height: 20, fillColor: '#f00', visible: false },
      { type: 'Rectangle', x: 110, y: 60, width: 20, height: 20, fillColor: 'transparent', borderColor: '#0000ff', borderWidth: 2 },
    ]);
    const img = await renderPreviewPixels(m, { ...png, width: 400, height: 400, fonts, images: imageStore({}) });
    expect([img.width, img.height]).toEqual([400, 200]); // fitted into the box: s = 2
    expect(px(img, 60, 50)).toEqual(RED);
    expect(px(img, 19, 19)).toEqual(CLEAR); // outside the rectangle (it starts at 20 px)
    expect(px(img, 160, 50)).toEqual(BLUE);
    expect(px(img, 122, 22)).toEqual(CLEAR); // the ellipse's box corner
    expect(px(img, 223, 50)).toEqual([0, 0, 0, 255]); // border, inside the box
    expect(px(img, 260, 50)).toEqual([0, 255, 0, 255]);
    // Rotated 90° about its centre (170, 45): now x 165..175, y 25..65.
    expect(px(img, 340, 60)).toEqual(RED);
    expect(px(img, 306, 90)).toEqual(CLEAR);
    expect(px(img, 60, 150)[3]).toBeGreaterThan(120);
    expect(px(img, 60, 150)[3]).toBeLessThan(135);
    expect(px(img, 160, 150)[3]).toBeGreaterThan(58);
    expect(px(img, 160, 150)[3]).toBeLessThan(70);
    expect(px(img, 240, 140)).toEqual(CLEAR); // invisible item; transparent fill of the next
    expect(px(img, 221, 140)).toEqual(BLUE); // its 2 pt border = 4 px inside the box
  });

  it('groups: children in surface coordinates, group opacity and rotation apply to all', async () => {
    const m = await oneSurface(100, 100, [
      {
        type: 'Group', x: 0, y: 0, width: 100, height: 100, rotation: 180, opacity: 0.5,
        items: [{ type: 'Rectangle', x: 0, y: 0, width: 50, height: 50, fillColor: '#f00' }],
      },
      { type: 'Group', x: 0, y: 0, width: 10, height: 10, visible: false, items: [{ type: 'Rectangle', x: 0, y: 0, width: 10, height: 10 }] },
    ]);
    const img = await renderPreviewPixels(m, { ...png, width: 100, height: 100, fonts, images: imageStore({}) });
    expect(px(img, 25, 25)).toEqual(CLEAR); // moved by the rotation
    expect(px(img, 75, 75)[0]).toBe(255);
    expect(px(img, 75, 75)[3]).toBeGreaterThan(120);
    expect(px(img, 75, 75)[3]).toBeLessThan(135);
    expect(px(img, 5, 5)).toEqual(CLEAR);
  });

  it('JPEG is flattened over white; hidden containers are skipped', async () => {
    const m = await oneSurface(100, 50, [{ type: 'Rectangle', x: 0, y: 0, width: 50, height: 50, fillColor: '#f00' }]);
    m.surfaces[0].containers.push({ id: 'h', name: '', visible: false, locked: false, items: [{ ...m.surfaces[0].containers[0].items[0], id: 'x', x: 50 }] });
    const out = await renderPreview(m, { width: 200, height: 200, fonts, images: imageStore({}) });
    expect(out.mime).toBe('image/jpeg');
    expect([out.width, out.height]).toEqual([200, 100]);
    const img = await decodeImage(out.bytes);
    expect(near(px(img, 50, 50), RED, 6)).toBe(true);
    expect(near(px(img, 150, 50), [255, 255, 255, 255], 3)).toBe(true);
    const pngOut = await renderPreview(m, { ...png, width: 100, height: 100, fonts, images: imageStore({}) });
    expect(pngOut.mime).toBe('image/png');
    expect(px(await decodeImage(pngOut.bytes), 75, 25)).toEqual(CLEAR);
  });
});

describe('preview: images', () => {
  it('Fit, Fill and Stretch', async () => {
    // 20 × 10: left half red, right half blue.
    const images = imageStore({ pic: await pngImage(halves(20, 10, RED, BLUE)) });
    const box = { type: 'Image', y: 0, width: 40, height: 40, source: { type: 'Embedded', key: 'pic' } };
    const m = await oneSurface(150, 40, [
      { ...box, x: 0, fitMode: 'Fit' },
      { ...box, x: 50, fitMode: 'Fill' },
      { ...box, x: 100, fitMode: 'Stretch' },
    ]);
    const img = await renderPreviewPixels(m, { ...png, width: 150, height: 40, fonts, images });
    // Fit: 40 × 20 centred vertically (y 10..30).
    expect(px(img, 5, 5)).toEqual(CLEAR);
    expect(near(px(img, 5, 20), RED)).toBe(true);
    expect(near(px(img, 35, 20), BLUE)).toBe(true);
    // Fill: 80 × 40 centred and clipped: the box shows the middle (red then blue), all opaque.
    expect(near(px(img, 55, 5), RED)).toBe(true);
    expect(near(px(img, 85, 35), BLUE)).toBe(true);
    expect(px(img, 48, 20)).toEqual(CLEAR); // nothing outside the box
    expect(px(img, 92, 20)).toEqual(CLEAR);
    // Stretch: the whole box.
    expect(near(px(img, 105, 2), RED)).toBe(true);
    expect(near(px(img, 135, 38), BLUE)).toBe(true);
    expect(images.asked).toEqual(['Embedded:pic', 'Embedded:pic', 'Embedded:pic']);
  });

  it('recolor paints the visible pixels and keeps alpha', async () => {
    const images = imageStore({ pic: await pngImage(halves(20, 20, [10, 200, 30, 255], CLEAR)) });
    const m = await oneSurface(20, 20, [{ type: 'Image', x: 0, y: 0, width: 20, height: 20, source: { type: 'Embedded', key: 'pic' }, recolor: '#0000ff' }]);
    const img = await renderPreviewPixels(m, { ...png, width: 20, height: 20, fonts, images });
    expect(near(px(img, 3, 10), BLUE)).toBe(true);
    expect(px(img, 16, 10)).toEqual(CLEAR);
  });
});

describe('preview: text', () => {
  const text = (extra: Record<string, unknown>) => ({
    type: 'Text', x: 10, y: 10, width: 180, height: 40, text: 'Hello', font: { postscriptName: 'LiberationSans', size: 20 }, color: '#000000', ...extra,
  });
  const ink = (p: number[]) => p[3] > 128;

  it('draws the text inside its box, aligned as asked', async () => {
    const render = async (extra: Record<string, unknown>) =>
      inkBox(await renderPreviewPixels(await oneSurface(200, 60, [text(extra)]), { ...png, width: 200, height: 60, fonts, images: imageStore({}) }), ink);
    const left = await render({ alignment: 'Left' });
    const right = await render({ alignment: 'Right' });
    const center = await render({ alignment: 'Center' });
    expect(left.left).toBeGreaterThanOrEqual(10);
    expect(left.left).toBeLessThan(14);
    expect(right.right).toBeLessThanOrEqual(190);
    expect(right.right).toBeGreaterThan(185);
    expect(Math.abs((center.left + center.right) / 2 - 100)).toBeLessThan(2);
    // Top: cap height below the box top; Bottom: the descent above the box bottom.
    expect(left.top).toBeGreaterThanOrEqual(10);
    const bottom = await render({ verticalAlignment: 'Bottom' });
    expect(bottom.bottom).toBeLessThanOrEqual(50);
    expect(bottom.top).toBeGreaterThan(left.top + 10);
    const middle = await render({ verticalAlignment: 'Middle' });
    expect(middle.top).toBeGreaterThan(left.top);
    expect(middle.top).toBeLessThan(bottom.top);
  });

  it('colour, letter spacing and wrapping', async () => {
    const img = await renderPreviewPixels(await oneSurface(200, 60, [text({ color: '#ff0000' })]), { ...png, width: 200, height: 60, fonts, images: imageStore({}) });
    const box = inkBox(img, ink);
    const p = px(img, ...findInk(img));
    expect(p[0]).toBeGreaterThan(200);
    expect(p[1]).toBeLessThan(40);
    const spaced = inkBox(await renderPreviewPixels(await oneSurface(200, 60, [text({ letterSpacing: 5 })]), { ...png, width: 200, height: 60, fonts, images: imageStore({}) }), ink);
    expect(spaced.right - spaced.left).toBeGreaterThan(box.right - box.left + 18); // 4 gaps × 5 pt
    const wrapped = inkBox(
      await renderPreviewPixels(await oneSurface(200, 100, [text({ width: 60, height: 90, text: 'Hello Hello Hello' })]), { ...png, width: 200, height: 100, fonts, images: imageStore({}) }),
      ink,
    );
    expect(wrapped.right).toBeLessThanOrEqual(70);
    expect(wrapped.bottom - wrapped.top).toBeGreaterThan(2 * 20); // three lines
  });

  it('Justify spreads the words of every line but the last', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const m = await oneSurface(200, 100, [text({ width: 120, height: 90, alignment: 'Justify', text: 'aa bb cc dd ee ff gg hh' })]);
    const t = m.surfaces[0].containers[0].items[0];
    if (t.type !== 'Text') throw new Error();
    const layout = layoutItemText(t, t.text, font);
    expect(layout.lines.length).toBeGreaterThan(1);
    expect(layout.lines[0].wordSpacing).toBeGreaterThan(0);
    expect(layout.lines.at(-1)!.wordSpacing).toBe(0);
    const { svg } = await surfaceSvg(m, { fonts, images: imageStore({}) });
    expect(svg).toMatch(/word-spacing="/);
  });

  it('ShrinkToFit lowers the size by 0.5 pt steps until it fits, not below 4 pt', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const m = await oneSurface(200, 100, [
      text({ width: 100, height: 30, text: 'A long line of text that cannot fit', fit: 'ShrinkToFit' }),
      text({ width: 5, height: 5, text: 'Impossible words here', fit: 'ShrinkToFit' }),
      text({ width: 100, height: 30, text: 'A long line of text that cannot fit' }),
    ]);
    const [a, b, c] = m.surfaces[0].containers[0].items;
    if (a.type !== 'Text' || b.type !== 'Text' || c.type !== 'Text') throw new Error();
    const shrunk = layoutItemText(a, a.text, font);
    expect(shrunk.size).toBeLessThan(20);
    expect((shrunk.size * 2) % 1).toBe(0);
    // The size above does not fit, this one does.
    const bigger = layoutItemText({ ...a, fit: 'None', font: { ...a.font, size: shrunk.size + 0.5 } }, a.text, font);
    const height = (s: number, n: number) => s * 0.905 + (n - 1) * 1.2 * s + s * 0.212;
    expect(height(shrunk.size, shrunk.lines.length)).toBeLessThanOrEqual(30.5);
    expect(bigger.lines.length * 1.2 * (shrunk.size + 0.5) > 30 || bigger.lines.length < layoutItemText({ ...a, fit: 'None', font: { ...a.font, size: shrunk.size + 0.5 }, height: 1000 }, a.text, font).lines.length).toBe(true);
    expect(layoutItemText(b, b.text, font).size).toBe(4);
    // Without ShrinkToFit: the size stays, overset lines are dropped.
    const fixed = layoutItemText(c, c.text, font);
    expect(fixed.size).toBe(20);
    expect(fixed.lines.length).toBe(1);
  });

  it('an unknown font at render time is a 400 naming the item', async () => {
    const m = await oneSurface(100, 100, [text({})]);
    const err = await renderPreviewPixels(m, { fonts: async () => undefined, images: imageStore({}) }).catch((e) => e);
    expect(err).toBeInstanceOf(ModelValidationError);
    expect(err.errors).toHaveProperty(['surfaces[0].containers[0].items[0].font.postscriptName']);
  });
});

describe('preview: stub, variables and print areas', () => {
  it('stub: an empty Image variable is #e6e6e6 with #b3b3b3 diagonals; an empty Text variable its placeholder at 50 %', async () => {
    const m = await oneSurface(100, 50, [
      { type: 'Image', name: 'Photo', isVariable: true, x: 0, y: 0, width: 50, height: 50 },
      { type: 'Text', name: 'Name', isVariable: true, x: 50, y: 0, width: 50, height: 50, placeholder: 'Name', font: { postscriptName: 'LiberationSans', size: 16 } },
    ]);
    const img = await renderPreviewPixels(m, { ...png, width: 100, height: 50, fonts, images: imageStore({}) });
    expect(px(img, 40, 10)).toEqual([0xe6, 0xe6, 0xe6, 255]);
    expect(near(px(img, 25, 25), [0xb3, 0xb3, 0xb3, 255], 2)).toBe(true); // where the diagonals cross
    expect(near(px(img, 10, 10), [0xb3, 0xb3, 0xb3, 255], 40)).toBe(true);
    let maxAlpha = 0;
    for (let y = 0; y < 50; y++) for (let x = 50; x < 100; x++) maxAlpha = Math.max(maxAlpha, px(img, x, y)[3]);
    expect(maxAlpha).toBeGreaterThan(100);
    expect(maxAlpha).toBeLessThanOrEqual(129);
    // stub: false draws neither.
    const bare = await renderPreviewPixels(m, { ...png, width: 100, height: 50, fonts, images: imageStore({}), stub: false });
    expect(bare.data.every((v, i) => i % 4 !== 3 || v === 0)).toBe(true);
  });

  it('variableData fills text and image variables before drawing', async () => {
    const images = imageStore({ 'https://img.example/a.png': await pngImage(halves(10, 10, RED, RED)) });
    const m = await oneSurface(100, 50, [
      { type: 'Image', name: 'Photo', isVariable: true, x: 0, y: 0, width: 50, height: 50 },
      { type: 'Text', name: 'Name', isVariable: true, x: 50, y: 0, width: 50, height: 50, font: { postscriptName: 'LiberationSans', size: 16 } },
    ]);
    const img = await renderPreviewPixels(m, {
      ...png, width: 100, height: 50, fonts, images,
      variableData: [{ name: 'Photo', value: 'https://img.example/a.png' }, { name: 'Name', value: 'Ann', type: 'Text' }],
    });
    expect(px(img, 25, 25)).toEqual(RED);
    expect(inkBox(img, (p) => p[3] > 200).right).toBeGreaterThan(55);
    expect(images.asked).toEqual(['Url:https://img.example/a.png']);
    expect(m.surfaces[0].containers[0].items[0]).not.toHaveProperty('source'); // the stored model is untouched
    const err = await renderPreviewPixels(m, { fonts, images, variableData: [{ name: 'Nope', value: 'x' }] }).catch((e) => e);
    expect(err.errors).toHaveProperty(['variableData[0].name']);
  });

  it('print-area bounds: #00a3ff, t = max(1, round(min side px ÷ 200)), bleed dashed 4t/2t', async () => {
    const m = await oneSurface(200, 100, [], {
      printAreas: [{ bounds: { x: 20, y: 10, width: 160, height: 80 }, bleed: { left: 5, top: 5, right: 5, bottom: 5 } }],
    });
    // s = 5: min side 80 pt = 400 px → t = 2 px, centred on x = 100 px.
    const img = await renderPreviewPixels(m, { ...png, width: 1000, height: 500, fonts, images: imageStore({}), visualizePrintAreas: true });
    const AREA = [0x00, 0xa3, 0xff, 255];
    expect(px(img, 99, 250)).toEqual(AREA);
    expect(px(img, 100, 250)).toEqual(AREA);
    expect(px(img, 98, 250)).toEqual(CLEAR);
    expect(px(img, 101, 250)).toEqual(CLEAR);
    expect(px(img, 500, 49)).toEqual(AREA); // top edge, y = 10 pt = 50 px
    // Bleed at x = 15 pt = 75 px: dashes of 8 px, gaps of 4 px.
    let on = 0;
    let runs = 0;
    let prev = false;
    for (let y = 100; y < 400; y++) {
      const hit = near(px(img, 74, y), AREA, 2);
      if (hit) on++;
      if (hit && !prev) runs++;
      prev = hit;
    }
    expect(on / 300).toBeGreaterThan(0.6);
    expect(on / 300).toBeLessThan(0.72);
    expect(runs).toBeGreaterThanOrEqual(24);
    // Small output: t never drops below 1 px; not drawn unless asked.
    const small = await renderPreviewPixels(m, { ...png, width: 100, height: 100, fonts, images: imageStore({}), visualizePrintAreas: true });
    // (x = 10 px: a 1 px line centred on a pixel edge covers two pixels by half.)
    expect(px(small, 9, 25)[3] + px(small, 10, 25)[3]).toBeGreaterThan(240);
    expect(px(small, 10, 25).slice(0, 3)).toEqual(AREA.slice(0, 3));
    const none = await renderPreviewPixels(m, { ...png, width: 100, height: 100, fonts, images: imageStore({}) });
    expect(px(none, 10, 25)).toEqual(CLEAR);
  });

  it('print-area shapes: ellipse and rounded rectangle', async () => {
    const m = await oneSurface(100, 100, [], {
      printAreas: [
        { bounds: { x: 0, y: 0, width: 100, height: 100 }, shape: 'Ellipse' },
        { bounds: { x: 10, y: 10, width: 80, height: 80 }, shape: 'RoundedRectangle', cornerRadius: 20 },
      ],
    });
    const img = await renderPreviewPixels(m, { ...png, width: 100, height: 100, fonts, images: imageStore({}), visualizePrintAreas: true });
    expect(px(img, 0, 0)).toEqual(CLEAR);
    expect(px(img, 0, 50)[2]).toBeGreaterThan(100); // the ellipse touches the left edge
    expect(px(img, 10, 10)).toEqual(CLEAR); // rounded corner
    expect(px(img, 10, 50)[2]).toBeGreaterThan(100);
  });

  it('mockups: down under the containers, up over them, only when asked', async () => {
    const images = imageStore({ up: await pngImage(halves(10, 10, BLUE, CLEAR)), down: await pngImage(halves(10, 10, RED, RED)) });
    const m = await oneSurface(100, 100, [{ type: 'Rectangle', x: 0, y: 0, width: 100, height: 50, fillColor: '#00ff00' }], {
      mockup: { up: { source: { type: 'Embedded', key: 'up' }, x: 0, y: 0, width: 100, height: 100 }, down: { source: { type: 'Embedded', key: 'down' }, x: 0, y: 0, width: 100, height: 100 } },
    });
    const img = await renderPreviewPixels(m, { ...png, width: 100, height: 100, fonts, images, mockup: true });
    expect(px(img, 25, 25)).toEqual(BLUE);
    expect(px(img, 75, 25)).toEqual([0, 255, 0, 255]);
    expect(px(img, 75, 75)).toEqual(RED);
    const plain = await renderPreviewPixels(m, { ...png, width: 100, height: 100, fonts, images });
    expect(px(plain, 75, 75)).toEqual(CLEAR);
  });
});

describe('preview: live editing (layers from the run cache)', () => {
  // Shapes under the variable text, a half-transparent image and shape over it.
  const model = () =>
    oneSurface(300, 100, [
      { type: 'Rectangle', x: 0, y: 0, width: 300, height: 100, fillColor: '#f7f3ea' },
      { type: 'Ellipse', x: 10, y: 10, width: 80, height: 80, fillColor: 'rgba(0,90,160,0.6)', borderColor: '#000', borderWidth: 3 },
      { type: 'Text', name: 'Name', isVariable: true, x: 40, y: 20, width: 240, height: 40, text: 'Ada', font: { postscriptName: 'LiberationSans-Bold', size: 24 }, color: '#1d2b3a' },
      { type: 'Image', name: 'Logo', x: 200, y: 10, width: 60, height: 60, fitMode: 'Fit', opacity: 0.7, source: { type: 'Embedded', key: 'logo' } },
      { type: 'Rectangle', x: 30, y: 30, width: 200, height: 20, fillColor: 'rgba(255,0,0,0.3)', rotation: 10 },
      // Text that overflows its box (a first line taller than the box, a word wider than it), a
      // turned one, and a variable inside a group: their bands must still hold all their ink.
      { type: 'Text', name: 'Tall', isVariable: true, x: 20, y: 70, width: 30, height: 5, text: 'x', verticalAlignment: 'Bottom', font: { postscriptName: 'LiberationSerif', size: 20 }, color: '#aa0000' },
      { type: 'Rectangle', x: 0, y: 0, width: 300, height: 100, fillColor: 'rgba(0,0,255,0.1)' },
      { type: 'Group', name: 'G', x: 0, y: 0, width: 300, height: 100, items: [
        { type: 'Ellipse', name: 'Dot', isVariable: false, x: 270, y: 80, width: 20, height: 20, fillColor: '#00aa00' },
        { type: 'Text', name: 'Inner', isVariable: true, x: 230, y: 75, width: 60, height: 20, text: 'in', font: { postscriptName: 'LiberationSans', size: 12 } },
      ] },
      { type: 'Rectangle', x: 100, y: 0, width: 10, height: 100, fillColor: 'rgba(0,0,0,0.2)' },
      { type: 'Text', name: 'Turned', isVariable: true, x: 150, y: 60, width: 100, height: 30, rotation: 75, text: 'turned', font: { postscriptName: 'LiberationSans', size: 14 } },
    ]);
  const maxDiff = (a: Uint8ClampedArray, b: Uint8ClampedArray) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);

  it('composited runs give the pixels of one resvg pass, for every new value, JPEG and PNG', async () => {
    const { renderSvg } = await import('../../../src/engine/personalise/resvg');
    const { unpremultiply } = await import('../../../src/engine/raster/pixels');
    const images = imageStore({ logo: await pngImage(halves(40, 40, BLUE, [0, 255, 0, 128])) });
    const m = await model();
    for (const fileFormat of ['Jpeg', 'Png'] as const) {
      for (const [name, more] of [['Ada Lovelace', 'Ågg'], ['Charles Babbage', 'Wjy'], ['Ada Lovelace', 'Ågg']] as const) {
        const notes: string[] = [];
        const timing = { time: async <T,>(_n: string, fn: () => Promise<T> | T) => fn(), note: (_n: string, d: string) => notes.push(d) };
        const variableData = [{ name: 'Name', value: name }, { name: 'Tall', value: more }, { name: 'Turned', value: more }, { name: 'Inner', value: `${more} overflowing` }];
        const opts = { fileFormat, width: 600, height: 600, fonts, images, variableData };
        const layered = await renderPreviewPixels(m, { ...opts, timing });
        const { svg, fonts: used } = await surfaceSvg(m, { ...opts, background: fileFormat === 'Jpeg' ? '#ffffff' : undefined });
        const whole = await renderSvg(svg, used);
        if (fileFormat === 'Png') await unpremultiply(whole.data);
        expect([layered.width, layered.height]).toEqual([whole.width, whole.height]);
        // Source-over of premultiplied layers: the same as resvg's own, up to rounding.
        expect(maxDiff(layered.data, whole.data)).toBeLessThanOrEqual(fileFormat === 'Png' ? 5 : 4);
        expect(notes).toHaveLength(1);
      }
    }
  });

  it('only the runs of the changed items are drawn again', async () => {
    const images = imageStore({ logo: await pngImage(halves(40, 40, BLUE, RED)) });
    const m = await model();
    const notes: string[] = [];
    const timing = { time: async <T,>(_n: string, fn: () => Promise<T> | T) => fn(), note: (_n: string, d: string) => notes.push(d) };
    const render = (value: string) => renderPreviewPixels(m, { width: 900, height: 900, fonts, images, timing, variableData: [{ name: 'Name', value }] });
    await render('first');
    const before = await render('second');
    // Three runs (under, the text, over the rest): the two without the variable come from the cache.
    expect(notes.at(-1)).toBe('2/3 runs from cache');
    // A changed model misses the cache for the changed run only, and shows the change.
    m.surfaces[0]!.containers[0]!.items[0] = { ...m.surfaces[0]!.containers[0]!.items[0]!, fillColor: '#00ff00' } as never;
    const after = await render('second');
    expect(notes.at(-1)).toBe('1/3 runs from cache');
    // Under the 10 % blue wash: the cream background, then green.
    expect(near(px(before, 890, 290), [222, 219, 237, 255])).toBe(true);
    expect(near(px(after, 890, 290), [0, 230, 26, 255], 4)).toBe(true);
  });
});

function findInk(img: { width: number; height: number; data: Uint8ClampedArray }): [number, number] {
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) if (img.data[(y * img.width + x) * 4 + 3] === 255) return [x, y];
  throw new Error('no ink');
}
