import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { colourTransformSync, defaultProfile } from '../../../src/engine/colour';
import { normaliseColors } from '../../../src/engine/psd/color-modes';
import gracol from './fixtures/gracol-tr006-test.icc';

/**
 * Previews of CMYK templates (issue 20 §3): CMYK → sRGB through the document's embedded profile,
 * else the default CMYK profile, relative colorimetric with black-point compensation.
 */

const embedded = new Uint8Array(gracol);

/** Ink (0 = none) of the test colours: paper, 100 % K, a rich black, C, M, Y, and a mix. */
const INKS = [
  [0, 0, 0, 0],
  [0, 0, 0, 255],
  [191, 166, 166, 255],
  [255, 0, 0, 0],
  [0, 255, 0, 0],
  [0, 0, 255, 0],
  [26, 102, 204, 13],
];

/** A flat 8-bit CMYK PSD, one pixel a colour, with `icc` as image resource 1039 when given. */
function cmykPsd(inks: number[][], icc?: Uint8Array): Uint8Array {
  const width = inks.length;
  const parts: number[] = [];
  const u16 = (v: number) => parts.push(v >> 8, v & 255);
  const u32 = (v: number) => parts.push(v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255);
  parts.push(...Array.from('8BPS', (c) => c.charCodeAt(0)));
  u16(1);
  parts.push(0, 0, 0, 0, 0, 0);
  u16(4); // channels
  u32(1); // height
  u32(width);
  u16(8);
  u16(4); // CMYK
  u32(0); // colour mode data
  if (icc) {
    const padded = icc.length + (icc.length & 1);
    u32(4 + 2 + 2 + 4 + padded);
    parts.push(...Array.from('8BIM', (c) => c.charCodeAt(0)));
    u16(1039);
    u16(0); // empty name, padded
    u32(icc.length);
    parts.push(...icc);
    if (icc.length & 1) parts.push(0);
  } else u32(0);
  u32(0); // no layers
  u16(0); // raw
  for (let c = 0; c < 4; c++) for (const ink of inks) parts.push(255 - ink[c]); // stored inverted
  return new Uint8Array(parts);
}

async function preview(bytes: Uint8Array): Promise<number[][]> {
  const compiled = await compileTemplate(env.FILES, bytes);
  const image = await renderTemplate(env.FILES, compiled, { scale: 1 });
  const stored = await loadStoredComposite(env.FILES, compiled);
  const px = (data: ArrayLike<number>) => INKS.map((_, i) => [data[i * 4], data[i * 4 + 1], data[i * 4 + 2]]);
  expect(px(stored!)).toEqual(px(image.data)); // the merged image and the layer render agree
  return px(image.data);
}

function expected(profile: Uint8Array): number[][] {
  const t = colourTransformSync({ from: profile, to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' });
  const out = new Uint8Array(INKS.length * 3);
  t.apply(new Uint8Array(INKS.flat()), out, INKS.length);
  return INKS.map((_, i) => Array.from(out.subarray(i * 3, i * 3 + 3)));
}

describe('CMYK template previews', () => {
  it('convert through the default CMYK profile when the document embeds none', async () => {
    const rgb = await preview(cmykPsd(INKS));
    expect(rgb).toEqual(expected(defaultProfile('Cmyk')));
    expect(rgb[0]).toEqual([255, 255, 255]); // paper is white (relative colorimetric)
    // 100 % K is not sRGB black on paper (the (1−C)(1−K) formula said 0, 0, 0) …
    expect(Math.min(...rgb[1])).toBeGreaterThan(20);
    // … and a rich black is darker than K alone.
    expect(rgb[2][1]).toBeLessThan(rgb[1][1]);
  });

  it('convert through the embedded profile when there is one', async () => {
    const rgb = await preview(cmykPsd(INKS, embedded));
    expect(rgb).toEqual(expected(embedded));
    expect(rgb).not.toEqual(expected(defaultProfile('Cmyk')));
  });

  it('fall back to the default profile when the embedded one is not a CMYK profile', async () => {
    const rgb = await preview(cmykPsd(INKS, defaultProfile('Rgb')));
    expect(rgb).toEqual(expected(defaultProfile('Cmyk')));
  });

  it('convert layer colours (effects, text) through the same profile as the pixels', () => {
    const layers = [{ name: 'a', effects: { solidFill: [{ color: { c: 10.2, m: 40, y: 80, k: 5.1 } }] }, rawData: {} }];
    normaliseColors(layers as never, embedded);
    const color = (layers[0].effects.solidFill[0] as unknown as { color: { r: number; g: number; b: number } }).color;
    const want = colourTransformSync({ from: embedded, to: defaultProfile('Rgb'), fromLayout: 'CMYK', toLayout: 'RGB' });
    const out = new Uint8Array(3);
    want.apply(new Uint8Array([26, 102, 204, 13]), out, 1);
    expect([color.r, color.g, color.b]).toEqual(Array.from(out));
    expect((layers[0].rawData as { iccProfile?: Uint8Array }).iccProfile).toBe(embedded);
  });
});
