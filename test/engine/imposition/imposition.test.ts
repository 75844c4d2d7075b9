// Parametric imposition: units, the grid (auto agrees with calculate-count-per-sheet), the
// cut-and-stack order, and the sheets pdf-lib writes, checked by the placements' matrices in the
// content stream, one Form XObject per distinct page, qpdf --check, and where the crop marks
// fall on a pdftoppm raster.
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { cellBoxes, cutAndStack, stepAndRepeat, turned } from '../../../src/engine/imposition/layout';
import { Imposer, placement } from '../../../src/engine/imposition/sheets';
import { slotMatrix, templateSlots } from '../../../src/engine/imposition/template';
import { parseLayout, parseLength, parseSheetSize } from '../../../src/engine/imposition/units';
import { decodeImage } from '../../../src/engine/raster';
import { chooseGrid, sheetGeometry, type ImpositionParams } from '../../../src/platform/pipelines/tasks/imposition';
import { countPerSheet } from '../../../src/engine/imposition/count-per-sheet';
import { runTool } from '../../helpers/fixtures';
import { card, placements, contentOf, MM } from './helpers';

const params = (p: Partial<ImpositionParams>): ImpositionParams => ({ sheetSize: 'SRA3', margin: '10mm', gutter: '0', layout: 'auto', scheme: 'stepAndRepeat', duplex: false, cropMarks: false, slugLine: false, ...p });

describe('units', () => {
  it('reads lengths in mm, in, pt, cm and bare points', () => {
    expect(parseLength('10mm')).toBeCloseTo(28.3465, 3);
    expect(parseLength('0.25in')).toBe(18);
    expect(parseLength('6pt')).toBe(6);
    expect(parseLength('1cm')).toBeCloseTo(28.3465, 3);
    expect(parseLength(12)).toBe(12);
    expect(parseLength('-3mm')).toBeNull();
    expect(parseLength('3 furlongs')).toBeNull();
  });

  it('reads named sheets and WxH sizes', () => {
    expect(parseSheetSize('SRA3')).toEqual({ width: 320 * MM, height: 450 * MM });
    expect(parseSheetSize('a3')).toEqual({ width: 297 * MM, height: 420 * MM });
    expect(parseSheetSize('Letter')).toEqual({ width: 612, height: 792 });
    expect(parseSheetSize('12x18in')).toEqual({ width: 864, height: 1296 });
    expect(parseSheetSize('320x450mm')).toEqual({ width: 320 * MM, height: 450 * MM });
    expect(parseSheetSize('huge')).toBeNull();
    expect(parseLayout('3x7')).toEqual({ columns: 3, rows: 7 });
    expect(parseLayout('auto')).toBe('auto');
    expect(parseLayout('0x7')).toBeNull();
  });
});

