/**
 * produce-imposition, parametric: the input pages (every page of every input PDF, in order) on
 * `sheetSize` sheets in a grid (`layout`: `auto`, the most copies with or without turning the
 * item, by the same rule as calculate-count-per-sheet; or `"3x7"` columns × rows), inside
 * `margin`, cells `gutter` (`gutterX`/`gutterY`) apart. The cell is the item with its bleed
 * (the page's BleedBox). `scheme`: stepAndRepeat (each page `quantity` times on sheets of its
 * own) or cutAndStack (VDP: each page once, ordered so the cut stacks come out sorted). `duplex`:
 * pages pair up as front and back; each sheet is followed by its back, laid out for
 * work-and-turn. `cropMarks`, `slugLine` (order, job, sheet n of m). One PDF comes out
 * (src/engine/imposition). Template-driven (`impositionTemplateId`, or `impositionTemplateName`
 * in `impositionTemplateFolder`): the sheet is the PSD's size and its smart objects are the
 * slots (corners, so rotation comes along), the pages fitted into them as vectors; the same
 * schemes and quantity fill them. `impositionTemplateBackground`: the PSD itself, printed by the
 * engine with its slot layers hidden, is one form drawn under the pages on every sheet.
 * PDF/X inputs (one print condition) give PDF/X sheets of the same version; else plain sheets,
 * with a note saying why when some input was PDF/X.
 */
import { Imposer, type Matrix, type SheetPlan } from '../../../engine/imposition/sheets';
import { slotMatrix, templateSlots } from '../../../engine/imposition/template';
import { writePdf } from '../../../engine/pdf/document';
import { prepareHires } from '../../../engine/pdf/prepare';
import { MemorySink } from '../../../engine/pdf/sink';
import type { PersonalisationData } from '../../../engine/personalise';
import { resolveTemplate } from '../../../engine/preview';
import { TenantInputStore } from '../../assets';
import { templateOf } from './populate-psd-template';
import { cutAndStack, gridFits, stepAndRepeat, type Grid, type SheetGeometry } from '../../../engine/imposition/layout';
import { parseLayout, parseLength, parseSheetSize } from '../../../engine/imposition/units';
import { countPerSheet } from '../../../engine/imposition/count-per-sheet';
import { NOT_AVAILABLE_YET, ParameterError } from '../language';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { deps } from './render';
import type { TaskModule } from './types';

const isPdf = (b: Uint8Array) => b[0] === 0x25 && b[1] === 0x50 && b[2] === 0x44 && b[3] === 0x46;

/** Most sheets one task writes (a 21-up job of 10,000 cards is 477 sheets). */
export const MAX_SHEETS = 2000;

export interface ImpositionParams {
  sheetSize: string;
  margin: string;
  gutter: string;
  gutterX?: string;
  gutterY?: string;
  layout: string;
  quantity?: number;
  scheme: 'stepAndRepeat' | 'cutAndStack';
  duplex: boolean;
  cropMarks: boolean;
  slugLine: boolean;
}

/** Sheet geometry from the parameters, every problem named by its parameter. */
export function sheetGeometry(p: ImpositionParams): SheetGeometry {
  const errors: Record<string, string[]> = {};
  const length = (name: keyof ImpositionParams, v: unknown) => {
    const pt = parseLength(v);
    if (pt === null) errors[name] = ['must be a length such as "10mm", "0.25in", "6pt" or a number of points'];
    return pt ?? 0;
  };
  const sheet = parseSheetSize(p.sheetSize);
  if (!sheet) errors.sheetSize = ['must be SRA3, SRA4, A4, A3, A2, Letter, Legal, Tabloid or a size such as "12x18in" or "320x450mm"'];
  const margin = length('margin', p.margin);
  const gutter = length('gutter', p.gutter);
  const gutterX = p.gutterX !== undefined && p.gutterX !== '' ? length('gutterX', p.gutterX) : gutter;
  const gutterY = p.gutterY !== undefined && p.gutterY !== '' ? length('gutterY', p.gutterY) : gutter;
  if (Object.keys(errors).length) throw new ParameterError(errors);
  return { sheet: sheet!, margin: { left: margin, top: margin, right: margin, bottom: margin }, gutterX, gutterY };
}

/**
 * The grid for an item of `width` × `height` (its bleed box): `auto` asks countPerSheet (the
 * calculate-count-per-sheet rule, rotation allowed, ties unrotated); `CxR` is used as written,
 * unturned if it fits, else turned.
 */
export function chooseGrid(g: SheetGeometry, layout: string, item: { width: number; height: number }): Grid {
  const wanted = parseLayout(layout);
  if (wanted === null) throw new ParameterError({ layout: ['must be auto or columns x rows such as "3x7"'] });
  if (wanted === 'auto') {
    const r = countPerSheet(item, 0, { sheetWidth: g.sheet.width, sheetHeight: g.sheet.height, margin: g.margin, gapX: g.gutterX, gapY: g.gutterY, allowRotation: true });
    if (r.count === 0) throw new TaskFailure(`an item of ${fmt(item.width)} × ${fmt(item.height)} pt does not fit a ${fmt(g.sheet.width)} × ${fmt(g.sheet.height)} pt sheet inside its margins`);
    return { columns: r.columns, rows: r.rows, rotated: r.rotated, cellWidth: r.itemWidth, cellHeight: r.itemHeight };
  }
  const straight: Grid = { ...wanted, rotated: false, cellWidth: item.width, cellHeight: item.height };
  if (gridFits(g, straight)) return straight;
  const turned: Grid = { ...wanted, rotated: true, cellWidth: item.height, cellHeight: item.width };
  if (gridFits(g, turned)) return turned;
  throw new ParameterError({ layout: [`${wanted.columns}x${wanted.rows} items of ${fmt(item.width)} × ${fmt(item.height)} pt do not fit the sheet inside its margins, turned or not`] });
}

