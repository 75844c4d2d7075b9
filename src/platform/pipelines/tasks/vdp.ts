/**
 * render-vdp-preview / render-vdp-hires: the design rendered once per row of variable data —
 * `vdpData` `[{variable: value}]`, or a second input (a JSON array of such rows, or a CSV with a
 * header row). A string value replaces the text of the layer named by the variable; an object
 * is an engine command (`{type: 'image', image}`, `{visible: false}`…). Each row is one output
 * member, named `<name>_<row>`; hires writes PDFs (streamed) or JPEG/PNG at `hiResOutputDpi`.
 * The item's `fields` apply first (personalise.ts); a row's value wins for the same layer.
 * Print-product designs: a row names variables (exactly or ignoring case; another name fails),
 * previews are the first surface with its mockups, PDFs the atoms' print PDF, rasters the pages
 * the print-area filter keeps (`<name>_<row>_<page>` when the design has several).
 */
import type { PersonalisationData } from '../../../engine/personalise';
import type { TextOutputMode } from '../../../engine/pdf/prepare';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, isPrintProduct, pdfWriter, renderImage } from './render';
import type { VariableInfo } from '../../atoms/model';
import { encodeJpeg, encodePng } from '../../../engine/raster';
import type { PageRange } from '../language';
import type { DesignAsset } from './assets';
import { itemFields, printProductVariables, psdFieldData } from './personalise';
import { loadModel, pagePictures, printPdf, surfacePicture } from './print-product';
import { flattenOver } from './raster';
import type { ArtifactRecord, TaskModule, UnitContext } from './types';

const MAX_ROWS = 500;

function parseCsv(text: string): Array<Record<string, string>> {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(cell), (cell = '');
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell), rows.push(row), (row = []), (cell = '');
    } else cell += ch;
  }
  if (cell !== '' || row.length) row.push(cell), rows.push(row);
  const [header, ...body] = rows.filter((r) => r.some((c) => c !== ''));
  if (!header) return [];
  return body.map((r) => Object.fromEntries(header.map((h, j) => [h.trim(), r[j] ?? ''])));
}

async function rowsOf(ctx: UnitContext): Promise<Array<Record<string, unknown>>> {
  if (Array.isArray(ctx.params.vdpData) && ctx.params.vdpData.length) return ctx.params.vdpData as Array<Record<string, unknown>>;
  const source = ctx.task.inputs[1];
  const file: ArtifactRecord | undefined = source ? ctx.inputs(source.name)[0] : undefined;
  if (!file) throw new TaskFailure('give vdpData, or a JSON or CSV input with the rows');
  const text = new TextDecoder().decode(await ctx.read(file));
  try {
    const json = JSON.parse(text) as unknown;
    if (!Array.isArray(json) || json.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) throw new TaskFailure(`${file.fileName}: expected a JSON array of objects`);
    return json as Array<Record<string, unknown>>;
  } catch (e) {
    if (e instanceof TaskFailure) throw e;
    return parseCsv(text);
  }
}

function dataOf(row: Record<string, unknown>): PersonalisationData {
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) data[k] = v !== null && typeof v === 'object' ? v : { type: 'text', text: String(v ?? '') };
  return data as PersonalisationData;
}

/** A print-product row: the item's fields, then the row's values (a row value wins). */
function mergeVariables(fromFields: VariableInfo[] | undefined, fromRow: VariableInfo[] | undefined): VariableInfo[] | undefined {
  const byName = new Map<string, VariableInfo>();
  for (const v of [...(fromFields ?? []), ...(fromRow ?? [])]) byName.set(v.name, v);
  return byName.size ? [...byName.values()] : undefined;
}

