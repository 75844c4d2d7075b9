/**
 * A CMYK template's merged ink read by range, strip by strip (psd-ink.ts rangedPsdInk: a print
 * page no longer holds the whole file, issue 25 §1), is psdInk's over the file read whole: the same
 * ink and transparency rows, whatever the strips.
 */
import { expect, it } from 'vitest';
import { psdInk, rangedPsdInk } from '../../../src/engine/pdf/psd-ink';
import { bytesSource } from '../../../src/engine/psd/source';
import { madeFixture } from '../../helpers/fixtures';

const CMYK = ['made-cmyk8.psd', 'made-cmyk8-alpha.psd', 'made-cmyk8-icc.psd', 'made-cmyk16.psd', 'made-spot-cmyk8.psd', 'made-spot-cmyk16.psd', 'made-aa-cmyk-effects.psd', 'made-z-cmyk16-posterize.psd'];

it('gives psdInk’s rows and transparency over strips of 1, 7 and 64 rows, reading only those rows', async () => {
  let ranged = 0;
  for (const name of CMYK) {
    const bytes = await madeFixture(name);
    const whole = psdInk(bytes);
    const reads: number[] = [];
    const source = bytesSource(bytes);
    const counted = { size: source.size, read: (offset: number, length: number) => (reads.push(length), source.read(offset, length)) };
    const ink = await rangedPsdInk(counted);
    if (!whole) {
      expect(ink, name).toBeNull();
      continue;
    }
    if (!ink) continue; // ZIP planes: read whole, as before
    ranged++;
    expect([ink.width, ink.height, !!ink.alpha], name).toEqual([whole.width, whole.height, !!whole.alpha]);
    for (const rows of [1, 7, 64]) {
      for (let top = 0; top < whole.height; top += rows) {
        const bottom = Math.min(whole.height, top + rows);
        expect(await ink.rows(top, bottom), `${name} ${top}-${bottom}`).toEqual(whole.rows(top, bottom));
        if (whole.alpha) expect(await ink.alpha!(top, bottom), `${name} alpha ${top}-${bottom}`).toEqual(whole.alpha(top, bottom));
      }
    }
    // Never the file at once: its sections' lengths, the row counts, then each strip's rows.
    expect(Math.max(...reads), name).toBeLessThan(bytes.length / 2);
  }
  expect(ranged).toBeGreaterThanOrEqual(4);
});
