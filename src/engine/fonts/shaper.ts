/**
 * Text shaping with HarfBuzz (issue 21 §3): glyph ids, advances and offsets as a real shaper
 * gives them (Arabic joining, Devanagari and Thai reordering and marks, kerning by GPOS or kern),
 * for line measurement (FontMetrics.textAdvance) and for the PDF's Text mode. Text that mixes
 * directions is split by the Unicode bidi algorithm (UAX #9, bidi-js) and text that mixes fonts
 * by the first font that has each character (as resvg falls back); each run is shaped with its
 * font and direction, and runs come back in visual order.
 *
 * harfbuzzjs's own wrapper instantiates its WASM at import time from bytes, which Workers
 * forbid; we import the compiled module (as for resvg) and call HarfBuzz's C API through its
 * exports. It is instantiated on first use, synchronously (a compiled module may be), so
 * nothing happens at Worker start-up and callers stay synchronous. HarfBuzz fonts are kept per
 * font bytes, the least recently used destroyed beyond 24 MB of font data.
 *
 * @example
 *   const runs = shapeText([templateFont, arabicFallback], 'Ali علي');
 *   // [{ font: 0, rtl: false, glyphs: [...] }, { font: 1, rtl: true, glyphs: [...] }]
 */
import harfbuzzWasm from 'harfbuzzjs/dist/harfbuzz.wasm';
import bidiFactory from 'bidi-js';
import { fontMetrics, withFallbacks, type FontMetrics } from './metrics';

export interface ShapedGlyph {
  /** Glyph id in the run's font. */
  gid: number;
  /** UTF-16 index in the shaped text of the first character of the glyph's cluster. */
  cluster: number;
  /** Advance and offsets in font units. */
  xAdvance: number;
  xOffset: number;
  yOffset: number;
}

export interface ShapedRun {
  /** Index of the run's font in the list given. */
  font: number;
  unitsPerEm: number;
  rtl: boolean;
  /** The run's characters: text.slice(start, end). */
  start: number;
  end: number;
  /** In visual order (left to right), as HarfBuzz returns them. */
  glyphs: ShapedGlyph[];
}

export interface ShapeOptions {
  /** Paragraph direction; by default the first strong character's (UAX #9 P2, P3). */
  direction?: 'ltr' | 'rtl';
}

