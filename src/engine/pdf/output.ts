/**
 * Print output colour (docs/pdf.md, "Colour"): which colour space and PDF/X flavour a print PDF
 * is written in, the output profile (an asset, a tenant default or the shipped default) and the
 * conversions into it through LittleCMS (src/engine/colour): page strips in document.ts, vector
 * colours here.
 */
import { colourTransform, defaultProfile, readProfileInfo, type RenderingIntent } from '../colour';
import { Unprocessable } from '../errors';
import { sha256Hex } from '../hash';
import type { PdfOutput } from './document';
import { convertedInk } from './image';
import { num } from './writer';
import type { OutputColorSpace, PdfFormat } from './pdfx';

export type { OutputColorSpace, PdfFormat } from './pdfx';

/** A print request's colour settings, as pipelines and the API give them. */
export interface PrintColour {
  colorSpace: OutputColorSpace;
  /** Default: PDF/X-4 for CMYK and grey, a plain PDF for RGB. */
  format?: PdfFormat;
  /** The output profile's bytes; default: the shipped default of the colour space. */
  profile?: Uint8Array;
  /** Default RelativeColorimetric with black-point compensation (Photoshop's default). */
  intent?: RenderingIntent;
  blackPointCompensation?: boolean;
}

/** The format a colour space gets when none is asked for. */
export const defaultFormat = (space: OutputColorSpace): PdfFormat => (space === 'Rgb' ? 'Default' : 'PdfX4');

/** 422 when the settings cannot be honoured (say, an RGB profile for CMYK output). */
export class PrintColourError extends Unprocessable {
  static override code = 'ERR_PRINT_COLOUR';
  override code = 'ERR_PRINT_COLOUR';
}

/** Output profile and format resolved and checked; a stable key for caches and fingerprints. */
export interface ResolvedPrintColour {
  colorSpace: OutputColorSpace;
  format: PdfFormat;
  profile: Uint8Array;
  description: string;
  intent: RenderingIntent;
  blackPointCompensation: boolean;
  /** Identifies profile, format, intent and BPC (hex). */
  key: string;
}

