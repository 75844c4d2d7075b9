import { describe, expect, it } from 'vitest';
import { boundStrings } from '../../../src/engine/psd/strings';
import { refusalOf } from './kit';
import { psdFixture, psdManifest } from '../../helpers/fixtures';

/**
 * review (session 28): a layer record of `n` tagged blocks of a key ag-psd skips, each holding a
 * descriptor whose one item is raw data ('tdta') that spans the next block's header and
 * descriptor start, landing on its item: a walk begun at any block goes on to the last one.
 */
export function chainedBlocks(n: number): Uint8Array {
  const block = 12 + 36;
  const bytes = new Uint8Array(26 + 4 + 4 + 4 + 4 + 2 + 18 + 4 + 4 + 4 + 4 + 4 + n * block + 4 + 2 + 64);
  const view = new DataView(bytes.buffer);
  let at = 0;
  const u8 = (v: number) => void (bytes[at++] = v);
  const u16 = (v: number) => (view.setUint16(at, v), (at += 2));
  const u32 = (v: number) => (view.setUint32(at, v >>> 0), (at += 4));
  const ascii = (s: string) => [...s].forEach((c) => u8(c.charCodeAt(0)));
  ascii('8BPS'); u16(1); at += 6; u16(3); u32(1); u32(1); u16(8); u16(3);
  u32(0); // colour mode data
  u32(0); // image resources
  const section = at; u32(0);
  const info = at; u32(0);
  u16(1); // one layer
  u32(0); u32(0); u32(1); u32(1); // rectangle
  u16(0); // no channels
  ascii('8BIMnorm'); u8(255); u8(0); u8(0); u8(0);
  const extra = at; u32(0);
  u32(0); u32(0); // mask data, blending ranges
  u8(3); ascii('abc'); // name, padded to 4
  for (let i = 0; i < n; i++) {
    ascii('8BIM'); ascii('zzzz'); u32(36);
    u32(16); // descriptor version
    u32(0); u32(0); ascii('null'); // class name, class id
    u32(0xffffffff); // items
    u32(0); ascii('keyy'); ascii('tdta'); u32(12 + 20); // raw data over the next block's header and start
  }
  view.setUint32(extra, at - extra - 4);
  if ((at - info) % 2) u8(0);
  view.setUint32(info, at - info - 4);
  u32(0); // global layer mask info
  view.setUint32(section, at - section - 4);
  u16(0); ascii('\0\0\0'); // merged image, raw
  return bytes.slice(0, at);
}

const refusal = (bytes: Uint8Array) => refusalOf(() => boundStrings(bytes));

describe('boundStrings walks each byte of a template a bounded number of times', () => {
  it('a few chained blocks are walked; 200,000 (9.6 MB) are refused in well under a second, not walked for minutes', () => {
    expect(boundStrings(chainedBlocks(50))).toBe(0);
    const bytes = chainedBlocks(200_000);
    const t = performance.now();
    expect(refusal(bytes)).toBe(
      "The template's layer data holds descriptors that run over one another, past their blocks in layer record 1's 'zzzz' block; a template may hold no more.",
    );
    expect(performance.now() - t).toBeLessThan(1_000); // 8,000 such blocks took 2.5 s, 2,000 0.16 s: the square of the file
  });
});

describe('the walk budget leaves real templates alone', () => {
  it('every public template of the repository is walked in fewer bytes than it holds', async () => {
    const files = await psdManifest();
    for (const { name } of files) {
      const bytes = await psdFixture(name);
      expect(() => boundStrings(bytes, Infinity, bytes.length), name).not.toThrow();
    }
    expect(files.length).toBeGreaterThanOrEqual(30);
  });
});
