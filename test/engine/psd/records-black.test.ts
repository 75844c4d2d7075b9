import { writePsdBuffer, type Psd } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { parsePsd } from '../../../src/engine/psd/parse';
import { readLayerRecords } from '../../../src/engine/psd/records';
import { buildTree } from '../../../src/engine/psd/tree';

/**
 * Levels' and Curves' fifth channel record (K in a CMYK document), which ag-psd does not read:
 * psd-tools applies it to K and holds its levels_cmyk / curves_cmyk documents to Photoshop's
 * renders. The bytes are ag-psd's, edited where ag-psd cannot write (K's level record, bit 4).
 */
describe("layer records: Levels' and Curves' K record", () => {
  const id = { shadowInput: 0, highlightInput: 255, shadowOutput: 0, highlightOutput: 255, midtoneInput: 1 };
  const curve = (pts: number[][]) => pts.map(([input, output]) => ({ input, output }));
  const doc = {
    width: 4,
    height: 4,
    children: [
      { name: 'L', adjustment: { type: 'levels', rgb: id, red: { ...id, shadowInput: 10 }, green: id, blue: id } },
      { name: 'C', adjustment: { type: 'curves', rgb: curve([[0, 0], [255, 255]]), red: curve([[0, 0], [128, 100], [255, 255]]) } },
    ],
  } as unknown as Psd;

  function bytesWithK(): Uint8Array {
    const bytes = new Uint8Array(writePsdBuffer(doc, { generateThumbnail: false }));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const find = (sig: string) => {
      outer: for (let i = 0; i + 8 <= bytes.length; i++) {
        for (let k = 0; k < 8; k++) if (bytes[i + k] !== sig.charCodeAt(k)) continue outer;
        return i;
      }
      throw new Error(sig);
    };
    // 'levl': version, then five int16 per record; the fifth record (K) after 4 × 10 bytes.
    const levl = find('8BIMlevl') + 12;
    [20, 230, 5, 250, 150].forEach((v, i) => view.setInt16(levl + 2 + 40 + i * 2, v));
    // 'curv': the second curve ag-psd wrote (red's, bit 1) becomes K's (bit 4).
    const curv = find('8BIMcurv') + 12;
    view.setUint32(curv + 3, 0b10001);
    return bytes;
  }

  it('reads the fifth Levels record and the bit-4 curve, and the tree keeps them as `black`', () => {
    const bytes = bytesWithK();
    const records = readLayerRecords(bytes);
    expect(records[0]?.blackLevels).toEqual({ shadowInput: 20, highlightInput: 230, shadowOutput: 5, highlightOutput: 250, midtoneInput: 1.5 });
    expect(records[1]?.blackCurve).toEqual(curve([[0, 0], [128, 100], [255, 255]]));
    const tree = buildTree(parsePsd(bytes), undefined, 72, records);
    const byName = (n: string) => tree.find((node) => node.name === n)!.adjustment as unknown as { black?: unknown };
    expect(byName('L').black).toEqual(records[0]!.blackLevels);
    expect(byName('C').black).toEqual(records[1]!.blackCurve);
  });

  it('keeps nothing for an identity K record (the usual case: trees unchanged)', () => {
    const records = readLayerRecords(new Uint8Array(writePsdBuffer(doc, { generateThumbnail: false })));
    expect(records[0]?.blackLevels).toBeUndefined();
    expect(records[1]?.blackCurve).toBeUndefined();
  });
});
