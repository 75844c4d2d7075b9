// The demo shop's preflight (issue 21 §2), shared by the product page (shop.js) and the demo
// server's order check (shop.mjs): the card's preview request, the rendering API's report
// (`{ok, problems: [{layer, code, severity, message, details}]}`) in a shopper's words, and
// whether an order may go ahead.

/** Layer-name markers such as `<TOS_fitToBox>` or `<REQ>`: a field is the layer's name without them. */
const MARKERS = /<[^<>]*>/g;
const bare = (name) => String(name ?? '').replace(MARKERS, '').replace(/\s+/g, ' ').trim();

/**
 * The card's preview request: the design template with each typed text variable as a text
 * command (variables left empty keep the template's own text) and each picture (layer → stored
 * image name, e.g. the shopper's photo) filling its frame.
 * @example cardRequest('demo/card', { Name: 'Ada' }) // { template, format: 'jpg', size, data: { Name: { type: 'text', text: 'Ada' } } }
 */
export function cardRequest(template, values, images = {}) {
  const data = Object.fromEntries(Object.entries(values).map(([name, text]) => [name, { type: 'text', text }]));
  for (const [layer, image] of Object.entries(images)) data[layer] = { type: 'image', image, resizeMode: 'fill' };
  return { template, format: 'jpg', size: { width: 600, height: 600 }, data };
}

/** The variable (of the template's text variables `{name, lines, labels?}`) a problem's layer is. */
const variableOf = (variables, layer) => variables.find((v) => v.name === layer || bare(v.name) === bare(layer));

/**
 * What the shopper calls the field: the input's label when the variable has one line (e.g.
 * "name") or `line` says which of its lines, else "text"; lower-cased after "Your" unless it
 * starts with an acronym.
 */
function fieldWords(variable, line) {
  const label = !variable ? '' : variable.lines.length === 1 ? bare(variable.labels?.[0] ?? variable.name) : line != null ? bare(variable.labels?.[line] ?? variable.lines[line]) : '';
  if (!label) return 'text';
  return /^[A-Z]{2}/.test(label) ? label : label[0].toLowerCase() + label.slice(1);
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/**
 * The line of a multi-line variable's typed text that text which did not fit ends, or null.
 * @example overflowLine('Ada\nA very long line', 'long line') // 1
 */
function overflowLine(typed, overflow) {
  if (typeof typed !== 'string' || typeof overflow !== 'string' || !overflow.trim()) return null;
  const lines = typed.split('\n').map((l) => l.trim());
  const hits = lines.map((l, i) => (l.endsWith(overflow.trim()) ? i : -1)).filter((i) => i >= 0);
  return hits.length === 1 ? hits[0] : null;
}

/**
 * One problem in a shopper's words, by its code and details; codes the shop does not know keep
 * the rendering API's own message (already a sentence). `typed`: the variable's text as sent, to
 * tell which of its lines is too long.
 * @example shopperMessage({ code: 'textOverflow', details: { characters: 6 }, ... }, variable) // 'Your name is too long for the card: 6 characters do not fit.'
 */
export function shopperMessage(problem, variable, typed) {
  const d = problem.details ?? {};
  const your = `Your ${fieldWords(variable, problem.code === 'textOverflow' ? overflowLine(typed, d.overflow) : null)}`;
  const isNumber = (x) => typeof x === 'number' && Number.isFinite(x);
  switch (problem.code) {
    case 'textOverflow':
      return isNumber(d.characters) && d.characters > 0
        ? `${your} is too long for the card: ${plural(d.characters, 'character does', 'characters do')} not fit.`
        : `${your} is too long for the card: shorten it so all of it prints.`;
    case 'textShrunk':
      // In per cent of the design's size: the engine's sizes are template pixels (points only on a
      // 72 ppi template), so "pt" would mislead on a 300 ppi card.
      return isNumber(d.size) && isNumber(d.originalSize) && d.originalSize > 0
        ? `${your} was shrunk to ${Math.max(1, Math.round((d.size / d.originalSize) * 100))} % of its size to fit the card.`
        : `${your} was set smaller to fit the card.`;
    case 'missingGlyphs':
      return `${your} has characters the card cannot print${typeof d.characters === 'string' || Array.isArray(d.characters) ? `: ${[...d.characters].join(' ')}` : ''}.`;
    case 'fontSubstituted':
      return `Some characters of ${your[0].toLowerCase()}${your.slice(1)}${typeof d.characters === 'string' ? ` (${d.characters})` : ''} are printed in another font than the rest.`;
    case 'lowResolution':
      return isNumber(d.ppi)
        ? `Your photo has ${Math.round(d.ppi)} ppi at print size and may print blurry${isNumber(d.threshold) ? ` (${Math.round(d.threshold)} ppi or more prints sharp)` : ''}.`
        : 'Your photo is small for its frame and may print blurry.';
    case 'imageUpscaled':
      return 'Your photo is enlarged beyond its own pixels and may print soft.';
    case 'outsideTrim':
      return `${variable ? your : 'Part of the design'} runs past the edge of the card and would be cut off.`;
    case 'emptyField':
      return `${variable ? your : 'A required field'} is required: please fill it in.`;
    default:
      return String(problem.message ?? 'The card has a problem.');
  }
}

/**
 * The problems a shopper can act on. A substituted template font is left to the print shop (the
 * back office lists it on the item): the preview already shows the font that prints, so it is no
 * surprise, and the shopper could not change it anyway. Characters of the shopper's own text set
 * in a fallback font are theirs to know.
 */
const shoppersOwn = (report) => (Array.isArray(report?.problems) ? report.problems : []).filter((p) => p.code !== 'fontSubstituted' || p.details?.fallbacks);

/**
 * The report's problems as the shop shows them: `{severity, text, field, line}`, errors first,
 * where `field` is the variable's name (to mark its inputs) or null, and `line` which of its lines
 * did not fit when that is known (else null). `typed`: variable name → text sent.
 */
export function shopperProblems(report, variables, typed = {}) {
  return shoppersOwn(report)
    .map((p) => {
      const variable = variableOf(variables, p.layer);
      const text = variable ? typed[variable.name] : undefined;
      const line = p.code === 'textOverflow' && variable && variable.lines.length > 1 ? overflowLine(text, p.details?.overflow) : null;
      return { severity: p.severity === 'error' ? 'error' : 'warning', text: shopperMessage(p, variable, text), field: variable?.name ?? null, line };
    })
    .sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
}

/**
 * Whether an order may go ahead with this report: `ok` (nothing found, or no report: the check
 * was not available), `confirm` (warnings only, the shopper confirms), `block` (errors, unless
 * the shop allows ordering with them; then `confirm`).
 */
export function orderVerdict(report, { allowErrors = false } = {}) {
  const problems = shoppersOwn(report);
  if (!problems.length) return 'ok';
  if (problems.some((p) => p.severity === 'error') && !allowErrors) return 'block';
  return 'confirm';
}

/** The `X-Preflight` header's counts (`ok`, `errors=1; warnings=2`); null when it is absent or unreadable. */
export function preflightCounts(header) {
  if (header == null) return null;
  if (header.trim() === 'ok') return { errors: 0, warnings: 0 };
  const errors = /errors=(\d+)/.exec(header);
  const warnings = /warnings=(\d+)/.exec(header);
  return errors || warnings ? { errors: Number(errors?.[1] ?? 0), warnings: Number(warnings?.[1] ?? 0) } : null;
}
