import { describe, expect, it } from 'vitest';
import { decodeImage, decodeJpegMozjpeg, imageFormatOf } from '../../../src/engine/raster/codecs';
import type { RGBAImage } from '../../../src/engine/types';
import { jpegFixture } from './helpers';

// decodeImage tries our full-size decoder before mozjpeg: on damaged data (a header byte, a bit
// anywhere, several bytes, a marker's type byte changed, or the file cut short) it must answer what
// mozjpeg answers, a picture with the same bytes or an error, and leave the shared kernels able to
// decode the next file exactly. Before jpeg-strict (HEAD 50e8381) 113 of 11,520 damaged files
// (seeds 0x2545f491, 1, 2, 3 × 24 files × 120, four kinds) gave a picture where mozjpeg throws:
// "Bogus Huffman table definition" (94), "Unsupported marker type" (15), and, after the scan,
// "two SOF markers" / "Bogus marker length" (4, an EOI byte changed). Seeds 11..18 × 24 × 120 with
// the marker kind too (23,040) then all agreed; the seeds here run in ~20 s.

const FILES = [
  'odd-17x9-420.jpg', 'odd-17x9-422.jpg', 'odd-17x9-440.jpg', 'odd-17x9-444.jpg', 'odd-33x17-420-optimized.jpg',
  'photo-203x141-420-q1.jpg', 'photo-203x141-420-q10.jpg', 'photo-203x141-420-restart3.jpg', 'photo-203x141-422-q10.jpg',
  'photo-203x141-440-q10.jpg', 'photo-203x141-444-q10.jpg', 'photo-203x141-444-restart-row.jpg', 'photo-203x141-grey.jpg',
  'photo-203x141-mixed-h2v1.jpg', 'photo-203x141-mixed-restart.jpg', 'photo-203x141-rgb.jpg', 'photo-64x64-420-q100.jpg',
  'photo-64x64-422-q100.jpg', 'photo-64x64-440-q100.jpg', 'photo-64x64-444-q100.jpg', 'tiny-1x1-420.jpg', 'tiny-3x3-420.jpg',
  'tiny-3x3-422.jpg', 'tiny-5x4-420.jpg',
];
const SEEDS = [0x2545f491, 7];
const PER_FILE = 100;

const same = (a: RGBAImage, b: RGBAImage) => a.width === b.width && a.height === b.height && a.data.every((v, i) => v === b.data[i]);

/** A decode's picture, or 'error' and what the decoder wrote (mozjpeg writes libjpeg's message to stderr). */
async function outcome(decode: () => Promise<RGBAImage>): Promise<{ image: RGBAImage | 'error'; said: string }> {
  const { error, warn, log } = console;
  let said = '';
  console.error = console.warn = console.log = (...args: unknown[]) => void (said += `${args.join(' ')} `);
  try {
    return { image: await decode(), said };
  } catch {
    return { image: 'error', said }; // mozjpeg throws emscripten's ExitStatus, not an Error; decodeBounded maps either to 422
  } finally {
    Object.assign(console, { error, warn, log });
  }
}

/** `whole` damaged the `k % 5`th way. */
function damage(whole: Uint8Array, k: number, random: (n: number) => number): Uint8Array {
  const jpeg = whole.slice();
  switch (k % 5) {
    case 0: // headers and tables
      jpeg[random(Math.min(jpeg.length, 700))] = random(256);
      return jpeg;
    case 1: // one bit anywhere
      jpeg[random(jpeg.length)]! ^= 1 << random(8);
      return jpeg;
    case 2:
      for (let i = 0; i < 8; i++) jpeg[random(jpeg.length)] = random(256);
      return jpeg;
    case 3: // cut short
      return jpeg.slice(0, 2 + random(jpeg.length - 2));
    default: { // a marker's type byte (SOI, tables, SOF, SOS, RSTn, EOI)
      const markers: number[] = [];
      for (let i = 0; i + 1 < whole.length; i++) if (whole[i] === 0xff && whole[i + 1] !== 0 && whole[i + 1] !== 0xff) markers.push(i + 1);
      jpeg[markers[random(markers.length)]!] = random(256);
      return jpeg;
    }
  }
}

