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
      return (src, dst, pixels) => t.apply(rgbView(src), dst, pixels);
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
