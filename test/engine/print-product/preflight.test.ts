import { describe, expect, it } from 'vitest';
import type { PreflightProblem } from '../../../src/engine/preflight/report';
import { renderPdf } from '../../../src/engine/print-product/pdf';
import { preflightModel } from '../../../src/engine/print-product/preflight';
import { renderPreviewPixels, surfaceSvg } from '../../../src/engine/print-product/svg';
import { layoutItemText } from '../../../src/engine/print-product/text';
import { parseModel, validateModel } from '../../../src/engine/print-product/validate';
import { applyItemsData } from '../../../src/engine/print-product/variables';
import type { TextModel } from '../../../src/engine/print-product/schema';
import { rasterisePage, overWhite } from '../pdf/helpers';
import { fontExists, fonts, halves, imageStore, inflatedStreams, inkBox, pngImage } from './helpers';

const LONG = 'Jonathan Livingstone-Smith';

/** A business card (252 × 144 pt) with a print area inset 9 pt and `items` in one container. */
function card(items: unknown[]) {
  return parseModel(
    { surfaces: [{ id: 's', name: 'Front', width: 252, height: 144, printAreas: [{ name: 'Card', bounds: { x: 9, y: 9, width: 234, height: 126 } }], containers: [{ id: 'c', items }] }] },
    { fontExists },
  );
}
const nameItem = (extra: Record<string, unknown> = {}) => ({
  type: 'Text', name: 'Name', isVariable: true, x: 20, y: 20, width: 120, height: 26, text: 'Ada', font: { postscriptName: 'LiberationSans', size: 18 }, ...extra,
});
const noImages = imageStore({});
const codes = (problems: PreflightProblem[]) => problems.map((p) => `${p.layer}:${p.code}:${p.severity}`).sort();

/** Problems a render reports while drawing. */
async function reported(render: (report: (p: PreflightProblem) => void) => Promise<unknown>): Promise<PreflightProblem[]> {
  const out: PreflightProblem[] = [];
  await render((p) => out.push(p));
  return out;
}

