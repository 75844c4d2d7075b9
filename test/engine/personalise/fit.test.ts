import { describe, expect, it } from 'vitest';
import { buildOverrides, type PersonaliseContext } from '../../../src/engine/personalise';
import { setText } from '../../../src/engine/personalise/text';
import { textFitProblems } from '../../../src/engine/personalise/checks';
import type { PreflightProblem } from '../../../src/engine/preflight/report';
import type { LayerNode, RGBAImage } from '../../../src/engine/types';
import { bundledFont, bundledFontStore } from '../fonts/helpers';
import { findNode, fixtureTree } from './helpers';

/** A context that records what the layer checks report. */
function context(extra: Partial<PersonaliseContext> = {}, images: Record<string, RGBAImage> = {}) {
  const problems: PreflightProblem[] = [];
  const ctx: PersonaliseContext = {
    scale: 1,
    loadFont: bundledFontStore,
    loadImage: async (ref) => {
      const img = images[ref];
      if (!img) throw new Error(`no test image ${ref}`);
      return img;
    },
    report: (p) => problems.push(p),
    ...extra,
  };
  return { ctx, problems };
}

const codes = (problems: PreflightProblem[]) => problems.map((p) => `${p.code}:${p.severity}`).sort();
const LONG_NAME = 'Jonathan Livingstone-Smith of Upper Wallop and Nether Wallop';

/** psdtools-text.psd: point text, left aligned at x 83.8 on a 400 × 400 canvas, 13 px. */
const POINT = 'Line 1 Line 2 Line 3 and text';
/** psapi-text-paragraph.psd: box text 96 × 160, right aligned, 18 px, tracking 20, on 420 × 300. */
const BOX = 'ParagraphSecondary';

describe('copyfitting point text', () => {
  it('fit none: a name running past the canvas is textOverflow, with the characters that do not fit', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const { ctx, problems } = context({ canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: LONG_NAME } }, ctx);
    const overflow = problems.find((p) => p.code === 'textOverflow')!;
    expect(overflow.severity).toBe('error');
    const characters = overflow.details!.characters as number;
    expect(characters).toBeGreaterThan(3);
    expect(LONG_NAME.endsWith(overflow.details!.overflow as string)).toBe(true);
    expect(overflow.message).toMatch(new RegExp(`is too long for ${POINT}: ${characters} characters do not fit\\.$`));
  });

  it('fit shrink: the largest size to 0.1 pt at which the line reaches no further than the canvas', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const node = findNode(tree, POINT);
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const area = { left: 0, top: 0, right: 400, bottom: 400 };
    const set = setText({ info: node.text!, text: LONG_NAME, font, fit: 'shrink', area });
    const room = 400 - node.text!.transform![4];
    expect(set.overflow).toBe('');
    expect(set.shownSize).toBeLessThan(13);
    expect(Math.round(set.shownSize * 10)).toBeCloseTo(set.shownSize * 10, 6);
    expect(set.lines[0].width).toBeLessThanOrEqual(room);
    const bigger = setText({ info: node.text!, text: LONG_NAME, font, size: set.shownSize + 0.1, area });
    expect(bigger.lines[0].width).toBeGreaterThan(room);

    const { ctx, problems } = context({ canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: LONG_NAME, fit: 'shrink' } }, ctx);
    expect(codes(problems)).toEqual(['fontSubstituted:warning', 'textShrunk:warning']);
    const shrunk = problems.find((p) => p.code === 'textShrunk')!;
    expect(shrunk.details).toEqual({ size: set.shownSize, originalSize: 13, points: set.shownSize, originalPoints: 13 });
    expect(shrunk.message).toBe(`${POINT} was shrunk to ${set.shownSize} pt to fit.`);
  });

  it('fit shrink stops at minSize (default half the size) and reports what still does not fit', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const { ctx, problems } = context({ canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: LONG_NAME, fit: 'shrink', minSize: 12 } }, ctx);
    expect(problems.find((p) => p.code === 'textShrunk')!.details).toEqual({ size: 12, originalSize: 13, points: 12, originalPoints: 13 });
    expect(problems.find((p) => p.code === 'textOverflow')!.details!.size).toBe(12);

    const node = findNode(tree, POINT);
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const huge = setText({ info: node.text!, text: LONG_NAME.repeat(4), font, fit: 'shrink', area: { left: 0, top: 0, right: 400, bottom: 400 } });
    expect(huge.shownSize).toBe(6.5);
    expect(huge.overflow).not.toBe('');
  });

  it('fit shrinkToLine: one line, no wider than the original widest line', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const node = findNode(tree, POINT);
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const original = setText({ info: node.text!, text: node.text!.text, font });
    const widest = Math.max(...original.lines.map((l) => l.width));
    const set = setText({ info: node.text!, text: 'A much longer name\nthan the line before', font, fit: 'shrinkToLine', minSize: 1 });
    expect(set.lines.map((l) => l.text)).toEqual(['A much longer name than the line before']);
    expect(set.lines[0].width).toBeLessThanOrEqual(widest + 1e-6);
    expect(set.lines[0].width).toBeGreaterThan(widest * 0.97);
    // A short text keeps its size.
    expect(setText({ info: node.text!, text: 'Hi', font, fit: 'shrinkToLine' }).shownSize).toBe(13);
  });

  it('the <MW_n> marker bounds point text; <TOS_fitToBox> makes shrink the default; the command wins', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const node = findNode(tree, POINT);
    node.name = `${POINT} <TOS_fitToBox><MW_150><FMIN_4>`;
    const { ctx, problems } = context({ canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: 'Jonathan Livingstone-Smith' } }, ctx);
    const shrunk = problems.find((p) => p.code === 'textShrunk')!;
    expect(shrunk.layer).toBe(POINT);
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const set = setText({ info: node.text!, text: 'Jonathan Livingstone-Smith', font, fit: 'shrink', maxWidth: 150 });
    expect(shrunk.details!.size).toBe(set.shownSize);
    expect(set.lines[0].width).toBeLessThanOrEqual(150);

    const none = context({ canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: 'Jonathan Livingstone-Smith', fit: 'none' } }, none.ctx);
    expect(codes(none.problems)).toEqual(['fontSubstituted:warning', 'textOverflow:error']);
  });
});

