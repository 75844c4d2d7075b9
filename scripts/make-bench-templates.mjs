// Writes the benchmark templates bench/out/bench-4000.psd and bench/out/bench-8000.psd (and a
// 1600×1200 photo, bench/out/bench-photo.jpg) with ag-psd: a striped background, raster layers
// in normal/multiply/screen/overlay with opacity, a group, a layer mask, an image layer
// ("Photo") and a text layer ("Title", ArialMT). Flat colours keep the RLE-compressed files
// small (a few MB) although the canvas is 64 MP. The composite is computed here so tools that
// read the merged image see the right picture. Usage: node scripts/make-bench-templates.mjs [size...]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'bench/out');
mkdirSync(out, { recursive: true });
const sizes = process.argv.slice(2).map(Number).filter(Boolean);

/** A layer's pixels: fn(x, y) → [r, g, b, a] evaluated per pixel of a w×h box. */
function pixels(w, h, fn) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set(fn(x, y), i);
  return { width: w, height: h, data };
}

const blend = {
  normal: (b, s) => s,
  multiply: (b, s) => (b * s) / 255,
  screen: (b, s) => 255 - ((255 - b) * (255 - s)) / 255,
  overlay: (b, s) => (b < 128 ? (2 * b * s) / 255 : 255 - (2 * (255 - b) * (255 - s)) / 255),
};

/** Composites layers (over an opaque background) into `dst` (S×S RGBA). */
function compositeInto(dst, S, layer) {
  const { left, top, imageData: img, opacity = 1, blendMode = 'normal', mask } = layer;
  const f = blend[blendMode];
  for (let y = 0; y < img.height; y++) {
    const Y = top + y;
    if (Y < 0 || Y >= S) continue;
    for (let x = 0; x < img.width; x++) {
      const X = left + x;
      if (X < 0 || X >= S) continue;
      const s = (y * img.width + x) * 4;
      let a = (img.data[s + 3] / 255) * opacity;
      if (mask) a *= mask.imageData.data[((Y - mask.top) * mask.imageData.width + (X - mask.left)) * 4] / 255;
      if (a === 0) continue;
      const d = (Y * S + X) * 4;
      for (let c = 0; c < 3; c++) dst[d + c] = dst[d + c] * (1 - a) + f(dst[d + c], img.data[s + c]) * a;
    }
  }
}

function template(S) {
  const u = S / 100; // layout unit
  const palette = [[236, 229, 214], [214, 196, 170], [188, 210, 220], [240, 240, 232]];
  const background = { name: 'Background', left: 0, top: 0, imageData: pixels(S, S, (x) => [...palette[Math.floor(x / (5 * u)) % 4], 255]) };
  const circle = (r, rgb) => pixels(2 * r, 2 * r, (x, y) => [...rgb, (x - r) ** 2 + (y - r) ** 2 < r * r ? 255 : 0]);
  const shadow = { name: 'Shadow', left: 10 * u, top: 55 * u, blendMode: 'multiply', opacity: 0.7, imageData: circle(20 * u, [90, 80, 120]) };
  const glow = { name: 'Glow', left: 55 * u, top: 8 * u, blendMode: 'screen', opacity: 0.9, imageData: circle(18 * u, [250, 180, 60]) };
  const stripes = { name: 'Stripes', left: 0, top: 80 * u, blendMode: 'overlay', imageData: pixels(S, 20 * u, (x, y) => (Math.floor((x + y) / (2 * u)) % 2 ? [200, 60, 60, 255] : [40, 90, 160, 255])) };
  const panelMask = pixels(60 * u, 40 * u, (x, y) => { const v = x < 30 * u ? 255 : 128; return [v, v, v, 255]; });
  const panel = {
    name: 'Panel', left: 20 * u, top: 30 * u, opacity: 0.85,
    imageData: pixels(60 * u, 40 * u, (x, y) => (x < u || y < u || x >= 59 * u || y >= 39 * u ? [30, 30, 30, 255] : [252, 250, 245, 255])),
    mask: { left: 20 * u, top: 30 * u, right: 80 * u, bottom: 70 * u, defaultColor: 255, imageData: panelMask },
  };
  const photo = { name: 'Photo', left: 25 * u, top: 35 * u, imageData: pixels(25 * u, 25 * u, (x, y) => ((Math.floor(x / (5 * u)) + Math.floor(y / (5 * u))) % 2 ? [120, 160, 90, 255] : [60, 110, 70, 255])) };
  const titleBox = pixels(30 * u, 6 * u, (x, y) => (y > u && y < 5 * u && Math.floor(x / (1.5 * u)) % 2 ? [20, 40, 90, 255] : [0, 0, 0, 0]));
  const title = {
    name: 'Title', left: 52 * u, top: 40 * u, imageData: titleBox,
    text: { text: 'Sample title', transform: [1, 0, 0, 1, 52 * u, 45 * u], style: { font: { name: 'ArialMT' }, fontSize: 4 * u, fillColor: { r: 20, g: 40, b: 90 } } },
  };
  const badge = { name: 'Badge', left: 82 * u, top: 82 * u, imageData: circle(6 * u, [200, 30, 50]) };
  const drawOrder = [background, shadow, glow, panel, photo, title, stripes, badge];
  const composite = new Uint8ClampedArray(S * S * 4);
  composite.fill(255);
  for (const l of drawOrder) compositeInto(composite, S, l);
  const toPsd = (l) => {
    const { imageData, left, top } = l;
    const layer = { ...l, right: left + imageData.width, bottom: top + imageData.height };
    if (l.mask) layer.mask = { ...l.mask, imageData: toGrey(l.mask.imageData) };
    return layer;
  };
  return {
    width: S, height: S,
    // Panel order top first in ag-psd is the reverse: children are bottom first.
    children: [toPsd(background), toPsd(shadow), toPsd(glow), { name: 'Card', opened: true, children: [toPsd(panel), toPsd(photo), toPsd(title)] }, toPsd(stripes), toPsd(badge)],
    imageData: { width: S, height: S, data: composite },
  };
}

/** ag-psd masks are single-channel image data in an RGBA-shaped buffer; keep it as is. */
const toGrey = (img) => img;

for (const S of sizes.length ? sizes : [4000, 8000]) {
  const file = path.join(out, `bench-${S}.psd`);
  if (existsSync(file) && !process.argv.includes('--force')) continue;
  const t = Date.now();
  const buffer = writePsdBuffer(template(S), { generateThumbnail: false, noBackground: false });
  writeFileSync(file, buffer);
  console.log(`wrote ${path.relative(root, file)} (${(buffer.length / 1e6).toFixed(1)} MB, ${((Date.now() - t) / 1000).toFixed(1)} s)`);
}

// Photos for the image layer, as JPEG: 1600×1200, and a 12 MP (4000×3000) phone-sized one.
const { default: encode, init } = await import('@jsquash/jpeg/encode.js');
await init(new WebAssembly.Module(readFileSync(path.join(root, 'node_modules/@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm'))));
for (const [name, w, h] of [['bench-photo.jpg', 1600, 1200], ['bench-photo-12mp.jpg', 4000, 3000]]) {
  const photoFile = path.join(out, name);
  if (existsSync(photoFile)) continue;
  const k = w / 1600;
  const img = pixels(w, h, (x, y) => [128 + 100 * Math.sin(x / (60 * k)), (x + y) / (12 * k), 200 * Math.abs(Math.cos(y / (90 * k))), 255]);
  writeFileSync(photoFile, Buffer.from(await encode(img, { quality: 85, baseline: true, progressive: false })));
  console.log(`wrote ${path.relative(root, photoFile)}`);
}
