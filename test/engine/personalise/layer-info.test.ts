import { describe, expect, it } from 'vitest';
import { findNode, fixtureTree } from './helpers';

describe('textInfoFromLayer', () => {
  it('point text: first run style, auto leading 120 %, transform, no box', async () => {
    const { tree } = await fixtureTree('psdtools-text.psd');
    const info = findNode(tree, 'Line 1 Line 2 Line 3 and text').text!;
    expect(info).toMatchObject({ font: 'ArialMT', size: 13, color: '#000000', tracking: 0, alignment: 'left', transform: [1, 0, 0, 1, 83.8125, 119.72265625], warped: false });
    expect(info.leading).toBeCloseTo(15.6, 5);
    expect(info.box).toBeUndefined();
  });

  it('box text: box bounds in text space, justification, tracking and justify-all', async () => {
    const { tree } = await fixtureTree('psapi-text-paragraph.psd');
    const main = findNode(tree, 'ParagraphMain').text!;
    expect(main).toMatchObject({ size: 24, tracking: 65, alignment: 'justify', box: { left: 0, top: 0, right: 260, bottom: 180 }, color: '#f5f5f5' });
    expect(main.paragraph?.justifyLast).toBe(true);
    const secondary = findNode(tree, 'ParagraphSecondary').text!;
    expect(secondary).toMatchObject({ alignment: 'right', color: '#ffd60a', box: { left: 0, top: 0, right: 96, bottom: 160 } });
  });

  it("the anti-aliasing method, and a justified paragraph's last-line place", async () => {
    const { tree } = await fixtureTree('psapi-text-paragraph.psd');
    expect(findNode(tree, 'ParagraphMain').text!.antiAlias).toBe('crisp');
    expect(findNode(tree, 'ParagraphMain').text!.paragraph?.lastLine).toBeUndefined(); // justify all
    const point = await fixtureTree('psdtools-text.psd');
    expect(findNode(point.tree, 'Line 1 Line 2 Line 3 and text').text!.antiAlias).toBe('smooth');
  });

  it('multi-style layers keep their runs', async () => {
    const { tree } = await fixtureTree('psapi-text-character-styles.psd');
    const info = findNode(tree, 'CharacterStylePrimary').text!;
    expect(info.font).toBe('Arial-BoldItalicMT');
    if (info.runs) expect(info.runs.reduce((n, r) => n + r.length, 0)).toBeGreaterThanOrEqual(info.text.length);
  });
});

describe('placementFromLayer', () => {
  it('reads the four corners and the embedded size', async () => {
    const { tree } = await fixtureTree('agpsd-shapes-smart-objects.psd');
    expect(findNode(tree, 'apple').smartObject).toEqual({ corners: [265, 240, 465, 240, 465, 390, 265, 390], width: 480, height: 360 });
    const { tree: placed } = await fixtureTree('psdtools-smart-objects-placed.psd');
    expect(findNode(placed, 'linked-psd').smartObject).toEqual({ corners: [27, 73, 229, 73, 229, 183, 27, 183], width: 101, height: 55 });
  });
});
