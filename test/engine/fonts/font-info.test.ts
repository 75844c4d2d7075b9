import { describe, expect, it } from 'vitest';
import { readFontInfo } from '../../../src/engine/fonts/font-info';
import { ApiError } from '../../../src/errors';
import { toApiError } from '../../../src/dynamic-image/errors';
import { bundledFont } from './helpers';

describe('readFontInfo', () => {
  it('reads family, style, full name and PostScript name from the name table', async () => {
    expect(readFontInfo(await bundledFont('LiberationSans-BoldItalic.ttf'))).toEqual({
      fullName: 'Liberation Sans Bold Italic',
      style: 'Bold Italic',
      family: 'Liberation Sans',
      postscriptName: 'LiberationSans-BoldItalic',
    });
    expect(readFontInfo(await bundledFont('DejaVuSans.ttf'))).toEqual({
      fullName: 'DejaVu Sans',
      style: 'Book',
      family: 'DejaVu Sans',
      postscriptName: 'DejaVuSans',
    });
  });

  it('prefers the typographic family and subfamily (IDs 16/17) when present', () => {
    const font = buildFont([
      [3, 1, 0x409, 1, 'Family Light'],
      [3, 1, 0x409, 2, 'Regular'],
      [3, 1, 0x409, 4, 'Family Light'],
      [3, 1, 0x409, 6, 'Family-Light'],
      [3, 1, 0x409, 16, 'Family'],
      [3, 1, 0x409, 17, 'Light'],
    ]);
    expect(readFontInfo(font)).toEqual({ fullName: 'Family Light', style: 'Light', family: 'Family', postscriptName: 'Family-Light' });
  });

  it('falls back to Mac Roman names when there are no Windows Unicode ones', () => {
    const font = buildFont([
      [1, 0, 0, 1, 'Caf\u00e9'],
      [1, 0, 0, 2, 'Bold'],
      [1, 0, 0, 6, 'Cafe-Bold'],
    ]);
    expect(readFontInfo(font)).toEqual({ fullName: 'Café Bold', style: 'Bold', family: 'Café', postscriptName: 'Cafe-Bold' });
  });

  it('refuses a file that is not a TrueType or OpenType font with a 422', () => {
    const err = (() => {
      try {
        readFontInfo(new TextEncoder().encode('this is not a font at all'));
      } catch (e) {
        return toApiError(e);
      }
    })();
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(422);
  });
});

/** A minimal sfnt with only a name table: [platform, encoding, language, nameId, value]. */
function buildFont(records: Array<[number, number, number, number, string]>): Uint8Array {
  const encoded = records.map(([platform, , , , value]) =>
    platform === 1
      ? Uint8Array.from([...value].map((c) => (c === '\u00e9' ? 0x8e : c.charCodeAt(0))))
      : Uint8Array.from([...value].flatMap((c) => [c.charCodeAt(0) >> 8, c.charCodeAt(0) & 0xff])),
  );
  const storageSize = encoded.reduce((n, e) => n + e.length, 0);
  const nameOffset = 12 + 16;
  const nameLength = 6 + records.length * 12 + storageSize;
  const out = new Uint8Array(nameOffset + nameLength);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x00010000);
  v.setUint16(4, 1);
  out.set([...'name'].map((c) => c.charCodeAt(0)), 12);
  v.setUint32(12 + 8, nameOffset);
  v.setUint32(12 + 12, nameLength);
  v.setUint16(nameOffset + 2, records.length);
  v.setUint16(nameOffset + 4, 6 + records.length * 12);
  let at = 0;
  records.forEach(([platform, encoding, language, nameId], i) => {
    const rec = nameOffset + 6 + i * 12;
    v.setUint16(rec, platform);
    v.setUint16(rec + 2, encoding);
    v.setUint16(rec + 4, language);
    v.setUint16(rec + 6, nameId);
    v.setUint16(rec + 8, encoded[i].length);
    v.setUint16(rec + 10, at);
    out.set(encoded[i], nameOffset + 6 + records.length * 12 + at);
    at += encoded[i].length;
  });
  return out;
}
