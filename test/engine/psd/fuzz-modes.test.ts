import { writePsdUint8Array, type AdjustmentLayer, type BlendMode, type Color, type Layer, type LayerEffectsInfo, type Psd } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { unzlibSync, zlibSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../../src/engine';
import { FileStore } from '../../../src/dynamic-image/store';
import { inkRender } from '../../../src/engine/composite/cmyk-ink';
import { preparePreview } from '../../../src/engine/preview';
import { makePdf, renderDeps } from '../pdf/helpers';
import { compileOrRefused, placeOnCanvasOr, random, rectPath, rendersWholeAndStrip, type Placement, type Random } from '../composite/kit';
import { writeShapeBurst } from './kit';
import { packBits } from '../../helpers/packbits';

/**
 * What the last sessions added to reading and drawing, in every colour mode and depth we accept
 * (issue 25: a 5xx or a hang on an upload or a preview is a miss): random documents written by
 * ag-psd (8-bit RGB, the only thing it writes) with every blend mode, Invert/Levels/Curves/
 * Posterize/Brightness-Contrast and other adjustments, drop and inner shadows, glows, colour
 * overlays, several strokes a layer ('lmfx') in any mode, Overprint, Shape Burst gradient strokes,
 * "Blend Interior Effects as Group", masks with density and feather (the mask-parameter blocks),
 * effect colours picked as RGB, CMYK, Lab or grey; then transcoded byte by byte (Adobe's "Photoshop
 * File Formats Specification") into Grayscale, CMYK, Lab, Duotone or Multichannel at 8, 16 or 32
 * bits, channels raw, RLE, ZIP or ZIP with prediction, the layers in 'Lr16'/'Lr32' above 8 bits,
 * PSB now and then, 32-bit samples past [0, 1] and NaN. Each must compile or be refused with a
 * 422, then render whole, scaled, enlarged, as a strip, composited in ink (CMYK), as the preview
 * the API serves (PNG and JPEG, fitted, enlarged) and, for some, as a print PDF, within the test's
 * time bound. A failing seed rebuilds its file.
 */

const MODES: BlendMode[] = ['normal', 'dissolve', 'darken', 'multiply', 'color burn', 'linear burn', 'darker color', 'lighten', 'screen', 'color dodge', 'linear dodge', 'lighter color', 'overlay', 'soft light', 'hard light', 'vivid light', 'linear light', 'pin light', 'hard mix', 'difference', 'exclusion', 'subtract', 'divide', 'hue', 'saturation', 'color', 'luminosity'];
const px = (value: number) => ({ units: 'Pixels' as const, value });
/**
 * While a document is drawn for the ink compositor (CMYK, every other seed): only what it models
 * (separable modes, colour effects, no knockout, feathered mask or Fill below 100 %), so that the
 * ink path, not its fallback, meets the extremes.
 */
let inky = false;
const blendOf = (r: Random): BlendMode => (r.chance(0.4) ? 'normal' : inky ? r.pick(MODES.filter((m) => m !== 'dissolve' && !['darker color', 'lighter color', 'hue', 'saturation', 'color', 'luminosity'].includes(m))) : r.pick(MODES));

/** Colour modes by number (the header's): Grayscale 1, RGB 3, CMYK 4, Multichannel 7, Duotone 8, Lab 9. */
type Mode = 1 | 3 | 4 | 7 | 8 | 9;

/** An effect colour as Photoshop may store it in a document of `mode` (or, now and then, another kind). */
function colour(r: Random, mode: Mode): Color {
  const kind = r.chance(0.2) ? r.int(4) : mode === 4 ? 1 : mode === 9 ? 2 : mode === 1 || mode === 8 ? 3 : 0;
  if (kind === 1) return { c: r.pick([0, 100, r.int(101)]), m: r.pick([0, 100, r.int(101)]), y: r.int(101), k: r.pick([0, 100, r.int(101)]) } as Color;
  if (kind === 2) return { l: r.pick([0, 100, r.int(101)]), a: r.pick([-128, 127, r.int(256) - 128]), b: r.int(256) - 128 } as Color;
  if (kind === 3) return { k: r.pick([0, 100, r.int(101)]) } as Color;
  return { r: r.int(256), g: r.int(256), b: r.int(256) };
}

function gradient(r: Random, mode: Mode) {
  const n = r.pick([1, 2, 3]);
  return {
    name: 'g',
    type: 'solid' as const,
    smoothness: r.pick([0, 1]),
    colorStops: Array.from({ length: n }, () => ({ color: colour(r, mode), location: r.pick([0, 1, r.next()]), midpoint: 0.5 })),
    opacityStops: [{ opacity: 1, location: 0, midpoint: 0.5 }, { opacity: r.pick([0, 1, r.next()]), location: 1, midpoint: 0.5 }],
  };
}

/** The adjustments composited in ink (and others, which send a CMYK preview to the RGB path). */
function adjustment(r: Random): AdjustmentLayer {
  const levels = () => ({ shadowInput: r.pick([0, 255, r.int(256)]), highlightInput: r.pick([0, 255, r.int(256)]), shadowOutput: r.pick([0, 255]), highlightOutput: r.pick([0, 255]), midtoneInput: r.pick([0.1, 1, 9.99]) });
  const curve = () => Array.from({ length: r.pick([0, 1, 2, 4]) }, () => ({ input: r.pick([0, 255, r.int(256)]), output: r.int(256) }));
  const kinds: Array<() => AdjustmentLayer> = [
    () => ({ type: 'invert' }),
    () => ({ type: 'levels', rgb: levels(), ...(r.chance(0.5) && { red: levels(), green: levels(), blue: levels() }) }),
    () => ({ type: 'curves', rgb: curve(), ...(r.chance(0.5) && { red: curve(), blue: curve() }) }),
    () => ({ type: 'posterize', levels: r.pick([2, 255, 1 + r.int(255)]) }),
    () => ({ type: 'brightness/contrast', brightness: r.slider(150), contrast: r.slider(100, -50), useLegacy: r.chance(0.5) }),
    () => ({ type: 'threshold', level: r.pick([1, 255, r.int(256)]) }),
    () => ({ type: 'hue/saturation', master: { a: 0, b: 0, c: 0, d: 0, hue: r.slider(180), saturation: r.slider(100), lightness: r.slider(100) } }),
    // Marked at compile in 32-bit documents to act on the floats (adjust.ts adjustmentIn32Bits).
    () => ({ type: 'exposure', exposure: r.pick([-20, 20, 1, 0]), offset: r.pick([-0.5, 0.5, 0]), gamma: r.pick([0.01, 9.99, 1]) }),
  ];
  return r.pick(kinds.slice(0, inky ? 5 : 8))();
}

/** Sizes 0, 1, Photoshop's maximum (250, seldom: each costs its reach around the target) or between. */
const size = (r: Random) => px(r.chance(0.06) ? 250 : r.pick([0, 1, r.int(12)]));

function effects(r: Random, mode: Mode): LayerEffectsInfo {
  const fx: LayerEffectsInfo = {};
  const common = () => ({ enabled: r.chance(0.9), present: true, showInDialog: true, blendMode: blendOf(r), opacity: r.pick([0, 1, r.next()]) });
  const shadow = () => ({ ...common(), color: colour(r, mode), size: size(r), distance: px(r.pick([0, 3, 30, 30000])), angle: r.int(361) - 180, choke: px(r.pick([0, 100, r.int(100)])), useGlobalLight: r.chance(0.3), layerConceals: r.chance(0.5), noise: r.pick([0, 0, 1]) });
  const glow = () => ({ ...common(), color: colour(r, mode), size: size(r), technique: r.pick(['precise', 'softer'] as const), choke: px(r.pick([0, 100])), range: r.pick([0.01, 1, r.next()]), noise: r.pick([0, 1]) });
  if (r.chance(0.35)) fx.dropShadow = Array.from({ length: 1 + r.int(2) }, shadow);
  if (r.chance(0.25)) fx.innerShadow = Array.from({ length: 1 + r.int(2) }, shadow);
  if (r.chance(0.25)) fx.outerGlow = glow();
  if (r.chance(0.25)) fx.innerGlow = { ...glow(), source: r.pick(['edge', 'center'] as const) };
  if (r.chance(0.3)) fx.solidFill = Array.from({ length: 1 + r.int(2) }, () => ({ ...common(), color: colour(r, mode) }));
  if (r.chance(inky ? 0 : 0.15)) fx.satin = { ...common(), color: colour(r, mode), size: size(r), distance: px(r.pick([0, 20])), angle: r.int(361) - 180, invert: r.chance(0.5) };
  if (r.chance(0.55)) {
    // Several strokes ('lmfx'), each in its own mode, Overprint on or off, colour or gradient (Shape Burst included).
    fx.stroke = Array.from({ length: r.pick([1, 1, 2, 3]) }, () => {
      const fillType = inky ? 'color' : r.pick(['color', 'color', 'gradient'] as const);
      const style = r.pick(['linear', 'radial', 'angle', 'reflected', 'diamond', 'shapeburst', 'shapeburst'] as const);
      return {
        ...common(),
        overprint: r.chance(0.4),
        size: size(r),
        position: r.pick(['inside', 'outside', 'center'] as const),
        fillType,
        color: colour(r, mode),
        ...(fillType === 'gradient' && { gradient: { ...gradient(r, mode), style: style as 'linear', angle: r.int(361) - 180, scale: r.pick([0.1, 1, 1.5]), reverse: r.chance(0.3), align: r.chance(0.5) } }),
      };
    });
  }
  if (r.chance(0.1)) fx.disabled = true;
  return fx;
}

function pixels(r: Random, w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  const alpha = r.pick([255, 255, 128, 0]);
  const c = [r.int(256), r.int(256), r.int(256)];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data.set([(c[0] + 37 * x) & 255, (c[1] + 11 * y) & 255, c[2], (x + y) % 3 ? 255 : alpha], (y * w + x) * 4);
  return { width: w, height: h, data };
}

function place(r: Random, W: number, H: number): Placement {
  return placeOnCanvasOr(
    r,
    W,
    H,
    () => ({ left: -r.int(W) - 1, top: -r.int(H), w: 1 + r.int(W), h: 1 + r.int(2 * H) }),
  );
}

function options(r: Random, W: number, H: number, mode: Mode, adjustmentLayer = false): Partial<Layer> {
  const o: Partial<Layer> = {};
  if (r.chance(0.3)) {
    const at = place(r, W, H);
    const data = { width: at.w, height: at.h, data: new Uint8ClampedArray(at.w * at.h * 4).fill(r.pick([0, 128, 255])) };
    o.mask = { left: at.left, top: at.top, imageData: data, defaultColor: r.pick([0, 255]), disabled: r.chance(0.1) };
    // The mask-parameter blocks (density, feather; psd-tools #693).
    if (r.chance(0.4)) o.mask.userMaskDensity = r.pick([0, 1, r.next()]);
    if (r.chance(0.4)) o.mask.userMaskFeather = inky ? 0 : r.pick([0, 1, 250]);
    if (r.chance(0.2)) o.mask.vectorMaskDensity = r.pick([0, 1, r.next()]);
    if (r.chance(0.2)) o.mask.vectorMaskFeather = r.pick([0, 3]);
  }
  if (r.chance(0.25)) o.opacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(inky ? 0 : 0.3)) o.fillOpacity = r.pick([0, 1, r.int(256) / 255]);
  if (r.chance(0.3)) o.clipping = true;
  if (r.chance(adjustmentLayer ? 0.05 : 0.6)) o.effects = effects(r, mode);
  if (r.chance(inky ? 0 : 0.3)) o.blendInteriorElements = true;
  if (r.chance(0.15)) o.blendClippendElements = false;
  if (r.chance(inky ? 0 : 0.1)) o.transparencyShapesLayer = false;
  if (r.chance(inky ? 0 : 0.1)) o.knockout = !adjustmentLayer;
  return o;
}