describe('copyfitting paragraph text', () => {
  const TEXT = 'Secondary paragraph box with right align and a good deal more text than the box can hold at this size';

  it('fit none: the lines Photoshop would drop are textOverflow', async () => {
    const { tree } = await fixtureTree('psapi-text-paragraph.psd');
    const { ctx, problems } = context();
    await buildOverrides(tree, { [BOX]: { type: 'text', text: TEXT } }, ctx);
    const overflow = problems.find((p) => p.code === 'textOverflow')!;
    expect(TEXT.endsWith((overflow.details!.overflow as string).trim())).toBe(true);
  });

  it('fit shrink: every line shown and no word cut, at the largest such size', async () => {
    const { tree } = await fixtureTree('psapi-text-paragraph.psd');
    const node = findNode(tree, BOX);
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const set = setText({ info: node.text!, text: TEXT, font, fit: 'shrink' });
    expect(set.overflow).toBe('');
    expect(set.shownSize).toBeLessThan(18);
    expect(set.lines.map((l) => l.text).join(' ')).toBe(TEXT);
    const bigger = setText({ info: node.text!, text: TEXT, font, size: set.shownSize + 0.1 });
    expect(bigger.lines.map((l) => l.text).join(' ')).not.toBe(TEXT);
    const { ctx, problems } = context();
    await buildOverrides(tree, { [BOX]: { type: 'text', text: TEXT, fit: 'shrink' } }, ctx);
    expect(codes(problems)).toEqual(['fontSubstituted:warning', 'textShrunk:warning']);
  });

  it('fit shrink prefers a size where a long word stays whole', async () => {
    const { tree } = await fixtureTree('psapi-text-paragraph.psd');
    const node = findNode(tree, BOX);
    const font = await bundledFont('LiberationSans-Regular.ttf');
    const word = 'Supercalifragilistic';
    expect(setText({ info: node.text!, text: word, font }).lines.length).toBeGreaterThan(1); // cut at 18 px
    const set = setText({ info: node.text!, text: word, font, fit: 'shrink' });
    expect(set.lines.map((l) => l.text)).toEqual([word]);
  });
});

