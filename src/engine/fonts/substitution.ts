/**
 * Font substitution: when a template (or a request) names a font the font store does not hold,
 * we draw with a metric-compatible open font instead, as Photoshop itself substitutes missing
 * fonts. The table is documented in docs/personalisation.md; the bundled fonts are in assets/fonts.
 */

export interface ResolvedFont {
  /** The PostScript name that was asked for. */
  requested: string;
  /** The PostScript name of the font actually used. */
  postscriptName: string;
  bytes: Uint8Array;
  substituted: boolean;
}

type Variant = 'Regular' | 'Bold' | 'Italic' | 'BoldItalic';
type Kind = 'Sans' | 'Serif' | 'Mono';

/** Families whose metric-compatible (or closest) open replacement we ship. */
const FAMILY_KINDS: Array<[RegExp, Kind]> = [
  [/^(arial|helvetica|myriad|frutiger|segoeui|calibri|verdana|tahoma|trebuchet|opensans|roboto|lato|sourcesans|futura|gillsans|avenir|univers)/i, 'Sans'],
  [/^(timesnewroman|times|minion|georgia|garamond|adobegaramond|palatino|bookantiqua|cambria|baskerville|caslon|sourceserif|charter)/i, 'Serif'],
  [/^(couriernew|courier|consolas|menlo|monaco|sourcecodepro|andalemono|lucidaconsole)/i, 'Mono'],
];

/** Which open family stands in for a PostScript name (by family name, else a generic guess). */
function kindOf(family: string): Kind {
  for (const [pattern, kind] of FAMILY_KINDS) if (pattern.test(family)) return kind;
  if (/mono|code|typewriter/i.test(family)) return 'Mono';
  if (/serif/i.test(family) && !/sans/i.test(family)) return 'Serif';
  return 'Sans';
}

/** Weight/slant from the style part of a PostScript name ("Arial-BoldItalicMT" → BoldItalic). */
function variantOf(postscriptName: string): Variant {
  const style = postscriptName.includes('-') ? postscriptName.slice(postscriptName.indexOf('-') + 1) : postscriptName;
  const bold = /bold|black|heavy|semibold|demi|extrabold|ultra/i.test(style) || /black$/i.test(postscriptName);
  const italic = /italic|oblique|(^|[a-z])It$/.test(style) || /italic|oblique/i.test(style);
  return bold && italic ? 'BoldItalic' : bold ? 'Bold' : italic ? 'Italic' : 'Regular';
}

/**
 * The PostScript name of a bundled substitute. The Regular faces carry the bare family name
 * (assets/fonts/LiberationSans-Regular.ttf is "LiberationSans"), the others `<family>-<style>`.
 */
const liberation = (kind: Kind, variant: Variant) => (variant === 'Regular' ? `Liberation${kind}` : `Liberation${kind}-${variant}`);

/**
 * The substitutes to try for a font the store lacks, best first: the Liberation font of the same
 * kind and variant, then the same kind's Regular, then Liberation Sans and DejaVu Sans.
 *
 * @example substitutesFor('TimesNewRomanPS-BoldMT') // ['LiberationSerif-Bold', 'LiberationSerif', ...]
 */
export function substitutesFor(postscriptName: string): string[] {
  const family = postscriptName.split('-')[0];
  const kind = kindOf(family);
  const variant = variantOf(postscriptName);
  const names = [liberation(kind, variant)];
  if (variant === 'BoldItalic') names.push(liberation(kind, 'Bold'));
  names.push(liberation(kind, 'Regular'), liberation('Sans', variant), liberation('Sans', 'Regular'), 'DejaVuSans');
  return [...new Set(names)].filter((n) => n !== postscriptName);
}

/**
 * Loads a font by PostScript name from the store, substituting when it is missing. Returns null
 * when neither the font nor any substitute is available.
 */
export async function resolveFont(
  postscriptName: string,
  loadFont: (postscriptName: string) => Promise<Uint8Array | null>,
): Promise<ResolvedFont | null> {
  const own = await loadFont(postscriptName);
  if (own) return { requested: postscriptName, postscriptName, bytes: own, substituted: false };
  for (const candidate of substitutesFor(postscriptName)) {
    const bytes = await loadFont(candidate);
    if (bytes) return { requested: postscriptName, postscriptName: candidate, bytes, substituted: true };
  }
  return null;
}

/** True when the name is one the substitution table knows (not just the generic fallback). */
export function hasKnownSubstitute(postscriptName: string): boolean {
  const family = postscriptName.split('-')[0];
  return FAMILY_KINDS.some(([pattern]) => pattern.test(family));
}