describe('copyfitting of Text items (fit, minSize)', () => {
  it('None: a name too long for its box is a textOverflow error saying how much does not fit', async () => {
    const m = await card([nameItem({ text: LONG })]);
    const report = await preflightModel(m, { fonts, images: noImages });
    expect(report.ok).toBe(false);
    const [overflow] = report.problems;
    expect(overflow).toMatchObject({ layer: 'Name', code: 'textOverflow', severity: 'error' });
    expect(overflow!.message).toMatch(/^"Jonathan Livingstone-Smith" is too long for Name: \d+ characters? do(es)? not fit\.$/);
    expect(overflow!.details!.characters).toBeGreaterThan(0);
    expect(LONG.replace(/\s/g, '')).toContain(String(overflow!.details!.overflow).replace(/\s/g, ''));
  });

  it('Shrink: the text fits at a smaller size (default floor: half the size), a textShrunk warning', async () => {
    const m = await card([nameItem({ text: LONG, fit: 'shrink' })]);
    const item = m.surfaces[0]!.containers[0]!.items[0] as TextModel;
    expect(item.fit).toBe('Shrink'); // enum values ignore case
    const layout = layoutItemText(item, item.text, (await fonts('LiberationSans'))!);
    expect(layout.size).toBeLessThan(18);
    expect(layout.size).toBeGreaterThanOrEqual(9);
    expect(layout.overflowCharacters).toBe(0);
    const report = await preflightModel(m, { fonts, images: noImages });
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([
      { layer: 'Name', code: 'textShrunk', severity: 'warning', message: `Name was shrunk to ${layout.size} pt to fit.`, details: { size: layout.size, originalSize: 18 } },
    ]);
  });

  it('the preview and both PDF text modes shrink to the same size (one layout)', async () => {
    const m = await card([nameItem({ text: LONG, fit: 'Shrink' })]);
    const sizeOf = (problems: PreflightProblem[]) => problems.find((p) => p.code === 'textShrunk')?.details?.size;
    const preflight = sizeOf((await preflightModel(m, { fonts, images: noImages })).problems);
    const preview = sizeOf(await reported((report) => renderPreviewPixels(m, { fonts, images: noImages, report })));
    const outlines = sizeOf(await reported((report) => renderPdf(m, { fonts, images: noImages, report })));
    let pdf: Uint8Array = new Uint8Array();
    const text = sizeOf(await reported(async (report) => (pdf = (await renderPdf(m, { fonts, images: noImages, textMode: 'Text', report })).bytes)));
    expect(preflight).toBeTypeOf('number');
    expect([preview, outlines, text]).toEqual([preflight, preflight, preflight]);
    // The Text-mode PDF sets the font at that size.
    const streams = await inflatedStreams(pdf);
    expect(streams.some((s) => new RegExp(`/F\\d+ ${preflight} Tf`).test(s))).toBe(true);
  });

  it('shrunk text stays inside its frame in the print PDF, where the preview draws it', async () => {
    // No print areas: the page is the surface; 2 px per point.
    const m = await parseModel({ surfaces: [{ width: 252, height: 144, containers: [{ items: [nameItem({ text: LONG, fit: 'Shrink', color: '#000000' })] }] }] }, { fontExists });
    const dark = (p: number[]) => p[0]! < 128 && p[3]! > 128;
    const pdf = await renderPdf(m, { fonts, images: noImages });
    const printed = inkBox(overWhite(await rasterisePage(pdf.bytes, 1, 504, 288)), dark);
    const preview = inkBox(await renderPreviewPixels(m, { fonts, images: noImages, width: 504, height: 288, fileFormat: 'Jpeg' }), dark);
    // The whole name on one line, most of the frame's width: x 20–140, y 20–46 pt → 40–280, 40–92 px.
    expect(printed.right - printed.left).toBeGreaterThan(200);
    expect(printed.left).toBeGreaterThanOrEqual(40);
    expect(printed.right).toBeLessThanOrEqual(280);
    expect(printed.top).toBeGreaterThanOrEqual(40);
    expect(printed.bottom).toBeLessThanOrEqual(92);
    for (const side of ['left', 'top', 'right', 'bottom'] as const) expect(Math.abs(printed[side] - preview[side]), side).toBeLessThanOrEqual(1);
  });

  it('minSize bounds the shrinking: what still does not fit is an overflow', async () => {
    const m = await card([nameItem({ text: LONG, fit: 'Shrink', minSize: 16 })]);
    const report = await preflightModel(m, { fonts, images: noImages });
    expect(codes(report.problems)).toEqual(['Name:textOverflow:error', 'Name:textShrunk:warning']);
    expect(report.problems.find((p) => p.code === 'textShrunk')!.details).toEqual({ size: 16, originalSize: 18 });
  });

  it('ShrinkToFit keeps its 4 pt floor; ShrinkToLine sets one line scaled to the box width', async () => {
    const font = (await fonts('LiberationSans'))!;
    const m = await card([
      nameItem({ text: 'Impossible words here', width: 5, height: 5, fit: 'ShrinkToFit' }),
      nameItem({ name: 'Line', isVariable: false, text: `${LONG} and more`, width: 200, height: 60, fit: 'ShrinkToLine', alignment: 'Center' }),
      nameItem({ name: 'Short', isVariable: false, text: 'Ada', width: 200, height: 60, fit: 'ShrinkToLine' }),
    ]);
    const [a, b, c] = m.surfaces[0]!.containers[0]!.items as TextModel[];
    expect(layoutItemText(a!, a!.text, font).size).toBe(4);
    const line = layoutItemText(b!, b!.text, font);
    expect(line.lines.length).toBe(1);
    expect(line.size).toBeLessThan(18);
    expect(line.lines[0]!.width).toBeLessThanOrEqual(200 + 1e-6);
    expect(line.lines[0]!.width).toBeGreaterThan(195); // scaled to the width, not stepped
    expect(line.lines[0]!.x).toBeCloseTo(20 + 100, 0); // centred in the box
    expect(layoutItemText(c!, c!.text, font).size).toBe(18); // never enlarged
    // Below the floor the line stays one line and the tail that runs out is the overflow.
    const floored = layoutItemText({ ...b!, minSize: 17 }, b!.text, font);
    expect(floored.lines.length).toBe(1);
    expect(floored.size).toBe(17);
    expect(floored.overflow.length).toBeGreaterThan(0);
    expect(`${LONG} and more`.endsWith(floored.overflow)).toBe(true);
  });

  it('apply-items-data may set fit and minSize of Text items', async () => {
    const m = await card([nameItem({ name: 'Title', isVariable: false })]);
    const applied = applyItemsData(m, { Title: { fit: 'shrink', minSize: 8 } });
    expect(applied.errors).toBeNull();
    const reparsed = await parseModel(applied.model, { fontExists });
    expect(reparsed.surfaces[0]!.containers[0]!.items[0]).toMatchObject({ fit: 'Shrink', minSize: 8 });
    expect(applyItemsData(m, { Title: { minSize: 'big' } }).errors).toEqual({ 'itemsData["Title"].minSize': ['a size in points above 0'] });
  });
});

