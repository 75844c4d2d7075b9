/**
 * render-vdp-preview / render-vdp-hires: the design rendered once per row of variable data —
 * `vdpData` `[{variable: value}]`, or a second input (a JSON array of such rows, or a CSV with a
 * header row). A string value replaces the text of the layer named by the variable; an object
 * is an engine command (`{type: 'image', image}`, `{visible: false}`…). Each row is one output
 * member, named `<name>_<row>`; hires writes PDFs (streamed) or JPEG/PNG at `hiResOutputDpi`.
 */
import type { PersonalisationData } from '../../../engine/personalise';
import type { TextOutputMode } from '../../../engine/pdf/prepare';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, pdfWriter, renderImage } from './render';
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
      const base = outputBase(p, design.name);
      const out = ctx.task.outputs[0]!.name;
      for (const [i, row] of rows.entries()) {
        const name = `${base}_${i + 1}`;
        const data = dataOf(row);
        if (kind === 'hires' && p.hiResOutputFileFormat === 'Pdf') {
          const mode = (p.hiResOutputPdfTextMode === 'Text' ? 'text' : 'outlines') as TextOutputMode;
          await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: pdfWriter(ctx, design.id, name, mode, data), source: design.id });
          continue;
        }
        if (kind === 'hires' && p.hiResOutputFileFormat !== 'Jpeg' && p.hiResOutputFileFormat !== 'Png') {
          throw new TaskFailure(`hiResOutputFileFormat ${p.hiResOutputFileFormat}: render-vdp-hires writes Pdf, Jpeg or Png`);
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
