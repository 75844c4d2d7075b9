// PDF decompression bombs (issue 18, item 3): a 1 MB PDF whose page content inflates to 1 GB was
// accepted as an image (201 after 26 s) and grew workerd by GBs. Decoded sizes are bounded before
// anything decodes a whole stream (src/engine/pdf-raster/bounds.ts): PDFium's page drawing, the
// import's pdf-lib read and every other pdf-lib load of a PDF from outside refuse it with 422.
//
// The bombs are built here cheaply: one sync-flushed deflate block of 1 MiB of zeros, repeated;
// nothing ever holds or compresses the gigabyte.
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { PDFDocument, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { InputsTooLarge } from '../../../src/engine/errors';
import { pdfPageCount, rasterisePdfPages } from '../../../src/engine/pdf-raster';
import { checkPdfDecodedSizes, PDF_DECODE_LIMITS } from '../../../src/engine/pdf-raster/bounds';
import { checkUserPdf, loadUserPdf } from '../../../src/platform/assets/pdf-pages';
import { UnprocessableError } from '../../../src/platform/core/errors';
import { renderPdf } from '../../../src/engine/print-product/pdf';
import { seedPlatform } from '../../helpers/platform';
import { fonts, imageStore, oneSurface } from '../print-product/helpers';
import { S, upload } from '../../platform/storage/helpers';

const MiB = 1 << 20;
const GiB = 1 << 30;

/** zlib data (RFC 1950) that inflates to `total` zero bytes (a multiple of 1 MiB). */
function zerosZlib(total: number): Uint8Array {
  // Non-final, byte-aligned (sync flush), self-contained: copies can simply follow one another.
  const block = deflateRawSync(new Uint8Array(MiB), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const n = total / MiB;
  const out = new Uint8Array(2 + block.length * n + 2 + 4);
  out.set([0x78, 0xda]);
  for (let i = 0; i < n; i++) out.set(block, 2 + i * block.length);
  let at = 2 + block.length * n;
  out.set([0x03, 0x00], at); // an empty final block (fixed Huffman)
  at += 2;
  // Adler-32 of zeros: a stays 1, b adds 1 per byte.
  const adler = ((total % 65521) * 65536 + 1) >>> 0;
  new DataView(out.buffer).setUint32(at, adler);
  return out;
}

const latin1 = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** A one-page PDF (200 × 200 pt); `objects` are objects 4, 5, … (the page's content is object 4). */
function buildPdf(objects: Array<{ dict: string; data?: Uint8Array }>, page = '/Contents 4 0 R', trailer = ''): Uint8Array {
  const parts: Uint8Array[] = [latin1('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (num: number, body: Uint8Array[]) => {
    offsets[num] = length;
    for (const b of [latin1(`${num} 0 obj\n`), ...body, latin1('\nendobj\n')]) {
      parts.push(b);
      length += b.length;
    }
  };
  add(1, [latin1('<< /Type /Catalog /Pages 2 0 R >>')]);
  add(2, [latin1('<< /Type /Pages /Kids [3 0 R] /Count 1 >>')]);
  add(3, [latin1(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] ${page} >>`)]);
  objects.forEach((o, i) => {
    if (!o.data) return add(4 + i, [latin1(o.dict)]);
    add(4 + i, [latin1(`<< ${o.dict} /Length ${o.data.length} >>\nstream\n`), o.data, latin1('\nendstream')]);
  });
  const count = 4 + objects.length;
  let xref = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let i = 1; i < count; i++) xref += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  parts.push(latin1(`${xref}trailer\n<< /Size ${count} /Root 1 0 R ${trailer}>>\nstartxref\n${length}\n%%EOF\n`));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}

/** The reported bomb: the page's content stream inflates to 1 GiB. */
const contentBomb = () => buildPdf([{ dict: '/Filter /FlateDecode', data: zerosZlib(GiB) }]);

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

const limitMb = (n: number) => `${n / MiB} MB`;

describe('decoded sizes of PDFs are bounded before decoding (issue 18 item 3)', () => {
  it('the content-stream bomb is small and really inflates past the limit', () => {
    const bomb = contentBomb();
    console.log(`bomb: ${(bomb.length / 1024).toFixed(0)} KB PDF, content stream inflates to 1 GiB`);
    expect(bomb.length).toBeLessThan(1.5 * MiB);
  });

  it('the check refuses the content bomb fast, naming the limit', async () => {
    const bomb = contentBomb();
    const { value: err, ms } = await timed(async () => {
      try {
        checkPdfDecodedSizes(bomb);
      } catch (e) {
        return e;
      }
    });
    console.log(`check refused the 1 GiB content stream in ${ms} ms`);
    expect(err).toBeInstanceOf(InputsTooLarge);
    expect((err as Error).message).toContain(limitMb(PDF_DECODE_LIMITS.streamBytes));
    expect(ms).toBeLessThan(5000); // 26 s before the fix; ~0.3 s on an idle machine
  });

  it('PDFium never draws it: rasterising and counting pages refuse it before any page', async () => {
    let drawn = 0;
    const { value: err, ms } = await timed(() => rasterisePdfPages(contentBomb(), { onPage: () => void drawn++ }).catch((e) => e));
    expect(err).toBeInstanceOf(InputsTooLarge);
    expect(drawn).toBe(0);
    expect(ms).toBeLessThan(8000);
    await expect(pdfPageCount(contentBomb())).rejects.toBeInstanceOf(InputsTooLarge);
  });

  it('upload as an image: a fast 422 naming the limit', async () => {
    await seedPlatform();
    const { value: res, ms } = await timed(() => upload(`${S}/images`, contentBomb(), 'bomb.pdf', { path: '/bombs/' }));
    const body = (await res.json()) as { detail: string };
    console.log(`upload of the bomb answered ${res.status} in ${ms} ms: ${body.detail}`);
    expect(res.status).toBe(422);
    expect(body.detail).toContain(limitMb(PDF_DECODE_LIMITS.streamBytes));
    expect(ms).toBeLessThan(10_000);
  }, 30_000);

  it('pdf-lib loads of PDFs from outside (import, atoms PDF images, pipeline inputs) refuse it: 422', async () => {
    const err = await loadUserPdf(contentBomb()).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.status).toBe(422);
    expect(err.message).toContain(limitMb(PDF_DECODE_LIMITS.streamBytes));
    expect(() => checkUserPdf(contentBomb())).toThrow(UnprocessableError);
  });

  it('a design atoms print PDF with the bomb as a PDF image (upload or URL) refuses it (InputsTooLarge: a 422)', async () => {
    const model = await oneSurface(200, 200, [{ type: 'Image', x: 0, y: 0, width: 200, height: 200, source: { type: 'Url', url: 'https://images.example/bomb.pdf' } }]);
    const images = imageStore({ 'https://images.example/bomb.pdf': { bytes: contentBomb(), mime: 'application/pdf', width: 200, height: 200 } });
    const { value: err, ms } = await timed(() => renderPdf(model, { fonts, images }).catch((e) => e));
    expect(err).toBeInstanceOf(InputsTooLarge);
    expect(err.message).toContain(limitMb(PDF_DECODE_LIMITS.streamBytes));
    expect(ms).toBeLessThan(5000);
  });

  it('a bomb wrapped in two Flate filters is refused at the stage that inflates past the limit', () => {
    const twice = new Uint8Array(deflateSync(zerosZlib(GiB)));
    expect(twice.length).toBeLessThan(64 * 1024);
    const bomb = buildPdf([{ dict: '/Filter [/FlateDecode /FlateDecode]', data: twice }]);
    expect(() => checkPdfDecodedSizes(bomb)).toThrow(InputsTooLarge);
  });

  it('an image whose declared size is too large is refused without decoding it (JPEG, JPEG 2000, …)', async () => {
    const image = { dict: '/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode', data: latin1('not decoded') };
    const content = { dict: '', data: latin1('q 200 0 0 200 0 0 cm /Im0 Do Q') };
    const bomb = buildPdf([content, image], '/Contents 4 0 R /Resources << /XObject << /Im0 5 0 R >> >>');
    const err = await rasterisePdfPages(bomb, { onPage: () => {} }).catch((e) => e);
    expect(err).toBeInstanceOf(InputsTooLarge);
    expect(err.message).toMatch(/100000 × 100000/);
    expect(err.message).toContain(limitMb(PDF_DECODE_LIMITS.imageBytes));
    // An indirect width is resolved too.
    const indirect = buildPdf(
      [content, { ...image, dict: image.dict.replace('/Width 100000', '/Width 6 0 R') }, { dict: '100000' }],
      '/Contents 4 0 R /Resources << /XObject << /Im0 5 0 R >> >>',
    );
    expect(() => checkPdfDecodedSizes(indirect)).toThrow(/100000 × 100000/);
    // pdf-lib never decodes images (it copies their streams): its loads do not limit them, so a
    // large-format print file still imposes.
    expect(() => checkUserPdf(bomb)).not.toThrow();
  });

  it('a bomb hidden from a naive reader is still found: indirect or unreadable /Filter, a comment before `stream`', () => {
    const zlib = zerosZlib(GiB);
    // /Filter as an indirect object.
    expect(() => checkPdfDecodedSizes(buildPdf([{ dict: '/Filter 5 0 R', data: zlib }, { dict: '[/FlateDecode]' }]))).toThrow(InputsTooLarge);
    // /Filter naming an object that is not in the file as text (it could sit in an object stream): zlib data is inflated anyway.
    expect(() => checkPdfDecodedSizes(buildPdf([{ dict: '/Filter 9 0 R', data: zlib }]))).toThrow(InputsTooLarge);
    // A comment between the dictionary and the keyword.
    const commented = buildPdf([{ dict: '/Filter /FlateDecode', data: zlib }]);
    const text = new TextDecoder('latin1').decode(commented.subarray(0, 400));
    const at = text.indexOf('>>\nstream');
    const withComment = new Uint8Array([...commented.subarray(0, at + 2), ...latin1(' % hidden\n'), ...commented.subarray(at + 2)]);
    expect(() => checkPdfDecodedSizes(withComment)).toThrow(InputsTooLarge);
  });

  it('a content bomb labelled /Subtype /Image gains nothing: without a size it decodes within the stream limit, for PDFium and pdf-lib alike', () => {
    const bomb = buildPdf([{ dict: '/Subtype /Image /Filter /FlateDecode', data: zerosZlib(GiB) }]);
    expect(() => checkPdfDecodedSizes(bomb)).toThrow(limitMb(PDF_DECODE_LIMITS.streamBytes));
    expect(() => checkUserPdf(bomb)).toThrow(limitMb(PDF_DECODE_LIMITS.streamBytes));
    // With a size, at most what that size decodes to (and never more than the image limit).
    const sized = buildPdf([{ dict: '/Subtype /Image /Width 100000 /Height 100000 /Filter /FlateDecode', data: zerosZlib(GiB) }]);
    expect(() => checkUserPdf(sized)).toThrow(limitMb(PDF_DECODE_LIMITS.imageBytes));
  });

  it('a JPEG image without a readable size is measured from its own header', () => {
    // SOI, SOF0 of 60000 × 60000, 3 components: 14.4 GB once drawn.
    const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0xea, 0x60, 0xea, 0x60, 0x03, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0, 0xff, 0xd9]);
    const image = { dict: '/Type /XObject /Subtype /Image /Width 7 0 R /Height 7 0 R /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode', data: jpeg };
    expect(() => checkPdfDecodedSizes(buildPdf([{ dict: '', data: latin1('/Im0 Do') }, image]))).toThrow(/60000 × 60000/);
  });

  it('all streams together are bounded too (shown with small limits, so the test stays cheap)', () => {
    const limits = { streamBytes: 8 * MiB, imageBytes: 8 * MiB, totalBytes: 32 * MiB, checkImageSizes: true };
    const many = Array.from({ length: 5 }, () => ({ dict: '/Filter /FlateDecode', data: zerosZlib(7 * MiB) }));
    expect(checkPdfDecodedSizes(buildPdf(many.slice(0, 4)), limits).decodedBytes).toBe(28 * MiB);
    expect(() => checkPdfDecodedSizes(buildPdf(many), limits)).toThrow(/together; the limit is 32 MB per file/);
  });

  it('an encrypted PDF: a stream that could inflate past the limit is refused (it cannot be read to check), a small one passes', () => {
    const big = new Uint8Array(PDF_DECODE_LIMITS.streamBytes / 1032 + 1024).fill(0x41);
    const encrypted = (data: Uint8Array) => buildPdf([{ dict: '/Filter /FlateDecode', data }, { dict: '<< /Filter /Standard /V 2 /R 3 /Length 128 /O (x) /U (y) /P -4 >>' }], '/Contents 4 0 R', '/Encrypt 5 0 R /ID [<00> <00>] ');
    expect(() => checkPdfDecodedSizes(encrypted(big))).toThrow(/encrypted/);
    expect(() => checkPdfDecodedSizes(encrypted(new Uint8Array(1000).fill(0x41)))).not.toThrow();
  });

  it('costs little on an ordinary large PDF: a 3000 × 3000 RGB Flate image of noise (logged)', () => {
    const pixels = new Uint8Array(3000 * 3000 * 3);
    for (let i = 0; i < pixels.length; i += 65536) crypto.getRandomValues(pixels.subarray(i, i + 65536));
    const data = new Uint8Array(deflateSync(pixels, { level: 1 }));
    const image = { dict: '/Type /XObject /Subtype /Image /Width 3000 /Height 3000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode', data };
    const file = buildPdf([{ dict: '', data: latin1('q 200 0 0 200 0 0 cm /Im0 Do Q') }, image], '/Contents 4 0 R /Resources << /XObject << /Im0 5 0 R >> >>');
    const started = Date.now();
    const summary = checkPdfDecodedSizes(file);
    const ms = Date.now() - started;
    console.log(`check of a ${(file.length / MiB).toFixed(1)} MiB PDF (one ${(pixels.length / MiB).toFixed(1)} MiB image): ${ms} ms`);
    expect(summary).toMatchObject({ streams: 2, images: 1 });
    expect(summary.decodedBytes).toBe(pixels.length); // the content stream has no filter
    expect(ms).toBeLessThan(10_000);
  }, 30_000);

  it('ordinary PDFs pass and still draw: a page with 16 MiB of content, pdf-lib output, LZW, run-length and ASCII filters', async () => {
    const zeros16 = buildPdf([{ dict: '/Filter /FlateDecode', data: zerosZlib(16 * MiB) }]);
    expect(checkPdfDecodedSizes(zeros16).decodedBytes).toBe(16 * MiB);
    let pages = 0;
    await rasterisePdfPages(zeros16, { maxLongSide: 64, onPage: () => void pages++ });
    expect(pages).toBe(1);
    const doc = await PDFDocument.create();
    doc.addPage([100, 100]).drawRectangle({ x: 10, y: 10, width: 50, height: 50, color: rgb(1, 0, 0) });
    checkUserPdf(await doc.save());
    // LZW (TIFF/PDF, early change): "-----A---B" from the PDF reference's example, 8 bytes.
    const lzw = Uint8Array.from([0x80, 0x0b, 0x60, 0x50, 0x22, 0x0c, 0x0c, 0x85, 0x01]);
    expect(checkPdfDecodedSizes(buildPdf([{ dict: '/Filter /LZWDecode', data: lzw }])).decodedBytes).toBe(10);
    // Run-length: 3 literal bytes, then 0x41 repeated 100 times, EOD.
    const rl = Uint8Array.from([2, 1, 2, 3, 257 - 100, 0x41, 128]);
    expect(checkPdfDecodedSizes(buildPdf([{ dict: '/Filter /RunLengthDecode', data: rl }])).decodedBytes).toBe(103);
    // ASCII85 of zlib: the chain is followed.
    const z = new Uint8Array(deflateSync(new Uint8Array(5000)));
    const a85 = latin1(ascii85(z) + '~>');
    expect(checkPdfDecodedSizes(buildPdf([{ dict: '/Filter [/ASCII85Decode /FlateDecode]', data: a85 }])).decodedBytes).toBe(5000 + z.length);
    const hex = latin1([...z].map((b) => b.toString(16).padStart(2, '0')).join(' ') + '>');
    expect(checkPdfDecodedSizes(buildPdf([{ dict: '/Filter [/AHx /Fl]', data: hex }])).decodedBytes).toBe(5000 + z.length);
  }, 30_000);
});

function ascii85(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const chunk = [0, 1, 2, 3].map((k) => bytes[i + k] ?? 0);
    let n = ((chunk[0]! << 24) | (chunk[1]! << 16) | (chunk[2]! << 8) | chunk[3]!) >>> 0;
    const take = Math.min(4, bytes.length - i);
    if (n === 0 && take === 4) {
      out += 'z';
      continue;
    }
    const digits: string[] = [];
    for (let k = 0; k < 5; k++) {
      digits.unshift(String.fromCharCode(33 + (n % 85)));
      n = Math.floor(n / 85);
    }
    out += digits.slice(0, take + 1).join('');
  }
  return out;
}

describe('the lexical search cannot be fooled or stalled', () => {
  it('a fake `>> stream` inside a string of the dictionary does not hide the real stream after it', () => {
    const bomb = buildPdf([{ dict: '/Title (<< >> stream) /Filter /FlateDecode', data: zerosZlib(GiB) }]);
    expect(() => checkPdfDecodedSizes(bomb)).toThrow(InputsTooLarge);
  });

  it('a file full of fake stream markers is refused within the work budget, quickly', () => {
    const fake = latin1('<< /Filter /AHx >>stream\n'.repeat(1) + '>>stream '.repeat(400_000));
    const started = Date.now();
    expect(() => checkPdfDecodedSizes(fake)).toThrow(/too many stream markers|decodes/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
