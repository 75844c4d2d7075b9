/**
 * render-hires: design → a print file per member. PDF through the engine's print PDF (the same
 * function as POST /api/rendering/hires; vector text as outlines by default, `Text` embeds
 * subsets), streamed into the output key; rotation and flips are applied to the PDF page with
 * pdf-lib. JPEG, PNG, TIFF and BMP are rendered at `hiResOutputDpi` (≤ 25 MP), with background,
 * grayscale, rotation and flips (raster.ts). `hiResOutputArchiveType: Zip` wraps the file in a
 * ZIP (fflate). A PSD design has one surface, so `hiResOutputToSeparateFiles` changes nothing and
 * a print-area filter that leaves out page 1 produces nothing.
 *
 * Print-product designs: the design atoms' PDF (a page per print area, MediaBox = BleedBox =
 * area + bleed, TrimBox = area) in the task's output colour as for PSDs (default CMYK PDF/X-4;
 * docs/design-atoms.md, "Print colour"), with the filter's pages, one file or (`hiResOutputToSeparateFiles`)
 * a file per page; rasters are each surface drawn at the dpi and cut to each page's MediaBox, a
 * file per page. Several files need a collection output, or `Zip` puts them in one archive.
 * Either kind is personalised by the item's `fields` (personalise.ts).
 */