function layer(r: Random, W: number, H: number, mode: Mode, depth: number, i: number): Layer {
  const kind = depth > 1 ? r.pick(['pixels', 'adjustment']) : r.pick(['pixels', 'pixels', 'pixels', 'adjustment', 'adjustment', 'group', inky ? 'pixels' : 'fill']);
  const name = `${kind} ${depth}.${i}`;
  const blendMode = blendOf(r);
  if (kind === 'group') {
    const m = r.pick<BlendMode>(['pass through', 'pass through', 'normal', 'multiply']);
    return { name, blendMode: m, opened: true, ...options(r, W, H, mode), children: Array.from({ length: r.pick([0, 1, 2, 3]) }, (_, j) => layer(r, W, H, mode, depth + 1, j)) };
  }
  if (kind === 'adjustment') return { name, adjustment: adjustment(r), blendMode, ...options(r, W, H, mode, true) };
  const at = place(r, W, H);
  const base: Layer = { name, left: at.left, top: at.top, imageData: pixels(r, at.w, at.h), blendMode, ...options(r, W, H, mode) };
  if (kind === 'fill' && r.chance(0.5)) {
    // A gradient fill, its record without pixels half the time (as Photoshop stores one above 8 bits: composite/gradient-fill.ts).
    base.vectorFill = { ...gradient(r, mode), style: r.pick(['linear', 'radial', 'angle', 'reflected', 'diamond'] as const), angle: r.pick([0, 90, 30, -180, 1e9]), scale: r.pick([0, 0.1, 1, 1.5, 1e4]), reverse: r.chance(0.3), align: r.chance(0.5) };
    if (r.chance(0.5)) Object.assign(base, { imageData: undefined, right: at.left, bottom: at.top });
  } else if (kind === 'fill') base.vectorFill = { type: 'color', color: colour(r, mode) };
  // Interior effects are composited in ink on a layer in Normal mode (a unit of its own) only.
  if (inky && base.effects) base.blendMode = 'normal';
  return base;
}

