// Large templates of the size a print shop uploads (issue 25 §3), written with ag-psd into
// bench/out (not committed: tens of MB each), deterministic (no random source: a hash of x, y):
//   large-mockup-4000x3000.psd  a mockup: a photo-like background (gradients, soft blobs and grain),
//     31 layers in three groups: 12 shapes in normal/multiply/screen/overlay/soft-light with
//     opacities, a card with a picture and a "Title" text layer (ArialMT) with a drop shadow and
//     an outside stroke in the middle of the stack, a Curves and a Hue/Saturation adjustment above
//     it, a group of 12 badges and a "Subtitle" text on top. Personalised by: a new text in "Title".
//   large-poster-6000x4000.psd  a poster: the photo background, a "Picture" placeholder (pixel
//     layer, 3000×2000) under a band with a gradient overlay and a "Headline" text with a drop
//     shadow, 9 layers. Personalised by: a picture never seen before in "Picture" (fill); a second
//     row by a new text in "Headline".
//   large-photo-8000x8000.psd  one photo and one text layer ("Caption") on top. Personalised by: a
//     new text in "Caption".
// The grain is constant over short horizontal runs (2, 4 and 16 px) so that the RLE-coded files
// (ag-psd writes RLE; a merged image is RLE in every PSD) stay under the 100 MB upload limit
// (MAX_UPLOAD_BYTES): a photo with per-pixel grain is ~3 bytes a pixel twice over (layer + merged).
// The merged image holds the pixel layers composited over the photo (no adjustments, effects or
// text): what ImageMagick's `f.psd[0]` reads; our engine and psd-tools composite the layers.
//
//   node bench/large-templates.mjs [--force] [mockup|poster|photo ...]   (also called by the benches)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writePsdBuffer } from 'ag-psd';

const root = path.resolve(import.meta.dirname, '..');
export const OUT = path.join(root, 'bench/out');

/** The templates, what a shopper changes in each (personalised.bench.mjs, personalised-cpu.mjs). */
export const LARGE = [
  { file: 'large-mockup-4000x3000.psd', layer: 'Title', kind: 'text', make: () => mockup(4000, 3000, 2) },
  { file: 'large-poster-6000x4000.psd', layer: 'Picture', kind: 'image', make: () => poster(6000, 4000, 4) },
  { file: 'large-photo-8000x8000.psd', layer: 'Caption', kind: 'text', make: () => photoOnly(8000, 8000, 16) },
  // The poster again, a new text in "Headline" (drop shadow) over the picture: its level (1500×1000,
  // 6 MB) is too large for backdropCache to keep whole, and the text's rectangle moves with it.
  { file: 'large-poster-6000x4000.psd', layer: 'Headline', kind: 'text', make: () => poster(6000, 4000, 4) },
];