describe('full-size JPEG decode on damaged files', () => {
  it(`answers mozjpeg’s picture or its error for ${SEEDS.length * FILES.length * PER_FILE} damaged files, and decodes the next file exactly`, async () => {
    const wrong: string[] = [];
    for (const first of SEEDS) {
      let seed = first;
      const random = (n: number) => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) % n;
      };
      for (const name of FILES) {
        const whole = await jpegFixture(name);
        const clean = await decodeJpegMozjpeg(whole);
        for (let k = 0; k < PER_FILE; k++) {
          const bytes = damage(whole, k, random);
          const ours = (await outcome(() => decodeImage(bytes))).image;
          // What decodeImage answered before our decoder: no JPEG signature (FF D8 FF), an error; else mozjpeg's.
          const ref = imageFormatOf(bytes) === 'jpeg' ? await outcome(() => decodeJpegMozjpeg(bytes)) : { image: 'error' as const, said: '' };
          const agree = ours !== 'error' && ref.image !== 'error' ? same(ours, ref.image) : (ours === 'error') === (ref.image === 'error');
          if (agree) continue;
          const changed: string[] = [];
          for (let i = 0; i < bytes.length; i++) if (bytes[i] !== whole[i]) changed.push(`${i}: ${whole[i]!.toString(16)} -> ${bytes[i]!.toString(16)}`);
          const what = (image: RGBAImage | 'error') => (image === 'error' ? 'error' : 'picture');
          wrong.push(`seed ${first} ${name} damage ${k} (${bytes.length}/${whole.length} bytes; ${changed.join(', ')}): ours ${what(ours)}, mozjpeg ${what(ref.image)} ${ref.said}`);
        }
        expect(same(await decodeImage(whole), clean), `${name} after the damaged ones`).toBe(true);
      }
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  }, 120_000);

  it('answers mozjpeg’s picture or its error for files made to break one of libjpeg’s rules', async () => {
    /** Offset of the length bytes of the first of `markers`. */
    const at = (bytes: Uint8Array, ...markers: number[]) => {
      for (let p = 2; p + 3 < bytes.length; ) {
        if (markers.includes(bytes[p + 1]!)) return p + 2;
        p += 2 + ((bytes[p + 2]! << 8) | bytes[p + 3]!);
      }
      throw new Error(`no marker ${markers.map((m) => m.toString(16)).join()}`);
    };
    const edit = (bytes: Uint8Array, change: (b: Uint8Array) => void) => {
      const b = bytes.slice();
      change(b);
      return b;
    };
    const insert = (bytes: Uint8Array, where: number, extra: number[]) => new Uint8Array([...bytes.subarray(0, where), ...extra, ...bytes.subarray(where)]);
    const cases: [string, Uint8Array][] = [];
    for (const name of ['photo-203x141-444-q10.jpg', 'photo-203x141-420-q10.jpg', 'photo-203x141-420-restart3.jpg', 'photo-203x141-grey.jpg']) {
      const whole = await jpegFixture(name);
      const sof = at(whole, 0xc0, 0xc1);
      const sos = at(whole, 0xda);
      const n = whole[sof + 7]!;
      const eoi = whole.length - 2;
      if (n === 3) {
        // The scan's components in another order than the frame's: libjpeg's MCU follows the scan.
        cases.push([`${name} scan order Cb Y Cr`, edit(whole, (b) => b.copyWithin(sos + 3, sos + 5, sos + 7) && b.set(whole.subarray(sos + 3, sos + 5), sos + 5))]);
        cases.push([`${name} all 2x2 (12 blocks an MCU)`, edit(whole, (b) => [0, 1, 2].forEach((c) => (b[sof + 9 + 3 * c] = 0x22)))]);
      }
      cases.push([`${name} DC table 4`, edit(whole, (b) => (b[sos + 4] = 0x40 | (b[sos + 4]! & 15)))]);
      cases.push([`${name} Se 0`, edit(whole, (b) => (b[sos + 3 + 2 * n + 1] = 0))]);
      cases.push([`${name} first sampling 0x00`, edit(whole, (b) => (b[sof + 9] = 0))]);
      cases.push([`${name} first sampling 0x33`, edit(whole, (b) => (b[sof + 9] = 0x33))]);
      cases.push([`${name} width 65535`, edit(whole, (b) => b.set([0xff, 0xff], sof + 5))]);
      cases.push([`${name} a COM before EOI`, insert(whole, eoi, [0xff, 0xfe, 0, 4, 1, 2])]);
      cases.push([`${name} a DQT before EOI`, insert(whole, eoi, [0xff, 0xdb, 0, 67, 0, ...new Array<number>(64).fill(1)])]);
      cases.push([`${name} an unknown marker before EOI`, insert(whole, eoi, [0xff, 0xdf, 0, 2])]);
      cases.push([`${name} junk before EOI`, insert(whole, eoi, [1, 2, 0xff, 0, 3])]);
      cases.push([`${name} a second SOI`, insert(whole, 2, [0xff, 0xd8])]);
      cases.push([`${name} DAC`, insert(whole, 2, [0xff, 0xcc, 0, 4, 0, 0x10])]);
    }
    const wrong: string[] = [];
    for (const [label, bytes] of cases) {
      const ours = (await outcome(() => decodeImage(bytes))).image;
      const ref = await outcome(() => decodeJpegMozjpeg(bytes));
      const agree = ours !== 'error' && ref.image !== 'error' ? same(ours, ref.image) : (ours === 'error') === (ref.image === 'error');
      if (!agree) wrong.push(`${label}: ours ${ours === 'error' ? 'error' : 'picture'}, mozjpeg ${ref.image === 'error' ? 'error' : 'picture'} ${ref.said}`);
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  });
});
