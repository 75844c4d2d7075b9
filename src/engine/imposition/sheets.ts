/**
 * Writes imposed sheets with pdf-lib. Every input page is embedded once, as a Form XObject
 * clipped to its BleedBox (else TrimBox, else MediaBox), as soon as its PDF is read (so only
 * one input PDF is held at a time); sheets then draw those forms by reference (`q <cm> /Fm Do
 * Q`), so the output grows with the distinct pages, not with the copies. Vectors and text stay
 * as they were. The first output intent found among the inputs is carried over; when every input
 * is PDF/X for the same print condition, the sheets are PDF/X too (pdfx.ts). A background
 * (a template's own pixels) is one more form, drawn first on every sheet, scaled to the sheet.
 * The slug line is drawn with an embedded font (slug.ts).
 */
import { PDFArray, PDFDocument, PDFName, PDFObjectCopier, PDFPageEmbedder, type PDFRef } from 'pdf-lib';
import { inputConformance, markPdfx, outputIntentChannels, sheetFormat, withPdfxHeader, type InputConformance, type SheetFormat } from './pdfx';
import { embedSlugFont } from './slug';
import { cellBoxes, turned, type Box, type Grid, type SheetGeometry } from './layout';
import { addColorSpace, appendContent, n, separation } from './spot';
import { checkPdfDecodedSizes, PDF_LIB_DECODE_LIMITS } from '../pdf-raster/bounds';

export interface ItemPage {
  /** The Form XObject. */
  form: PDFRef;
  /** Size of the clip box (the item with its bleed). */
  width: number;
  height: number;
  /** The trim inside the item, relative to the clip box's lower-left corner. */
  trim: Box;
}

export interface SheetPlan {
  /** Item index per cell, -1 = empty; for duplex, the index of the front (its back is item + 1). */
  cells: number[];
}

export interface WriteOptions extends SheetGeometry {
  grid: Grid;
  /**
   * Template slots instead of the grid's cells: per slot, the matrix that puts an item (form
   * space) where the slot is. Duplex is not offered with slots.
   */
  slots?: Matrix[];
  duplex: boolean;
  cropMarks: boolean;
  /** Crop-mark length (pt). */
  markLength?: number;
  slug?: (sheet: number, sheets: number, side: 'front' | 'back') => string;
  /** The sheets' title (PDF/X information and XMP). */
  title?: string;
}

/** A 2-D affine matrix [a b c d e f] as PDF writes it. */
export type Matrix = [number, number, number, number, number, number];

/** The matrix that puts an item (form space: its clip box from 0,0) into a cell, turned or not. */
export function placement(cell: Box, rotation: 0 | 90 | 270): Matrix {
  if (rotation === 90) return [0, 1, -1, 0, cell.x + cell.width, cell.y];
  if (rotation === 270) return [0, -1, 1, 0, cell.x, cell.y + cell.height];
  return [1, 0, 0, 1, cell.x, cell.y];
}

const apply = (m: Matrix, x: number, y: number) => ({ x: m[0] * x + m[2] * y + m[4], y: m[1] * x + m[3] * y + m[5] });

function mapBox(m: Matrix, b: Box): Box {
  const pts = [apply(m, b.x, b.y), apply(m, b.x + b.width, b.y), apply(m, b.x, b.y + b.height), apply(m, b.x + b.width, b.y + b.height)];
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
}

export class Imposer {
  readonly pages: ItemPage[] = [];
  private outputIntent = false;
  private readonly inputs: Array<InputConformance & { name: string }> = [];
  private backdrop: { form: PDFRef; width: number; height: number } | null = null;

  private constructor(readonly doc: PDFDocument) {}

  static async create(): Promise<Imposer> {
    const doc = await PDFDocument.create();
    doc.setProducer('imposition');
    return new Imposer(doc);
  }