// --- the transcoder: ag-psd's 8-bit RGB file into another mode, depth and compression -------------

interface Target {
  mode: Mode;
  depth: 8 | 16 | 32;
  /** 0 raw, 1 RLE, 2 ZIP, 3 ZIP with prediction. */
  compression: 0 | 1 | 2 | 3;
  /** Multichannel: channels (2 or 3); the layers dropped (Photoshop's own Multichannel files are flat). */
  inks?: number;
  flat?: boolean;
}

class Reader {
  at = 0;
  private view: DataView;
  constructor(readonly b: Uint8Array, readonly psb: boolean) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  u8() { return this.b[this.at++]; }
  u16() { const v = this.view.getUint16(this.at); this.at += 2; return v; }
  i16() { const v = this.view.getInt16(this.at); this.at += 2; return v; }
  u32() { const v = this.view.getUint32(this.at); this.at += 4; return v; }
  i32() { const v = this.view.getInt32(this.at); this.at += 4; return v; }
  /** A section or channel length: 64 bits in a PSB. */
  len() { return this.psb ? this.u32() * 2 ** 32 + this.u32() : this.u32(); }
  take(n: number) { const v = this.b.subarray(this.at, this.at + n); this.at += n; return v; }
}

class Writer {
  parts: Uint8Array[] = [];
  constructor(readonly psb: boolean) {}
  u16(v: number) { this.parts.push(Uint8Array.of((v >>> 8) & 255, v & 255)); }
  u32(v: number) { this.parts.push(Uint8Array.of((v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255)); }
  len(v: number) { if (this.psb) this.u32(Math.floor(v / 2 ** 32)); this.u32(v >>> 0); }
  bytes(b: Uint8Array) { this.parts.push(b); }
  ascii(s: string) { this.parts.push(Uint8Array.from(s, (c) => c.charCodeAt(0))); }
  get length() { return this.parts.reduce((n, p) => n + p.length, 0); }
  done() {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) (out.set(p, o), (o += p.length));
    return out;
  }
}