/** Writes the large templates that are missing (all with `force`); their paths. */
export function ensureLarge(names, force = false) {
  mkdirSync(OUT, { recursive: true });
  const files = [];
  for (const t of LARGE.filter((t) => !names?.length || names.some((n) => t.file.includes(n)))) {
    const file = path.join(OUT, t.file);
    if (files.includes(file)) continue; // a template benched by two of its layers
    files.push(file);
    if (existsSync(file) && !force) continue;
    const t0 = Date.now();
    const buffer = writePsdBuffer(t.make(), { generateThumbnail: false, noBackground: false });
    writeFileSync(file, buffer);
    process.stderr.write(`wrote ${path.relative(root, file)} (${(buffer.length / 1e6).toFixed(1)} MB, ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  }
  return files;
}

/** A 32-bit integer hash of (x, y, seed), for deterministic grain. */
function hash(x, y, seed) {
  let h = Math.imul(x, 0x27d4eb2d) ^ Math.imul(y, 0x165667b1) ^ Math.imul(seed, 0x9e3779b9);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A photo-like w×h RGBA picture: two gradients, soft sine blobs, and grain constant over `run` px. */
function photo(w, h, run, seed = 1) {
  const data = new Uint8ClampedArray(w * h * 4);
  const fx = new Float32Array(w * 3);
  for (let x = 0; x < w; x++) {
    const u = x / w;
    fx[x * 3] = 40 * Math.sin(u * 7.1 + seed);
    fx[x * 3 + 1] = 35 * Math.sin(u * 4.3 + 2 * seed);
    fx[x * 3 + 2] = 30 * Math.cos(u * 9.7);
  }
  for (let y = 0, i = 0; y < h; y++) {
    const v = y / h;
    const r0 = 70 + 90 * v, g0 = 90 + 50 * Math.sin(v * 5.3), b0 = 150 - 60 * v;
    const blob = 25 * Math.sin(v * 11.3 + seed);
    for (let x = 0; x < w; x++, i += 4) {
      const u = x / w;
      const n = (hash((x / run) | 0, y, seed) & 15) - 7; // grain ±7
      const soft = blob * Math.cos(u * 6.1);
      data[i] = r0 + 60 * u + fx[x * 3] + soft + n;
      data[i + 1] = g0 + fx[x * 3 + 1] - soft * 0.5 + n;
      data[i + 2] = b0 + 40 * u + fx[x * 3 + 2] + n;
      data[i + 3] = 255;
    }
  }
  return { width: w, height: h, data };
}

/** A w×h layer of one colour, alpha from fn(x, y) ∈ [0, 1] (soft edges). */
function shape(w, h, rgb, alpha) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0, i = 0; y < h; y++) for (let x = 0; x < w; x++, i += 4) data.set([rgb[0], rgb[1], rgb[2], Math.round(255 * alpha(x, y))], i);
  return { width: w, height: h, data };
}
const clamp01 = (v) => (v < 0 ? 0 : v > 1 ? 1 : v);
const disc = (r) => (x, y) => clamp01(r - Math.hypot(x + 0.5 - r, y + 0.5 - r) + 0.5);
const roundRect = (w, h, r) => (x, y) => {
  const dx = Math.max(r - x - 0.5, 0, x + 0.5 - (w - r)), dy = Math.max(r - y - 0.5, 0, y + 0.5 - (h - r));
  return clamp01(r - Math.hypot(dx, dy) + 0.5);
};

/** A text layer: ag-psd text data plus a rough raster of its box (what a reader without text shows). */
function text(name, str, left, top, size, rgb, effects) {
  const w = Math.round(str.length * size * 0.55), h = Math.round(size * 1.3);
  return {
    name, left, top, right: left + w, bottom: top + h,
    imageData: shape(w, h, rgb, (x, y) => (y > size * 0.25 && y < size * 1.05 && Math.floor(x / (size * 0.55)) % 4 !== 3 ? 1 : 0)),
    text: { text: str, transform: [1, 0, 0, 1, left, top + size], style: { font: { name: 'ArialMT' }, fontSize: size, fillColor: { r: rgb[0], g: rgb[1], b: rgb[2] } } },
    ...(effects ? { effects } : {}),
  };
}
const px = (value) => ({ units: 'Pixels', value });
const dropShadow = (k) => ({ present: true, showInDialog: true, enabled: true, size: px(12 * k), distance: px(10 * k), angle: 120, useGlobalLight: false, color: { r: 0, g: 0, b: 0 }, blendMode: 'multiply', opacity: 0.65 });
const stroke = (k) => ({ present: true, showInDialog: true, enabled: true, size: px(4 * k), position: 'outside', fillType: 'color', color: { r: 255, g: 255, b: 255 }, blendMode: 'normal', opacity: 1 });

/** A pixel layer at (left, top). */
const layer = (name, left, top, imageData, extra = {}) => ({ name, left, top, right: left + imageData.width, bottom: top + imageData.height, imageData, ...extra });

const BLEND = {
  normal: (b, s) => s,
  multiply: (b, s) => (b * s) / 255,
  screen: (b, s) => 255 - ((255 - b) * (255 - s)) / 255,
  overlay: (b, s) => (b < 128 ? (2 * b * s) / 255 : 255 - (2 * (255 - b) * (255 - s)) / 255),
  'soft light': (b, s) => (b < 128 ? (2 * b * s) / 255 + ((b / 255) ** 2) * (255 - 2 * s) : 255 - (2 * (255 - b) * (255 - s)) / 255),
};

/** The merged image: the photo with every visible pixel layer (not text, effects or adjustments) over it. */
function merged(W, H, background, layers) {
  const dst = new Uint8ClampedArray(background.data);
  for (const l of layers) {
    if (!l.imageData || l.text || l.hidden) continue;
    const f = BLEND[l.blendMode ?? 'normal'] ?? BLEND.normal;
    const img = l.imageData, op = l.opacity ?? 1;
    for (let y = 0; y < img.height; y++) {
      const Y = l.top + y;
      if (Y < 0 || Y >= H) continue;
      for (let x = 0; x < img.width; x++) {
        const X = l.left + x;
        if (X < 0 || X >= W) continue;
        const s = (y * img.width + x) * 4, a = (img.data[s + 3] / 255) * op;
        if (a === 0) continue;
        const d = (Y * W + X) * 4;
        for (let c = 0; c < 3; c++) dst[d + c] = dst[d + c] * (1 - a) + f(dst[d + c], img.data[s + c]) * a;
      }
    }
  }
  return { width: W, height: H, data: dst };
}
const flat = (children) => children.flatMap((c) => (c.children ? flat(c.children) : [c]));

function mockup(W, H, run) {
  const k = W / 1000; // layout unit: 1/1000 of the width
  const bg = photo(W, H, run, 1);
  const modes = ['normal', 'multiply', 'screen', 'overlay', 'soft light'];
  const colours = [[220, 80, 60], [60, 120, 200], [250, 200, 80], [90, 170, 110], [170, 90, 190], [240, 240, 230]];
  const shapes = [];
  for (let i = 0; i < 12; i++) {
    const s = Math.round((60 + 17 * ((i * 7) % 9)) * k);
    const img = i % 2 ? shape(s, s, colours[i % 6], disc(s / 2)) : shape(s, Math.round(s * 0.6), colours[i % 6], roundRect(s, Math.round(s * 0.6), 12 * k));
    shapes.push(layer(`Shape ${i + 1}`, Math.round(((i * 83) % 900) * k), Math.round(((i * 47) % 640) * k), img, { blendMode: modes[i % 5], opacity: 0.55 + 0.04 * i }));
  }
  const cardW = Math.round(520 * k), cardH = Math.round(380 * k), cardL = Math.round(240 * k), cardT = Math.round(170 * k);
  const card = layer('Card', cardL, cardT, shape(cardW, cardH, [250, 248, 242], roundRect(cardW, cardH, 16 * k)), { opacity: 0.92 });
  const pic = layer('Photo', cardL + Math.round(20 * k), cardT + Math.round(20 * k), photo(Math.round(300 * k), Math.round(220 * k), run, 7));
  const title = text('Title', 'Summer sale', cardL + Math.round(30 * k), cardT + Math.round(250 * k), Math.round(48 * k), [30, 50, 110], { dropShadow: [dropShadow(k)], stroke: [stroke(k)] });
  const rule = layer('Rule', cardL + Math.round(30 * k), cardT + Math.round(330 * k), shape(Math.round(300 * k), Math.round(4 * k), [200, 60, 60], () => 1));
  const logo = layer('Logo', cardL + Math.round(360 * k), cardT + Math.round(30 * k), shape(Math.round(130 * k), Math.round(130 * k), [40, 40, 40], disc(65 * k)));
  const curves = { name: 'Curves', adjustment: { type: 'curves', rgb: [{ input: 0, output: 0 }, { input: 96, output: 80 }, { input: 176, output: 196 }, { input: 255, output: 255 }] } };
  const hueSat = { name: 'Hue/Saturation', adjustment: { type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: 8, saturation: 18, lightness: 0 } } };
  const badges = [];
  for (let i = 0; i < 12; i++) {
    const s = Math.round(44 * k);
    badges.push(layer(`Badge ${i + 1}`, Math.round((40 + 78 * i) * k), Math.round(690 * k), shape(s, s, colours[(i + 2) % 6], disc(s / 2)), i % 3 ? {} : { blendMode: 'multiply' }));
  }
  const subtitle = text('Subtitle', 'Print your own', Math.round(60 * k), Math.round(40 * k), Math.round(30 * k), [250, 250, 250]);
  const children = [
    layer('Background', 0, 0, bg),
    { name: 'Scene', opened: true, children: shapes },
    { name: 'Card', opened: true, children: [card, pic, title, rule, logo] },
    curves,
    hueSat,
    { name: 'Badges', opened: true, children: badges },
    subtitle,
  ];
  return { width: W, height: H, children, imageData: merged(W, H, bg, flat(children).slice(1)) };
}

function poster(W, H, run) {
  const k = W / 1000;
  const bg = photo(W, H, run, 2);
  const picture = layer('Picture', Math.round(100 * k), Math.round(80 * k), photo(Math.round(500 * k), Math.round(333 * k), run, 5));
  const frame = layer('Frame', Math.round(90 * k), Math.round(70 * k), shape(Math.round(520 * k), Math.round(353 * k), [255, 255, 255], (x, y) => (x < 10 * k || y < 10 * k || x >= 510 * k || y >= 343 * k ? 1 : 0)));
  const band = layer('Band', 0, Math.round(470 * k), shape(W, Math.round(150 * k), [255, 255, 255], () => 1), {
    effects: {
      gradientOverlay: [{
        present: true, showInDialog: true, enabled: true, blendMode: 'normal', opacity: 0.9, type: 'linear', angle: 0, scale: 100, align: true, reverse: false, dither: false, offset: { x: 0, y: 0 },
        gradient: { name: 'Band', type: 'solid', smoothness: 1, colorStops: [{ color: { r: 200, g: 40, b: 60 }, location: 0, midpoint: 50 }, { color: { r: 40, g: 60, b: 180 }, location: 1, midpoint: 50 }], opacityStops: [{ opacity: 1, location: 0, midpoint: 50 }, { opacity: 0.4, location: 1, midpoint: 50 }] },
      }],
    },
  });
  const headline = text('Headline', 'Grand opening', Math.round(650 * k), Math.round(120 * k), Math.round(60 * k), [250, 250, 250], { dropShadow: [dropShadow(k)] });
  const date = text('Date', 'Saturday 10 am', Math.round(650 * k), Math.round(220 * k), Math.round(30 * k), [250, 250, 250]);
  const spot = layer('Spot', Math.round(760 * k), Math.round(300 * k), shape(Math.round(160 * k), Math.round(160 * k), [250, 200, 80], disc(80 * k)), { blendMode: 'screen', opacity: 0.8 });
  const logo = layer('Logo', Math.round(880 * k), Math.round(500 * k), shape(Math.round(80 * k), Math.round(80 * k), [20, 20, 20], disc(40 * k)));
  const children = [layer('Background', 0, 0, bg), picture, frame, band, headline, date, spot, logo];
  return { width: W, height: H, children, imageData: merged(W, H, bg, children.slice(1)) };
}

function photoOnly(W, H, run) {
  const bg = photo(W, H, run, 3);
  const caption = text('Caption', 'Our family 2026', Math.round(W * 0.08), Math.round(H * 0.85), Math.round(W * 0.05), [255, 255, 255]);
  return { width: W, height: H, children: [layer('Background', 0, 0, bg), caption], imageData: bg };
}

if (import.meta.url === `file://${process.argv[1]}`) ensureLarge(process.argv.slice(2).filter((a) => !a.startsWith('--')), process.argv.includes('--force'));
