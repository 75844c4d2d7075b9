// Regenerates the small images in test/assets used by test/engine/raster (run with
// `npx node test/engine/raster/make-assets.mjs`; the outputs are committed).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import encodeJpeg, { init as initJpeg } from '@jsquash/jpeg/encode.js';
import encodePng, { init as initPng } from '@jsquash/png/encode.js';

const root = path.resolve(import.meta.dirname, '../../..');
const assets = path.join(root, 'test/assets');
await initJpeg(new WebAssembly.Module(readFileSync(path.join(root, 'node_modules/@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm'))));
await initPng(new WebAssembly.Module(readFileSync(path.join(root, 'node_modules/@jsquash/png/codec/pkg/squoosh_png_bg.wasm'))));

/** 40×20: left half red, right half blue; top-left 4×4 block green (marks orientation). */
function marker(width, height, alpha = 255) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const rgb = x < 4 && y < 4 ? [0, 255, 0] : x < width / 2 ? [255, 0, 0] : [0, 0, 255];
      data.set([...rgb, x < width / 2 ? 255 : alpha], i);
    }
  return { width, height, data };
}

/** APP1 Exif segment with IFD0 holding only Orientation. */
function exifApp1(orientation, littleEndian) {
  const tiff = new Uint8Array(26);
  const v = new DataView(tiff.buffer);
  tiff.set(littleEndian ? [0x49, 0x49] : [0x4d, 0x4d]);
  v.setUint16(2, 42, littleEndian);
  v.setUint32(4, 8, littleEndian);
  v.setUint16(8, 1, littleEndian);
  v.setUint16(10, 0x0112, littleEndian);
  v.setUint16(12, 3, littleEndian); // SHORT
  v.setUint32(14, 1, littleEndian);
  v.setUint16(18, orientation, littleEndian);
  v.setUint32(22, 0, littleEndian); // no next IFD
  const body = [...Buffer.from('Exif\0\0'), ...tiff];
  const length = body.length + 2;
  return Buffer.from([0xff, 0xe1, length >> 8, length & 255, ...body]);
}

const jpeg = Buffer.from(await encodeJpeg(marker(40, 20), { quality: 95, baseline: true, progressive: false, auto_subsample: false, chroma_subsample: 1 }));
writeFileSync(path.join(assets, 'marker-40x20.jpg'), jpeg);
// Same pixels tagged "rotate 90° CW" (6, big-endian Exif) and "rotate 90° CCW" (8, little-endian).
for (const [orientation, le] of [[6, false], [8, true]]) {
  writeFileSync(path.join(assets, `marker-40x20-exif${orientation}.jpg`), Buffer.concat([jpeg.subarray(0, 2), exifApp1(orientation, le), jpeg.subarray(2)]));
}
writeFileSync(path.join(assets, 'marker-40x20-alpha.png'), Buffer.from(await encodePng(marker(40, 20, 128))));
console.log('wrote test/assets/marker-40x20*.{jpg,png}');