function unpackBits(src: Uint8Array, out: Uint8Array, at: number, n: number) {
  let i = 0;
  let o = at;
  while (o < at + n && i < src.length) {
    const h = src[i++];
    if (h < 128) for (let k = 0; k <= h; k++) out[o++] = src[i++];
    else if (h > 128) {
      const v = src[i++];
      for (let k = 0; k < 257 - h; k++) out[o++] = v;
    }
  }
}

/** `rows` rows of `rowBytes` each, 8-bit samples, as ag-psd stored them (raw, RLE or ZIP). */
function decode(compression: number, data: Uint8Array, rows: number, rowBytes: number, psb: boolean): Uint8Array {
  const out = new Uint8Array(rows * rowBytes);
  if (compression === 0) out.set(data.subarray(0, out.length));
  else if (compression === 1) {
    const r = new Reader(data, psb);
    const counts = Array.from({ length: rows }, () => (psb ? r.u32() : r.u16()));
    for (let y = 0; y < rows; y++) unpackBits(r.take(counts[y]), out, y * rowBytes, rowBytes);
  } else {
    out.set(unzlibSync(data).subarray(0, out.length));
    if (compression === 3) for (let y = 0; y < rows; y++) for (let x = 1; x < rowBytes; x++) out[y * rowBytes + x] += out[y * rowBytes + x - 1];
  }
  return out;
}

/** 8-bit samples at `depth` (big-endian), with a few 32-bit floats past [0, 1] or NaN when `wild`. */
function widen(samples: Uint8Array, depth: number, r: Random, wild: boolean): Uint8Array {
  if (depth === 8) return samples;
  const out = new Uint8Array(samples.length * (depth / 8));
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    if (depth === 16) view.setUint16(i * 2, samples[i] * 257);
    else view.setFloat32(i * 4, wild && r.chance(0.05) ? r.pick([1.6, -0.3, 1e30, Number.NaN, Number.POSITIVE_INFINITY]) : samples[i] / 255);
  }
  return out;
}

/** Rows of bytes (`rowBytes` each, samples of `depth`) as `compression` stores them. */
function encode(compression: number, data: Uint8Array, rows: number, rowBytes: number, depth: number, psb: boolean): Uint8Array {
  if (compression === 0) return data;
  if (compression === 1) {
    const w = new Writer(psb);
    const packed = Array.from({ length: rows }, (_, y) => packBits(data.subarray(y * rowBytes, (y + 1) * rowBytes)));
    for (const p of packed) (psb ? w.u32(p.length) : w.u16(p.length));
    for (const p of packed) w.bytes(p);
    return w.done();
  }
  if (compression === 2) return zlibSync(data);
  const out = new Uint8Array(data.length);
  for (let y = 0; y < rows; y++) {
    const row = data.subarray(y * rowBytes, (y + 1) * rowBytes);
    const o = y * rowBytes;
    if (depth === 8) for (let x = 0; x < rowBytes; x++) out[o + x] = row[x] - (x ? row[x - 1] : 0);
    else if (depth === 16) for (let x = 0; x < rowBytes; x += 2) {
      const v = (row[x] << 8) | row[x + 1];
      const d = (v - (x ? (row[x - 2] << 8) | row[x - 1] : 0)) & 0xffff;
      out[o + x] = d >> 8;
      out[o + x + 1] = d & 255;
    } else {
      // Byte-planar: every sample's first byte, then the second …, then each byte less the one before.
      const n = rowBytes / 4;
      const planar = new Uint8Array(rowBytes);
      for (let x = 0; x < n; x++) for (let k = 0; k < 4; k++) planar[k * n + x] = row[x * 4 + k];
      for (let x = 0; x < rowBytes; x++) out[o + x] = planar[x] - (x ? planar[x - 1] : 0);
    }
  }
  return zlibSync(out);
}

