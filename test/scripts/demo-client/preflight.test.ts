// The demo shop's preflight in a shopper's words (scripts/demo-client/preflight.mjs, issue 21 §2):
// the rendering API's problems by code, matched to the form's field, and what Order may do.
import { describe, expect, it } from 'vitest';
import { cardRequest, orderVerdict, preflightCounts, shopperMessage, shopperProblems, type ShopProblem } from '../../../scripts/demo-client/preflight.mjs';

const variables = [
  { name: 'Name <TOS_fitToBox> <REQ>', lines: ['Name'] },
  { name: 'Address', lines: ['Street', 'Town'] },
];
const problem = (p: Partial<ShopProblem>): ShopProblem => ({ layer: 'Name', code: 'textOverflow', severity: 'error', message: 'engine words', ...p });

describe('demo shop preflight', () => {
  it('says what does not fit in the field\'s own words', () => {
    const [shown] = shopperProblems({ ok: false, problems: [problem({ details: { characters: 6, overflow: 'Smith' } })] }, variables);
    expect(shown).toEqual({ severity: 'error', text: 'Your name is too long for the card: 6 characters do not fit.', field: 'Name <TOS_fitToBox> <REQ>', line: null });
    expect(shopperMessage(problem({ details: { characters: 1 } }), variables[0])).toBe('Your name is too long for the card: 1 character does not fit.');
  });

  it('names a multi-line field "text", and says how far text was shrunk in per cent (template pixels are no print points)', () => {
    expect(shopperMessage(problem({ layer: 'Address', code: 'textShrunk', severity: 'warning', details: { size: 7.04, originalSize: 10 } }), variables[1])).toBe('Your text was shrunk to 70 % of its size to fit the card.');
    expect(shopperMessage(problem({ code: 'textShrunk', severity: 'warning', details: {} }), variables[0])).toBe('Your name was set smaller to fit the card.');
  });

  it('words every code, and keeps the API\'s message for codes it does not know', () => {
    const codes = ['missingGlyphs', 'fontSubstituted', 'lowResolution', 'imageUpscaled', 'outsideTrim', 'emptyField'];
    for (const code of codes) expect(shopperMessage(problem({ code, details: { characters: '😀', ppi: 96, threshold: 200 } }), variables[0])).toMatch(/^Your |^Part of|^A required|^Some characters of your/);
    expect(shopperMessage(problem({ code: 'lowResolution', layer: 'Photo', details: { ppi: 96.4, threshold: 200 } }))).toBe('Your photo has 96 ppi at print size and may print blurry (200 ppi or more prints sharp).');
    expect(shopperMessage(problem({ code: 'somethingNew', message: 'A sentence.' }))).toBe('A sentence.');
  });

  it('lists errors before warnings; a layer that is no field has none', () => {
    const shown = shopperProblems(
      { ok: false, problems: [problem({ layer: 'Logo', code: 'imageUpscaled', severity: 'warning' }), problem({ code: 'emptyField' })] },
      variables,
    );
    expect(shown.map((p) => [p.severity, p.field])).toEqual([['error', 'Name <TOS_fitToBox> <REQ>'], ['warning', null]]);
  });

  it('blocks on errors unless the shop allows them, asks to confirm warnings, lets a clean or unchecked card through', () => {
    const errors = { ok: false, problems: [problem({})] };
    const warnings = { ok: true, problems: [problem({ code: 'textShrunk', severity: 'warning' })] };
    expect(orderVerdict(errors)).toBe('block');
    expect(orderVerdict(errors, { allowErrors: true })).toBe('confirm');
    expect(orderVerdict(warnings)).toBe('confirm');
    expect(orderVerdict({ ok: true, problems: [] })).toBe('ok');
    expect(orderVerdict(null)).toBe('ok');
  });

  it('leaves a substituted template font to the print shop (not listed, no confirmation), but tells of typed characters in a fallback font', () => {
    const report = { ok: true, problems: [problem({ code: 'fontSubstituted', severity: 'warning', details: { requested: 'ArialMT', used: 'LiberationSans' } })] };
    expect(shopperProblems(report, variables)).toEqual([]);
    expect(orderVerdict(report)).toBe('ok');
    const fallback = { ok: true, problems: [problem({ code: 'fontSubstituted', severity: 'warning', details: { fallbacks: ['NotoSansArabic'], characters: 'سارة' } })] };
    expect(shopperProblems(fallback, variables).map((p) => p.text)).toEqual(['Some characters of your name (سارة) are printed in another font than the rest.']);
    expect(orderVerdict(fallback)).toBe('confirm');
  });

  it('names the line of a multi-line field that is too long', () => {
    const report = { ok: false, problems: [problem({ layer: 'Address', details: { characters: 9, overflow: 'Kingdom' } })] };
    expect(shopperProblems(report, variables, { Address: '1 Main Street\nLondon, United Kingdom' })[0]).toMatchObject({ text: 'Your town is too long for the card: 9 characters do not fit.', line: 1 });
    expect(shopperProblems(report, variables)[0]!.text).toBe('Your text is too long for the card: 9 characters do not fit.');
  });

  it('reads the X-Preflight header', () => {
    expect(preflightCounts('ok')).toEqual({ errors: 0, warnings: 0 });
    expect(preflightCounts('errors=1; warnings=2')).toEqual({ errors: 1, warnings: 2 });
    expect(preflightCounts(null)).toBeNull();
    expect(preflightCounts('nonsense')).toBeNull();
  });

  it('builds the card request the preview and the order check both send, with the photo in its frame', () => {
    expect(cardRequest('demo/card', { Name: 'Ada' })).toEqual({ template: 'demo/card', format: 'jpg', size: { width: 600, height: 600 }, data: { Name: { type: 'text', text: 'Ada' } } });
    expect(cardRequest('demo/card', {}, { Photo: 'demo-shop/me.jpg' }).data).toEqual({ Photo: { type: 'image', image: 'demo-shop/me.jpg', resizeMode: 'fill' } });
  });

  it('calls a one-line field by its label, not by the template\'s sample text', () => {
    const name = { name: 'Name', lines: ['Alex Morgan'], labels: ['Name'] };
    expect(shopperMessage(problem({ code: 'textShrunk', severity: 'warning', details: { size: 42.9, originalSize: 64 } }), name)).toBe('Your name was shrunk to 67 % of its size to fit the card.');
  });
});