describe('layer checks', () => {
  it('missingGlyphs lists characters no font has; fontSubstituted names the requested and the used font', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const { ctx, problems } = context();
    await buildOverrides(tree, { [POINT]: { type: 'text', text: 'Ann \u{10FFFD}' } }, ctx);
    const missing = problems.find((p) => p.code === 'missingGlyphs')!;
    expect(missing.severity).toBe('error');
    expect(missing.details!.characters).toBe('\u{10FFFD}');
    expect(problems.find((p) => p.code === 'fontSubstituted')!.details).toEqual({ requested: 'ArialMT', used: 'LiberationSans' });
  });

  it('fontSubstituted also tells which characters came from a fallback font', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const { ctx, problems } = context();
    await buildOverrides(tree, { [POINT]: { type: 'text', text: 'Ali علي' } }, ctx);
    const substituted = problems.find((p) => p.code === 'fontSubstituted')!;
    expect(substituted.details!.fallbacks).toEqual(['NotoSansArabic-Regular']);
    expect(problems.some((p) => p.code === 'missingGlyphs')).toBe(false);
  });

  it('lowResolution and imageUpscaled from the effective ppi of the placement (apple: 480 × 360 content in 200 × 150 px)', async () => {
    const { tree } = await fixtureTree('agpsd-shapes-smart-objects.psd');
    const picture = (width: number, height: number): RGBAImage => ({ width, height, data: new Uint8ClampedArray(width * height * 4) });
    const run = async (img: RGBAImage, resolution: number, name = 'apple') => {
      const { ctx, problems } = context({ resolution }, { 'p.png': img });
      await buildOverrides(tree, { [name]: { type: 'image', image: 'p.png' } }, ctx);
      return problems;
    };
    // 40 px over 200 template px at 300 ppi: 60 ppi, enlarged 5×.
    const tiny = await run(picture(40, 30), 300);
    expect(codes(tiny)).toEqual(['imageUpscaled:warning', 'lowResolution:error']);
    expect(tiny.find((p) => p.code === 'lowResolution')!.details).toEqual({ ppi: 60, threshold: 200 });
    expect(tiny.find((p) => p.code === 'imageUpscaled')!.details!.scale).toBe(5);
    // 100 px: 150 ppi, a warning.
    expect(codes(await run(picture(100, 75), 300))).toEqual(['imageUpscaled:warning', 'lowResolution:warning']);
    // 800 px: 1200 ppi.
    expect(await run(picture(800, 600), 300)).toEqual([]);
    // A picture decoded smaller than its own pixels is judged by its own pixels.
    expect(await run({ ...picture(40, 30), source: { width: 800, height: 600 } } as RGBAImage, 300)).toEqual([]);
    // EXIF orientation 5–8: the picture's own pixels are measured as displayed (120 × 160 stored → 160 × 120: 240 ppi).
    expect(codes(await run({ ...picture(40, 30), source: { width: 120, height: 160, orientation: 6 } } as RGBAImage, 300))).toEqual(['imageUpscaled:warning']);
    // <PPI_1000> raises the threshold.
    findNode(tree, 'apple').name = 'apple <PPI_1000>';
    expect(codes(await run(picture(600, 450), 300))).toEqual(['lowResolution:warning']); // 900 ppi
  });

  it('outsideTrim: text or a picture that crosses the trim box while the layer was inside it', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    findNode(tree, POINT).name = `${POINT} <MW_1000>`;
    const trim = { left: 20, top: 20, right: 380, bottom: 380 };
    const { ctx, problems } = context({ trim, canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: LONG_NAME } }, ctx);
    const outside = problems.find((p) => p.code === 'outsideTrim')!;
    expect(outside.severity).toBe('error');
    expect(outside.details!.area).toEqual(trim);
    expect((outside.details!.bounds as { right: number }).right).toBeGreaterThan(380);
    const inside = context({ trim, canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: 'Ann' } }, inside.ctx);
    expect(inside.problems.some((p) => p.code === 'outsideTrim')).toBe(false);

    const shapes = await fixtureTree('agpsd-shapes-smart-objects.psd');
    const apple = findNode(shapes.tree, 'apple');
    // A placement reaching beyond the layer's own pixels (265,240 → 465,390): fill covers all of it.
    apple.smartObject!.corners = [265, 240, 520, 240, 520, 390, 265, 390];
    const img = { width: 1600, height: 1200, data: new Uint8ClampedArray(1600 * 1200 * 4) };
    const pic = context({ trim: { left: 10, top: 10, right: 490, bottom: 490 }, resolution: 72 }, { 'p.png': img });
    await buildOverrides(shapes.tree, { apple: { type: 'image', image: 'p.png', resizeMode: 'fill' } }, pic.ctx);
    expect(codes(pic.problems)).toEqual(['outsideTrim:error']);
  });

  it('emptyField: a <REQ> text layer left empty, a <REQ> picture layer without a picture', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    findNode(tree, POINT).name = `${POINT} <REQ>`;
    const empty = context();
    await buildOverrides(tree, { [POINT]: { type: 'text', text: '  ' } }, empty.ctx);
    expect(empty.problems).toEqual([{ layer: POINT, code: 'emptyField', severity: 'error', message: `${POINT} is required.`, details: { kind: 'text' } }]);
    const kept = context();
    await buildOverrides(tree, {}, kept.ctx);
    expect(kept.problems).toEqual([]); // the template's own text is there

    const shapes = await fixtureTree('agpsd-shapes-smart-objects.psd');
    findNode(shapes.tree, 'apple').name = 'apple<REQ>';
    const missing = context();
    await buildOverrides(shapes.tree, {}, missing.ctx);
    expect(codes(missing.problems)).toEqual(['emptyField:error']);
    expect(missing.problems[0].layer).toBe('apple');
    const hidden = context();
    await buildOverrides(shapes.tree, { apple: { visible: false } }, hidden.ctx);
    expect(hidden.problems).toEqual([]);
  });
});