/** The colour channels of `mode` from 8-bit R, G, B planes. */
function convert(mode: Mode, inks: number, [R, G, B]: Uint8Array[]): Uint8Array[] {
  const n = R.length;
  const map = (f: (r: number, g: number, b: number) => number) => Uint8Array.from({ length: n }, (_, i) => Math.max(0, Math.min(255, Math.round(f(R[i], G[i], B[i])))));
  const grey = (r: number, g: number, b: number) => 0.3 * r + 0.59 * g + 0.11 * b;
  if (mode === 3) return [R, G, B];
  if (mode === 1 || mode === 8) return [map(grey)];
  if (mode === 9) return [map(grey), map((r, g) => 128 + (r - g) / 2), map((_, g, b) => 128 + (g - b) / 2)];
  if (mode === 7) return [map((r) => r), map((_, g) => g), map((_, __, b) => b)].slice(0, inks);
  // CMYK, stored inverted (255 = no ink): K from the darkest, the rest under it.
  const k = (r: number, g: number, b: number) => 255 - Math.max(r, g, b);
  return [map((r, g, b) => r + k(r, g, b)), map((r, g, b) => g + k(r, g, b)), map((r, g, b) => b + k(r, g, b)), map((r, g, b) => 255 - k(r, g, b))];
}