describe('preflight of print-product designs', () => {
  it('missingGlyphs names the characters the font lacks', async () => {
    const m = await card([nameItem({ text: 'Ada 名前' })]);
    const report = await preflightModel(m, { fonts, images: noImages });
    expect(report.problems).toEqual([expect.objectContaining({ code: 'missingGlyphs', severity: 'error', details: { characters: '名前', font: 'LiberationSans' } })]);
  });

  it('lowResolution by effective ppi at the placed size (warning < 200, error < 100), imageUpscaled above 1 pt per pixel', async () => {
    const image = (w: number) => pngImage(halves(w, w, [255, 0, 0, 255], [0, 0, 255, 255]));
    const images = imageStore({ big: await image(700), mid: await image(450), small: await image(150) });
    // 216 pt = 3 in: 700 px → 233 ppi, 450 px → 150 ppi, 150 px → 50 ppi (and 1.44 pt per pixel).
    const photo = (name: string, key: string) => ({ type: 'Image', name, x: 18, y: 18, width: 216, height: 216, source: { type: 'Embedded', key } });
    const m = await parseModel({ surfaces: [{ width: 252, height: 252, containers: [{ items: [photo('Big', 'big'), photo('Mid', 'mid'), photo('Small', 'small')] }] }] }, { fontExists });
    const report = await preflightModel(m, { fonts, images });
    expect(codes(report.problems)).toEqual(['Mid:lowResolution:warning', 'Small:imageUpscaled:warning', 'Small:lowResolution:error']);
    expect(report.problems.find((p) => p.layer === 'Mid')!.details).toEqual({ ppi: 150, threshold: 200 });
    expect(report.problems.find((p) => p.layer === 'Small' && p.code === 'lowResolution')!.details).toEqual({ ppi: 50, threshold: 100 });
    expect(report.problems.find((p) => p.code === 'imageUpscaled')!.details).toEqual({ scale: 1.44 });
    // An item's minResolution: a warning below it, an error below half of it.
    const strict = await parseModel({ surfaces: [{ width: 252, height: 252, containers: [{ items: [{ ...photo('Big', 'big'), minResolution: 300 }, { ...photo('Mid', 'mid'), minResolution: 100 }] }] }] }, { fontExists });
    expect((await preflightModel(strict, { fonts, images })).problems).toEqual([expect.objectContaining({ layer: 'Big', code: 'lowResolution', severity: 'warning', details: { ppi: 233, threshold: 300 } })]);
    // Thresholds are options; the preview and the PDF report the same while drawing.
    expect((await preflightModel(m, { fonts, images, resolution: { warning: 100, error: 40 } })).problems.map((p) => p.code)).toEqual(['lowResolution', 'imageUpscaled']);
    expect(codes(await reported((report) => renderPreviewPixels(m, { fonts, images, report })))).toEqual(codes(report.problems));
    expect(codes(await reported((report) => renderPdf(m, { fonts, images, report })))).toEqual(codes(report.problems));
  });

  it('outsideTrim: text ink and barcodes must lie inside a print area (turned with their groups); shapes may bleed', async () => {
    const m = await card([
      { type: 'Rectangle', name: 'Background', x: 0, y: 0, width: 252, height: 144, fillColor: '#eeeeee' },
      nameItem({ name: 'Inside', isVariable: false, text: 'Ada', x: 12, width: 200 }), // box inside, text inside
      nameItem({ name: 'Edge', isVariable: false, text: 'Ada', x: 2 }), // starts left of the trim (x 9)
      nameItem({ name: 'Wide box', isVariable: false, text: 'Ada', x: 20, width: 400 }), // box crosses, ink does not
      { type: 'Barcode', name: 'Code', x: 200, y: 100, width: 50, height: 50, value: 'https://example.com' },
      { type: 'Group', name: 'Turned', x: 100, y: 20, width: 140, height: 26, rotation: 90, items: [nameItem({ name: 'In group', isVariable: false, text: 'A long line here', x: 100, y: 20, width: 140 })] },
    ]);
    const report = await preflightModel(m, { fonts, images: noImages });
    expect(codes(report.problems)).toEqual(['Code:outsideTrim:error', 'Edge:outsideTrim:error', 'In group:outsideTrim:error']);
    expect(report.problems.find((p) => p.layer === 'Edge')).toMatchObject({ message: 'Edge runs over the edge of the print area and would be cut off.', details: { area: 'Card' } });
  });

  it('safety lines: text inside the trim but over a safety line is a warning; previews draw them dotted', async () => {
    const m = await parseModel(
      {
        surfaces: [
          {
            width: 252,
            height: 144,
            printAreas: [{ name: 'Card', bounds: { x: 9, y: 9, width: 234, height: 126 }, safetyLines: [{ name: 'Safe', margin: { left: 9, top: 9, right: 9, bottom: 9 } }] }],
            containers: [{ items: [nameItem({ name: 'Safe', isVariable: false, x: 20 }), nameItem({ name: 'Close', isVariable: false, x: 12, y: 60 })] }],
          },
        ],
      },
      { fontExists },
    );
    const report = await preflightModel(m, { fonts, images: noImages });
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([
      expect.objectContaining({ layer: 'Close', code: 'outsideTrim', severity: 'warning', message: 'Close is too close to the edge and may be cut off.', details: expect.objectContaining({ area: 'Card', line: 'safety' }) }),
    ]);
    const { svg } = await surfaceSvg(m, { fonts, images: noImages, visualizePrintAreas: true });
    expect(svg).toContain('<rect x="18" y="18" width="216" height="108" fill="none" stroke="#00a3ff" stroke-width="1" stroke-dasharray="1 2"/>');
    const bad = await validateModel({ surfaces: [{ width: 100, height: 100, printAreas: [{ bounds: { width: 100, height: 100 }, safetyLines: [{ margin: { left: 60, right: 40 } }] }] }] });
    expect(bad).toEqual({ ok: false, errors: { 'surfaces[0].printAreas[0].safetyLines[0].margin': ['leaves no safe area inside the bounds (100 × 100)'] } });
  });

  it('emptyField: a required variable left empty; previews report it, print PDFs still refuse it (400)', async () => {
    const m = await card([
      nameItem({ constraints: { required: true } }),
      nameItem({ name: 'Optional', y: 60 }),
      nameItem({ name: 'Hidden', y: 90, visible: false, constraints: { required: true } }),
    ]);
    const variableData = [{ name: 'Name', value: ' ' }, { name: 'Optional', value: '' }, { name: 'Hidden', value: '' }];
    const report = await preflightModel(m, { fonts, images: noImages, variableData });
    expect(report).toEqual({ ok: false, problems: [{ layer: 'Name', code: 'emptyField', severity: 'error', message: 'Please fill in Name: it is required.' }] });
    expect(await reported((report) => renderPreviewPixels(m, { fonts, images: noImages, variableData, report }))).toEqual(report.problems);
    await expect(renderPdf(m, { fonts, images: noImages, variableData })).rejects.toThrow(/required/);
    // Malformed variable data is the render's 400, not a problem.
    await expect(preflightModel(m, { fonts, images: noImages, variableData: [{ name: 'Nope', value: 'x' }] })).rejects.toThrow(/no variable named "Nope"/);
  });

  it('a design that fits has no problems', async () => {
    const report = await preflightModel(await card([nameItem()]), { fonts, images: noImages });
    expect(report).toEqual({ ok: true, problems: [] });
  });
});
