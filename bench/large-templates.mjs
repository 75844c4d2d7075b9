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


// --- Probe templates (task probe27, issue 25 §1): shapes an outside check could use that the
// workerd bench's steps did not cover. `node bench/large-templates.mjs --probe [name ...]` writes
// them to bench/out/probe-<name>.psd (or .psb); bench/workerd-memory.bench.mjs's `probe-<name>`
// steps upload each and ask for its previews and print PDF under a memory limit.
//   layers-1000   4,000² canvas, 1,000 layers (the limit, MAX_LAYERS) of 150 × 100 px in five blend modes
//   layers-1001   the same with one layer more: refused at upload (422)
//   full-300      4,000² canvas, 300 full-canvas layers (the same ZIP channels), opacities and blend modes varied
//   nest-100      4,000², a full-canvas layer under 100 nested groups (normal, opacity 95 %: isolated), each with a small layer
//   nest-10       the same 10 deep (Photoshop's own limit), with a layer clipped to each level's small one; nest-11 one deeper
//   rgb16-8000    8,000² 16-bit RGB ('Lr16', ZIP): a full-canvas layer, a 5,000 × 3,000 one at 50 %, one under a mask
//   rgb32-8000    the same at 32 bits (floats, 'Lr32')
//   cmyk-8000     the same, 8-bit CMYK
//   psb-30000     a PSB of 30,000 × 2,000, one layer: refused at upload (the side limit is 10,000)
//   mask-10000    8,000² canvas, 12 small layers (400 × 300) each under a 10,000² layer mask (ZIP; past the canvas's edges)
//   far-layer     4,000², layers at x = ±1e6 and y = 1e6, and a 30,000 × 2,133 layer (64 M px, 4 × the canvas) mostly off canvas
//   text-long     4,000², a paragraph text of 5,000 characters at 40 px
//   text-2000     4,000², a point text at 2,000 px
//   text-many     4,000², 300 text layers (with a drop shadow on every 10th)
//   smart-10000   4,000², a smart object whose embedded file is a 10,000² PNG (~25 MB), placed at 1,000²
//   nomerged-10000 10,000², one layer, no real merged image (VersionInfo hasRealMergedData = false, a white RLE composite)
//   smart-90mb    2,000², a smart object whose embedded file is a 5,500² PNG of noise (~91 MB): an upload near the contract's 100 MB
import { deflateSync, crc32 } from 'node:zlib';
// Big-endian bytes and Photoshop's RLE, as the made fixtures write them.
import { Out, packBits } from '../test/fixtures/psd-made/lib.mjs';

/** A block pattern sample in 0..1 (blocks of 64 px: what deflate packs well), per channel `c`. */
const blockValue = (x, y, c, seed = 0) => (((x >> 6) * 37 + (y >> 6) * 91 + c * 50 + seed * 13) & 255) / 255;

/** One channel's data (compression word first) as ZIP (2) of w × h samples at `depth` from f(x, y) ∈ 0..1. */
function zipChannel(w, h, depth, f) {
  const bpp = depth / 8;
  const raw = Buffer.alloc(w * h * bpp);
  for (let y = 0, o = 0; y < h; y++) {
    for (let x = 0; x < w; x++, o += bpp) {
      const v = f(x, y);
      if (depth === 8) raw[o] = Math.round(v * 255);
      else if (depth === 16) raw.writeUInt16BE(Math.round(v * 255) * 257, o);
      else raw.writeFloatBE(v, o);
    }
  }
  const body = deflateSync(raw, { level: 6 });
  return Buffer.concat([Buffer.of(0, 2), body]);
}

/**
 * A PSD/PSB written byte by byte (what ag-psd cannot write: 16/32 bits, CMYK, PSB, huge masks):
 * layers bottom first { name, top, left, bottom, right, channels: [[id, data]], blend, opacity,
 * mask?: { top, left, bottom, right, defaultColor } }; the merged image white, RLE (each row the same).
 */