function transcode(file: Uint8Array, t: Target, r: Random): Uint8Array {
  const psb = file[5] === 2;
  const rd = new Reader(file, psb);
  rd.at = 14;
  const height = rd.u32();
  const width = rd.u32();
  rd.at = 26;
  rd.take(rd.u32()); // colour mode data (ag-psd: none)
  const resources = rd.take(rd.u32());
  const sectionEnd = rd.len() + rd.at;
  const infoLength = rd.len();
  const infoEnd = rd.at + infoLength;
  const wild = r.chance(0.3);
  const colours = (planes: Uint8Array[]) => convert(t.mode, t.inks ?? 3, planes);
  const channelOut = (samples: Uint8Array, rows: number, cols: number) => {
    const compression = r.chance(0.7) ? t.compression : r.int(4);
    const rowBytes = (cols * t.depth) / 8;
    const body = rows * cols ? encode(compression, widen(samples, t.depth, r, wild), rows, rowBytes, t.depth, psb) : new Uint8Array(0);
    return { compression, body };
  };

  // The layer info: records, then each record's channels.
  const info = new Writer(psb);
  if (infoLength && !t.flat) {
    const count = rd.i16();
    type Rec = { rect: number[]; channels: Array<{ id: number; length: number }>; rest: Uint8Array; maskRect?: number[]; realRect?: number[] };
    const recs: Rec[] = [];
    for (let i = 0; i < Math.abs(count); i++) {
      const rect = [rd.i32(), rd.i32(), rd.i32(), rd.i32()];
      const channels = Array.from({ length: rd.u16() }, () => ({ id: rd.i16(), length: rd.len() }));
      const start = rd.at;
      rd.at += 12;
      const extraLength = rd.u32();
      const extraAt = rd.at;
      const maskLength = new DataView(file.buffer, file.byteOffset + extraAt).getUint32(0);
      const dv = new DataView(file.buffer, file.byteOffset + extraAt + 4);
      const rectAt = (o: number) => [dv.getInt32(o), dv.getInt32(o + 4), dv.getInt32(o + 8), dv.getInt32(o + 12)];
      rd.at = extraAt + extraLength;
      recs.push({ rect, channels, rest: file.subarray(start, rd.at), maskRect: maskLength >= 16 ? rectAt(0) : undefined, realRect: maskLength >= 36 ? rectAt(maskLength - 16) : undefined });
    }
    const out = recs.map((rec) => {
      const planes = new Map<number, { data: Uint8Array; rows: number; cols: number }>();
      for (const ch of rec.channels) {
        const compression = rd.u16();
        const data = rd.take(ch.length - 2);
        const [top, left, bottom, right] = (ch.id === -2 ? rec.maskRect : ch.id === -3 ? rec.realRect : rec.rect) ?? [0, 0, 0, 0];
        const rows = Math.max(0, bottom - top);
        const cols = Math.max(0, right - left);
        planes.set(ch.id, { data: rows * cols ? decode(compression, data, rows, cols, psb) : new Uint8Array(0), rows, cols });
      }
      const written: Array<{ id: number; compression: number; body: Uint8Array }> = [];
      const rgb = [0, 1, 2].map((c) => planes.get(c));
      if (rgb.every(Boolean)) {
        const { rows, cols } = rgb[0]!;
        colours(rgb.map((p) => p!.data)).forEach((plane, c) => written.push({ id: c, ...channelOut(plane, rows, cols) }));
      }
      for (const [id, p] of planes) if (id < 0 || id > 2) written.push({ id, ...channelOut(p.data, p.rows, p.cols) });
      return { rec, written };
    });
    info.u16(count & 0xffff);
    for (const { rec, written } of out) {
      for (const v of rec.rect) info.u32(v >>> 0);
      info.u16(written.length);
      for (const ch of written) (info.u16(ch.id & 0xffff), info.len(2 + ch.body.length));
      info.bytes(rec.rest);
    }
    for (const { written } of out) for (const ch of written) (info.u16(ch.compression), info.bytes(ch.body));
    while (info.length % 4) info.bytes(new Uint8Array(1));
  }
  rd.at = infoEnd;
  const tail = file.subarray(rd.at, sectionEnd); // global mask info and global blocks, as written
  rd.at = sectionEnd;

  // The merged image: ag-psd writes RLE planes R, G, B (and alpha).
  const mergedCompression = rd.u16();
  const planeCount = file[13];
  // (ag-psd's PSB of one pixel holds a merged image too short for its RLE counts: white then.)
  let merged: Uint8Array;
  try {
    merged = decode(mergedCompression, rd.take(file.length - rd.at), planeCount * height, width, psb);
  } catch {
    merged = new Uint8Array(planeCount * height * width).fill(255);
  }
  const plane = (c: number) => merged.subarray(c * width * height, (c + 1) * width * height);
  const planes = [...colours([plane(0), plane(1), plane(2)]), ...(planeCount > 3 ? [plane(3)] : [])];
  const compression = r.pick([0, 1, t.depth === 8 ? 1 : 2]);
  const rowBytes = (width * t.depth) / 8;
  const mergedBody = compression === 2
    ? encode(2, widen(Uint8Array.from(planes.flatMap((p) => [...p])), t.depth, r, false), planes.length * height, rowBytes, t.depth, psb)
    : (() => {
        const wide = planes.map((p) => widen(p, t.depth, r, false));
        if (compression === 0) return Uint8Array.from(wide.flatMap((p) => [...p]));
        const packed = wide.flatMap((p) => Array.from({ length: height }, (_, y) => packBits(p.subarray(y * rowBytes, (y + 1) * rowBytes))));
        const w = new Writer(psb);
        for (const p of packed) (psb ? w.u32(p.length) : w.u16(p.length));
        for (const p of packed) w.bytes(p);
        return w.done();
      })();

  const w = new Writer(psb);
  w.bytes(file.subarray(0, 12));
  w.u16(planes.length);
  w.u32(height);
  w.u32(width);
  w.u16(t.depth);
  w.u16(t.mode);
  // Duotone: Photoshop's colour mode data (its inks) is opaque to readers: a few bytes of it.
  const modeData = t.mode === 8 ? Uint8Array.from({ length: 16 }, () => r.int(256)) : new Uint8Array(0);
  w.u32(modeData.length);
  w.bytes(modeData);
  w.u32(resources.length);
  w.bytes(resources);
  const section = new Writer(psb);
  const layers = info.done();
  if (t.depth === 8 || !layers.length) {
    section.len(layers.length);
    section.bytes(layers);
    section.bytes(tail);
  } else {
    // Above 8 bits: an empty layer info, the layers in 'Lr16'/'Lr32' after the global mask info.
    section.len(0);
    const maskInfo = 4 + new DataView(tail.buffer, tail.byteOffset).getUint32(0);
    section.bytes(tail.subarray(0, maskInfo));
    section.ascii(`8BIMLr${t.depth}`);
    section.len(layers.length);
    section.bytes(layers);
    section.bytes(tail.subarray(maskInfo));
  }
  w.len(section.length);
  w.bytes(section.done());
  w.u16(compression);
  w.bytes(mergedBody);
  return w.done();
}

const TARGETS: Target[] = [
  { mode: 3, depth: 8, compression: 1 },
  { mode: 4, depth: 8, compression: 1 },
  { mode: 4, depth: 8, compression: 2 },
  { mode: 4, depth: 16, compression: 3 },
  { mode: 1, depth: 8, compression: 0 },
  { mode: 1, depth: 16, compression: 2 },
  { mode: 1, depth: 32, compression: 3 },
  { mode: 3, depth: 16, compression: 1 },
  { mode: 3, depth: 32, compression: 3 },
  { mode: 3, depth: 32, compression: 0 },
  { mode: 9, depth: 8, compression: 1 },
  { mode: 9, depth: 16, compression: 3 },
  { mode: 8, depth: 8, compression: 1 },
  { mode: 7, depth: 8, compression: 1, inks: 2, flat: true },
  { mode: 7, depth: 16, compression: 3, inks: 3, flat: true },
  { mode: 7, depth: 8, compression: 0, inks: 3 },
  { mode: 4, depth: 32, compression: 0 },
  { mode: 9, depth: 32, compression: 2 },
];

