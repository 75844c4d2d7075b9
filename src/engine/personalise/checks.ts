/**
 * The per-layer preflight checks of personalisation (issue 21 §2), as problems in the one shape of
 * src/engine/preflight/report.ts. Messages are sentences a shopper understands; `layer` is the
 * name the request used (or the layer's name without markers); details carry the numbers.
 */
import type { PreflightProblem } from '../preflight/report';
import type { Bounds } from '../types';
import { clusters } from './line-break';
import type { SetText } from './text';

/** Characters as a reader counts them (grapheme clusters), spaces and line breaks left out. */
const visibleCharacters = (text: string) => clusters(text).filter((c) => c.trim()).length;

const round1 = (v: number) => Math.round(v * 10) / 10;
const quoted = (text: string) => `"${text.length > 40 ? `${text.slice(0, 39)}…` : text}"`;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * textOverflow and textShrunk of laid-out text. Sizes in `details` are template pixels (the unit
 * of a request's `size`); the message says printed points at the template's `resolution` (ppi).
 */
export function textFitProblems(layer: string, label: string, text: string, set: SetText, resolution = 72): PreflightProblem[] {
  const points = (px: number) => round1((px * 72) / resolution);
  const problems: PreflightProblem[] = [];
  if (set.overflow) {
    const characters = visibleCharacters(set.overflow);
    problems.push({
      layer,
      code: 'textOverflow',
      severity: 'error',
      message: `${quoted(text.replace(/\s+/g, ' ').trim())} is too long for ${label}: ${plural(characters, 'character does', 'characters do')} not fit.`,
      details: { characters, overflow: set.overflow, size: round1(set.shownSize) },
    });
  }
  if (set.shownSize < set.startSize - 1e-6) {
    problems.push({
      layer,
      code: 'textShrunk',
      severity: 'warning',
      message: `${label} was shrunk to ${points(set.shownSize)} pt to fit.`,
      details: { size: round1(set.shownSize), originalSize: round1(set.startSize), points: points(set.shownSize), originalPoints: points(set.startSize) },
    });
  }
  return problems;
}

/** Code points no font needs to draw: controls, joiners, variation selectors and other default-ignorables. */
const IGNORABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\s\u034f\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/u;

/** missingGlyphs: characters neither the font nor a fallback has. */
export function missingGlyphProblem(layer: string, label: string, text: string, has: (cp: number) => boolean): PreflightProblem | null {
  const missing = new Set<string>();
  for (const ch of text) if (!IGNORABLE.test(ch) && !has(ch.codePointAt(0)!)) missing.add(ch);
  if (!missing.size) return null;
  const characters = [...missing];
  return {
    layer,
    code: 'missingGlyphs',
    severity: 'error',
    message: `${label} has ${characters.length === 1 ? 'a character' : 'characters'} no font can print: ${characters.join(' ')}.`,
    details: { characters: characters.join(''), codePoints: characters.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`) },
  };
}

/** fontSubstituted: the font was not in the store, or some characters came from fallback fonts. */
export function fontSubstitutionProblem(
  layer: string,
  label: string,
  font: { requested: string; postscriptName: string; substituted: boolean },
  fallbacks: { names: string[]; characters: string },
): PreflightProblem | null {
  if (!font.substituted && !fallbacks.names.length) return null;
  const parts: string[] = [];
  if (font.substituted) parts.push(`the font "${font.requested}" is not available, so ${label} is set in "${font.postscriptName}"`);
  const names = fallbacks.names.map((n) => `"${n}"`).join(', ');
  if (fallbacks.names.length) parts.push(`some characters${font.substituted ? '' : ` of ${label}`} (${fallbacks.characters}) are set in a fallback font (${names})`);
  const sentence = parts.join('; ');
  return {
    layer,
    code: 'fontSubstituted',
    severity: 'warning',
    message: `${sentence[0].toUpperCase()}${sentence.slice(1)}.`,
    details: { requested: font.requested, used: font.postscriptName, ...(fallbacks.names.length ? { fallbacks: fallbacks.names, characters: fallbacks.characters } : {}) },
  };
}

/** The default effective-ppi threshold of a placed picture (warning below, error below half). */
export const DEFAULT_PPI_THRESHOLD = 200;

/** lowResolution and imageUpscaled of a placed picture printing at `ppi`. */
export function pictureProblems(layer: string, label: string, ppi: number, threshold: number, resolution: number): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  const shown = Math.round(ppi);
  if (ppi < threshold) {
    const error = ppi < threshold / 2;
    problems.push({
      layer,
      code: 'lowResolution',
      severity: error ? 'error' : 'warning',
      message: error
        ? `The picture in ${label} is too small for print: it would print at ${shown} ppi, and needs at least ${Math.round(threshold / 2)} (${threshold} for a sharp print).`
        : `The picture in ${label} prints at ${shown} ppi and may look soft; ${threshold} ppi or more prints sharp.`,
      details: { ppi: shown, threshold },
    });
  }
  // Enlarged beyond its own pixels: each picture pixel covers more than one template pixel.
  if (ppi < resolution * 0.995) {
    const scale = Math.round((resolution / ppi) * 100) / 100;
    problems.push({
      layer,
      code: 'imageUpscaled',
      severity: 'warning',
      message: `The picture in ${label} is enlarged ${scale}× beyond its own pixels.`,
      details: { scale, ppi: shown, resolution },
    });
  }
  return problems;
}

/** Within `outer`, allowing `slack` template pixels. */
export const within = (inner: Bounds, outer: Bounds, slack = 0.5) =>
  inner.left >= outer.left - slack && inner.top >= outer.top - slack && inner.right <= outer.right + slack && inner.bottom <= outer.bottom + slack;

/** outsideTrim: what was drawn crosses the trim box although the layer was inside it. */
export function outsideTrimProblem(layer: string, label: string, original: Bounds, drawn: Bounds | null, trim: Bounds, what: 'text' | 'picture'): PreflightProblem | null {
  if (!drawn || !within(original, trim) || within(drawn, trim, 1)) return null;
  const round = (b: Bounds) => ({ left: Math.round(b.left), top: Math.round(b.top), right: Math.round(b.right), bottom: Math.round(b.bottom) });
  return {
    layer,
    code: 'outsideTrim',
    severity: 'error',
    message: what === 'text' ? `The text of ${label} runs outside the printed area.` : `The picture in ${label} reaches outside the printed area.`,
    details: { bounds: round(drawn), area: round(trim) },
  };
}

/** emptyField: a layer the template marks `<REQ>` got no content. */
export function emptyFieldProblem(layer: string, label: string, kind: 'text' | 'picture'): PreflightProblem {
  return { layer, code: 'emptyField', severity: 'error', message: kind === 'text' ? `${label} is required.` : `${label} needs a picture.`, details: { kind } };
}