function rawPsd({ width, height, depth = 8, mode = 3, psb = false, layers, resources = new Uint8Array(0) }) {
  const colours = mode === 4 ? 4 : 3;
  const len = (o, n) => (psb && o.u32(Math.floor(n / 2 ** 32)), o.u32(n >>> 0));
  const out = new Out();
  out.ascii('8BPS').u16(psb ? 2 : 1).bytes(new Uint8Array(6)).u16(colours).u32(height).u32(width).u16(depth).u16(mode);
  out.u32(0); // colour mode data
  out.u32(resources.length).bytes(resources);
  const info = new Out();
  info.u16(layers.length);
  const data = [];
  for (const l of layers) {
    info.i32(l.top).i32(l.left).i32(l.bottom).i32(l.right).u16(l.channels.length);
    for (const [id, d] of l.channels) (info.u16(id & 0xffff), len(info, d.length));
    info.ascii('8BIM').ascii(l.blend ?? 'norm').u8(l.opacity ?? 255).u8(0).u8(0).u8(0);
    const extra = new Out();
    if (l.mask) extra.u32(20).i32(l.mask.top).i32(l.mask.left).i32(l.mask.bottom).i32(l.mask.right).u8(l.mask.defaultColor ?? 0).u8(0).u16(0);
    else extra.u32(0);
    extra.u32(0);
    const name = Uint8Array.from(l.name, (c) => c.charCodeAt(0));
    extra.u8(name.length).bytes(name).bytes(new Uint8Array((4 - ((1 + name.length) % 4)) % 4));
    info.u32(extra.length).bytes(extra.concat());
    data.push(...l.channels.map(([, d]) => d));
  }
  for (const d of data) info.bytes(d);
  if (info.length % 4) info.bytes(new Uint8Array(4 - (info.length % 4)));
  const infoBytes = info.concat();
  const section = new Out();
  if (depth === 8) {
    len(section, infoBytes.length);
    section.bytes(infoBytes).u32(0);
  } else {
    len(section, 0);
    section.u32(0).ascii(`8BIMLr${depth}`);
    len(section, infoBytes.length);
    section.bytes(infoBytes);
  }
  len(out, section.length);
  out.bytes(section.concat());
  // The merged image: white (CMYK: no ink, stored 255 too), RLE, every row the same
  // (32 bits: 0.0, black: a float's 1.0 has no runs for PackBits to pack.)
  const row = new Uint8Array((width * depth) / 8).fill(depth === 32 ? 0 : 255);
  const packed = packBits(row);
  const rows = colours * height;
  out.u16(1);
  for (let i = 0; i < rows; i++) psb ? out.u32(packed.length) : out.u16(packed.length);
  for (let i = 0; i < rows; i++) out.bytes(packed);
  return out.concat();
}

/** A layer of w × h block pattern at (left, top): colour channels and an alpha from `alpha(x, y)`. */
function rawLayer(name, left, top, w, h, { depth = 8, colours = 3, seed = 0, alpha = () => 1, shared, rows = false, ...rest } = {}) {
  const key = shared && `${w}x${h}:${depth}:${colours}:${seed}:${rows}`;
  let channels = key && shared.get(key);
  if (!channels) {
    // rows: each row one value (32-bit rows are 4 B a sample: a 64-px block's row would not repeat within deflate's window).
    const value = rows ? (c) => (x, y) => blockValue(0, y, c, seed) : (c) => (x, y) => blockValue(x, y, c, seed);
    channels = [...Array(colours).keys()].map((c) => [c, zipChannel(w, h, depth, value(c))]);
    channels.push([-1, zipChannel(w, h, depth, alpha)]);
    if (key) shared.set(key, channels);
  }
  return { name, left, top, right: left + w, bottom: top + h, channels: [...channels], ...rest };
}

const BLENDS = ['norm', 'mul ', 'scrn', 'over', 'sLit', 'diff', 'lite', 'dark'];