function document(seed: number, ink?: Target) {
  const r = random(seed);
  const target = ink ?? TARGETS[seed % TARGETS.length];
  inky = !!ink || (target.mode === 4 && Math.floor(seed / TARGETS.length) % 2 === 0);
  const [width, height] = r.pick([[1, 1], [24, 16], [24, 16], [30, 20], [9, 33]]);
  const children: Layer[] = r.chance(0.85) ? [{ name: 'bg', left: 0, top: 0, imageData: pixels(r, width, height) }] : [];
  for (let i = 0, n = 1 + r.int(5); i < n; i++) children.push(layer(r, width, height, target.mode, 0, i));
  const psd: Psd = { width, height, children };
  const burst = JSON.stringify(children, (k, v) => (k === 'imageData' ? 0 : v)).includes('shapeburst');
  const psb = !burst && r.chance(0.2);
  const rgb = burst ? writeShapeBurst(psd) : writePsdUint8Array(psd, { psb, generateThumbnail: false });
  return { bytes: transcode(rgb, target, r), width, height, target, r };
}

const FOLDER = 'fuzz-modes';
const SEEDS = Array.from({ length: 54 }, (_, i) => 7000 + i);
/** Seeds compiled and refused, by mode and depth: the generator must give mostly files we accept. */
const tally = new Map<string, { compiled: number; refused: number; inked: number }>();