  /** Reads one input PDF (`name` for messages) and embeds each of its pages (in order). Returns how many it had. */
  async add(bytes: Uint8Array, name = `input ${this.inputs.length + 1}`): Promise<number> {
    checkPdfDecodedSizes(bytes, PDF_LIB_DECODE_LIMITS); // embedding decodes page contents whole: bombs refused first (issue 18 item 3)
    const src = await PDFDocument.load(bytes, { updateMetadata: false });
    this.inputs.push({ name, ...inputConformance(src) });
    if (!this.outputIntent) {
      const intents = src.catalog.lookup(PDFName.of('OutputIntents'));
      if (intents instanceof PDFArray && intents.size() > 0) {
        this.doc.catalog.set(PDFName.of('OutputIntents'), PDFObjectCopier.for(src.context, this.doc.context).copy(intents));
        this.outputIntent = true;
      }
    }
    // One copier per input: what its pages share (fonts, images) is copied once.
    const copier = PDFObjectCopier.for(src.context, this.doc.context);
    for (const page of src.getPages()) {
      const media = page.getMediaBox();
      const bleed = page.node.BleedBox() ? page.getBleedBox() : page.node.TrimBox() ? page.getTrimBox() : media;
      const trim = page.node.TrimBox() ? page.getTrimBox() : bleed;
      // Copied into the output now, keeping only its ref (doc.embedPage would hold the source
      // page, and so every input document, until save).
      const embedder = await PDFPageEmbedder.for(copier.copy(page.node), { left: bleed.x, bottom: bleed.y, right: bleed.x + bleed.width, top: bleed.y + bleed.height });
      const form = await embedder.embedIntoContext(this.doc.context);
      this.pages.push({ form, width: bleed.width, height: bleed.height, trim: { x: trim.x - bleed.x, y: trim.y - bleed.y, width: trim.width, height: trim.height } });
    }
    return src.getPageCount();
  }

  /**
   * Embeds the first page of `bytes` (clipped to its TrimBox, else MediaBox) once, to be drawn
   * under everything else on every sheet, stretched to the sheet's size.
   */
  async background(bytes: Uint8Array): Promise<void> {
    checkPdfDecodedSizes(bytes, PDF_LIB_DECODE_LIMITS);
    const src = await PDFDocument.load(bytes, { updateMetadata: false });
    // Drawn on every sheet, so it must fit the sheets' PDF/X like any input.
    this.inputs.push({ name: 'the template background', ...inputConformance(src) });
    const page = src.getPage(0);
    const box = page.node.TrimBox() ? page.getTrimBox() : page.getMediaBox();
    const embedder = await PDFPageEmbedder.for(PDFObjectCopier.for(src.context, this.doc.context).copy(page.node), { left: box.x, bottom: box.y, right: box.x + box.width, top: box.y + box.height });
    this.backdrop = { form: await embedder.embedIntoContext(this.doc.context), width: box.width, height: box.height };
  }

  /**
   * What the sheets will be, from the inputs added so far: PDF/X-4, PDF/X-1a or plain (`null`),
   * with the reason when some input was PDF/X and the sheets cannot be.
   */
  format(): { format: SheetFormat | null; reason?: string } {
    return sheetFormat(this.inputs);
  }

  /** Draws the sheets (fronts, then each front's back when duplex) and returns the PDF. */
  async write(plans: SheetPlan[], o: WriteOptions): Promise<Uint8Array> {
    const cells = o.slots ? o.slots.map((m) => mapBox(m, { x: 0, y: 0, width: this.pages[0]?.width ?? 0, height: this.pages[0]?.height ?? 0 })) : cellBoxes(o, o.grid);
    // Registration black on every plate; its alternate grey where the output intent is not CMYK (PDF/X allows DeviceCMYK only under a CMYK intent).
    const channels = outputIntentChannels(this.doc);
    const registration = o.cropMarks ? separation(this.doc, 'All', channels === null || channels === 4 ? [1, 1, 1, 1] : [0]) : null;
    const sides: Array<'front' | 'back'> = o.duplex ? ['front', 'back'] : ['front'];
    const slugs = o.slug ? plans.map((_, s) => sides.map((side) => o.slug!(s + 1, plans.length, side))) : null;
    const font = slugs ? embedSlugFont(this.doc, slugs.flat()) : null;
    plans.forEach((plan, s) => {
      for (const side of sides) {
        const page = this.doc.addPage([o.sheet.width, o.sheet.height]);
        const placed: Array<{ cell: Box; trim: Box }> = [];
        const names = new Map<number, string>();
        let content = '';
        if (this.backdrop) {
          const bg = page.node.newXObject('Bg', this.backdrop.form).asString();
          content += `q ${n(o.sheet.width / this.backdrop.width)} 0 0 ${n(o.sheet.height / this.backdrop.height)} 0 0 cm ${bg} Do Q\n`;
        }
        plan.cells.forEach((item, k) => {
          if (item < 0) return;
          const index = side === 'back' ? item + 1 : item;
          const p = this.pages[index];
          if (!p) return;
          const cell = side === 'back' ? turned(cells[k]!, o.sheet.width) : cells[k]!;
          const rotation = !o.grid.rotated ? 0 : side === 'back' ? 270 : 90;
          const m = o.slots ? o.slots[k]! : placement(cell, rotation);
          let name = names.get(index);
          if (!name) {
            name = page.node.newXObject('Fm', p.form).asString();
            names.set(index, name);
          }
          content += `q ${m.map(n).join(' ')} cm ${name} Do Q\n`;
          placed.push({ cell, trim: mapBox(m, p.trim) });
        });
        if (registration && placed.length) {
          const cs = addColorSpace(page, 'CS', registration);
          content += `q /${cs} CS 1 SCN 0.5 w 0 J\n${cropMarks(placed, o)}Q\n`;
        }
        if (slugs && font) {
          const text = slugs[s]![side === 'back' ? 1 : 0]!;
          const fontName = page.node.newFontDictionary('F', font.ref).asString();
          const size = 6;
          const y = Math.max(2, Math.min(o.margin.bottom, cells.length ? Math.min(...cells.map((c) => c.y)) : 0) / 2 - size / 3);
          content += `q 0 g BT ${fontName} ${size} Tf ${n(Math.max(6, o.margin.left))} ${n(y)} Td ${font.show(text)} Tj ET Q\n`;
        }
        appendContent(page, content);
      }
    });
    const { format } = this.format();
    if (!format) return this.doc.save({ useObjectStreams: true });
    const created = new Date();
    const { useObjectStreams } = markPdfx(this.doc, format, { title: o.title ?? 'Imposed sheets', producer: 'imposition', created, documentId: crypto.randomUUID() });
    return withPdfxHeader(await this.doc.save({ useObjectStreams }), format);
  }
}

