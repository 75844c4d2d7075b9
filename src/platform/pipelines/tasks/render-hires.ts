/**
 * render-hires: design → a print file per member. PDF through the engine's print PDF (the same
 * function as POST /api/rendering/hires; vector text as outlines by default, `Text` embeds
 * subsets), streamed into the output key; rotation and flips are applied to the PDF page with
 * pdf-lib. JPEG, PNG, TIFF and BMP are rendered at `hiResOutputDpi` (≤ 25 MP), with background,
 * grayscale, rotation and flips (raster.ts). `hiResOutputArchiveType: Zip` wraps the file in a
 * ZIP (fflate). A PSD design has one surface, so `hiResOutputToSeparateFiles` changes nothing and
 * a print-area filter that leaves out page 1 produces nothing.
 */
import { zipSync } from 'fflate';
import { degrees, PDFDocument } from 'pdf-lib';
import { writePdf } from '../../../engine/pdf/document';
import { prepareHires, type TextOutputMode } from '../../../engine/pdf/prepare';
import { MemorySink } from '../../../engine/pdf/sink';
import type { PageRange } from '../language';
import { TenantInputStore } from '../../assets';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { decodePng, encodeRaster, flattenOver, parseColor, toGrayscale, transform, type Flip, type Rotate } from './raster';
import { deps, designOf, pdfWriter, renderImage } from './render';
import type { TaskModule, UnitContext } from './types';

const includesFirstPage = (filter: PageRange[] | undefined) => !filter || !filter.length || filter.some((r) => r.from <= 1 && (r.to === null || r.to >= 1));

async function pdfBytes(ctx: UnitContext, designId: string, title: string, mode: TextOutputMode): Promise<Uint8Array> {
  const page = await prepareHires(new TenantInputStore(ctx.env, ctx.tenantId), { template: designId, textOutputMode: mode }, deps(ctx.env));
  const sink = new MemorySink();
  await writePdf(sink, [page.load], { title });
  return sink.bytes();
}

/** Flips by drawing the page mirrored; rotation as the page's /Rotate. */
async function transformPdf(bytes: Uint8Array, rotate: Rotate, flip: Flip): Promise<Uint8Array> {
  let doc = await PDFDocument.load(bytes);
  if (flip !== 'None') {
    const out = await PDFDocument.create();
    const pages = await out.embedPages(doc.getPages());
    for (const p of pages) {
      const page = out.addPage([p.width, p.height]);
      const fx = flip === 'Horizontal' || flip === 'Both';
      const fy = flip === 'Vertical' || flip === 'Both';
      page.drawPage(p, { x: fx ? p.width : 0, y: fy ? p.height : 0, xScale: fx ? -1 : 1, yScale: fy ? -1 : 1 });
    }
    doc = out;
  }
  const angle = { None: 0, Rotate90: 90, Rotate180: 180, Rotate270: 270 }[rotate];
  if (angle) for (const page of doc.getPages()) page.setRotation(degrees(angle));
  return doc.save();
}

export const renderHires: TaskModule = {
  async run(ctx) {
    const input = ctx.member ?? ctx.inputs(ctx.task.inputs[0]!.name)[0];
    if (!input) throw new TaskFailure(`${ctx.task.inputs[0]!.name} is missing`);
    const p = ctx.params;
    if (!includesFirstPage(p.hiResOutputPrintAreaFilter as PageRange[] | undefined)) return;
    const design = await designOf(ctx, input);
    const name = outputBase(p, design.name);
    const out = ctx.task.outputs[0]!.name;
    const rotate = p.hiResOutputRotateMode as Rotate;
    const flip = p.hiResOutputFlipMode as Flip;
    const zip = p.hiResOutputArchiveType === 'Zip';
    const format = p.hiResOutputFileFormat as 'Pdf' | 'Jpeg' | 'Png' | 'Tiff' | 'Bmp';

    let file: { bytes: Uint8Array; ext: string; contentType: string; format: string };
    if (format === 'Pdf') {
      const mode = (p.hiResOutputPdfTextMode === 'Text' ? 'text' : 'outlines') as TextOutputMode;
      if (rotate === 'None' && flip === 'None' && !zip) {
        // The common case streams into the key: one 5 MiB part in memory at a time.
        await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: pdfWriter(ctx, design.id, name, mode), source: design.id });
        return;
      }
      const bytes = await pdfBytes(ctx, design.id, name, mode);
      file = { bytes: rotate === 'None' && flip === 'None' ? bytes : await transformPdf(bytes, rotate, flip), ext: 'pdf', contentType: 'application/pdf', format: 'pdf' };
    } else {
      const dpi = Number(p.hiResOutputDpi);
      let img = await decodePng((await renderImage(ctx, design.id, 'png', { dpi })).bytes);
      const gray = p.hiResOutputColorSpace === 'Grayscale';
      const background = typeof p.hiResOutputBackgroundColor === 'string' && p.hiResOutputBackgroundColor.trim() ? parseColor(p.hiResOutputBackgroundColor) : null;
      const keepAlpha = format === 'Png' || format === 'Tiff';
      if (background) flattenOver(img, background);
      else if (!keepAlpha) flattenOver(img, [255, 255, 255, 255]);
      if (gray) toGrayscale(img);
      img = transform(img, rotate, flip);
      file = await encodeRaster(img, format, { dpi, quality: Number(p.hiResOutputJpegCompressionQuality), gray, deflate: p.hiResOutputCompression !== 'None', keepAlpha: keepAlpha && !background });
    }
    const fileName = `${name}.${file.ext}`;
    if (zip) {
      const archive = zipSync({ [fileName]: file.bytes });
      await ctx.output(out, { ext: 'zip', fileName: `${name}.zip`, format: 'zip', bytes: archive, contentType: 'application/zip', source: design.id });
      return;
    }
    await ctx.output(out, { ext: file.ext, fileName, format: file.format, bytes: file.bytes, contentType: file.contentType, source: design.id });
  },
};
