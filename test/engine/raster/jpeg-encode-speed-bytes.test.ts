import { describe, expect, it } from 'vitest';
import { decodeJpegFull } from '../../../src/engine/raster/jpeg-decode';
import {
  countJpegRowsOf,
  encodeBaselineJpeg,
  encodeInkJpeg,
  encodeJpegRows,
  encodeJpegRowsOf,
  jpegFromRows,
  replaceJpegRows,
  rgbaRows,
  type JpegRowSource,
} from '../../../src/engine/raster/jpeg';
import { fixtureServer } from '../../helpers/fixtures';

// The encoder's fast paths (i16 coefficients in the transform's order with a zigzag nonzero mask
// by byte shuffles, code and extra bits in one put into a 64-bit buffer written a word at a time,
// 4:2:0 chroma means taken during the colour conversion, rounding by adding 1.5 · 2^23) must give
// the bytes of the encoder of 23c0833. Pinned here: per image, every way of coding it (fitted,
// Annex K and unrecorded tables; restart rows, replaced rows and their counts; ink and grey) at
// qualities 1 … 100 and both subsamplings, as that encoder gave them (SHA-256 of them all).
const BEFORE: Record<string, string> = {
  photo: 'afa73636e2ad5791',
  noise: 'a47b8dbbff8c2934',
  checker: 'f2049f608aefdef0',
  'bars-57x33': '8c60dff1cbcf6927',
  'gradient-130x70': 'f13150a2a75594cb',
  'tiny-1x1': 'b232b8f2b2f7ab86',
  'tiny-7x9': '0379ba3a29494e50',
};

type Image = { width: number; height: number; data: Uint8ClampedArray };

function made(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Image {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      data.set(pixel(x, y), (y * width + x) * 4);
      data[(y * width + x) * 4 + 3] = 255;
    }
  return { width, height, data };
}

function random(seed: number): () => number {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / 16777216;
}

async function photo(): Promise<Image> {
  const res = await fetch(`${fixtureServer()}/fixtures/jpeg/photo-203x141-rgb.jpg`);
  const image = await decodeJpegFull(new Uint8Array(await res.arrayBuffer()));
  if (!image) throw new Error('photo fixture did not decode');
  return image;
}

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** Every coding of `img` at each quality and subsampling, SHA-256 of them all (first 16 hex digits). */
async function codingsDigest(img: Image): Promise<string> {
  const parts: Uint8Array[] = [];
  const { width, height } = img;
  // Ink: the RGBA bytes as CMYK (some flipped); grey: the green channel.
  const ink: JpegRowSource = {
    width, height, kind: 'ink',
    read: (y, rows, into) => { for (let i = 0; i < rows * width * 4; i++) into[i] = img.data[y * width * 4 + i]! ^ (i & 3 ? 0 : 0x5a); },
  };
  const gray: JpegRowSource = {
    width, height, kind: 'gray',
    read: (y, rows, into) => { for (let i = 0; i < rows * width; i++) into[i] = img.data[(y * width + i) * 4 + 1]!; },
  };
  const other = made(width, height, (x, y) => [(x * 7) & 255, (y * 5) & 255, 99]);
  for (const quality of [1, 10, 50, 85, 97, 100])
    for (const subsampling of [1, 2] as const) {
      const o = { quality, subsampling };
      const mcuRows = Math.ceil(height / (8 * subsampling));
      parts.push(await encodeBaselineJpeg(img, o));
      parts.push(await encodeBaselineJpeg(img, { ...o, optimizeHuffman: false }));
      parts.push(await encodeBaselineJpeg(img, { ...o, maxCoefficientCache: 0 }));
      const rows = await encodeJpegRows(img, o);
      parts.push(jpegFromRows(rows));
      parts.push(jpegFromRows(await replaceJpegRows(rows, rgbaRows(other), { top: 3, bottom: Math.min(height, 29) })));
      parts.push(...(await encodeJpegRowsOf(rgbaRows(img), { ...o, from: 0, to: mcuRows, tables: rows.specs })).rows);
      const counts = new Uint32Array(4 * 256);
      await countJpegRowsOf(rgbaRows(img), { ...o, from: 0, to: mcuRows }, counts);
      parts.push(new Uint8Array(counts.buffer));
      parts.push(await encodeInkJpeg(ink, o));
      parts.push(await encodeInkJpeg(gray, o));
    }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.byteLength;
  }
  return hex(await crypto.subtle.digest('SHA-256', all)).slice(0, 16);
}

const next = random(7);
const IMAGES: Record<string, () => Promise<Image> | Image> = {
  photo,
  // Every AC category, and 0xFF in the coded bytes often (stuffing inside a written word).
  noise: () => made(96, 80, () => [next() * 256, next() * 256, next() * 256]),
  checker: () => made(64, 48, (x, y) => ((x ^ y) & 1 ? [255, 255, 255] : [0, 0, 0])),
  // Right edges inside a pixel group (repeated), rows below the image (repeated).
  'bars-57x33': () => made(57, 33, (x) => (x % 16 < 8 ? [255, 0, 0] : [0, 0, 255])),
  'gradient-130x70': () => made(130, 70, (x, y) => [x * 2, y * 3, (x + y) & 255]),
  'tiny-1x1': () => made(1, 1, () => [255, 255, 255]),
  'tiny-7x9': () => made(7, 9, (x, y) => [x * 30, y * 25, 128]),
};

describe('JPEG encoder fast paths', () => {
  for (const [name, image] of Object.entries(IMAGES)) {
    it(`codes ${name} to the bytes of the plain encoder in every mode`, async () => {
      expect(await codingsDigest(await image())).toBe(BEFORE[name]);
    });
  }
});