/**
 * Crop marks at each item's trim, in the registration colour. With both gutters zero the cells
 * touch, so marks are shared: one per trim line, outside the block of cells. Otherwise each
 * item gets its eight marks, starting 2 pt outside its bleed and reaching at most halfway across
 * the gutter (or to the sheet's edge), so they never run into a neighbour's bleed.
 */
export function cropMarks(placed: Array<{ cell: Box; trim: Box }>, o: WriteOptions): string {
  const L = o.markLength ?? 12;
  const OFF = 2;
  let out = '';
  const line = (x1: number, y1: number, x2: number, y2: number) => (out += `${n(x1)} ${n(y1)} m ${n(x2)} ${n(y2)} l S\n`);
  if (o.gutterX === 0 && o.gutterY === 0) {
    const left = Math.min(...placed.map((p) => p.cell.x));
    const right = Math.max(...placed.map((p) => p.cell.x + p.cell.width));
    const bottom = Math.min(...placed.map((p) => p.cell.y));
    const top = Math.max(...placed.map((p) => p.cell.y + p.cell.height));
    const uniq = (v: number[]) => [...new Set(v.map((x) => Math.round(x * 1000) / 1000))];
    const xs = uniq(placed.flatMap((p) => [p.trim.x, p.trim.x + p.trim.width]));
    const ys = uniq(placed.flatMap((p) => [p.trim.y, p.trim.y + p.trim.height]));
    const up = Math.min(L, o.sheet.height - top - OFF);
    const down = Math.min(L, bottom - OFF);
    const lft = Math.min(L, left - OFF);
    const rgt = Math.min(L, o.sheet.width - right - OFF);
    for (const x of xs) {
      if (up > 0) line(x, top + OFF, x, top + OFF + up);
      if (down > 0) line(x, bottom - OFF, x, bottom - OFF - down);
    }
    for (const y of ys) {
      if (lft > 0) line(left - OFF, y, left - OFF - lft, y);
      if (rgt > 0) line(right + OFF, y, right + OFF + rgt, y);
    }
    return out;
  }
  // How far a mark may reach: to the sheet's edge on the outside of the block, else half the gutter.
  const room = (toSheet: number, gutter: number, outer: boolean) => Math.min(L, (outer ? toSheet : gutter / 2) - OFF);
  const minX = Math.min(...placed.map((p) => p.cell.x));
  const maxX = Math.max(...placed.map((p) => p.cell.x + p.cell.width));
  const minY = Math.min(...placed.map((p) => p.cell.y));
  const maxY = Math.max(...placed.map((p) => p.cell.y + p.cell.height));
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-3;
  for (const { cell, trim } of placed) {
    const l = room(cell.x, o.gutterX, near(cell.x, minX));
    const r = room(o.sheet.width - cell.x - cell.width, o.gutterX, near(cell.x + cell.width, maxX));
    const b = room(cell.y, o.gutterY, near(cell.y, minY));
    const t = room(o.sheet.height - cell.y - cell.height, o.gutterY, near(cell.y + cell.height, maxY));
    for (const y of [trim.y, trim.y + trim.height]) {
      if (l > 0) line(cell.x - OFF, y, cell.x - OFF - l, y);
      if (r > 0) line(cell.x + cell.width + OFF, y, cell.x + cell.width + OFF + r, y);
    }
    for (const x of [trim.x, trim.x + trim.width]) {
      if (b > 0) line(x, cell.y - OFF, x, cell.y - OFF - b);
      if (t > 0) line(x, cell.y + cell.height + OFF, x, cell.y + cell.height + OFF + t);
    }
  }
  return out;
}
