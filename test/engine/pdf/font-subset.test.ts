import { describe, expect, it } from 'vitest';
import { findTable } from '../../../src/engine/fonts/font-info';
import { openEmbeddable, subsetTrueType } from '../../../src/engine/pdf/font-subset';
import { bundledFont } from '../../helpers/fixtures';

const withFsType = (font: Uint8Array, fsType: number) => {
  const copy = font.slice();
  const view = new DataView(copy.buffer);
  view.setUint16(findTable(view, 'OS/2')!.offset + 8, fsType);
  return copy;
};

describe('TrueType subsets for embedding', () => {
  it('embeds only what OS/2 fsType allows: not restricted, not bitmap-only, subsetting allowed', async () => {
    const font = await bundledFont('LiberationSans-Regular.ttf');
    expect(openEmbeddable(font)).not.toBeNull();
    expect(openEmbeddable(withFsType(font, 0x0004))).not.toBeNull(); // preview & print
    expect(openEmbeddable(withFsType(font, 0x0008))).not.toBeNull(); // editable
    expect(openEmbeddable(withFsType(font, 0x0002))).toBeNull(); // restricted licence
    expect(openEmbeddable(withFsType(font, 0x0100))).toBeNull(); // no subsetting
    expect(openEmbeddable(withFsType(font, 0x0200))).toBeNull(); // bitmap embedding only
  });

  it('keeps glyph ids and the used glyphs, empties the others, and is much smaller', async () => {
    const bytes = await bundledFont('LiberationSans-Regular.ttf');
    const font = openEmbeddable(bytes)!;
    const gids = [...'Hi'].map((c) => font.glyphOf(c.codePointAt(0)!));
    const subset = subsetTrueType(font, gids);
    expect(subset.length).toBeLessThan(bytes.length / 10);
    const view = new DataView(subset.buffer);
    for (const tag of ['head', 'hhea', 'maxp', 'hmtx', 'loca', 'glyf']) expect(findTable(view, tag), tag).not.toBeNull();
    const loca = findTable(view, 'loca')!.offset;
    const length = (g: number) => view.getUint32(loca + 4 * g + 4) - view.getUint32(loca + 4 * g);
    for (const g of gids) expect(length(g)).toBeGreaterThan(0);
    expect(length(font.glyphOf('Z'.codePointAt(0)!))).toBe(0);
    // The whole-font checksum is 0xB1B0AFBA once head.checkSumAdjustment is in place.
    let sum = 0;
    for (let i = 0; i < subset.length; i += 4) sum = (sum + view.getUint32(i)) >>> 0;
    expect(sum).toBe(0xb1b0afba);
  });
});