describe('random documents of every mode and depth with what the last sessions added', () => {
  it.each(SEEDS)('seed %i compiles or is refused with a 422, then renders, previews and prints', async (seed) => {
    const { bytes, width, height, target } = document(seed);
    const what = `seed ${seed} (mode ${target.mode}, ${target.depth} bits)`;
    const compiled = await compileOrRefused(bytes, what);
    const key = `${target.mode}/${target.depth}`;
    const count = tally.get(key) ?? { compiled: 0, refused: 0, inked: 0 };
    tally.set(key, count);
    count[compiled ? 'compiled' : 'refused']++;
    if (!compiled) return;
    let step = 'render or strip';
    try {
      await rendersWholeAndStrip(compiled, [1, 0.5, 1.7], Math.floor(height / 3));
      step = 'ink render';
      const ink = await inkRender(bytes, compiled);
      if (ink) expect(ink.data.length).toBe(width * height * 4);
      if (ink) count.inked++;
      step = 'preview';
      const store = new FileStore(env.FILES);
      const name = `${FOLDER}/${seed}.psd`;
      await store.put('templates', name, bytes, { contentType: 'image/vnd.adobe.photoshop' });
      // Fitted at full size (the ink path for CMYK), smaller, and enlarged (the RGB path's fallback).
      for (const [size, format] of [[{ width, height }, 'png'], [{ width: Math.max(1, width >> 1), height }, 'jpg'], [{ width: width * 2, height: height * 2 }, seed % 2 ? 'png' : 'jpg']] as const) {
        const prepared = await preparePreview(store, { template: name, format, size, jpegQuality: 90, unsharpMask: seed % 3 ? null : { amount: 1, radius: 1, threshold: 0 } }, renderDeps());
        const out = await prepared.render();
        expect(out.bytes.length).toBeGreaterThan(0);
      }
      if (seed % 3 === 0) {
        step = 'PDF';
        const made = await makePdf({ template: name }, 2, seed % 2 === 0);
        expect(made.bytes.length).toBeGreaterThan(0);
      }
    } catch (e) {
      throw new Error(`${what}: ${step} threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
    }
  }, 20_000);

  it('most documents compile: the modes and depths we accept are drawn, not refused', () => {
    console.log(`FUZZ-MODES ${JSON.stringify(Object.fromEntries(tally))}`);
    const all = [...tally.values()];
    expect(all.reduce((n, c) => n + c.compiled, 0)).toBeGreaterThan(all.reduce((n, c) => n + c.refused, 0));
  });
});

/** CMYK documents of what the ink compositor models, so that its extremes meet the ink path, not its fallback. */
const INK_SEEDS = Array.from({ length: 24 }, (_, i) => 8000 + i);

let inked = 0;

describe('random CMYK documents composited in ink', () => {
  it.each(INK_SEEDS)('seed %i composites in ink (or falls back) without throwing, whole, fitted, enlarged and printed', async (seed) => {
    const target: Target = seed % 3 ? { mode: 4, depth: 8, compression: 1 } : { mode: 4, depth: 16, compression: 3 };
    const { bytes, width, height } = document(seed, target);
    const what = `ink seed ${seed} (${target.depth} bits)`;
    const compiled = await compileOrRefused(bytes, what);
    if (!compiled) return;
    let step = 'ink render';
    try {
      if (await inkRender(bytes, compiled)) inked++;
      step = 'preview';
      const store = new FileStore(env.FILES);
      const name = `${FOLDER}/ink-${seed}.psd`;
      await store.put('templates', name, bytes, { contentType: 'image/vnd.adobe.photoshop' });
      for (const size of [{ width, height }, { width: Math.ceil(width / 3), height }, { width: width * 2, height: height * 2 }]) {
        const out = await (await preparePreview(store, { template: name, format: seed % 2 ? 'png' : 'jpg', size, jpegQuality: 90, unsharpMask: null }, renderDeps())).render();
        expect(out.bytes.length).toBeGreaterThan(0);
      }
      if (seed % 4 === 0) {
        step = 'PDF';
        expect((await makePdf({ template: name }, 3, seed % 8 === 0)).bytes.length).toBeGreaterThan(0);
      }
    } catch (e) {
      throw new Error(`${what}: ${step} threw ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${(e as Error)?.stack}`, { cause: e });
    }
  }, 20_000);

  it('most of them take the ink path', () => {
    console.log(`FUZZ-INK composited in ink: ${inked} of ${INK_SEEDS.length}`);
    expect(inked).toBeGreaterThanOrEqual(INK_SEEDS.length / 2);
  });
});

describe('what the fuzzing found', () => {
  it('seed 8020: a group’s inner shadow 30,000 px away composites in ink over what it reads, not a 60,000² surface', async () => {
    // pdf/ink-composite.ts drawGroupWithEffects drew the group's children over the area grown by
    // the effects' whole reach: 14.4 GB asked for, the workerd process gone (fixed in 3d50ebb).
    const { bytes } = document(8020, { mode: 4, depth: 8, compression: 1 });
    const compiled = (await compileOrRefused(bytes, 'seed 8020'))!;
    const ink = await inkRender(bytes, compiled);
    expect(ink?.data.length).toBe(compiled.width * compiled.height * 4);
  });

  it('a pixel mask at Photoshop’s largest feather (1,000 px) renders in bounded time and memory', async () => {
    // The mask was blurred over the target grown by 3σ on every side: (24 + 6,000) × (16 + 6,000)
    // floats three times over for a 24 × 16 document, 8 s to compile and 5 s to render in Node
    // (2,000 px: 50 s and 35 s); with the patch 53 ms and 1 ms.
    const mask = { left: 2, top: 2, imageData: pixels(random(1), 10, 10), defaultColor: 0, userMaskFeather: 1000, userMaskDensity: 0.5 };
    const bytes = writePsdUint8Array({ width: 24, height: 16, children: [{ name: 'bg', left: 0, top: 0, imageData: pixels(random(2), 24, 16) }, { name: 'feathered', left: 0, top: 0, imageData: pixels(random(3), 24, 16), mask }] });
    const compiled = (await compileOrRefused(bytes, 'feather 1000'))!;
    for (const scale of [1, 0.5, 1.7]) expect((await renderTemplate(env.FILES, compiled, { scale })).width).toBe(Math.max(1, Math.round(24 * scale)));
  }, 5_000);

  it('a vector mask at Photoshop’s largest feather (1,000 px) renders in bounded time and memory, inverted too', async () => {
    // As the pixel mask: the path was rasterised and blurred over the target grown by 3σ (10 s to
    // render this in the test runtime); now over the target and the paths' box within reach. A
    // 10 × 10 path blurred that far shows almost none of the red layer over white; inverted, all of it.
    const plane = (rgb: number[]) => ({ width: 24, height: 16, data: new Uint8ClampedArray(24 * 16 * 4).map((_, i) => (i % 4 === 3 ? 255 : rgb[i % 4]!)) });
    for (const invert of [false, true]) {
      const bytes = writePsdUint8Array({
        width: 24,
        height: 16,
        children: [
          { name: 'white', left: 0, top: 0, imageData: plane([255, 255, 255]) },
          { name: 'feathered', left: 0, top: 0, imageData: plane([255, 0, 0]), vectorMask: { invert, paths: [rectPath(7, 3, 17, 13)] }, mask: { vectorMaskFeather: 1000 } },
        ],
      });
      const compiled = (await compileOrRefused(bytes, `vector feather 1000${invert ? ', inverted' : ''}`))!;
      for (const scale of [1, 0.5, 1.7]) {
        const img = await renderTemplate(env.FILES, compiled, { scale });
        expect(img.width).toBe(Math.max(1, Math.round(24 * scale)));
        const centre = (Math.floor(img.height / 2) * img.width + Math.floor(img.width / 2)) * 4;
        expect(img.data[centre + 1]).toBe(invert ? 0 : 255); // green: white shows, or the red layer
      }
    }
  }, 5_000);
});
