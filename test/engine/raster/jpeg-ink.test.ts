import { describe, expect, it } from 'vitest';
import { colourTransform, defaultProfile } from '../../../src/engine/colour';
import { concat } from '../../../src/engine/raster/bytes';
import { readIcc } from '../../../src/engine/raster/icc';
import { encodeCmykJpeg, encodeConvertedJpeg, encodeGrayJpeg } from '../../../src/engine/raster/jpeg-ink';
import { runTool } from '../../helpers/fixtures';
import { gsCmyk, gsGray } from '../pdf/print';
import { base64ToBytes, parsePpm } from './helpers';

/**
 * Our CMYK (Adobe YCCK) and grey JPEGs, read by independent decoders: libjpeg-turbo's djpeg and
 * Ghostscript. The stated error is that of JPEG at quality 95 on smooth content with fine
 * detail: mean absolute error ≤ 1.5 levels per ink, none off by more than 16.
 */

/** Smooth ink with detail in every channel, and a region without black (K = 0: flat K blocks). */
function inkImage(width: number, height: number): Uint8Array {
  const px = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const p = (y * width + x) * 4;
      px[p] = 128 + 100 * Math.sin(x / 13);
      px[p + 1] = ((x + y) * 255) / (width + height);
      px[p + 2] = 200 * Math.abs(Math.cos(y / 11));
      px[p + 3] = x < width / 2 ? 0 : Math.min(255, (x - width / 2) * 6);
    }
  return px;
}

function errors(a: ArrayLike<number>, b: ArrayLike<number>) {
  let max = 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    max = Math.max(max, d);
    sum += d;
  }
  return { max, mean: sum / a.length };
}

/** Marker segments before the scan: marker → bodies. */
function segments(jpeg: Uint8Array): Map<number, Uint8Array[]> {
  const out = new Map<number, Uint8Array[]>();
  for (let p = 2; p < jpeg.length; ) {
    const marker = jpeg[p + 1]!;
    const length = (jpeg[p + 2]! << 8) | jpeg[p + 3]!;
    out.set(marker, [...(out.get(marker) ?? []), jpeg.subarray(p + 4, p + 2 + length)]);
    if (marker === 0xda) break;
    p += 2 + length;
  }
  return out;
}