describe('layout', () => {
  it('auto agrees with calculate-count-per-sheet: 21 business cards with bleed on SRA3', () => {
    const g = sheetGeometry(params({}));
    const item = { width: 91 * MM, height: 61 * MM };
    const grid = chooseGrid(g, 'auto', item);
    const count = countPerSheet({ width: 85 * MM, height: 55 * MM }, 3 * MM, { sheetWidth: 320 * MM, sheetHeight: 450 * MM, margin: { left: 10 * MM, top: 10 * MM, right: 10 * MM, bottom: 10 * MM }, allowRotation: true });
    expect(grid.columns * grid.rows).toBe(21);
    expect({ columns: grid.columns, rows: grid.rows, rotated: grid.rotated }).toEqual({ columns: count.columns, rows: count.rows, rotated: count.rotated });
  });

  it('auto turns the item when that fits more (ties unturned)', () => {
    // 100 × 40 on a 130 × 210 room: 1 × 5 straight, 3 × 2 turned.
    const g = sheetGeometry(params({ sheetSize: '130x210pt', margin: '0' }));
    expect(chooseGrid(g, 'auto', { width: 100, height: 40 })).toMatchObject({ columns: 3, rows: 2, rotated: true, cellWidth: 40, cellHeight: 100 });
  });

  it('an explicit layout that does not fit is a parameter error naming layout', () => {
    const g = sheetGeometry(params({ sheetSize: 'A4' }));
    expect(() => chooseGrid(g, '5x5', { width: 91 * MM, height: 61 * MM })).toThrow(/layout/);
    expect(() => sheetGeometry(params({ margin: 'wide' }))).toThrow(/margin/);
    expect(() => sheetGeometry(params({ sheetSize: 'B52' }))).toThrow(/sheetSize/);
  });

  it('cut and stack: the stacks of cut sheets, laid one after another, are the items in order', () => {
    const sheets = cutAndStack(10, 4);
    expect(sheets).toHaveLength(3);
    const stacks = [0, 1, 2, 3].map((k) => sheets.map((s) => s[k]!).filter((i) => i >= 0));
    expect(stacks.flat()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sheets[0]).toEqual([0, 3, 6, 9]);
  });

  it('step and repeat: quantity copies of each item, on sheets of its own', () => {
    expect(stepAndRepeat(1, 4, 6)).toEqual([
      [0, 0, 0, 0],
      [0, 0, -1, -1],
    ]);
    expect(stepAndRepeat(2, 2, 2)).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('cells are centred inside the margins, row by row from the top-left; backs mirror them', () => {
    const g = { sheet: { width: 300, height: 200 }, margin: { left: 10, top: 10, right: 10, bottom: 10 }, gutterX: 10, gutterY: 0 };
    const cells = cellBoxes(g, { columns: 2, rows: 1, rotated: false, cellWidth: 100, cellHeight: 50 });
    expect(cells).toEqual([
      { x: 45, y: 75, width: 100, height: 50 },
      { x: 155, y: 75, width: 100, height: 50 },
    ]);
    expect(turned(cells[0]!, 300)).toEqual(cells[1]);
  });
});

describe('sheets', () => {
  it('a 2-up: two placements of one Form XObject at the cells, crop marks at the trims', async () => {
    const imposer = await Imposer.create();
    await imposer.add(await card('A'));
    const g = { sheet: { width: 612, height: 396 }, margin: { left: 18, top: 18, right: 18, bottom: 18 }, gutterX: 36, gutterY: 0 };
    const item = { width: 91 * MM, height: 61 * MM };
    const grid = { columns: 2, rows: 1, rotated: false, cellWidth: item.width, cellHeight: item.height };
    const out = await imposer.write([{ cells: [0, 0] }], { ...g, grid, duplex: false, cropMarks: true });
    const doc = await PDFDocument.load(out);
    expect(doc.getPageCount()).toBe(1);
    const [page] = doc.getPages();
    const placed = placements(page!);
    expect(placed).toHaveLength(2);
    expect(new Set(placed.map((p) => p.name)).size).toBe(1);
    const cells = cellBoxes(g, grid);
    placed.forEach((p, i) => {
      expect(p.m[0]).toBe(1);
      expect(p.m[3]).toBe(1);
      expect(p.m[4]).toBeCloseTo(cells[i]!.x, 3);
      expect(p.m[5]).toBeCloseTo(cells[i]!.y, 3);
    });
    // One form in the file: the page is embedded once, drawn twice.
    const forms = doc.context.enumerateIndirectObjects().filter(([, o]) => o instanceof PDFRawStream && o.dict.get(PDFName.of('Subtype')) === PDFName.of('Form'));
    expect(forms).toHaveLength(1);
    expect((await runTool('qpdf-check', out)).code).toBe(0);
    // The card's text (and its font) came along.
    const text = await runTool('pdftotext', out);
    expect(text.stdout).toContain('A0');
    expect(text.stderr).not.toMatch(/error/i);

    // Raster at 144 dpi (2 px/pt): a vertical mark at each trim x above the cells, nothing between.
    const png = (await runTool('pdftoppm', out, { r: 144 })).pages[0]!;
    const img = await decodeImage(Uint8Array.from(atob(png), (c) => c.charCodeAt(0)));
    const dark = (xPt: number, yPtFromTop: number) => {
      const x = Math.round(xPt * 2);
      const y = Math.round(yPtFromTop * 2);
      let min = 255;
      for (let dx = -1; dx <= 1; dx++) {
        const i = (y * img.width + x + dx) * 4;
        min = Math.min(min, img.data[i]!, img.data[i + 1]!, img.data[i + 2]!);
      }
      return min < 128;
    };
    const top = 396 - (cells[0]!.y + cells[0]!.height);
    const markY = top - 2 - 4; // within the mark, 2 pt beyond the bleed
    for (const c of cells) {
      expect(dark(c.x + 3 * MM, markY)).toBe(true);
      expect(dark(c.x + c.width - 3 * MM, markY)).toBe(true);
      expect(dark(c.x + c.width / 2, markY)).toBe(false);
    }
    // Horizontal marks at the trim's top edge, left of the first cell.
    const trimTop = top + 3 * MM;
    expect(dark(cells[0]!.x - 6, trimTop)).toBe(true);
    expect(dark(cells[0]!.x - 6, trimTop + 20)).toBe(false);
  });

  it('zero gutters share marks: one per trim line outside the block; turned cells are rotated', async () => {
    const imposer = await Imposer.create();
    await imposer.add(await card('B'));
    const g = { sheet: { width: 400, height: 700 }, margin: { left: 20, top: 20, right: 20, bottom: 20 }, gutterX: 0, gutterY: 0 };
    const grid = { columns: 2, rows: 2, rotated: true, cellWidth: 61 * MM, cellHeight: 91 * MM };
    const out = await imposer.write([{ cells: [0, 0, 0, 0] }], { ...g, grid, duplex: false, cropMarks: true });
    const [page] = (await PDFDocument.load(out)).getPages();
    const placed = placements(page!);
    const cells = cellBoxes(g, grid);
    placed.forEach((p, i) => expect(p.m).toEqual(placement(cells[i]!, 90).map((v) => Math.round(v * 10_000) / 10_000)));
    const content = contentOf(page!);
    // 2 columns → 4 trim x's, 2 rows → 4 trim y's; each mark at both ends: 16 lines.
    expect(content.match(/ l S/g)).toHaveLength(16);
  });

  it('duplex: each front sheet is followed by its back, mirrored for work-and-turn', async () => {
    const imposer = await Imposer.create();
    await imposer.add(await card('F', { pages: 2 }));
    const g = { sheet: { width: 612, height: 396 }, margin: { left: 18, top: 18, right: 18, bottom: 18 }, gutterX: 36, gutterY: 0 };
    const grid = { columns: 2, rows: 1, rotated: false, cellWidth: 91 * MM, cellHeight: 61 * MM };
    const out = await imposer.write([{ cells: [0, -1] }], { ...g, grid, duplex: true, cropMarks: false });
    const doc = await PDFDocument.load(out);
    expect(doc.getPageCount()).toBe(2);
    const [front, back] = doc.getPages().map((p) => placements(p));
    const cells = cellBoxes(g, grid);
    expect(front).toHaveLength(1);
    expect(back).toHaveLength(1);
    expect(front![0]!.m[4]).toBeCloseTo(cells[0]!.x, 3);
    // The back of the left cell sits in the right cell once the sheet is turned.
    expect(back![0]!.m[4]).toBeCloseTo(612 - cells[0]!.x - cells[0]!.width, 3);
    expect(front![0]!.name === back![0]!.name && page0Form(doc, 0, front![0]!.name) === page0Form(doc, 1, back![0]!.name)).toBe(false);
  });
});

function page0Form(doc: PDFDocument, i: number, name: string) {
  const xo = doc.getPage(i).node.Resources()!.lookup(PDFName.of('XObject')) as unknown as { get(n: PDFName): unknown };
  return String(xo.get(PDFName.of(name.slice(1))));
}

describe('VDP', () => {
  it('cut and stack of separate PDFs: each embedded once, fonts intact, stacks in order', async () => {
    const imposer = await Imposer.create();
    for (let i = 0; i < 7; i++) await imposer.add(await card(`R${i}-`));
    const g = { sheet: { width: 612, height: 396 }, margin: { left: 18, top: 18, right: 18, bottom: 18 }, gutterX: 18, gutterY: 0 };
    const grid = { columns: 2, rows: 1, rotated: false, cellWidth: 91 * MM, cellHeight: 61 * MM };
    const plans = cutAndStack(7, 2).map((cells) => ({ cells }));
    const out = await imposer.write(plans, { ...g, grid, duplex: false, cropMarks: false });
    const doc = await PDFDocument.load(out);
    expect(doc.getPageCount()).toBe(4);
    const forms = doc.context.enumerateIndirectObjects().filter(([, o]) => o instanceof PDFRawStream && o.dict.get(PDFName.of('Subtype')) === PDFName.of('Form'));
    expect(forms).toHaveLength(7);
    // Sheet by sheet, left cell then right: R0 R4 / R1 R5 / R2 R6 / R3 — stacks R0–R3 and R4–R6.
    const text = await runTool('pdftotext', out);
    expect(text.stderr).toBe('');
    const found = [...text.stdout.matchAll(/R(\d)-0/g)].map((m) => Number(m[1]));
    expect(found).toEqual([0, 4, 1, 5, 2, 6, 3]);
  });
});

describe('template slots', () => {
  it('reads smart-object corners in reading order, in points, y up; a slot fits the item, centred and turned with it', () => {
    const so = (corners: number[]) => ({ smartObject: { corners, width: 10, height: 10 } });
    const node = (id: number, left: number, top: number, corners: number[]) => ({ id, name: `s${id}`, type: 'smartObject', bounds: { left, top, right: left + 100, bottom: top + 50 }, visible: true, opacity: 1, fillOpacity: 1, blendMode: 'normal', ...so(corners) });
    const t = {
      width: 400,
      height: 300,
      resolution: 144,
      layers: [node(1, 200, 10, [200, 10, 300, 10, 300, 60, 200, 60]), node(2, 10, 12, [10, 12, 110, 12, 110, 62, 10, 62]), node(3, 10, 200, [60, 200, 60, 300, 10, 300, 10, 200])] as never,
    };
    const { sheet, slots } = templateSlots(t);
    expect(sheet).toEqual({ width: 200, height: 150 });
    // Row 1 left to right (s2, s1), then row 2 (s3); px ÷ 2 at 144 ppi, y flipped.
    expect(slots[0]![0]).toEqual([5, 144]);
    expect(slots[1]![0]).toEqual([100, 145]);
    const m = slotMatrix(slots[0]!, 100, 50);
    // 100 × 50 pt into a 50 × 25 pt slot: scale ½, lower-left at the slot's bottom-left.
    expect(m.map((v) => Math.round(v * 1000) / 1000)).toEqual([0.5, 0, 0, 0.5, 5, 119]);
    // The third slot is turned 90° clockwise: its x axis points down the page.
    const turnedSlot = slotMatrix(slots[2]!, 100, 50);
    expect(Math.round(turnedSlot[1] * 1000) / 1000).toBeLessThan(0);
  });
});

describe('output intent', () => {
  it('the first input’s PDF/X output intent is carried over, its profile with it', async () => {
    const src = await PDFDocument.load(await card('X'));
    const profile = src.context.register(src.context.flateStream(new Uint8Array(128), { N: 4 }));
    src.catalog.set(PDFName.of('OutputIntents'), src.context.obj([{ Type: 'OutputIntent', S: 'GTS_PDFX', OutputConditionIdentifier: PDFString.of('FOGRA39'), DestOutputProfile: profile }]));
    const imposer = await Imposer.create();
    await imposer.add(await src.save());
    await imposer.add(await card('Y'));
    const g = { sheet: { width: 612, height: 396 }, margin: { left: 18, top: 18, right: 18, bottom: 18 }, gutterX: 18, gutterY: 0 };
    const grid = { columns: 2, rows: 1, rotated: false, cellWidth: 91 * MM, cellHeight: 61 * MM };
    const out = await PDFDocument.load(await imposer.write([{ cells: [0, 1] }], { ...g, grid, duplex: false, cropMarks: false }));
    const intents = out.catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
    const intent = intents.lookup(0, PDFDict);
    expect(intent.get(PDFName.of('S'))).toBe(PDFName.of('GTS_PDFX'));
    expect((intent.lookup(PDFName.of('OutputConditionIdentifier')) as PDFString).decodeText()).toBe('FOGRA39');
    expect(intent.lookup(PDFName.of('DestOutputProfile'))).toBeInstanceOf(PDFRawStream);
  });
});
