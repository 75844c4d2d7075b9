import { describe, expect, it } from 'vitest';
import { fontMetrics } from '../../../src/engine/fonts/metrics';
import { layoutText, measure, type LayoutStyle } from '../../../src/engine/personalise/text-layout';
import { bundledFont } from '../fonts/helpers';
import { findNode, fixtureTree } from './helpers';

/**
 * The options of Photoshop's text layout (docs/fonts.md, "Photoshop's text layout"); each
 * defaults to the layout print products have always had.
 */
const liberation = async () => fontMetrics(await bundledFont('LiberationSans-Regular.ttf'));
const style = (extra: Partial<LayoutStyle> = {}): LayoutStyle => ({ size: 24, leading: 28.8, tracking: 0, alignment: 'left', ...extra });
const box = { left: 0, top: 0, right: 260, bottom: 500 };

describe("Photoshop's text layout options", () => {
  it("firstBaseline 'lowercase' hangs box text's first baseline at the top of 'd' below the box top", async () => {
    const m = await liberation();
    const [ascender] = layoutText('Hamburg', m, style({ box }));
    const [lowercase] = layoutText('Hamburg', m, style({ box, firstBaseline: 'lowercase' }));
    expect(ascender.y).toBeCloseTo(m.ascender * 24, 9);
    expect(lowercase.y).toBeCloseTo(m.lowercaseAscent! * 24, 9);
    // Point text starts at its origin either way.
    expect(layoutText('Hamburg', m, style({ firstBaseline: 'lowercase' }))[0].y).toBe(0);
  });

  it('pixelRows puts every baseline on a whole document pixel, the nearest', async () => {
    const m = await liberation();
    const rows = { origin: 36, scale: 1 };
    const lines = layoutText('one two three four five six seven eight nine ten eleven twelve', m, style({ box, firstBaseline: 'lowercase', pixelRows: rows }));
    const exact = layoutText('one two three four five six seven eight nine ten eleven twelve', m, style({ box, firstBaseline: 'lowercase' }));
    expect(lines.length).toBeGreaterThan(2);
    lines.forEach((line, i) => {
      expect(Number.isInteger(Math.round((36 + line.y) * 1e9) / 1e9)).toBe(true);
      expect(Math.abs(line.y - exact[i].y)).toBeLessThanOrEqual(0.5);
    });
    // Point text: the origin's own fraction goes (ty 119.723 draws the first baseline on row 120).
    const [point] = layoutText('Line 1', m, style({ pixelRows: { origin: 119.723, scale: 1 } }));
    expect(point.y).toBeCloseTo(0.277, 9);
    // A scaled transform: whole pixels of the document, not of the text's own space.
    const [scaled] = layoutText('Line 1\nLine 2', m, style({ pixelRows: { origin: 10.25, scale: 2 } })).slice(1);
    expect(10.25 + 2 * scaled.y).toBeCloseTo(Math.round(10.25 + 2 * 28.8), 9);
  });

  it("lineEndTracking 'none' ends centred and right-aligned lines at the last glyph's advance, as Photoshop", async () => {
    const m = await liberation();
    const tracked = style({ tracking: 20, size: 18, leading: 21.6 });
    const trailing = (20 / 1000) * 18;
    const right = { ...tracked, alignment: 'right' as const, box: { left: 0, top: 0, right: 96, bottom: 160 } };
    expect(layoutText('box with', m, right)[0].x).toBeCloseTo(96 + trailing, 9);
    expect(layoutText('box with', m, { ...right, lineEndTracking: 'none' })[0].x).toBe(96);
    const centre = { ...tracked, alignment: 'center' as const };
    expect(layoutText('box with', m, centre)[0].x).toBeCloseTo(trailing / 2, 9);
    expect(layoutText('box with', m, { ...centre, lineEndTracking: 'none' })[0].x).toBe(0);
    // Left text and the measured width do not change.
    expect(layoutText('box with', m, { ...tracked, lineEndTracking: 'none' })[0].x).toBe(0);
    expect(layoutText('box with', m, { ...right, lineEndTracking: 'none' })[0].width).toBe(measure('box with', m, tracked));
  });

  it("a justified paragraph's last line sits where paragraph.lastLine says (Justify Last Centered, Right)", async () => {
    const m = await liberation();
    const text = 'aa bb cc dd ee ff gg hh ii jj kk';
    const paragraph = { startIndent: 0, endIndent: 0, firstLineIndent: 0, spaceBefore: 0, spaceAfter: 0, justifyLast: false };
    const narrow = { left: 0, top: 0, right: 100, bottom: 500 };
    for (const [lastLine, anchor, x] of [[undefined, 'start', 0], ['center', 'middle', 50], ['right', 'end', 100]] as const) {
      const lines = layoutText(text, m, style({ alignment: 'justify', box: narrow, paragraph: { ...paragraph, lastLine } }));
      const last = lines[lines.length - 1];
      expect([last.anchor, last.x, last.wordSpacing]).toEqual([anchor, x, 0]);
      // The other lines are justified as before.
      expect(lines[0].anchor).toBe('start');
      expect(lines[0].wordSpacing).toBeGreaterThan(0);
    }
    // Justify All justifies the last line whatever lastLine says.
    const all = layoutText(text, m, style({ alignment: 'justify', box: narrow, paragraph: { ...paragraph, justifyLast: true, lastLine: 'right' } }));
    expect(all[all.length - 1].anchor).toBe('start');
    // Point text: every line ends its paragraph.
    const point = layoutText('aa bb\ncc', m, style({ alignment: 'justify', paragraph: { ...paragraph, lastLine: 'right' } }));
    expect(point.map((l) => [l.anchor, l.x])).toEqual([['end', 0], ['end', 0]]);
  });
});