/** Print-product rows: the atoms' PDF per row, or the first surface (preview, with its mockups) or the filter's pages (hires rasters). */
async function printProductRows(ctx: UnitContext, design: DesignAsset & { blobSha: string }, rows: Array<Record<string, unknown>>, kind: 'preview' | 'hires', fields: Record<string, unknown>) {
  const p = ctx.params;
  const model = await loadModel(ctx, design);
  const base = outputBase(p, design.name);
  const out = ctx.task.outputs[0]!.name;
  const fromFields = printProductVariables(model, fields);
  const pages = model.surfaces.reduce((n, s) => n + Math.max(1, s.printAreas.length), 0);
  for (const [i, row] of rows.entries()) {
    const name = `${base}_${i + 1}`;
    const vars = mergeVariables(fromFields, printProductVariables(model, Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v ?? ''])), `row ${i + 1}`, true));
    if (kind === 'preview') {
      const fmt = p.previewOutputFileFormat === 'Png' ? 'png' : 'jpg';
      const pic = await surfacePicture(ctx, model, 0, { width: Number(p.previewOutputWidth), height: Number(p.previewOutputHeight), format: fmt, stub: true, mockup: true }, vars);
      await ctx.output(out, { ext: fmt, fileName: `${name}.${fmt}`, format: fmt === 'png' ? 'png' : 'jpeg', bytes: pic.bytes, contentType: pic.contentType, source: design.id });
    } else if (p.hiResOutputFileFormat === 'Pdf') {
      const pdf = await printPdf(ctx, model, p.hiResOutputPdfTextMode === 'Text' ? 'Text' : 'Outlines', name, vars);
      await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', bytes: pdf.bytes, contentType: 'application/pdf', source: design.id });
    } else {
      const fmt = p.hiResOutputFileFormat === 'Png' ? 'png' : 'jpg';
      for (const pic of await pagePictures(ctx, model, p.hiResOutputPrintAreaFilter as PageRange[] | undefined, Number(p.hiResOutputDpi), vars)) {
        if (fmt === 'jpg') flattenOver(pic.image, [255, 255, 255, 255]);
        const bytes = fmt === 'png' ? await encodePng(pic.image) : await encodeJpeg(pic.image, 90);
        const file = pages > 1 ? `${name}_${pic.page}` : name;
        await ctx.output(out, { ext: fmt, fileName: `${file}.${fmt}`, format: fmt === 'png' ? 'png' : 'jpeg', bytes, contentType: fmt === 'png' ? 'image/png' : 'image/jpeg', source: design.id });
      }
    }
  }
}

function vdpTask(kind: 'preview' | 'hires'): TaskModule {
  return {
    async run(ctx) {
      const ref = ctx.task.inputs[0]!;
      const input = ctx.member ?? ctx.inputs(ref.name)[0];
      if (!input) throw new TaskFailure(`${ref.name} is missing`);
      const rows = await rowsOf(ctx);
      if (!rows.length) throw new TaskFailure('there are no rows of variable data');
      if (rows.length > MAX_ROWS) throw new TaskFailure(`at most ${MAX_ROWS} rows of variable data`);
      const design = await designOf(ctx, input);
      const p = ctx.params;
      if (kind === 'hires' && !['Pdf', 'Jpeg', 'Png'].includes(String(p.hiResOutputFileFormat))) {
        throw new TaskFailure(`hiResOutputFileFormat ${p.hiResOutputFileFormat}: render-vdp-hires writes Pdf, Jpeg or Png`);
      }
      const fields = itemFields(ctx, input);
      if (isPrintProduct(design)) return printProductRows(ctx, design, rows, kind, fields);
      const fromFields = await psdFieldData(ctx, design.id, fields);
      const base = outputBase(p, design.name);
      const out = ctx.task.outputs[0]!.name;
      for (const [i, row] of rows.entries()) {
        const name = `${base}_${i + 1}`;
        // The row's values win over the item's fields for the same layer.
        const data = { ...fromFields, ...dataOf(row) } as PersonalisationData;
        if (kind === 'hires' && p.hiResOutputFileFormat === 'Pdf') {
          const mode = (p.hiResOutputPdfTextMode === 'Text' ? 'text' : 'outlines') as TextOutputMode;
          await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: pdfWriter(ctx, design.id, name, mode, data), source: design.id });
          continue;
        }
        const fmt = (kind === 'hires' ? p.hiResOutputFileFormat : p.previewOutputFileFormat) === 'Png' ? 'png' : 'jpg';
        const size = kind === 'hires' ? { dpi: Number(p.hiResOutputDpi) } : { box: { width: Number(p.previewOutputWidth), height: Number(p.previewOutputHeight) } };
        const image = await renderImage(ctx, design.id, fmt, size, 90, data);
        await ctx.output(out, { ext: fmt, fileName: `${name}.${fmt}`, format: fmt === 'png' ? 'png' : 'jpeg', bytes: image.bytes, contentType: image.contentType, source: design.id });
      }
    },
  };
}

export const renderVdpPreview = vdpTask('preview');
export const renderVdpHires = vdpTask('hires');
