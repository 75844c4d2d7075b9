/**
 * render-vdp-preview / render-vdp-hires: the design rendered once per row of variable data —
 * `vdpData` `[{variable: value}]`, or a second input (a JSON array of such rows, or a CSV with a
 * header row). A string value replaces the text of the layer named by the variable; an object
 * is an engine command (`{type: 'image', image}`, `{visible: false}`…). Each row is one output
 * member, named `<name>_<row>`. Each row's print files are render-hires's (its functions: PDF,
 * JPEG, PNG, TIFF, BMP; rotation, flips, the print-area filter, separate files); previews use
 * render-preview's settings (stub, mockup, print-area bounds).
 * The item's `fields` apply first (personalise.ts); a row's value wins for the same layer.
 * Print-product designs: a row names variables (exactly or ignoring case; another name fails),
 * previews are the first surface, print files the pages the print-area filter keeps
 * (`<name>_<row>_<page>` when the design has several).
 */
import type { PersonalisationData } from '../../../engine/personalise';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, includesFirstPage, isPrintProduct, renderImage } from './render';
import { printProductFiles, psdPdfWriter, psdPrintFile, streamsPdf } from './render-hires';
import { previewSettings } from './render-preview';
import type { VariableInfo } from '../../../engine/print-product';
import type { HiresParams, OutputNameParams, PreviewParams, VdpParams } from '../language';
import type { DesignAsset } from './assets';
import { itemFields, printProductVariables, psdFieldData } from './personalise';
import { loadModel, surfacePicture } from './print-product';
import type { ArtifactRecord, TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';

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

async function rowsOf(ctx: UnitContext, p: VdpParams): Promise<Array<Record<string, unknown>>> {
  if (p.vdpData?.length) return p.vdpData;
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

/** Print-product rows: the first surface (preview), or render-hires's print files per row. */
async function printProductRows(ctx: UnitContext, p: RowParams, design: DesignAsset & { blobSha: string }, rows: Array<Record<string, unknown>>, fields: Record<string, unknown>) {
  const model = await loadModel(ctx, design);
  const base = outputBase(p, design.name);
  const out = ctx.task.outputs[0]!.name;
  const fromFields = printProductVariables(model, fields);
  for (const [i, row] of rows.entries()) {
    const name = `${base}_${i + 1}`;
    const vars = mergeVariables(fromFields, printProductVariables(model, Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v ?? ''])), `row ${i + 1}`, true));
    if (p.kind === 'preview') {
      const pic = await surfacePicture(ctx, model, 0, previewSettings(p).settings, vars);
      await ctx.output(out, { ext: pic.ext, fileName: `${name}.${pic.ext}`, format: pic.ext === 'png' ? 'png' : 'jpeg', bytes: pic.bytes, contentType: pic.contentType, source: design.id });
      continue;
    }
    for (const f of await printProductFiles(ctx, p, model, name, vars)) {
      await ctx.output(out, { ext: f.file.ext, fileName: f.fileName, format: f.file.format, bytes: f.file.bytes, contentType: f.file.contentType, source: design.id });
    }
  }
}

/** A row task's parameters, told apart by `kind` (render-vdp-preview's or render-vdp-hires's). */
type RowParams = OutputNameParams & (({ kind: 'preview' } & PreviewParams) | ({ kind: 'hires' } & HiresParams));

async function runRows(ctx: UnitContext, p: RowParams & VdpParams) {
  const input = unitInput(ctx);
  const rows = await rowsOf(ctx, p);
  if (!rows.length) throw new TaskFailure('there are no rows of variable data');
  if (rows.length > MAX_ROWS) throw new TaskFailure(`at most ${MAX_ROWS} rows of variable data`);
  const design = await designOf(ctx, input);
  const fields = itemFields(ctx, input);
  if (isPrintProduct(design)) return printProductRows(ctx, p, design, rows, fields);
  // A PSD is one page: a filter without page 1 leaves nothing to print.
  if (p.kind === 'hires' && !includesFirstPage(p.hiResOutputPrintAreaFilter)) return;
  const fromFields = await psdFieldData(ctx, design.id, fields);
  const base = outputBase(p, design.name);
  const out = ctx.task.outputs[0]!.name;
  for (const [i, row] of rows.entries()) {
    const name = `${base}_${i + 1}`;
    // The row's values win over the item's fields for the same layer.
    const data = { ...fromFields, ...dataOf(row) } as PersonalisationData;
    if (p.kind === 'hires' && streamsPdf(p)) {
      await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: psdPdfWriter(ctx, p, design.id, name, data), source: design.id });
    } else if (p.kind === 'hires') {
      const file = await psdPrintFile(ctx, p, design.id, name, data);
      await ctx.output(out, { ext: file.ext, fileName: `${name}.${file.ext}`, format: file.format, bytes: file.bytes, contentType: file.contentType, source: design.id });
    } else {
      const { width, height, format } = previewSettings(p).settings;
      const image = await renderImage(ctx, design.id, format, { box: { width, height } }, 90, data);
      await ctx.output(out, { ext: format, fileName: `${name}.${format}`, format: format === 'png' ? 'png' : 'jpeg', bytes: image.bytes, contentType: image.contentType, source: design.id });
    }
  }
}

export const renderVdpPreview: TaskModule<'render-vdp-preview'> = { run: (ctx, p) => runRows(ctx, { ...p, kind: 'preview' }) };
export const renderVdpHires: TaskModule<'render-vdp-hires'> = { run: (ctx, p) => runRows(ctx, { ...p, kind: 'hires' }) };