/** Rows (canvas y) where the ink of a layer's lines drops most: each line's baseline, as Photoshop drew it. */
function baselineRow(image: { width: number; height: number; data: Uint8ClampedArray }, top: number, near: number): number {
  const row = (y: number) => {
    let sum = 0;
    if (y - top < 0 || y - top >= image.height) return 0;
    for (let x = 0; x < image.width; x++) sum += image.data[((y - top) * image.width + x) * 4 + 3];
    return sum;
  };
  let best = near;
  for (let y = Math.round(near) - 2, drop = -Infinity; y <= Math.round(near) + 2; y++) {
    if (row(y - 1) - row(y) > drop) [drop, best] = [row(y - 1) - row(y), y];
  }
  return best;
}

describe("Photoshop's baselines (its own pixels: psapi's Crisp box texts in Arial)", () => {
  it("first baseline at the top of Arial's 'd' below the box top, every baseline on the nearest whole row", async () => {
    // Arial's 'd' reaches 1466 of 2048 units (Liberation Sans' 1484): the font Photoshop drew with.
    const arial = { ...(await liberation()), lowercaseAscent: 1466 / 2048 };
    const cases: Array<[string, string]> = [
      ['psapi-text-paragraph.psd', 'ParagraphMain'],
      ['psapi-text-paragraph.psd', 'ParagraphSecondary'],
      ['psapi-text-character-styles.psd', 'CharacterStyleSecondary'],
    ];
    let lines = 0;
    for (const [file, name] of cases) {
      const { tree, layers } = await fixtureTree(file);
      const node = findNode(tree, name);
      const info = node.text!;
      const layer = layers.get(node.id)!;
      const ty = info.transform![5];
      const set = (extra: Partial<LayoutStyle>) =>
        layoutText(info.text, arial, { size: info.size, leading: info.leading!, tracking: info.tracking!, alignment: info.alignment!, box: info.box, paragraph: info.paragraph, ...extra });
      const photoshop = set({ firstBaseline: 'lowercase', pixelRows: { origin: ty, scale: 1 } });
      const image = layer.imageData as unknown as { width: number; height: number; data: Uint8ClampedArray };
      for (const line of photoshop) {
        expect(ty + line.y, `${name} "${line.text}"`).toBe(baselineRow(image, layer.top!, ty + line.y));
        lines++;
      }
    }
    expect(lines).toBe(12);
  });
});
