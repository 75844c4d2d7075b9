// The print-product card the preflight tests check (issue 21): one surface, the Name variable in
// a one-line box 80 pt wide at 16 pt, so "Ada" fits and a long name does not; `fit` as given
// (None: nothing shrinks, an overflow error; Shrink: down to 4 pt, a textShrunk warning).
import { expect } from 'vitest';
import { bundledFont } from '../../helpers/fixtures';
import { S, upload } from '../storage/helpers';

export const LONG_NAME = 'Jonathan Livingstone-Smith';

export const preflightCard = (fit: 'None' | 'Shrink' = 'None') => ({
  surfaces: [
    {
      id: 'front',
      name: 'Front',
      width: 252,
      height: 144,
      printAreas: [{ id: 'front-area', name: 'Front', bounds: { x: 0, y: 0, width: 252, height: 144 } }],
      containers: [
        {
          id: 'main',
          name: 'Main',
          items: [
            {
              id: 'name', type: 'Text', name: 'Name', isVariable: true, x: 10, y: 60, width: 80, height: 20, text: '', fit, minSize: 4,
              font: { postscriptName: 'LiberationSans-Bold', size: 16 }, color: '#000000',
            },
          ],
        },
      ],
    },
  ],
});

/** The card's fonts in tenant 1's font storage. */
export async function uploadCardFonts(): Promise<void> {
  for (const f of ['LiberationSans-Regular.ttf', 'LiberationSans-Bold.ttf']) {
    const res = await upload(`${S}/fonts`, await bundledFont(f), f, {}, { token: 1 });
    expect([201, 409]).toContain(res.status);
  }
}