function deepDoc(depth, mode) {
  const W = 8000, H = 8000, colours = mode === 4 ? 4 : 3;
  const rows = depth === 32;
  const layers = [
    rawLayer('Background', 0, 0, W, H, { depth, colours, rows }),
    rawLayer('Half', 1000, 2000, 5000, 3000, { depth, colours, rows, seed: 3, opacity: 128, blend: 'mul ' }),
  ];
  const masked = rawLayer('Masked', 4000, 4000, 3000, 3000, { depth, colours, rows, seed: 5, alpha: (x, y) => ((y >> 8) % 2 ? 1 : 0.5) });
  masked.mask = { top: 4500, left: 4500, bottom: 6500, right: 6500, defaultColor: 0 };
  masked.channels.push([-2, zipChannel(2000, 2000, depth, (x, y) => y / 2000)]);
  layers.push(masked);
  return rawPsd({ width: W, height: H, depth, mode, layers });
}

/** A PNG of w × h RGB (filter None), rows from rowFn(y, row). */
function png(w, h, rowFn) {
  const raw = Buffer.alloc((w * 3 + 1) * h);
  const row = Buffer.alloc(w * 3);
  for (let y = 0; y < h; y++) { rowFn(y, row); row.copy(raw, y * (w * 3 + 1) + 1); }
  const chunk = (type, body) => {
    const b = Buffer.alloc(12 + body.length);
    b.writeUInt32BE(body.length, 0);
    b.write(type, 4, 'ascii');
    body.copy(b, 8);
    b.writeUInt32BE(crc32(b.subarray(4, 8 + body.length)), 8 + body.length);
    return b;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

/** A VersionInfo resource (1057) saying the merged image is not real ("maximize compatibility" off). */
function versionInfoNoMerged() {
  const body = new Out();
  const uni = (s) => (body.u32(s.length), body.bytes(Uint8Array.from([...s].flatMap((c) => [0, c.charCodeAt(0)]))));
  body.u32(1).u8(0);
  uni('Adobe Photoshop');
  uni('Adobe Photoshop 2024');
  body.u32(1);
  const b = body.concat();
  const r = new Out();
  r.ascii('8BIM').u16(1057).u16(0).u32(b.length).bytes(b);
  if (b.length % 2) r.u8(0);
  return r.concat();
}

const solid = (w, h, rgb, a = 255) => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < data.length; i += 4) (data[i] = rgb[0], data[i + 1] = rgb[1], data[i + 2] = rgb[2], data[i + 3] = a);
  return { width: w, height: h, data };
};
const agpsd = (doc) => writePsdBuffer(doc, { generateThumbnail: false, compress: true });
const textLayer = (name, str, left, top, size, extra = {}) => ({
  name, left, top, right: left + 10, bottom: top + 10,
  text: { text: str, transform: [1, 0, 0, 1, left, top + size], style: { font: { name: 'ArialMT' }, fontSize: size, fillColor: { r: 30, g: 40, b: 90 } }, ...extra.text },
  ...(extra.effects ? { effects: extra.effects } : {}),
});