import { zipSync } from 'fflate';
import { degrees, PDFDocument } from 'pdf-lib';
import { carryPdfx, keepHeader } from './pdf';
import type { TextOutputMode } from '../../../engine/pdf/prepare';
import { MemorySink } from '../../../engine/pdf/sink';
import type { HiresParams } from '../language';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { decodePng, encodeRaster, flattenOver, parseColor, toGrayscale, transform, type Flip, type Rotate } from './raster';
import { designOf, designSeparations, includesFirstPage, isPrintProduct, pdfWriter, printColourOf, renderImage, writeDesignPdf } from './render';
import { separationFileName } from '../../../engine/pdf/document';
import { colourTransform, defaultProfile } from '../../../engine/colour';
import { encodeConvertedJpeg } from '../../../engine/raster';
import type { TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';
import type { PersonalisationData } from '../../../engine/personalise';
import type { RGBAImage } from '../../../engine/types';
import type { PrintProductModel, VariableInfo } from '../../../engine/print-product';
import { itemFields, printProductVariables, psdFieldData } from './personalise';
import { inFilter, loadModel, pagePictures, printPdf, printProductColour } from './print-product';

async function pdfBytes(ctx: UnitContext, p: HiresParams, designId: string, title: string, mode: TextOutputMode, data?: PersonalisationData): Promise<Uint8Array> {
  const sink = new MemorySink();
  await writeDesignPdf(ctx, p, designId, title, mode, data, sink);
  return sink.bytes();
}

/**
 * Flips by drawing the page mirrored; rotation as the page's /Rotate. The PDF/X identification
 * (output intent, XMP, information dictionary, header version) is carried over unchanged, and no
 * object streams are written (PDF/X-1a is PDF 1.4).
 */
async function transformPdf(bytes: Uint8Array, rotate: Rotate, flip: Flip): Promise<Uint8Array> {
  let doc = await PDFDocument.load(bytes, { updateMetadata: false });
  if (flip !== 'None') {
    const out = await PDFDocument.create({ updateMetadata: false });
    carryPdfx(doc, out);

    const sources = doc.getPages();
    const pages = await out.embedPages(sources);
    pages.forEach((p, i) => {
      const page = out.addPage([p.width, p.height]);
      const fx = flip === 'Horizontal' || flip === 'Both';
      const fy = flip === 'Vertical' || flip === 'Both';
      page.drawPage(p, { x: fx ? p.width : 0, y: fy ? p.height : 0, xScale: fx ? -1 : 1, yScale: fy ? -1 : 1 });
      // The print boxes keep their meaning on the mirrored page (relative to its MediaBox).
      const media = sources[i]!.getMediaBox();
      const mirror = (b: { x: number; y: number; width: number; height: number }) => {
        const x = b.x - media.x;
        const y = b.y - media.y;
        return [fx ? p.width - x - b.width : x, fy ? p.height - y - b.height : y, b.width, b.height] as const;
      };
      page.setTrimBox(...mirror(sources[i]!.getTrimBox()));
      page.setBleedBox(...mirror(sources[i]!.getBleedBox()));
    });
    doc = out;
  }
  const angle = { None: 0, Rotate90: 90, Rotate180: 180, Rotate270: 270 }[rotate];
  if (angle) for (const page of doc.getPages()) page.setRotation(degrees(angle));
  return keepHeader(bytes, await doc.save({ useObjectStreams: false }));
}

type RasterFormat = 'Jpeg' | 'Png' | 'Tiff' | 'Bmp';
export interface PrintFile {
  bytes: Uint8Array;
  ext: string;
  contentType: string;
  format: string;
}

/**
 * A rendered page (straight RGBA at `dpi`, sRGB) → the raster print file the parameters ask for.
 * A TIFF in Cmyk is separated: the page converted through the output profile (printColourOf),
 * which it carries as its ICC tag. JPEG, PNG and BMP stay RGB (or grey).
 */
async function rasterFile(ctx: UnitContext, p: HiresParams, img: RGBAImage, format: RasterFormat, dpi: number): Promise<PrintFile> {
  const gray = p.hiResOutputColorSpace === 'Grayscale';
  const background = p.hiResOutputBackgroundColor?.trim() ? parseColor(p.hiResOutputBackgroundColor) : null;
  const keepAlpha = format === 'Png' || format === 'Tiff';
  if (background) flattenOver(img, background);
  else if (!keepAlpha) flattenOver(img, [255, 255, 255, 255]);
  if (gray) toGrayscale(img);
  img = transform(img, p.hiResOutputRotateMode, p.hiResOutputFlipMode);
  if (format === 'Jpeg' && p.hiResOutputColorSpace !== 'Rgb') {
    // A CMYK JPEG (Adobe marker, YCCK) or a one-component grey JPEG, with the output profile
    // embedded, converted a strip at a time (engine/raster/jpeg-ink.ts).
    const space = p.hiResOutputColorSpace;
    const colour = await printColourOf(ctx, p);
    const profile = colour.profile ?? defaultProfile(space);
    const toInk = await colourTransform({ from: defaultProfile('Rgb'), to: profile, fromLayout: 'RGBA', toLayout: space === 'Cmyk' ? 'CMYK' : 'GRAY', intent: colour.renderingIntent });
    const bytes = await encodeConvertedJpeg(img, space === 'Cmyk' ? 4 : 1, (rgba, ink, pixels) => toInk.apply(rgba, ink, pixels), {
      quality: p.hiResOutputJpegCompressionQuality,
      iccProfile: profile,
    });
    return { bytes, ext: 'jpg', contentType: 'image/jpeg', format: 'jpeg' };
  }
  let cmyk: Uint8Array | undefined;
  let icc: Uint8Array | undefined;
  if (format === 'Tiff' && p.hiResOutputColorSpace === 'Cmyk') {
    const colour = await printColourOf(ctx, p);
    icc = colour.profile ?? defaultProfile('Cmyk');
    const toInk = await colourTransform({ from: defaultProfile('Rgb'), to: icc, fromLayout: 'RGBA', toLayout: 'CMYK', intent: colour.renderingIntent });
    const pixels = img.width * img.height;
    cmyk = new Uint8Array(pixels * 4);
    toInk.apply(new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength), cmyk, pixels);
  }
  return encodeRaster(img, format, { dpi, quality: p.hiResOutputJpegCompressionQuality, gray, deflate: p.hiResOutputCompression !== 'None', keepAlpha: keepAlpha && !background, cmyk, icc });
}