const fmt = (v: number) => String(Math.round(v * 100) / 100);

export const produceImposition: TaskModule<'produce-imposition'> = {
  async run(ctx, p) {
    const templated = !!(p.impositionTemplateId || p.impositionTemplateName);
    if (p.impositionTemplateBackground && !templated) throw new ParameterError({ impositionTemplateBackground: ['needs a template (impositionTemplateId or impositionTemplateName)'] });
    if (templated && p.duplex) throw new ParameterError({ duplex: [`duplex with a template is ${NOT_AVAILABLE_YET}`] });
    // With a template, the sheet and its slots come from the PSD (below); margins play no part.
    const geometry = templated ? { sheet: { width: 1, height: 1 }, margin: { left: 0, top: 0, right: 0, bottom: 0 }, gutterX: 0, gutterY: 0 } : sheetGeometry(p);
    const inputs = ctx.task.inputs.flatMap((ref) => ctx.inputs(ref.name));
    if (!inputs.length) throw new TaskFailure('there is nothing to impose');
    const imposer = await Imposer.create();
    for (const a of inputs) {
      const bytes = await ctx.read(a);
      if (!isPdf(bytes)) throw new TaskFailure(`${a.fileName} is not a PDF (impose print files: render-hires with hiResOutputFileFormat Pdf)`);
      try {
        await imposer.add(bytes, a.fileName);
      } catch (e) {
        throw new TaskFailure(`${a.fileName} is not a readable PDF: ${(e as Error).message}`);
      }
    }
    const pages = imposer.pages;
    const first = pages[0];
    if (!first) throw new TaskFailure('the inputs have no pages');
    const odd = pages.find((pg) => Math.abs(pg.width - first.width) > 0.5 || Math.abs(pg.height - first.height) > 0.5);
    if (odd) throw new TaskFailure(`the pages differ in size (${fmt(first.width)} × ${fmt(first.height)} and ${fmt(odd.width)} × ${fmt(odd.height)} pt); one grid takes one size`);
    if (p.duplex && pages.length % 2) throw new TaskFailure(`duplex takes pages in front/back pairs; the inputs have ${pages.length} pages`);
    let grid: Grid;
    let slots: Matrix[] | undefined;
    if (templated) {
      const t = await templateOf(ctx.env, ctx.tenantId, { templateId: p.impositionTemplateId, templateName: p.impositionTemplateName, templateFolder: p.impositionTemplateFolder });
      const compiled = (await resolveTemplate(new TenantInputStore(ctx.env, ctx.tenantId), t.id)).compiled;
      const found = templateSlots(compiled);
      if (!found.slots.length) throw new TaskFailure(`the template ${t.name} has no smart objects to place the pages in`);
      geometry.sheet = found.sheet;
      slots = found.slots.map((c) => slotMatrix(c, first.width, first.height));
      if (p.impositionTemplateBackground) {
        // The engine's print PDF of the PSD (as render-hires makes it) with the slots hidden.
        const data = Object.fromEntries(found.names.map((name) => [name, { visible: false }])) as unknown as PersonalisationData;
        const page = await prepareHires(new TenantInputStore(ctx.env, ctx.tenantId), { template: t.id, textOutputMode: 'outlines', data }, deps(ctx.env));
        const sink = new MemorySink();
        await writePdf(sink, [page.load], { title: t.name, output: page.output });
        await imposer.background(sink.bytes());
      }
      grid = { columns: slots.length, rows: 1, rotated: false, cellWidth: first.width, cellHeight: first.height };
      // Marks reach out their full length: the template says nothing about gutters.
      geometry.gutterX = geometry.gutterY = 28;
    } else {
      grid = chooseGrid(geometry, p.layout, first);
    }
    const perSheet = grid.columns * grid.rows;
    const items = p.duplex ? pages.length / 2 : pages.length;
    const quantity = p.quantity ?? perSheet;
    const layout = p.scheme === 'cutAndStack' ? cutAndStack(items, perSheet) : stepAndRepeat(items, perSheet, quantity);
    if (layout.length > MAX_SHEETS) throw new TaskFailure(`this would make ${layout.length} sheets; one task writes at most ${MAX_SHEETS}`);
    // Item i is page i, or pages 2i (front) and 2i + 1 (back).
    const plans: SheetPlan[] = layout.map((cells) => ({ cells: cells.map((i) => (i < 0 ? -1 : p.duplex ? 2 * i : i)) }));
    const order = (ctx.project as { orderNumber?: unknown } | null)?.orderNumber;
    const slug = p.slugLine
      ? (s: number, of: number, side: 'front' | 'back') =>
          [order !== undefined && order !== null && order !== '' ? `Order ${String(order)}` : null, `Job ${ctx.jobId}`, `Sheet ${s} of ${of}${p.duplex ? ` (${side})` : ''}`]
            .filter(Boolean)
            .join(' \u00b7 ')
            // The slug font has Latin-1 only: anything else becomes '?'.
            .replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '?')
      : undefined;
    const name = outputBase(p, 'imposition');
    // PDF/X inputs give PDF/X sheets; when they cannot, the task says why (issue 24's printer rejects plain sheets).
    const { reason } = imposer.format();
    if (reason) ctx.note?.(reason);
    const bytes = await imposer.write(plans, { ...geometry, grid, slots, duplex: p.duplex, cropMarks: p.cropMarks, slug, title: name });
    await ctx.output(ctx.task.outputs[0]!.name, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', bytes, contentType: 'application/pdf' });
  },
};
