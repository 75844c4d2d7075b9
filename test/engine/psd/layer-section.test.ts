import { readPsd, writePsdUint8Array } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { parameterMaskBlocks, readWithParameterMasks, strayGroupEnds } from '../../../src/engine/psd/layer-section';
import { parsePsd } from '../../../src/engine/psd/parse';
import { MASKED_WIDTH, maskedRow } from './kit';

/**
 * A mask block holds the 18-byte real user mask header only when the layer stores a real user
 * mask channel (-3). Without one, a pixel mask and a vector mask with a feather and a density
 * make a block of 36 bytes or more whose parameters follow the flags at once (psd-tools #693, PR
 * #704: 4 of the 16 parameter patterns, 0b1010, 0b1011, 0b1110 at 36 bytes and 0b1111 at 40;
 * psd-tools' mask-parameters-no-real-channel.psd is 0b1110: pixel feather 3, vector density 191,
 * vector feather 6). ag-psd writes that layout and, reading by length alone, cannot read it back.
 */
const W = MASKED_WIDTH;
const white = { width: W, height: 1, data: new Uint8ClampedArray(W * 4).fill(255) };
const read = (bytes: Uint8Array) => () => readPsd(bytes, { useRawData: true, useImageData: true, skipThumbnail: true });

describe('mask parameters with no real mask header (psd-tools #693)', () => {
  const cases: [string, object][] = [
    ['0b1110 (36 bytes, mask-parameters-no-real-channel.psd)', { userMaskFeather: 3, vectorMaskDensity: 191 / 255, vectorMaskFeather: 6 }],
    ['0b1011 (36 bytes)', { userMaskDensity: 128 / 255, userMaskFeather: 1.5, vectorMaskFeather: 2 }],
    ['0b1010 (35 bytes, padded to 36)', { userMaskFeather: 3.5, vectorMaskFeather: 7.25 }],
    ['0b1111 (37 bytes)', { userMaskDensity: 200 / 255, userMaskFeather: 3.5, vectorMaskDensity: 100 / 255, vectorMaskFeather: 7.25 }],
  ];
  for (const [name, params] of cases) {
    it(`${name}: the parameters are the mask's, no real mask is made up, the bytes are left as they were`, () => {
      const bytes = maskedRow(params);
      const before = bytes.slice();
      const blocks = parameterMaskBlocks(bytes);
      expect([...blocks.keys()]).toEqual([1]);
      const psd = readWithParameterMasks(bytes, read(bytes));
      expect(bytes).toEqual(before);
      const layer = psd.children![1];
      expect(layer.realMask).toBeUndefined();
      for (const [k, v] of Object.entries(params)) expect((layer.mask as Record<string, number>)[k]).toBeCloseTo(v as number, 9);
      expect(layer.mask).toMatchObject({ left: 0, top: 0, right: W, bottom: 1, defaultColor: 255 });
    });
  }

  it("0b1110 is refused by ag-psd's own reading: the parameters read as an inverted rectangle", () => {
    expect(read(maskedRow(cases[0][1]))).toThrow(/Invalid realMask size/);
  });

  it('a block with a real mask header (a -3 channel) is left to ag-psd', () => {
    const bytes = maskedRow(cases[0][1], { realMask: { left: 0, top: 0, right: W, bottom: 1, defaultColor: 0, imageData: white } });
    expect(parameterMaskBlocks(bytes).size).toBe(0);
    const layer = readPsd(bytes, { useRawData: true, useImageData: true }).children![1];
    expect(layer.realMask).toMatchObject({ right: W, bottom: 1 });
    expect(layer.mask?.vectorMaskFeather).toBe(6);
  });
});

describe('a group end that closes no group', () => {
  const px = (v: number) => ({ width: 2, height: 2, data: new Uint8ClampedArray(16).fill(v) });
  // ag-psd writes a plain layer's section divider as given: here a bounding divider (type 3) with no group open.
  const end = (name: string) => ({ name, sectionDivider: { type: 3 } }) as never;
  const write = (children: object[]) => writePsdUint8Array({ width: 4, height: 4, children } as never, { generateThumbnail: false });

  it("made ag-psd fail with a TypeError; it is read as nothing: the layers around it keep their places, the bytes are put back", () => {
    const bytes = write([{ name: 'bottom', left: 0, top: 0, imageData: px(10) }, end('</Layer group>'), { name: 'group', children: [{ name: 'inside', left: 0, top: 0, imageData: px(20) }] }, end('</Layer group>'), { name: 'top', left: 0, top: 0, imageData: px(30) }]);
    expect(read(bytes)).toThrow(/Cannot read properties of undefined/);
    expect(strayGroupEnds(bytes).map((s) => s.index)).toEqual([5, 1]); // file order: bottom, stray, group end, inside, group, stray, top
    const before = bytes.slice();
    const psd = parsePsd(bytes);
    expect(bytes).toEqual(before);
    expect(psd.children!.map((l) => l.name)).toEqual(['bottom', 'group', 'top']);
    expect(psd.children![1].children!.map((l) => l.name)).toEqual(['inside']);
  });

  it('balanced groups give none', () => {
    const bytes = write([{ name: 'a', children: [{ name: 'b', children: [{ name: 'c', left: 0, top: 0, imageData: px(5) }] }] }, { name: 'd', left: 0, top: 0, imageData: px(6) }]);
    expect(strayGroupEnds(bytes)).toEqual([]);
  });
});