export const PROBES = {
  'layers-1000': () => manyLayers(1000),
  'layers-1001': () => manyLayers(1001),
  'full-300': () => {
    const shared = new Map();
    const layers = Array.from({ length: 300 }, (_, i) => rawLayer(`Full ${i}`, 0, 0, 4000, 4000, { shared, rows: true, alpha: (x, y) => (y >> 9) % 3 ? 1 : 0.4, blend: BLENDS[i % BLENDS.length], opacity: 90 + ((i * 37) % 166) }));
    return rawPsd({ width: 4000, height: 4000, layers });
  },
  'nest-100': () => nested(100),
  // Photoshop nests groups at most 10 deep: its largest real case, with a clipped layer on each level's dot.
  'nest-10': () => nested(10, true),
  'nest-11': () => nested(11, true),
  'rgb16-8000': () => deepDoc(16, 3),
  'rgb32-8000': () => deepDoc(32, 3),
  'cmyk-8000': () => deepDoc(8, 4),
  'psb-30000': () => rawPsd({ width: 30000, height: 2000, psb: true, layers: [rawLayer('Wide', 0, 0, 30000, 2000)] }),
  'mask-10000': () => {
    const shared = new Map();
    const maskData = zipChannel(10000, 10000, 8, (x, y) => (((x >> 7) + (y >> 7)) % 2 ? 1 : 0.3));
    // (On a 4,000² canvas such a mask is refused at upload: 100 M px > 4 × the canvas; on 8,000² it is accepted.)
    const layers = [rawLayer('Background', 0, 0, 8000, 8000, { shared })];
    for (let i = 0; i < 12; i++) {
      const l = rawLayer(`Small ${i}`, 600 * i, 500 * i, 400, 300, { shared, seed: 1 });
      l.mask = { top: -1000 + 100 * i, left: -1000 + 50 * i, bottom: 9000 + 100 * i, right: 9000 + 50 * i, defaultColor: 0 };
      l.channels.push([-2, maskData]);
      layers.push(l);
    }
    return rawPsd({ width: 8000, height: 8000, layers });
  },
  'far-layer': () => {
    const shared = new Map();
    return rawPsd({
      width: 4000, height: 4000, layers: [
        rawLayer('Background', 0, 0, 4000, 4000, { shared }),
        rawLayer('Far right', 1_000_000, 100, 2000, 2000, { shared, seed: 2 }),
        rawLayer('Far left', -1_000_000, 100, 2000, 2000, { shared, seed: 2 }),
        rawLayer('Far down', 100, 1_000_000, 2000, 2000, { shared, seed: 2 }),
        rawLayer('Wide', -13000, 1000, 30000, 2133, { seed: 4, opacity: 200 }),
      ],
    });
  },
  'text-long': () => {
    const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '.repeat(70).slice(0, 5000);
    return agpsd({ width: 4000, height: 4000, children: [{ name: 'Background', left: 0, top: 0, imageData: solid(4000, 4000, [250, 248, 240]) }, textLayer('Body', words, 200, 200, 40, { text: { shapeType: 'box', boxBounds: [0, 0, 3600, 3600] } })] });
  },
  'text-2000': () => agpsd({ width: 4000, height: 4000, children: [{ name: 'Background', left: 0, top: 0, imageData: solid(4000, 4000, [250, 248, 240]) }, textLayer('Huge', 'AB', 100, 500, 2000)] }),
  'text-many': () => {
    const children = [{ name: 'Background', left: 0, top: 0, imageData: solid(4000, 4000, [250, 248, 240]) }];
    for (let i = 0; i < 300; i++) children.push(textLayer(`Text ${i}`, `Line ${i} personalised`, 50 + (i % 6) * 650, 50 + Math.floor(i / 6) * 78, 60, i % 10 ? {} : { effects: { dropShadow: [dropShadow(1)] } }));
    return agpsd({ width: 4000, height: 4000, children });
  },
  'smart-10000': () => {
    const N = 10000;
    const file = png(N, N, (y, row) => {
      for (let x = 0; x < N; x++) {
        const n = hash(x >> 2, y, 11) & 31;
        row[3 * x] = ((x * 255) / N + n) | 0; row[3 * x + 1] = ((y * 255) / N + n) | 0; row[3 * x + 2] = 128 + (n >> 1);
      }
    });
    const id = '20953ddb-9391-11ec-b4f1-c15674f50bc4';
    const placed = photo(1000, 1000, 4, 12);
    return agpsd({
      width: 4000, height: 4000,
      linkedFiles: [{ id, name: 'huge.png', type: 'png ', creator: '8BIM', data: file }],
      children: [
        { name: 'Background', left: 0, top: 0, imageData: solid(4000, 4000, [240, 240, 240]) },
        { name: 'Photo', left: 1500, top: 1500, imageData: placed, placedLayer: { id, type: 'raster', transform: [1500, 1500, 2500, 1500, 2500, 2500, 1500, 2500], width: N, height: N } },
      ],
    });
  },
  'smart-90mb': () => {
    const N = 5500;
    const file = png(N, N, (y, row) => {
      for (let x = 0; x < 3 * N; x++) row[x] = hash(x, y, 13) & 255;
    });
    const id = '7c1d2a30-9391-11ec-b4f1-c15674f50bc4';
    return agpsd({
      width: 2000, height: 2000,
      linkedFiles: [{ id, name: 'noise.png', type: 'png ', creator: '8BIM', data: file }],
      children: [
        { name: 'Background', left: 0, top: 0, imageData: solid(2000, 2000, [240, 240, 240]) },
        { name: 'Photo', left: 500, top: 500, imageData: photo(1000, 1000, 4, 12), placedLayer: { id, type: 'raster', transform: [500, 500, 1500, 500, 1500, 1500, 500, 1500], width: N, height: N } },
      ],
    });
  },
  'nomerged-10000': () => rawPsd({ width: 10000, height: 10000, resources: versionInfoNoMerged(), layers: [rawLayer('Only', 0, 0, 10000, 10000, { seed: 6 })] }),
};

