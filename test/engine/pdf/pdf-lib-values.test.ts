// The one converter of our PDF writer's values into pdf-lib objects (issue 20): every kind of
// value, both string styles (hex UTF-16; literal as our writer writes it, escaped), references
// through the placeholder map, and the header patch pdf-lib cannot do itself.
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { toPdfLib, withPdfHeader } from '../../../src/engine/pdf/pdf-lib-values';
import { name, PdfRaw, PdfRef, serialize, str, type PdfValue } from '../../../src/engine/pdf/writer';

describe('toPdfLib', () => {
  it('writes dictionaries, arrays, names, numbers, booleans and null as our writer does', async () => {
    const doc = await PDFDocument.create();
    const value: PdfValue = { Type: name('Test'), N: [1, 0.5, -2], B: true, F: false, Z: null, Skip: undefined };
    expect(toPdfLib(doc.context, value).toString().replace(/\s+/g, ' ')).toBe('<< /Type /Test /N [ 1 0.5 -2 ] /B true /F false /Z null >>');
  });

  it('writes strings as hex UTF-16 by default and as escaped literals, like serialize, when asked', async () => {
    const doc = await PDFDocument.create();
    expect(toPdfLib(doc.context, str('A')).toString()).toBe('<FEFF0041>');
    for (const text of ['Card (front) \\ 1', 'Plain', 'Café']) {
      expect(toPdfLib(doc.context, str(text), { strings: 'literal' }).toString().toUpperCase()).toBe(serialize(str(text)).toUpperCase());
    }
  });

  it('maps placeholder references and refuses unknown ones and raw syntax', async () => {
    const doc = await PDFDocument.create();
    const target = doc.context.register(doc.context.obj({}));
    const placeholder = new PdfRef(0);
    expect(toPdfLib(doc.context, [placeholder], { refs: new Map([[placeholder, target]]) }).toString()).toBe(`[ ${target.toString()} ]`);
    expect(() => toPdfLib(doc.context, new PdfRef(7))).toThrow(/reference 7/);
    expect(() => toPdfLib(doc.context, new PdfRaw('1 0 R'))).toThrow(/raw/);
  });
});

describe('withPdfHeader', () => {
  it('sets the header version in place, keeping the length', async () => {
    const bytes = await (await PDFDocument.create()).save();
    const length = bytes.length;
    expect(new TextDecoder().decode(withPdfHeader(bytes, '1.4').subarray(0, 8))).toBe('%PDF-1.4');
    expect(bytes.length).toBe(length);
    expect(() => withPdfHeader(new TextEncoder().encode('not a pdf'), '1.6')).toThrow(/header/);
  });
});