interface HarfBuzzExports {
  memory: WebAssembly.Memory;
  __wasm_call_ctors(): void;
  malloc(size: number): number;
  free(ptr: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_get_upem(face: number): number;
  hb_font_create(face: number): number;
  hb_font_destroy(font: number): void;
  hb_buffer_create(): number;
  hb_buffer_destroy(buffer: number): void;
  hb_buffer_clear_contents(buffer: number): void;
  hb_buffer_add_utf16(buffer: number, text: number, length: number, offset: number, itemLength: number): void;
  hb_buffer_set_direction(buffer: number, direction: number): void;
  hb_buffer_guess_segment_properties(buffer: number): void;
  hb_buffer_get_length(buffer: number): number;
  hb_buffer_get_glyph_infos(buffer: number, length: number): number;
  hb_buffer_get_glyph_positions(buffer: number, length: number): number;
  hb_shape(font: number, buffer: number, features: number, featureCount: number): void;
  hb_version_string(): number;
}

const HB_MEMORY_MODE_READONLY = 1;
const HB_DIRECTION_LTR = 4;
const HB_DIRECTION_RTL = 5;

let instance: HarfBuzzExports | undefined;

/** HarfBuzz's exports, instantiated on first use. Its five imports are Emscripten's runtime hooks. */
function harfbuzz(): HarfBuzzExports {
  if (instance) return instance;
  let exports: HarfBuzzExports | undefined;
  const fail = (what: string) => () => {
    throw new Error(`HarfBuzz: ${what}`);
  };
  const imports = {
    env: {
      _abort_js: fail('abort'),
      _emscripten_runtime_keepalive_clear: () => {},
      _setitimer_js: () => 0,
      // malloc asks for a larger heap: grow the memory to at least the requested size.
      emscripten_resize_heap: (requested: number) => {
        const memory = exports!.memory;
        const needed = (requested >>> 0) - memory.buffer.byteLength;
        try {
          if (needed > 0) memory.grow(Math.ceil(needed / 65536));
          return 1;
        } catch {
          return 0;
        }
      },
    },
    wasi_snapshot_preview1: { proc_exit: fail('exit') },
  };
  exports = new WebAssembly.Instance(harfbuzzWasm, imports).exports as unknown as HarfBuzzExports;
  exports.__wasm_call_ctors();
  return (instance = exports);
}

/** The HarfBuzz version the shaper runs (docs/fonts.md compares it with Debian's hb-shape). */
export function harfbuzzVersion(): string {
  const hb = harfbuzz();
  const heap = new Uint8Array(hb.memory.buffer);
  const ptr = hb.hb_version_string();
  return new TextDecoder().decode(heap.subarray(ptr, heap.indexOf(0, ptr)));
}

interface HbFont {
  font: number;
  /** The font's copy in the WASM heap. */
  data: number;
  bytes: number;
  upem: number;
}

/**
 * HarfBuzz fonts by font bytes (the font cache hands out the same array for the same file), least
 * recently used destroyed first beyond MAX_FONT_BYTES: WASM memory does not shrink, so the heap
 * holds at most about that much font data however many fonts an isolate meets.
 */
const fonts = new Map<Uint8Array, HbFont>();
const MAX_FONT_BYTES = 24 * 1024 * 1024;
let fontBytes = 0;

function hbFont(bytes: Uint8Array): HbFont {
  const hit = fonts.get(bytes);
  if (hit) {
    fonts.delete(bytes);
    fonts.set(bytes, hit);
    return hit;
  }
  const hb = harfbuzz();
  for (const [key, old] of fonts) {
    if (fontBytes + bytes.byteLength <= MAX_FONT_BYTES) break;
    hb.hb_font_destroy(old.font);
    hb.free(old.data);
    fontBytes -= old.bytes;
    fonts.delete(key);
  }
  const data = hb.malloc(bytes.byteLength);
  new Uint8Array(hb.memory.buffer).set(bytes, data);
  const blob = hb.hb_blob_create(data, bytes.byteLength, HB_MEMORY_MODE_READONLY, 0, 0);
  const face = hb.hb_face_create(blob, 0);
  const entry = { font: hb.hb_font_create(face), data, bytes: bytes.byteLength, upem: hb.hb_face_get_upem(face) };
  hb.hb_face_destroy(face);
  hb.hb_blob_destroy(blob);
  fonts.set(bytes, entry);
  fontBytes += entry.bytes;
  return entry;
}

/**
 * One HarfBuzz buffer and one UTF-16 scratch area for the isolate, emptied before each use
 * (hb_buffer_clear_contents keeps nothing of the text, direction or script it held; we set no
 * flags, unicode functions or replacement glyph to keep): a run costs no buffer creation, malloc
 * or free (issue 25 §3).
 */
let scratch: { buffer: number; utf16: number; units: number } | undefined;

/** Shapes `text` into the isolate's buffer; its glyph count. */
function shapeInto(bytes: Uint8Array, text: string, direction: 'ltr' | 'rtl' | undefined): { hb: HarfBuzzExports; buffer: number; count: number } {
  const hb = harfbuzz();
  const { font } = hbFont(bytes);
  scratch ??= { buffer: hb.hb_buffer_create(), utf16: 0, units: 0 };
  if (scratch.units < text.length || !scratch.utf16) {
    if (scratch.utf16) hb.free(scratch.utf16);
    scratch.units = Math.max(64, text.length);
    scratch.utf16 = hb.malloc(scratch.units * 2);
  }
  const { buffer, utf16 } = scratch;
  hb.hb_buffer_clear_contents(buffer);
  const units = new Uint16Array(hb.memory.buffer, utf16, text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  hb.hb_buffer_add_utf16(buffer, utf16, text.length, 0, text.length);
  if (direction) hb.hb_buffer_set_direction(buffer, direction === 'rtl' ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
  hb.hb_buffer_guess_segment_properties(buffer);
  hb.hb_shape(font, buffer, 0, 0);
  return { hb, buffer, count: hb.hb_buffer_get_length(buffer) };
}

/**
 * Shapes one run of text with one font (no bidi, no fallback): what `hb-shape` does with
 * `--direction` given, or with the direction HarfBuzz guesses from the script.
 */
export function shapeRun(bytes: Uint8Array, text: string, direction?: 'ltr' | 'rtl', clusterOffset = 0): ShapedGlyph[] {
  const { hb, buffer, count } = shapeInto(bytes, text, direction);
  // hb_glyph_info_t and hb_glyph_position_t are five 32-bit fields each.
  const infos = new Uint32Array(hb.memory.buffer, hb.hb_buffer_get_glyph_infos(buffer, 0), count * 5);
  const positions = new Int32Array(hb.memory.buffer, hb.hb_buffer_get_glyph_positions(buffer, 0), count * 5);
  const glyphs: ShapedGlyph[] = [];
  for (let i = 0; i < count; i++) {
    glyphs.push({
      gid: infos[i * 5],
      cluster: infos[i * 5 + 2] + clusterOffset,
      xAdvance: positions[i * 5],
      xOffset: positions[i * 5 + 2],
      yOffset: positions[i * 5 + 3],
    });
  }
  return glyphs;
}

let bidi: ReturnType<typeof bidiFactory> | undefined;

/** Marks, joiners and variation selectors stay in the font of the character they attach to. */
const ATTACHES = /^[\p{M}\u200c\u200d\ufe00-\ufe0f]$/u;

/**
 * Shapes a line of text with a font and its fallbacks: bidi runs (UAX #9), each split where the
 * font that has the characters changes (the first of `fonts` that has one; the first font when
 * none has it, so HarfBuzz gives its .notdef; a fallback that has the whole text draws all of it,
 * as resvg does), each shaped in its direction. Runs come back in
 * visual order (UAX #9 L2), their glyphs left to right.
 */
export function shapeText(fonts: readonly Uint8Array[], text: string, options: ShapeOptions = {}): ShapedRun[] {
  return runSpans(fonts, text, options).map(({ font, rtl, start, end }) => {
    const glyphs = shapeRun(fonts[font], text.slice(start, end), rtl ? 'rtl' : 'ltr', start);
    return { font, unitsPerEm: hbFont(fonts[font]).upem, rtl, start, end, glyphs };
  });
}

/** The runs shapeText shapes, in visual order: bidi level and font per run. */
function runSpans(fonts: readonly Uint8Array[], text: string, options: ShapeOptions): Array<{ font: number; rtl: boolean; start: number; end: number }> {
  if (!text) return [];
  const levels = embeddingLevels(text, options.direction);
  const metrics = fonts.map((f) => fontMetrics(f));
  // Font of each UTF-16 unit (a surrogate pair's low half follows its high half).
  const fontAt = new Int32Array(text.length);
  const whole = wholeTextFallback(metrics, text);
  if (whole > 0) fontAt.fill(whole);
  else {
    for (let i = 0; i < text.length; i++) {
      const cp = text.codePointAt(i)!;
      let font = -1;
      for (let k = 0; k < metrics.length && font < 0; k++) if (metrics[k].has(cp)) font = k;
      if (i > 0 && ATTACHES.test(String.fromCodePoint(cp))) font = fontAt[i - 1];
      if (font < 0) font = 0;
      fontAt[i] = font;
      if (cp > 0xffff) fontAt[++i] = font;
    }
  }
  const runs: Array<{ font: number; rtl: boolean; start: number; end: number }> = [];
  let start = 0;
  for (let i = 1; i <= text.length; i++) {
    if (i < text.length && levels[i] === levels[start] && fontAt[i] === fontAt[start]) continue;
    runs.push({ font: fontAt[start], rtl: (levels[start] & 1) === 1, start, end: i });
    start = i;
  }
  return visualOrder(runs, (r) => levels[r.start]);
}

/**
 * resvg's rule (usvg's font fallback): when the first font lacks a character and the first
 * fallback that has it has every character of the text, that fallback draws the whole text,
 * spaces and punctuation included. The index of that font, or 0.
 */
function wholeTextFallback(metrics: ReturnType<typeof fontMetrics>[], text: string): number {
  if (metrics.length < 2) return 0;
  const codePoints = [...text].map((ch) => ch.codePointAt(0)!).filter((cp) => cp >= 0x20);
  const missing = codePoints.find((cp) => !metrics[0].has(cp));
  if (missing === undefined) return 0;
  const fallback = metrics.findIndex((m, i) => i > 0 && m.has(missing));
  return fallback > 0 && codePoints.every((cp) => metrics[fallback].has(cp)) ? fallback : 0;
}

/**
 * Characters that can make a level other than 0: right-to-left letters (Hebrew, Arabic, Syriac,
 * Thaana, NKo, Samaritan, Mandaic and their presentation forms, the historic RTL scripts of
 * planes 1), Arabic-Indic digits (inside the Arabic block), RLM and the explicit embeddings.
 */
const MAY_BE_RTL = /[\u0590-\u08ff\u200f\u202a-\u202e\u2066-\u2069\ufb1d-\ufdff\ufe70-\ufefe\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** UAX #9 levels per UTF-16 unit; all 0 (one left-to-right run) when no character can make another. */
function embeddingLevels(text: string, direction?: 'ltr' | 'rtl'): Uint8Array {
  if (direction !== 'rtl' && !MAY_BE_RTL.test(text)) return new Uint8Array(text.length);
  bidi ??= bidiFactory();
  return bidi.getEmbeddingLevels(text, direction).levels;
}

/** UAX #9 L2: from the highest level down to the lowest odd one, reverse each sequence of runs at that level or higher. */
function visualOrder<T>(runs: T[], level: (run: T) => number): T[] {
  const out = [...runs];
  const levels = out.map(level);
  const highest = Math.max(...levels);
  const lowestOdd = Math.min(...levels.map((l) => (l & 1 ? l : l + 1)));
  for (let k = highest; k >= lowestOdd; k--) {
    for (let i = 0; i < out.length; ) {
      if (levels[i] < k) {
        i++;
        continue;
      }
      let j = i;
      while (j < out.length && levels[j] >= k) j++;
      out.splice(i, j - i, ...out.slice(i, j).reverse());
      levels.splice(i, j - i, ...levels.slice(i, j).reverse());
      i = j;
    }
  }
  return out;
}

/** Width of the shaped text in em of the fonts (each run in its own font's em). */
export function shapedAdvance(fonts: readonly Uint8Array[], text: string): number {
  // shapeText's glyphs summed in its order (runs left to right, glyphs in each), without making them.
  let width = 0;
  for (const { font, rtl, start, end } of runSpans(fonts, text, {})) {
    const { hb, buffer, count } = shapeInto(fonts[font], text.slice(start, end), rtl ? 'rtl' : 'ltr');
    const upem = hbFont(fonts[font]).upem;
    const positions = new Int32Array(hb.memory.buffer, hb.hb_buffer_get_glyph_positions(buffer, 0), count * 5);
    for (let i = 0; i < count; i++) width += positions[i * 5] / upem;
  }
  return width;
}

/**
 * Metrics of a font with fallbacks (metrics.ts `withFallbacks`) that also measure text as
 * HarfBuzz shapes it (`textAdvance`, in em of the size). One object per font and fallback list,
 * kept as long as the font bytes (the font cache hands out the same arrays), so the widths it
 * has measured serve every later request in the isolate: line breaking and copyfitting measure
 * the same words again and again, and a storefront's texts share most of theirs.
 *
 * @example
 *   const m = shapedMetrics(font, fallbacks);
 *   m.textAdvance!('Ali علي') * size // width in px at `size`
 */
export function shapedMetrics(font: Uint8Array, fallbacks: readonly Uint8Array[] = []): FontMetrics {
  let byFallbacks = measured.get(font);
  if (!byFallbacks) measured.set(font, (byFallbacks = []));
  const hit = byFallbacks.find((m) => m.fallbacks.length === fallbacks.length && m.fallbacks.every((f, i) => f === fallbacks[i]));
  if (hit) return hit.metrics;
  const metrics = measuringMetrics(font, fallbacks);
  // Fallback lists differ by the scripts a text lacks; a few per font, the oldest dropped.
  if (byFallbacks.length >= 8) byFallbacks.shift();
  byFallbacks.push({ fallbacks: [...fallbacks], metrics });
  return metrics;
}

/** shapedMetrics' objects per main font: one per fallback list. */
const measured = new WeakMap<Uint8Array, Array<{ fallbacks: Uint8Array[]; metrics: FontMetrics }>>();

/** Characters of measured texts kept per metrics object (~2 MB of strings at most); cleared when full. */
const MAX_MEASURED_CHARS = 1 << 20;

function measuringMetrics(font: Uint8Array, fallbacks: readonly Uint8Array[]): FontMetrics {
  const all = [font, ...fallbacks];
  const widths = new Map<string, number>();
  let chars = 0;
  return {
    ...withFallbacks(fontMetrics(font), fallbacks.map((f) => fontMetrics(f))),
    textAdvance(text) {
      let width = widths.get(text);
      if (width === undefined) {
        width = shapedAdvance(all, text);
        if (chars + text.length > MAX_MEASURED_CHARS) (widths.clear(), (chars = 0));
        widths.set(text, width);
        chars += text.length;
      }
      return width;
    },
  };
}