const pdfFile = (bytes: Uint8Array): PrintFile => ({ bytes, ext: 'pdf', contentType: 'application/pdf', format: 'pdf' });

/**
 * The pages of `doc` (1-based numbers) as a new document; copied pages keep their boxes, and a
 * PDF/X file keeps its identification and header (as transformPdf).
 */
async function pickPages(bytes: Uint8Array, pages: number[]): Promise<Uint8Array> {
  const src = await PDFDocument.load(bytes, { updateMetadata: false });
  const out = await PDFDocument.create({ updateMetadata: false });
  const pdfx = carryPdfx(src, out);
  if (!pdfx) {
    out.setProducer(src.getProducer() ?? 'design atoms (pdf-lib)');
    const title = src.getTitle();
    if (title) out.setTitle(title);
  }
  for (const page of await out.copyPages(src, pages.map((n) => n - 1))) out.addPage(page);
  return pdfx ? keepHeader(bytes, await out.save({ useObjectStreams: false })) : out.save();
}

/**
 * A print-product design's print files: the atoms' PDF (pages the filter keeps; one file, or a
 * file per page with `hiResOutputToSeparateFiles`), or raster pages (always a file per page).
 * `vars` personalise the model (the item's fields; render-vdp-hires: a row over them).
 */
export async function printProductFiles(ctx: UnitContext, p: HiresParams, model: PrintProductModel, name: string, vars: VariableInfo[] | undefined): Promise<Array<{ fileName: string; file: PrintFile }>> {
  const filter = p.hiResOutputPrintAreaFilter;
  const format = p.hiResOutputFileFormat;
  const rotate = p.hiResOutputRotateMode;
  const flip = p.hiResOutputFlipMode;
  if (format === 'Pdf') {
    const pdf = await printPdf(ctx, model, p.hiResOutputPdfTextMode === 'Text' ? 'Text' : 'Outlines', name, vars, await printProductColour(ctx, p));
    const pages = Array.from({ length: pdf.pages }, (_, i) => i + 1).filter((n) => inFilter(filter, n));
    if (!pages.length) return [];
    const finish = async (bytes: Uint8Array) => pdfFile(rotate === 'None' && flip === 'None' ? bytes : await transformPdf(bytes, rotate, flip));
    if (p.hiResOutputToSeparateFiles && pdf.pages > 1) {
      return Promise.all(pages.map(async (n) => ({ fileName: `${name}_${n}.pdf`, file: await finish(await pickPages(pdf.bytes, [n])) })));
    }
    const bytes = pages.length === pdf.pages ? pdf.bytes : await pickPages(pdf.bytes, pages);
    return [{ fileName: `${name}.pdf`, file: await finish(bytes) }];
  }
  const dpi = p.hiResOutputDpi;
  const pictures = await pagePictures(ctx, model, filter, dpi, vars);
  const total = model.surfaces.reduce((n, s) => n + Math.max(1, s.printAreas.length), 0);
  const files: Array<{ fileName: string; file: PrintFile }> = [];
  for (const pic of pictures) {
    const file = await rasterFile(ctx, p, pic.image, format, dpi);
    files.push({ fileName: total > 1 ? `${name}_${pic.page}.${file.ext}` : `${name}.${file.ext}`, file });
  }
  return files;
}

const textMode = (p: HiresParams): TextOutputMode => (p.hiResOutputPdfTextMode === 'Text' ? 'text' : 'outlines');

/** A PSD's PDF needs no change after the engine writes it: it can stream into the output key. */
export const streamsPdf = (p: HiresParams) => p.hiResOutputFileFormat === 'Pdf' && p.hiResOutputRotateMode === 'None' && p.hiResOutputFlipMode === 'None';