const rgbView = (a: Uint8Array | Uint8ClampedArray) => (a instanceof Uint8Array ? a : new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

/** Checks the settings against each other and the profile's own colour space. */
export async function resolvePrintColour(c: PrintColour, path = 'colorProfile'): Promise<ResolvedPrintColour> {
  const format = c.format ?? defaultFormat(c.colorSpace);
  if (format === 'PdfX1a' && c.colorSpace === 'Rgb') {
    throw new PrintColourError('PDF/X-1a allows CMYK and grey only; ask for Cmyk or Grayscale output, or PdfX4.', [{ path: 'pdfFormat', reason: 'PDF/X-1a with RGB output' }]);
  }
  const profile = c.profile ?? defaultProfile(c.colorSpace);
  const info = readProfileInfo(profile);
  if (info.colorSpace !== c.colorSpace) {
    throw new PrintColourError(`The output profile "${info.description}" is ${info.colorSpace}; ${c.colorSpace} output needs a ${c.colorSpace} profile.`, [
      { path, reason: `a ${info.colorSpace} profile for ${c.colorSpace} output` },
    ]);
  }
  const intent = c.intent ?? 'RelativeColorimetric';
  const blackPointCompensation = c.blackPointCompensation ?? true;
  const key = (await sha256Hex(`${c.colorSpace}|${format}|${intent}|${blackPointCompensation}|${await sha256Hex(profile)}`)).slice(0, 24);
  return { colorSpace: c.colorSpace, format, profile, description: info.description, intent, blackPointCompensation, key };
}

/**
 * RGBA → ink through `t`, converting each run of equal pixels once: print artwork is mostly flat
 * colour, and LittleCMS's per-pixel cost dominated CMYK strips (a flat 4000² page: 1.3 s against
 * 0.33 s in RGB). Run starts are packed, converted in one call, and spread back over their runs.
 * Photographs have runs of one pixel: there packing costs more than it saves (a noisy 4000² page
 * 0.9 s against 0.65 s straight, and a colour cache did no better), so a strip with many runs
 * is converted straight.
 */
function runConverter(t: { apply(src: Uint8Array, dst: Uint8Array, n: number): void }, channels: number) {
  let packed = new Uint8Array(0);
  let converted = new Uint8Array(0);
  let starts = new Uint32Array(0);
  return (source: Uint8Array | Uint8ClampedArray, dst: Uint8Array, pixels: number) => {
    const src = rgbView(source);
    // Pixels compare as 32-bit words when the data is aligned (it is, for strips), else as bytes.
    const words = src.byteOffset % 4 === 0 ? new Uint32Array(src.buffer, src.byteOffset, pixels) : null;
    const same = (i: number) =>
      words ? words[i] === words[i - 1] : src[i * 4] === src[i * 4 - 4] && src[i * 4 + 1] === src[i * 4 - 3] && src[i * 4 + 2] === src[i * 4 - 2] && src[i * 4 + 3] === src[i * 4 - 1];
    let runs = 1;
    for (let i = 1; i < pixels && runs <= pixels / 8; i++) if (!same(i)) runs++;
    if (runs > pixels / 8) {
      t.apply(src, dst, pixels);
      return;
    }
    // Packed only when there are at most pixels / 8 runs: room for that many, not for every pixel
    // (an 8,000 px page's strips kept 12 MB of these for 1.5 MB of runs, issue 25 §1).
    const most = Math.floor(pixels / 8) + 1;
    if (starts.length < most) {
      starts = new Uint32Array(most);
      packed = new Uint8Array(most * 4);
    }
    runs = 0;
    for (let i = 0; i < pixels; i++) {
      if (i > 0 && same(i)) continue;
      starts[runs] = i;
      packed[runs * 4] = src[i * 4];
      packed[runs * 4 + 1] = src[i * 4 + 1];
      packed[runs * 4 + 2] = src[i * 4 + 2];
      packed[runs * 4 + 3] = src[i * 4 + 3];
      runs++;
    }
    if (converted.length < runs * channels) converted = new Uint8Array(most * channels);
    t.apply(packed, converted, runs);
    const out32 = channels === 4 && dst.byteOffset % 4 === 0 ? new Uint32Array(dst.buffer, dst.byteOffset, pixels) : null;
    const in32 = out32 ? new Uint32Array(converted.buffer, 0, runs) : null;
    for (let r = 0; r < runs; r++) {
      const end = r + 1 < runs ? starts[r + 1] : pixels;
      if (out32) out32.fill(in32![r], starts[r], end);
      else if (channels === 1) dst.fill(converted[r], starts[r], end);
      else for (let i = starts[r]; i < end; i++) dst.set(converted.subarray(r * channels, (r + 1) * channels), i * channels);
    }
  };
}

/** The writer's output settings for `c` (writePdf's `output`). */
export function pdfOutput(c: ResolvedPrintColour): PdfOutput {
  const toLayout = c.colorSpace === 'Cmyk' ? 'CMYK' : 'GRAY';
  return {
    colorSpace: c.colorSpace,
    format: c.format,
    profile: { bytes: c.profile, description: c.description },
    key: c.key,
    async inks(pageIcc) {
      const t = await colourTransform({ from: pageIcc, to: c.profile, fromLayout: 'RGBA', toLayout, intent: c.intent, blackPointCompensation: c.blackPointCompensation });
      return convertedInk(runConverter(t, toLayout === 'CMYK' ? 4 : 1));
    },
  };
}

/**
 * Operands of `sc` in the page's colour space for a vector colour: RGB as it is (the page is
 * ICCBased on the template's profile), CMYK and grey converted from the template's profile.
 * `exact`: the CMYK the request gave as `cmyk(…)` (0–100): written as given in CMYK output
 * (`cmyk(0,0,0,100)` is K alone, never a rich black), converted through the default CMYK profile
 * into the page's RGB otherwise.
 */
export type Paint = (rgb: { r: number; g: number; b: number }, exact?: Cmyk) => string;
export type Cmyk = [number, number, number, number];

const fractions = (v: Uint8Array) => [...v].map((x) => num(x / 255)).join(' ');

export async function vectorPaint(c: ResolvedPrintColour | undefined, pageIcc: Uint8Array, withCmyk = false, exactCmyk = true): Promise<Paint> {
  const space = c?.colorSpace ?? 'Rgb';
  const opts = { intent: c?.intent, blackPointCompensation: c?.blackPointCompensation };
  const toOutput =
    space === 'Rgb' ? null : await colourTransform({ from: pageIcc, to: c!.profile, fromLayout: 'RGB', toLayout: space === 'Cmyk' ? 'CMYK' : 'GRAY', ...opts });
  const fromCmyk =
    withCmyk && (space !== 'Cmyk' || !exactCmyk)
      ? await colourTransform({
          from: defaultProfile('Cmyk'),
          to: space === 'Rgb' ? pageIcc : c!.profile,
          fromLayout: 'CMYK',
          toLayout: space === 'Rgb' ? 'RGB' : space === 'Cmyk' ? 'CMYK' : 'GRAY',
          ...opts,
        })
      : null;
  return ({ r, g, b }, exact) => {
    if (exact) {
      if (space === 'Cmyk' && exactCmyk) return exact.map((v) => num(v / 100)).join(' ');
      const out = new Uint8Array(space === 'Rgb' ? 3 : space === 'Cmyk' ? 4 : 1);
      fromCmyk!.apply(new Uint8Array(exact.map((v) => Math.round(v * 2.55))), out, 1);
      return fractions(out);
    }
    if (!toOutput) return `${num(r / 255)} ${num(g / 255)} ${num(b / 255)}`;
    const out = new Uint8Array(space === 'Cmyk' ? 4 : 1);
    toOutput.apply(new Uint8Array([r, g, b]), out, 1);
    return fractions(out);
  };
}

/** The CMYK (0–100) of a request colour written as `cmyk(c, m, y, k)`, else undefined. */
export function requestedCmyk(value: unknown): Cmyk | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^\s*cmyk\(([^)]*)\)\s*$/i.exec(value);
  const v = m?.[1].split(',').map((x) => Number(x.trim()));
  return v && v.length === 4 && v.every((x) => Number.isFinite(x) && x >= 0 && x <= 100) ? (v as Cmyk) : undefined;
}

/**
 * The shipped default profiles by name: the colour space's short name (`sRGB`, `FOGRA39`,
 * `sGray`) or the profile's own description, any case. Tenants' profile assets come first where
 * a caller has them.
 */
export function shippedProfile(name: string): Uint8Array | null {
  const wanted = name.trim().toLowerCase();
  for (const [space, short] of [['Rgb', 'srgb'], ['Cmyk', 'fogra39'], ['Grayscale', 'sgray']] as const) {
    const bytes = defaultProfile(space);
    if (wanted === short || wanted === readProfileInfo(bytes).description.toLowerCase()) return bytes;
  }
  return null;
}
