import { writePsdUint8Array, type Layer } from 'ag-psd';
import { describe, expect, it } from 'vitest';
import { parsePsd } from '../../../src/engine/psd/parse';
import { boundStrings, MAX_LAYER_NAME, MAX_STRING, MAX_TEXT } from '../../../src/engine/psd/strings';
import { refusalOf } from './kit';
import { psdFixture } from '../../helpers/fixtures';

/**
 * ag-psd builds a layer's Unicode name and every descriptor string a character at a time (~32 bytes
 * of cons strings a character until flattened: a 5 M-character name in a 10 MB file held ~160 MB
 * in Node, review27). psd/strings.ts bounds them on the bytes, before ag-psd reads them.
 */

const pixels = (w: number, h: number, seed = 1) => {
  const data = new Uint8ClampedArray(w * h * 4);
  let x = seed;
  for (let i = 0; i < data.length; i++) data[i] = (x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 24;
  return { width: w, height: h, data };
};
const psdOf = (children: Layer[]) => writePsdUint8Array({ width: 8, height: 8, children } as never, { generateThumbnail: false });
const textLayer = (name: string, text: string): Layer =>
  ({ name, text: { text, transform: [1, 0, 0, 1, 2, 6], style: { font: { name: 'ArialMT' }, fontSize: 6 } } }) as Layer;

const refusal = (bytes: Uint8Array) => refusalOf(() => parsePsd(bytes));

describe('strings ag-psd reads a character at a time are bounded before it reads them', () => {
  it(`layer names longer than Photoshop's 255 characters (other writers') are read; one of ${MAX_LAYER_NAME + 1} is refused with a 422 naming its length, and names count towards ${MAX_TEXT} characters in all`, () => {
    const ok = parsePsd(psdOf([{ name: 'n'.repeat(300), left: 0, top: 0, imageData: pixels(2, 2) }, { name: 'm'.repeat(MAX_LAYER_NAME), left: 0, top: 0, imageData: pixels(2, 2) }]));
    expect(ok.children!.map((l) => l.name!.length)).toEqual([300, MAX_LAYER_NAME]);
    const message = refusal(psdOf([{ name: 'bg', left: 0, top: 0, imageData: pixels(2, 2) }, { name: 'n'.repeat(MAX_LAYER_NAME + 1), left: 0, top: 0, imageData: pixels(2, 2) }]));
    expect(message).toBe(`Layer record 2 has a name of 100,001 characters; a layer name may have at most 100,000.`);
    const names = Array.from({ length: MAX_TEXT / MAX_LAYER_NAME + 1 }, (_, i): Layer => ({ name: String.fromCharCode(97 + i).repeat(MAX_LAYER_NAME), left: 0, top: 0, imageData: pixels(2, 2) }));
    expect(refusal(psdOf(names))).toContain(`more than ${MAX_TEXT.toLocaleString('en-US')} characters of text in all`);
  });

  it('a 5 M-character layer name (10 MB) is refused at once, without building the string', () => {
    const bytes = psdOf([{ name: 'x'.repeat(5_000_000), left: 0, top: 0, imageData: pixels(2, 2) }]);
    const t = performance.now();
    expect(refusal(bytes)).toContain('a name of 5,000,000 characters');
    expect(performance.now() - t).toBeLessThan(2_000); // a walk of the records (ag-psd took seconds and ~160 MB)
  });

  it(`a text of ${MAX_STRING} characters is read; one longer is refused, naming the layer's block`, () => {
    expect(boundStrings(psdOf([textLayer('long', 'a'.repeat(MAX_STRING))]))).toBeGreaterThanOrEqual(MAX_STRING);
    const message = refusal(psdOf([textLayer('too long', 'a'.repeat(MAX_STRING + 1))]));
    expect(message).toBe(`The template's layer data holds a string of 100,001 characters (at most 100,000) in layer record 1's 'TySh' block; a template may hold no more.`);
  });

  it(`texts of ${MAX_STRING} characters each are refused once they pass ${MAX_TEXT} characters in all`, () => {
    const layers = Array.from({ length: Math.ceil(MAX_TEXT / MAX_STRING) + 1 }, (_, i) => textLayer(`t${i}`, 'b'.repeat(MAX_STRING)));
    expect(refusal(psdOf(layers))).toContain(`more than ${MAX_TEXT.toLocaleString('en-US')} characters of text in all`);
  });

  it('a descriptor key whose length is negative (ag-psd reads to the end of the file) is refused', () => {
    // An effects block ('lfx2') before 800 KB of noise pixels: its first key's length set to −1.
    const bytes = psdOf([{ name: 'fx', left: 0, top: 0, imageData: pixels(8, 8), effects: { dropShadow: [{ enabled: true, size: { units: 'Pixels', value: 2 } }] } }]);
    const big = writePsdUint8Array(
      { width: 460, height: 460, children: [{ name: 'fx', left: 0, top: 0, imageData: pixels(8, 8), effects: { dropShadow: [{ enabled: true, size: { units: 'Pixels', value: 2 } }] } }, { name: 'noise', left: 0, top: 0, imageData: pixels(460, 460) }] } as never,
      { generateThumbnail: false },
    );
    for (const b of [bytes, big]) {
      const at = find(b, 'lfx2');
      // 'lfx2', length (4), version (4), descriptor version 16 (4), name (4 + 2n), class id (4 + 4), count (4): the first key.
      const name = new DataView(b.buffer, b.byteOffset).getUint32(at + 16);
      const key = at + 20 + 2 * name + 8 + 4;
      new DataView(b.buffer, b.byteOffset).setInt32(key, -1);
    }
    expect(refusal(big)).toMatch(/a string of [\d,]+ characters \(at most 100,000\) in layer record 1's 'lfx2' block/);
    // Small: the rest of the file is short (its cost too); ag-psd's read of the effects fails at
    // the file's end and the compile refuses the effects it could not read (compiled/unsupported.ts).
    expect(boundStrings(bytes)).toBeLessThan(MAX_STRING);
  });

  it('a 400 KB URL resource and a 200,000-character text note are not read at all (nothing of ours reads them): the file is read as before', () => {
    const note = { type: 'text', open: false, iconLocation: { left: 0, top: 0, right: 1, bottom: 1 }, popupLocation: { left: 0, top: 0, right: 4, bottom: 4 }, color: { r: 255, g: 255, b: 0 }, author: 'a', name: 'n', date: 'd', data: 'y'.repeat(200_000) };
    const bytes = writePsdUint8Array(
      { width: 8, height: 8, imageResources: { url: 'u'.repeat(400_000), globalAngle: 30 }, annotations: [note], children: [{ name: 'a', left: 0, top: 0, imageData: pixels(2, 2) }] } as never,
      { generateThumbnail: false },
    );
    const copy = bytes.slice();
    const t = performance.now();
    const doc = parsePsd(bytes);
    expect(performance.now() - t).toBeLessThan(2_000);
    expect(doc.imageResources?.url).toBeUndefined();
    expect(doc.annotations).toBeUndefined();
    expect(doc.imageResources?.globalAngle).toBe(30); // the resources we read are read
    expect(doc.children!.map((l) => l.name)).toEqual(['a']);
    expect(bytes).toEqual(copy); // the ids and keys shown to ag-psd are put back
  });

  it("the document's text engine data ('Txt2') is not read (text on a path is not drawn); each type layer's text is, from its own block", async () => {
    const bytes = await psdFixture('psdtools-text.psd');
    const copy = bytes.slice();
    const doc = parsePsd(bytes);
    expect(bytes).toEqual(copy);
    const texts = (doc.children ?? []).flatMap((l) => (l.text ? [l.text] : []));
    expect(texts.length).toBeGreaterThan(0);
    for (const t of texts) {
      expect(t.text.length).toBeGreaterThan(0);
      expect(t.textPath).toBeUndefined();
    }
  });

  it("a gradient map's name and a linked file's name are bounded like a descriptor's strings", () => {
    const map = (name: string) =>
      psdOf([{ name: 'map', adjustment: { type: 'gradient map', name, gradientType: 'solid', colorStops: [{ color: { r: 0, g: 0, b: 0 }, location: 0, midpoint: 0.5 }, { color: { r: 255, g: 255, b: 255 }, location: 1, midpoint: 0.5 }], opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }, { opacity: 1, location: 1, midpoint: 0.5 }] } } as Layer]);
    expect(boundStrings(map('g'.repeat(1_000)))).toBeGreaterThanOrEqual(1_000);
    expect(refusal(map('g'.repeat(MAX_STRING + 10)))).toContain(`in layer record 1's 'grdm' block`);
    const linked = (name: string) =>
      writePsdUint8Array({ width: 8, height: 8, linkedFiles: [{ id: '20953ddb-9391-11ec-b4f1-c15674f50bc4', name, data: new Uint8Array(16) }], children: [{ name: 'a', left: 0, top: 0, imageData: pixels(2, 2) }] } as never, { generateThumbnail: false });
    expect(boundStrings(linked('photo.png'))).toBeGreaterThanOrEqual(9);
    expect(refusal(linked('l'.repeat(MAX_STRING + 10)))).toContain(`in the document's 'lnk2' block`);
  });

  it('every fixture is under the bounds (the most Unicode text in one: under 2,000 characters)', async () => {
    for (const file of ['psdtools-layer-effects-all.psd', 'psdrb-example-design.psd', 'agpsd-text-bug-1920.psd', 'psapi-text-paragraph.psd', 'webtoon-mobile-ui-example.psd', 'agpsd-shapes-psb.psb']) {
      expect(boundStrings(await psdFixture(file))).toBeLessThan(2_000);
    }
  });
});

function find(bytes: Uint8Array, key: string): number {
  const k = [...key].map((c) => c.charCodeAt(0));
  for (let i = 0; i < bytes.length - 4; i++) if (k.every((c, j) => bytes[i + j] === c)) return i;
  throw new Error(`${key} not found`);
}
