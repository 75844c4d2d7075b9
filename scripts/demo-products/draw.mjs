// Drawing helpers of the demo products' PSD script (make.mjs): RGBA layers with antialiased
// shapes, flat-colour illustrations (their rows repeat, so the PSD's RLE keeps the files small),
// text pixels rendered by resvg the way the engine re-renders a text layer, and a compositor for
// the merged image (normal and multiply, opacity, clipping), so every reader sees the same picture.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { initWasm, Resvg } from '@resvg/resvg-wasm';

const root = path.resolve(import.meta.dirname, '../..');
await initWasm(readFileSync(path.join(root, 'node_modules/@resvg/resvg-wasm/index_bg.wasm')));

/** A transparent w×h RGBA image. */
export const blank = (width, height) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) });

/** An image whose pixel (x, y) is at(x, y) → [r, g, b, a]. */
export function paint(width, height, at) {
  const img = blank(width, height);
  for (let y = 0, i = 0; y < height; y++) for (let x = 0; x < width; x++, i += 4) img.data.set(at(x, y), i);
  return img;
}

/**
 * Fills the shape `inside(x, y)` (pixel centres at +0.5) with `rgb` into `img`, antialiased by
 * 4×4 supersampling over the box [x0, x1) × [y0, y1); the colour may be a function of (x, y).
 */
export function fillShape(img, inside, rgb, box = { x0: 0, y0: 0, x1: img.width, y1: img.height }, opacity = 1) {
  const x0 = Math.max(0, Math.floor(box.x0)), y0 = Math.max(0, Math.floor(box.y0));
  const x1 = Math.min(img.width, Math.ceil(box.x1)), y1 = Math.min(img.height, Math.ceil(box.y1));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      let n = 0;
      for (let sy = 0; sy < 4; sy++) for (let sx = 0; sx < 4; sx++) if (inside(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4)) n++;
      if (!n) continue;
      const c = typeof rgb === 'function' ? rgb(x, y) : rgb;
      over(img, x, y, c, (n / 16) * opacity);
    }
  }
}

/** Source-over of colour `c` at coverage `a` onto pixel (x, y). */
function over(img, x, y, c, a) {
  const i = (y * img.width + x) * 4;
  const da = img.data[i + 3] / 255;
  const oa = a + da * (1 - a);
  if (oa <= 0) return;
  for (let k = 0; k < 3; k++) img.data[i + k] = (c[k] * a + img.data[i + k] * da * (1 - a)) / oa;
  img.data[i + 3] = oa * 255;
}

export const circle = (cx, cy, r) => (x, y) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
/** A convex polygon [x0,y0, x1,y1, …] (either winding). */
export function polygon(pts) {
  return (x, y) => {
    let sign = 0;
    for (let i = 0; i < pts.length; i += 2) {
      const [ax, ay, bx, by] = [pts[i], pts[i + 1], pts[(i + 2) % pts.length], pts[(i + 3) % pts.length]];
      const s = Math.sign((bx - ax) * (y - ay) - (by - ay) * (x - ax));
      if (s === 0) continue;
      if (sign === 0) sign = s;
      else if (s !== sign) return false;
    }
    return true;
  };
}
export const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);

/**
 * A landscape "photo" (w × h, opaque): a dawn sky in vertical bands, a sun, and three ranges of
 * hills; flat colours per row segment, so it compresses well and prints cleanly in CMYK.
 */
export function landscape(w, h, { sky = [[246, 196, 140], [120, 170, 205]], hills = [[96, 142, 128], [58, 110, 104], [31, 78, 95]] } = {}) {
  const img = paint(w, h, (x, y) => [...mix(sky[1], sky[0], Math.min(1, y / (h * 0.62))).map((v) => Math.round(v / 3) * 3), 255]);
  fillShape(img, circle(w * 0.68, h * 0.42, h * 0.11), [255, 236, 200]);
  const ridge = (base, amp, freq, phase) => (x, y) => y >= h * base + amp * h * Math.sin((x / w) * freq + phase) + amp * 0.4 * h * Math.sin((x / w) * freq * 2.7 + phase * 1.3);
  fillShape(img, ridge(0.55, 0.06, 5, 0.5), hills[0]);
  fillShape(img, ridge(0.68, 0.05, 7, 2.1), hills[1]);
  fillShape(img, ridge(0.8, 0.04, 4, 4.0), hills[2]);
  return img;
}

