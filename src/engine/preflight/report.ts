/**
 * Preflight problems (issue 21): what a render found that a printer or a shopper must know, in
 * one shape for every place a design is rendered (Dynamic Image previews and hires, print-product
 * designs, pipelines, storefront projects). The engine only reports; callers decide what blocks.
 *
 * @example
 *   const problems: PreflightProblem[] = [];
 *   await buildOverrides(tree, data, { ...ctx, report: (p) => problems.push(p) });
 *   const report = preflightReport(problems);   // { ok, problems }
 *   c.header('X-Preflight', preflightHeader(report));
 */

export type PreflightCode =
  /** Text does not fit its frame (details: `characters`, the count that does not fit, and `overflow`, that text). */
  | 'textOverflow'
  /** Warning: copyfitting shrank the text (details: `size`, the size used in pt, and `originalSize`). */
  | 'textShrunk'
  /** No font has a glyph for some characters (details: `characters`). */
  | 'missingGlyphs'
  /** The font asked for is not in the font store; another drew the text (details: `requested`, `used`). */
  | 'fontSubstituted'
  /** A placed image prints below the template's resolution threshold (details: `ppi`, `threshold`). */
  | 'lowResolution'
  /** A placed image is enlarged beyond its own pixels (details: `scale`). */
  | 'imageUpscaled'
  /** Content that belongs inside the trim (or safe) area is outside it (details: `bounds`, `area`). */
  | 'outsideTrim'
  /** A variable the template marks required is empty. */
  | 'emptyField';

/** Every code, for schemas that list them. */
export const PREFLIGHT_CODES = [
  'textOverflow',
  'textShrunk',
  'missingGlyphs',
  'fontSubstituted',
  'lowResolution',
  'imageUpscaled',
  'outsideTrim',
  'emptyField',
] as const satisfies readonly PreflightCode[];

/** And the type has no code the list lacks. */
type Missing = Exclude<PreflightCode, (typeof PREFLIGHT_CODES)[number]>;
const complete: Missing extends never ? true : never = true;
void complete;

export type PreflightSeverity = 'error' | 'warning';

export interface PreflightProblem {
  /** The layer (PSD templates) or item (print products) the problem is on. */
  layer: string;
  code: PreflightCode;
  severity: PreflightSeverity;
  /** One sentence a shopper or an operator understands. */
  message: string;
  details?: Record<string, unknown>;
}

export interface PreflightReport {
  /** No errors (warnings allowed). */
  ok: boolean;
  problems: PreflightProblem[];
}

/** Where a render hands its problems; renders without a listener report nowhere. */
export type ReportProblem = (problem: PreflightProblem) => void;

/** Problems reported twice (a layer name shared by several layers) are kept once; errors first. */
export function preflightReport(problems: readonly PreflightProblem[]): PreflightReport {
  const unique = [...new Map(problems.map((p) => [`${p.layer}\n${p.code}\n${p.message}`, p])).values()];
  unique.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  return { ok: !unique.some((p) => p.severity === 'error'), problems: unique };
}

/** The `X-Preflight` header value: `ok`, or `errors=1; warnings=2`. */
export function preflightHeader(report: PreflightReport): string {
  if (!report.problems.length) return 'ok';
  const errors = report.problems.filter((p) => p.severity === 'error').length;
  return `errors=${errors}; warnings=${report.problems.length - errors}`;
}
