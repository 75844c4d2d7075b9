/**
 * combine-with-cut-pattern: a die line from the tenant's images (`cutPatternId`, or
 * `cutPatternName` in `cutPatternFolder`), a PDF (its first page's painted paths) or an SVG,
 * stroked over every page of the input PDF in the `/Separation` ink `cutPatternSpotColorName`
 * (CutContour), overprinting, `cutPatternStrokeWidth` pt wide. The pattern's centre (its page
 * or viewBox centre) goes to the centre of the page's TrimBox, or to the point
 * `cutPatternCenterPointX`/`Y` (pt from the TrimBox's top-left corner); the asset's custom fields
 * CenterPointX/CenterPointY take precedence over the parameters. Run it before
 * produce-imposition and every imposed copy carries the die line.
 */
import { PDFDocument } from 'pdf-lib';
import { dieLineFromPdf, dieLineFromSvg, drawDieLine, type DieLine } from '../../../engine/imposition/die-line';
import { isInkName } from '../../../engine/imposition/spot';
import { normalisePath, publicImageById, publicImageByPath, type PatternImageRow } from '../../assets';
import { ParameterError } from '../language';
import { assetKey } from './assets';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import type { TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';
import type { TaskParams } from '../language';
import { loadUserPdf } from '../../assets/pdf-pages';

async function patternOf(ctx: UnitContext, p: TaskParams<'combine-with-cut-pattern'>): Promise<PatternImageRow> {
  if (p.cutPatternId) {
    const row = await publicImageById(ctx.env.DB, ctx.tenantId, p.cutPatternId);
    if (!row?.blobSha) throw new TaskFailure(`cutPatternId: there is no image ${p.cutPatternId.slice(0, 100)}`);
    return row;
  }
  const name = String(p.cutPatternName);
  let folder: string;
  try {
    folder = normalisePath(p.cutPatternFolder, 'cutPatternFolder');
  } catch {
    throw new ParameterError({ cutPatternFolder: ['must be a folder path such as "/" or "/die-lines"'] });
  }
  const row = await publicImageByPath(ctx.env.DB, ctx.tenantId, name, folder);
  if (!row?.blobSha) throw new TaskFailure(`cutPatternName: there is no image named "${name.slice(0, 255)}" in ${folder}`);
  return row;
}

/** A die line from PDF or SVG bytes. */
export async function readDieLine(bytes: Uint8Array, name: string): Promise<DieLine> {
  const head = new TextDecoder().decode(bytes.subarray(0, 1024)).trimStart();
  try {
    if (head.startsWith('%PDF')) return await dieLineFromPdf(bytes);
    // An SVG names its root element early (after an XML declaration, comments or a DOCTYPE).
    if (/<svg\b/i.test(head)) return dieLineFromSvg(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new TaskFailure(`the cut pattern ${name} could not be read: ${(e as Error).message}`);
  }
  throw new TaskFailure(`the cut pattern ${name} is not a PDF or SVG`);
}

function customCentre(fields: string): { x?: number; y?: number } {
  try {
    const f = JSON.parse(fields) as Record<string, unknown>;
    const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : undefined);
    const key = (k: string) => Object.keys(f).find((x) => x.toLowerCase() === k);
    const kx = key('centerpointx');
    const ky = key('centerpointy');
    return { x: kx ? num(f[kx]) : undefined, y: ky ? num(f[ky]) : undefined };
  } catch {
    return {};
  }
}

export const combineWithCutPattern: TaskModule<'combine-with-cut-pattern'> = {
  async run(ctx, p) {
    const ink = p.cutPatternSpotColorName;
    if (!isInkName(ink)) throw new ParameterError({ cutPatternSpotColorName: ['must be 1–127 printable ASCII characters'] });
    const input = unitInput(ctx);
    const bytes = await ctx.read(input);
    if (!(bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46)) throw new TaskFailure(`${input.fileName} is not a PDF`);
    let doc: PDFDocument;
    try {
      doc = await loadUserPdf(bytes, { updateMetadata: false }); // decompression bombs refused (issue 18 item 3)
    } catch (e) {
      throw new TaskFailure(`${input.fileName} is not a readable PDF: ${(e as Error).message}`);
    }
    const pattern = await patternOf(ctx, p);
    const blob = await ctx.env.FILES.get(assetKey(ctx.tenantId, pattern.blobSha!));
    if (!blob) throw new TaskFailure(`the cut pattern ${pattern.name} has no content`);
    const die = await readDieLine(new Uint8Array(await blob.arrayBuffer()), pattern.name);
    if (!die.segments.length) throw new TaskFailure(`the cut pattern ${pattern.name} has no paths`);
    const custom = customCentre(pattern.customFields);
    const cx = custom.x ?? p.cutPatternCenterPointX;
    const cy = custom.y ?? p.cutPatternCenterPointY;
    let shared;
    for (const page of doc.getPages()) {
      const trim = page.node.TrimBox() ? page.getTrimBox() : page.getMediaBox();
      const at = { x: cx !== undefined ? trim.x + cx : trim.x + trim.width / 2, y: cy !== undefined ? trim.y + trim.height - cy : trim.y + trim.height / 2 };
      shared = drawDieLine(doc, page, die, at, { ink, strokeWidth: p.cutPatternStrokeWidth }, shared);
    }
    const out = await doc.save({ useObjectStreams: true });
    const name = outputBase(p, input.fileName);
    await ctx.output(ctx.task.outputs[0]!.name, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', bytes: out, contentType: 'application/pdf', itemId: input.itemId, source: input.source });
  },
};