/** The part [l, t, r, b) of `img`. */
export function crop(img, l, t, r, b) {
  const out = blank(r - l, b - t);
  for (let y = t; y < b; y++) out.data.set(img.data.subarray((y * img.width + l) * 4, (y * img.width + r) * 4), (y - t) * out.width * 4);
  return out;
}

/** The box [l, t, r, b) of the pixels of `img` that are not fully transparent, or null. */
export function opaqueBox(img) {
  let l = img.width, t = img.height, r = 0, b = 0;
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) {
    if (!img.data[(y * img.width + x) * 4 + 3]) continue;
    l = Math.min(l, x); t = Math.min(t, y); r = Math.max(r, x + 1); b = Math.max(b, y + 1);
  }
  return r > l ? [l, t, r, b] : null;
}

const fonts = new Map();
export function fontBytes(file) {
  if (!fonts.has(file)) fonts.set(file, readFileSync(path.join(root, 'assets/fonts', file)));
  return fonts.get(file);
}

/** Typographic ascender in em (OS/2 sTypoAscender, else hhea), as the engine's metrics read it. */
export function ascender(file) {
  const bytes = fontBytes(file);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tables = {};
  for (let i = 0, n = v.getUint16(4); i < n; i++) tables[String.fromCharCode(...bytes.subarray(12 + i * 16, 16 + i * 16))] = v.getUint32(12 + i * 16 + 8);
  const upm = v.getUint16(tables.head + 18);
  const asc = tables['OS/2'] ? v.getInt16(tables['OS/2'] + 68) : v.getInt16(tables.hhea + 4);
  return asc / upm;
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * A text layer for ag-psd with the pixels the engine draws when it re-renders the layer: point
 * text with its first baseline at (x, y); box text (`box: {width, height}`) at top-left (x, y)
 * with its first baseline one ascent below the top. Lines are given (`\n`), never wrapped here,
 * so the box must be wide enough for each. `align`: left, center, right.
 */
export function textLayer(name, { text, x, y, font, size, color, align = 'left', box, leading = 1.2, tracking = 0, canvas }) {
  const lines = text.split('\n');
  const anchor = { left: 'start', center: 'middle', right: 'end' }[align];
  const first = box ? ascender(font) * size : 0;
  const ax = box ? { left: 0, center: box.width / 2, right: box.width }[align] : 0;
  const tspans = lines.map((l, i) => `<text x="${ax}" y="${first + i * size * leading}" text-anchor="${anchor}">${esc(l)}</text>`).join('');
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${canvas.width}" height="${canvas.height}" viewBox="0 0 ${canvas.width} ${canvas.height}">` +
    `<g transform="matrix(1 0 0 1 ${x} ${y})" font-family="Lato" font-size="${size}"${tracking ? ` letter-spacing="${(tracking / 1000) * size}"` : ''} fill="rgb(${color.join(',')})" xml:space="preserve" font-kerning="normal">${tspans}</g></svg>`;
  const pixels = renderSvg(svg, font);
  const [l, t, r, b] = opaqueBox(pixels);
  const family = { 'Lato-Regular.ttf': 'Lato-Regular', 'Lato-Bold.ttf': 'Lato-Bold', 'Lato-Light.ttf': 'Lato-Light' }[font];
  return {
    name, left: l, top: t, right: r, bottom: b, imageData: crop(pixels, l, t, r, b),
    text: {
      text: lines.join('\r'),
      transform: [1, 0, 0, 1, x, y],
      antiAlias: 'smooth',
      style: { font: { name: family }, fontSize: size, fillColor: { r: color[0], g: color[1], b: color[2] }, autoKerning: true, autoLeading: leading === 1.2, leading: size * leading, tracking },
      paragraphStyle: { justification: align },
      ...(box ? { shapeType: 'box', boxBounds: [0, 0, box.width, box.height] } : { shapeType: 'point' }),
    },
  };
}

/** An SVG rendered with one font (unpremultiplied RGBA). */
export function renderSvg(svg, font) {
  const out = new Resvg(svg, { font: { fontBuffers: [fontBytes(font)], loadSystemFonts: false, defaultFontFamily: 'Lato' } }).render();
  const img = { width: out.width, height: out.height, data: new Uint8ClampedArray(out.pixels) };
  for (let i = 0; i < img.data.length; i += 4) {
    const a = img.data[i + 3];
    if (a && a < 255) for (let k = 0; k < 3; k++) img.data[i + k] = Math.round((img.data[i + k] * 255) / a);
  }
  return img;
}

/** A raster layer at (left, top). */
export const layer = (name, left, top, imageData, extra = {}) => ({ name, left, top, right: left + imageData.width, bottom: top + imageData.height, imageData, ...extra });

/** The pixels of `img` that `shape` covers, as a layer cut to the shape's box [l, t, r, b). */
export function shapeLayer(name, canvas, shape, rgb, box, extra = {}) {
  const img = blank(canvas.width, canvas.height);
  fillShape(img, shape, rgb, { x0: box[0], y0: box[1], x1: box[2], y1: box[3] });
  const [l, t, r, b] = opaqueBox(img);
  return layer(name, l, t, crop(img, l, t, r, b), extra);
}

const BLEND = { normal: (b, s) => s, multiply: (b, s) => (b * s) / 255, screen: (b, s) => 255 - ((255 - b) * (255 - s)) / 255 };

/**
 * The merged image of `layers` (bottom first, flat: no groups) over white: normal, multiply
 * and screen blending, opacity, and clipping (a clipped layer shows only where its base is).
 */
export function composite(width, height, layers) {
  const out = new Float32Array(width * height * 3).fill(255);
  let base = null;
  for (const l of layers) {
    if (!l.clipping) base = l;
    if (l.hidden) continue;
    const f = BLEND[l.blendMode ?? 'normal'];
    const { imageData: img } = l;
    for (let y = 0; y < img.height; y++) {
      const Y = l.top + y;
      if (Y < 0 || Y >= height) continue;
      for (let x = 0; x < img.width; x++) {
        const X = l.left + x;
        if (X < 0 || X >= width) continue;
        const s = (y * img.width + x) * 4;
        let a = (img.data[s + 3] / 255) * (l.opacity ?? 1);
        if (l.clipping && base) {
          const bx = X - base.left, by = Y - base.top;
          a *= bx >= 0 && by >= 0 && bx < base.imageData.width && by < base.imageData.height ? base.imageData.data[(by * base.imageData.width + bx) * 4 + 3] / 255 : 0;
        }
        if (!a) continue;
        const d = (Y * width + X) * 3;
        for (let k = 0; k < 3; k++) out[d + k] = out[d + k] * (1 - a) + f(out[d + k], img.data[s + k]) * a;
      }
    }
  }
  const img = blank(width, height);
  for (let i = 0, j = 0; i < out.length; i += 3, j += 4) img.data.set([out[i], out[i + 1], out[i + 2], 255], j);
  return img;
}

/** A closed vector path (ag-psd knots) around the circle (cx, cy, r): four Bézier segments. */
export function circlePath(cx, cy, r) {
  const k = 0.5523 * r;
  const knot = (x, y, dx, dy) => ({ linked: true, points: [x - dx, y - dy, x, y, x + dx, y + dy] });
  return { open: false, operation: 'combine', knots: [knot(cx, cy - r, k, 0), knot(cx + r, cy, 0, k), knot(cx, cy + r, -k, 0), knot(cx - r, cy, 0, -k)] };
}