/** The PSD's print PDF streamed into the output key (one 5 MiB part in memory at a time); see `streamsPdf`. */
export const psdPdfWriter = (ctx: UnitContext, p: HiresParams, designId: string, name: string, data?: PersonalisationData) => pdfWriter(ctx, p, designId, name, textMode(p), data);

/** A PSD design's print file (`data` personalises it): the PDF rotated and flipped as asked, or a raster at `hiResOutputDpi`. */
export async function psdPrintFile(ctx: UnitContext, p: HiresParams, designId: string, name: string, data?: PersonalisationData): Promise<PrintFile> {
  const rotate = p.hiResOutputRotateMode;
  const flip = p.hiResOutputFlipMode;
  const format = p.hiResOutputFileFormat;
  if (format === 'Pdf') {
    const bytes = await pdfBytes(ctx, p, designId, name, textMode(p), data);
    return pdfFile(rotate === 'None' && flip === 'None' ? bytes : await transformPdf(bytes, rotate, flip));
  }
  const dpi = p.hiResOutputDpi;
  const img = await decodePng((await renderImage(ctx, designId, 'png', { dpi }, 90, data)).bytes);
  return rasterFile(ctx, p, img, format, dpi);
}

export const renderHires: TaskModule<'render-hires'> = {
  async run(ctx, p) {
    const input = unitInput(ctx);
    const design = await designOf(ctx, input);
    const name = outputBase(p, design.name);
    const out = ctx.task.outputs[0]!;
    const zip = p.hiResOutputArchiveType === 'Zip';

    if (isPrintProduct(design)) {
      const model = await loadModel(ctx, design);
      const files = await printProductFiles(ctx, p, model, name, printProductVariables(model, itemFields(ctx, input)));
      if (zip && files.length) {
        const archive = zipSync(Object.fromEntries(files.map((f) => [f.fileName, f.file.bytes])));
        await ctx.output(out.name, { ext: 'zip', fileName: `${name}.zip`, format: 'zip', bytes: archive, contentType: 'application/zip', source: design.id });
        return;
      }
      if (files.length > 1 && !out.collection) throw new TaskFailure(`${design.name} gives ${files.length} files (a file per page); ${out.name} takes one (use ${out.name}*, a print-area filter or hiResOutputArchiveType Zip)`);
      for (const f of files) await ctx.output(out.name, { ext: f.file.ext, fileName: f.fileName, format: f.file.format, bytes: f.file.bytes, contentType: f.file.contentType, source: design.id });
      return;
    }

    if (!includesFirstPage(p.hiResOutputPrintAreaFilter)) return;
    const data = await psdFieldData(ctx, design.id, itemFields(ctx, input));
    if (p.hiResOutputChannelContainersToSeparateFiles && streamsPdf(p) && !zip) {
      const separations = await designSeparations(ctx, design.id);
      if (separations.length > 1 && !out.collection) throw new TaskFailure(`${design.name} has ${separations.length - 1} spot channels, a file each; ${out.name} takes one (use ${out.name}*)`);
      for (const separation of separations) {
        const fileName = separationFileName(`${name}.pdf`, separation);
        await ctx.output(out.name, { ext: 'pdf', fileName, format: 'pdf', write: pdfWriter(ctx, p, design.id, name, textMode(p), data, separation), source: design.id });
      }
      return;
    }
    if (streamsPdf(p) && !zip) {
      await ctx.output(out.name, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: psdPdfWriter(ctx, p, design.id, name, data), source: design.id });
      return;
    }
    const file = await psdPrintFile(ctx, p, design.id, name, data);
    const fileName = `${name}.${file.ext}`;
    if (zip) {
      const archive = zipSync({ [fileName]: file.bytes });
      await ctx.output(out.name, { ext: 'zip', fileName: `${name}.zip`, format: 'zip', bytes: archive, contentType: 'application/zip', source: design.id });
      return;
    }
    await ctx.output(out.name, { ext: file.ext, fileName, format: file.format, bytes: file.bytes, contentType: file.contentType, source: design.id });
  },
};