/** A full-canvas photo under `n` nested isolated groups (normal, 95 %), each with a small layer (and one clipped to it). */
function nested(n, clip = false) {
  const bg = photo(4000, 4000, 16, 9);
  let node = { name: 'Inner', left: 0, top: 0, imageData: bg };
  for (let i = 0; i < n; i++) {
    const dot = { name: `Dot ${i}`, left: 37 * i, top: 29 * i, imageData: solid(60, 60, [i * 2, 255 - i * 2, 100], 200) };
    const clipped = clip ? [{ name: `Clipped ${i}`, left: 37 * i + 20, top: 29 * i, clipping: true, blendMode: 'multiply', imageData: solid(80, 40, [200, 90, 40]) }] : [];
    node = { name: `Group ${i}`, opened: true, blendMode: 'normal', opacity: 0.95, children: [node, dot, ...clipped] };
  }
  return agpsd({ width: 4000, height: 4000, children: [node], imageData: bg });
}

function manyLayers(n) {
  const modes = ['normal', 'multiply', 'screen', 'overlay', 'soft light'];
  const children = [{ name: 'Background', left: 0, top: 0, imageData: solid(4000, 4000, [235, 235, 225]) }];
  for (let i = 1; i < n; i++) {
    const left = (i * 131) % 3850, top = (i * 211) % 3900;
    children.push({ name: `L${i}`, left, top, blendMode: modes[i % 5], opacity: 0.5 + ((i * 7) % 50) / 100, imageData: solid(150, 100, [(i * 53) & 255, (i * 97) & 255, (i * 31) & 255], 128 + (i % 128)) });
  }
  return agpsd({ width: 4000, height: 4000, children });
}

/** bench/out/probe-<name>.psd (or .psb), written when missing (all with `force`); its path. */
export function ensureProbe(name, force = false) {
  const make = PROBES[name];
  if (!make) throw new Error(`no probe template "${name}" (known: ${Object.keys(PROBES).join(', ')})`);
  mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, `probe-${name}.${name.startsWith('psb') ? 'psb' : 'psd'}`);
  if (existsSync(file) && !force) return file;
  const t0 = Date.now();
  const buffer = make();
  writeFileSync(file, buffer);
  process.stderr.write(`wrote ${path.relative(root, file)} (${(buffer.length / 1e6).toFixed(1)} MB, ${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  return file;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const force = process.argv.includes('--force');
  if (process.argv.includes('--probe')) for (const n of names.length ? names : Object.keys(PROBES)) ensureProbe(n, force);
  else ensureLarge(names, force);
}