/** A one-page PDF drawing `jpeg` at 1 pt a pixel (so 72 dpi renders it pixel for pixel). */
function pdfOf(jpeg: Uint8Array, width: number, height: number, colorSpace: 'DeviceCMYK' | 'DeviceGray'): Uint8Array {
  const enc = new TextEncoder();
  const content = `q ${width} 0 0 ${height} 0 0 cm /Im0 Do Q`;
  const decode = colorSpace === 'DeviceCMYK' ? ' /Decode [1 0 1 0 1 0 1 0]' : '';
  const objects: Uint8Array[][] = [
    [enc.encode('<< /Type /Catalog /Pages 2 0 R >>')],
    [enc.encode('<< /Type /Pages /Kids [3 0 R] /Count 1 >>')],
    [enc.encode(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>`)],
    [enc.encode(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`)],
    [
      enc.encode(`<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /${colorSpace} /BitsPerComponent 8 /Filter /DCTDecode${decode} /Length ${jpeg.length} >>\nstream\n`),
      jpeg,
      enc.encode('\nendstream'),
    ],
  ];
  const parts: Uint8Array[] = [enc.encode('%PDF-1.4\n')];
  let at = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(at);
    for (const piece of [enc.encode(`${i + 1} 0 obj\n`), ...body, enc.encode('\nendobj\n')]) {
      parts.push(piece);
      at += piece.length;
    }
  });
  const xref = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(enc.encode(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return concat(parts);
}

describe('CMYK JPEG (Adobe, YCCK)', () => {
  const W = 61;
  const H = 37;
  const ink = inkImage(W, H);

  it('writes the Adobe marker (transform 2), the ICC profile in APP2 chunks, four components in one baseline scan', async () => {
    const profile = defaultProfile('Cmyk');
    const jpeg = await encodeCmykJpeg(ink, W, H, { quality: 95, iccProfile: profile });
    expect([...jpeg.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...jpeg.subarray(-2)]).toEqual([0xff, 0xd9]);
    const s = segments(jpeg);
    const adobe = s.get(0xee)![0]!;
    expect(new TextDecoder().decode(adobe.subarray(0, 5))).toBe('Adobe');
    expect(adobe[11]).toBe(2);
    expect(s.has(0xe0)).toBe(false); // JFIF is for one or three components
    // 120 KB profile: two chunks numbered 1/2 and 2/2, reassembled byte for byte.
    const icc = s.get(0xe2)!;
    expect(icc.map((c) => [c[12], c[13]])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(await readIcc(jpeg, 'jpeg')).toEqual(profile);
    const sof = s.get(0xc0)![0]!;
    expect([sof[0], (sof[1]! << 8) | sof[2]!, (sof[3]! << 8) | sof[4]!, sof[5]]).toEqual([8, H, W, 4]);
    expect(s.get(0xda)![0]![0]).toBe(4);
  });

  it('djpeg (libjpeg-turbo) reads it without warnings as Adobe-inverted CMYK', async () => {
    for (const subsampling of [1, 2] as const) {
      const out = await runTool('djpeg', await encodeCmykJpeg(ink, W, H, { quality: 95, subsampling }));
      expect(out.code, out.stderr).toBe(0);
      const { width, height, rgb } = parsePpm(base64ToBytes(out.pages[0]!));
      expect([width, height]).toEqual([W, H]);
      // djpeg shows inverted CMYK as RGB = C·K / 255 per channel (C = 255 − ink).
      const expected = new Uint8Array(W * H * 3);
      for (let p = 0; p < W * H; p++)
        for (let c = 0; c < 3; c++) expected[p * 3 + c] = Math.round(((255 - ink[p * 4 + c]!) * (255 - ink[p * 4 + 3]!)) / 255);
      const e = errors(rgb, expected);
      expect(e.mean).toBeLessThan(subsampling === 1 ? 1.5 : 3);
      expect(e.max).toBeLessThanOrEqual(subsampling === 1 ? 16 : 48);
    }
  });

  it('Ghostscript gives back the ink values within JPEG error (DCTDecode with /Decode [1 0 1 0 1 0 1 0])', async () => {
    const jpeg = await encodeCmykJpeg(ink, W, H, { quality: 95 });
    const tiff = await gsCmyk(pdfOf(jpeg, W, H, 'DeviceCMYK'));
    expect([tiff.width, tiff.height, tiff.samples]).toEqual([W, H, 4]);
    for (let c = 0; c < 4; c++) {
      const e = errors(
        Array.from({ length: W * H }, (_, p) => tiff.data[p * 4 + c]!),
        Array.from({ length: W * H }, (_, p) => ink[p * 4 + c]!),
      );
      expect(e.mean, `ink ${c}`).toBeLessThan(1.5);
      expect(e.max, `ink ${c}`).toBeLessThanOrEqual(16);
    }
    // No black where none was asked for: flat K blocks stay exactly 0.
    for (let y = 0; y < H; y++) for (let x = 0; x < 24; x++) expect(tiff.data[(y * W + x) * 4 + 3]).toBe(0);
  });

  it('odd sizes decode; Y and K are 4:4:4 from quality 90, 4:2:0 below', async () => {
    for (const [w, h, quality] of [[1, 1, 90], [17, 9, 90], [W, H, 90], [17, 9, 75], [W, H, 75]] as const) {
      const whole = await encodeCmykJpeg(inkImage(w, h), w, h, { quality });
      const frame = segments(whole).get(0xc0)![0]!;
      expect(frame[7]).toBe(quality >= 90 ? 0x11 : 0x22); // Y sampling factors
      expect(frame[16]).toBe(quality >= 90 ? 0x11 : 0x22); // K sampling factors
      expect((await runTool('djpeg', whole)).code).toBe(0);
    }
  });

  it('an RGBA page converted a strip at a time gives the JPEG of the page converted at once', async () => {
    const [w, h] = [700, 1700]; // strips of 1488 rows: two, the second partial
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let p = 0; p < w * h; p++) rgba.set([(p * 7) % 256, (p >> 5) % 256, (p % w) % 256, 255], p * 4);
    const profile = defaultProfile('Cmyk');
    const t = await colourTransform({ from: defaultProfile('Rgb'), to: profile, fromLayout: 'RGBA', toLayout: 'CMYK' });
    const whole = new Uint8Array(w * h * 4);
    t.apply(new Uint8Array(rgba.buffer), whole, w * h);
    const options = { quality: 85, iccProfile: profile };
    const stripped = await encodeConvertedJpeg({ width: w, height: h, data: rgba }, 4, (src, dst, n) => t.apply(src, dst, n), options);
    const once = await encodeCmykJpeg(whole, w, h, options);
    expect(stripped.length).toBe(once.length);
    expect(stripped.every((b, i) => b === once[i])).toBe(true); // toEqual on MBs is slow
  });

});

describe('grey JPEG', () => {
  const W = 45;
  const H = 29;
  const grey = Uint8Array.from({ length: W * H }, (_, p) => 128 + 100 * Math.sin((p % W) / 7) * Math.cos(Math.floor(p / W) / 9));

  it('is JFIF with one component and the profile; djpeg and Ghostscript read it within JPEG error', async () => {
    const profile = defaultProfile('Grayscale');
    const jpeg = await encodeGrayJpeg(grey, W, H, { quality: 95, iccProfile: profile });
    const s = segments(jpeg);
    expect(new TextDecoder().decode(s.get(0xe0)![0]!.subarray(0, 4))).toBe('JFIF');
    expect(s.has(0xee)).toBe(false);
    expect(s.get(0xc0)![0]![5]).toBe(1);
    expect(await readIcc(jpeg, 'jpeg')).toEqual(profile);
    const out = await runTool('djpeg', jpeg);
    expect(out.code, out.stderr).toBe(0);
    const { rgb } = parsePpm(base64ToBytes(out.pages[0]!));
    const e = errors(
      Array.from({ length: W * H }, (_, p) => rgb[p * 3]!),
      grey,
    );
    expect(e.mean).toBeLessThan(1.5);
    expect(e.max).toBeLessThanOrEqual(16);
    const tiff = await gsGray(pdfOf(jpeg, W, H, 'DeviceGray'));
    const g = errors(tiff.data, grey);
    expect(g.mean).toBeLessThan(1.5);
    expect(g.max).toBeLessThanOrEqual(16);
  });
});
