import { describe, expect, it } from 'vitest';
import { madeFixture } from '../../helpers/fixtures';
import { imageResources, labToSrgb, psdLayout, readSpotChannels, spotRows } from '../../../src/engine/psd/spots';
import { psdInk } from '../../../src/engine/pdf/psd-ink';


/** test/fixtures/psd-made/make-spot.mjs's spot tints. */
function spotTint(s: number, x: number, y: number): number {
  if (s === 0) return y < 8 ? [255, 128, 64, 0][Math.floor(x / 10)] : y < 16 ? Math.min(255, x * 7) : 0;
  return y >= 12 && x >= 20 ? 200 : y >= 12 ? 30 : 0;
}

describe('PSD spot channels (issue 20 §2)', () => {
  it('reads names, inks, solidity and planes of a CMYK document (PackBits)', async () => {
    const psd = await madeFixture('made-spot-cmyk8.psd');
    const spots = readSpotChannels(psd);
    expect(spots.map((s) => [s.name, s.plane, s.solidity, s.ink.space])).toEqual([
      ['PANTONE 185 C', 4, 0, 'Cmyk'],
      ['Gloss Varnish (UV)#2', 5, 1, 'Lab'],
    ]);
    expect(spots[0].ink.values.map((v) => Math.round(v * 100))).toEqual([0, 91, 76, 0]);
    expect(spots[1].ink.values).toEqual([90, -5, 20]);
    const layout = psdLayout(psd)!;
    for (const [s, spot] of spots.entries()) {
      const rows = spotRows(layout, spot.plane);
      for (let y = 0; y < layout.height; y++) {
        const row = rows.next();
        expect([...row], `spot ${s} row ${y}`).toEqual(Array.from({ length: layout.width }, (_, x) => spotTint(s, x, y)));
      }
    }
    // The process planes stay the document's own ink, spots or not.
    const ink = psdInk(psd)!;
    expect([...ink.rows(0, 1).subarray(0, 8)]).toEqual([0, 0, 51, 255, 6, 0, 51, 255]);
  });

  it('reads an RGB document (raw) with a Lab ink at solidity 50', async () => {
    const psd = await madeFixture('made-spot-rgb8.psd');
    const [spot] = readSpotChannels(psd);
    expect(spot).toMatchObject({ name: 'Spot Blue', plane: 3, solidity: 0.5, ink: { space: 'Lab', values: [40, 10, -60] } });
    const rows = spotRows(psdLayout(psd)!, spot.plane);
    expect([...rows.next()].slice(0, 12)).toEqual(Array.from({ length: 12 }, (_, x) => spotTint(0, x, 0)));
  });

  it('reads 16-bit spot channels narrowed to 8 bits', async () => {
    const psd = await madeFixture('made-spot-cmyk16.psd');
    const [spot] = readSpotChannels(psd);
    expect(spot).toMatchObject({ name: 'PANTONE 185 C', plane: 4 });
    const layout = psdLayout(psd)!;
    const rows = spotRows(layout, spot.plane);
    for (let y = 0; y < layout.height; y++) expect([...rows.next()]).toEqual(Array.from({ length: layout.width }, (_, x) => spotTint(0, x, y)));
    expect([...psdInk(psd)!.rows(0, 1).subarray(0, 8)]).toEqual([0, 0, 51, 255, 6, 0, 51, 255]);
  });

  it('finds none in documents without spot channels', async () => {
    expect(readSpotChannels(await madeFixture('made-cmyk8.psd'))).toEqual([]);
    expect(readSpotChannels(new Uint8Array(10))).toEqual([]);
  });

  it('shows Lab inks in sRGB', () => {
    expect(labToSrgb([100, 0, 0])).toEqual([255, 255, 255]);
    expect(labToSrgb([0, 0, 0])).toEqual([0, 0, 0]);
    // Lab D50 (53.24, 80.09, 67.2) is about sRGB red; D50-adapted red is L 54.29 a 80.8 b 69.9.
    const red = labToSrgb([54.29, 80.8, 69.89]);
    expect(red[0]).toBeGreaterThan(250);
    expect(red[1]).toBeLessThan(10);
    expect(red[2]).toBeLessThan(10);
  });
});

describe('imageResources on damaged sections (session 19 fuzz)', () => {
  it('stops at a resource whose name length runs past the section, where it read past its end', () => {
    // '8BIM', id 1039, a name of 200 bytes in a section of 14: the size field would lie past the end.
    const section = new Uint8Array([0x38, 0x42, 0x49, 0x4d, 0x04, 0x0f, 200, 0, 0, 0, 0, 0, 0, 0]);
    expect(imageResources(section).size).toBe(0);
  });
});