describe('only what prints is checked', () => {
  it('a hidden text layer or picture reports nothing', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const { ctx, problems } = context({ canvas: { width: 400, height: 400 } });
    await buildOverrides(tree, { [POINT]: { type: 'text', text: LONG_NAME, visible: false } }, ctx);
    expect(problems).toEqual([]);
    const shapes = await fixtureTree('agpsd-shapes-smart-objects.psd');
    const img = { width: 4, height: 3, data: new Uint8ClampedArray(4 * 3 * 4) };
    const pic = context({ resolution: 300 }, { 'p.png': img });
    await buildOverrides(shapes.tree, { apple: { type: 'image', image: 'p.png', visible: false } }, pic.ctx);
    expect(pic.problems).toEqual([]);
  });
});

describe('layoutOnly', () => {
  it('draws nothing, returns no overrides and reports what a full render reports', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const shapes = await fixtureTree('agpsd-shapes-smart-objects.psd');
    const both: LayerNode[] = [...tree, ...shapes.tree.map((n) => ({ ...n, id: n.id + 1000 }))];
    const img = { width: 40, height: 30, data: new Uint8ClampedArray(40 * 30 * 4) };
    const data = { [POINT]: { type: 'text', text: LONG_NAME, fit: 'shrink', minSize: 12 }, apple: { type: 'image', image: 'p.png' } };
    const full = context({ canvas: { width: 400, height: 400 }, resolution: 300 }, { 'p.png': img });
    const drawn = await buildOverrides(both, data, full.ctx);
    expect(drawn.size).toBe(2);
    let decoded = 0;
    const only = context({ canvas: { width: 400, height: 400 }, resolution: 300, layoutOnly: true, imageSize: async () => ({ width: 40, height: 30 }) }, {});
    only.ctx.loadImage = async () => {
      decoded++;
      return img;
    };
    const none = await buildOverrides(both, data, only.ctx);
    expect(none.size).toBe(0);
    expect(decoded).toBe(0);
    expect(only.problems).toEqual(full.problems);
    expect(codes(only.problems)).toEqual(['fontSubstituted:warning', 'imageUpscaled:warning', 'lowResolution:error', 'textOverflow:error', 'textShrunk:warning']);

    // Without imageSize, the smallest decode that tells the picture's own size.
    const targets: Array<{ width: number; height: number }> = [];
    const sized = context({ canvas: { width: 400, height: 400 }, resolution: 300, layoutOnly: true }, {});
    sized.ctx.loadImage = async (_ref, target) => {
      targets.push(target);
      return { width: 1, height: 1, data: new Uint8ClampedArray(4), source: { width: 40, height: 30 } };
    };
    expect((await buildOverrides(both, data, sized.ctx)).size).toBe(0);
    expect(targets).toEqual([{ width: 1, height: 1 }]);
    expect(sized.problems).toEqual(full.problems);
    // A loader that does not tell its source size decodes at the placement's size.
    const plain = context({ canvas: { width: 400, height: 400 }, resolution: 300, layoutOnly: true }, { 'p.png': img });
    expect((await buildOverrides(both, data, plain.ctx)).size).toBe(0);
    expect(plain.problems).toEqual(full.problems);
  });
});

describe('the textShrunk message at print resolution', () => {
  it('says printed points: template pixels × 72 / ppi', () => {
    const set = { shownSize: 42.9, startSize: 64, overflow: '' } as Parameters<typeof textFitProblems>[3];
    const [shrunk] = textFitProblems('Name', 'Name', 'Jonathan', set, 300);
    expect(shrunk!.message).toBe('Name was shrunk to 10.3 pt to fit.');
    expect(shrunk!.details).toEqual({ size: 42.9, originalSize: 64, points: 10.3, originalPoints: 15.4 });
  });
});
