/**
 * PDF post-processing with pdf-lib. merge-separate-pages: PDFs, PNGs and JPEGs → one PDF in
 * input order (an image is a page at its dpi: 72 unless the PNG says otherwise). draw-crop-marks:
 * each page grown by the mark length + 6 pt on every side, marks at the TrimBox corners starting
 * 3 pt outside the BleedBox, black 0.25 pt over white 0.75 pt (in the output intent's colour
 * space: K alone on a CMYK print PDF). A print PDF's PDF/X identification is carried over.
 */
import { cmyk, grayscale, PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFObjectCopier, PDFRef, PDFStream, rgb } from 'pdf-lib';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import type { ArtifactRecord, TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';
import { loadUserPdf } from '../../assets/pdf-pages';

const isPdf = (b: Uint8Array) => b[0] === 0x25 && b[1] === 0x50 && b[2] === 0x44 && b[3] === 0x46;
const isPng = (b: Uint8Array) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47;
const isJpeg = (b: Uint8Array) => b[0] === 0xff && b[1] === 0xd8;

/** PNG pHYs in pixels per metre → dpi, else 72. */
function pngDpi(b: Uint8Array): number {
  for (let i = 8; i + 12 < b.length && i < 4096; ) {
    const len = (b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!;
    const type = String.fromCharCode(b[i + 4]!, b[i + 5]!, b[i + 6]!, b[i + 7]!);
    if (type === 'pHYs' && b[i + 16] === 1) {
      const ppm = (b[i + 8]! << 24) | (b[i + 9]! << 16) | (b[i + 10]! << 8) | b[i + 11]!;
      return ppm > 0 ? ppm * 0.0254 : 72;
    }
    if (type === 'IDAT') break;
    i += len + 12;
  }
  return 72;
}

async function loadPdf(ctx: UnitContext, a: ArtifactRecord, bytes: Uint8Array): Promise<PDFDocument> {
  try {
    return await loadUserPdf(bytes, { ignoreEncryption: false }); // decompression bombs refused (issue 18 item 3)
  } catch (e) {
    throw new TaskFailure(`${a.fileName} is not a readable PDF: ${(e as Error).message}`);
  }
}

/**
 * Copies a PDF/X file's identification (output intents, XMP metadata, information dictionary)
 * from `src` into `out`, which pdf-lib builds anew; returns the output intent profile's number
 * of components (4 CMYK, 3 RGB, 1 grey), or 0 when `src` has no output intent.
 */
export function carryPdfx(src: PDFDocument, out: PDFDocument): number {
  const copier = PDFObjectCopier.for(src.context, out.context);
  for (const key of ['OutputIntents', 'Metadata']) {
    const value = src.catalog.get(PDFName.of(key));
    if (value) out.catalog.set(PDFName.of(key), copier.copy(value));
  }
  const intents = src.catalog.lookup(PDFName.of('OutputIntents'));
  if (!(intents instanceof PDFArray) || !intents.size()) return 0;
  if (src.context.trailerInfo.Info) out.context.trailerInfo.Info = copier.copy(src.context.trailerInfo.Info);
  const first = intents.get(0);
  const intent = (first instanceof PDFRef ? src.context.lookup(first) : first) as PDFDict | undefined;
  const profileRef = intent?.get(PDFName.of('DestOutputProfile'));
  const profile = profileRef instanceof PDFRef ? src.context.lookup(profileRef) : profileRef;
  const n = profile instanceof PDFStream ? profile.dict.get(PDFName.of('N')) : undefined;
  return n instanceof PDFNumber ? n.asNumber() : 0;
}

/** pdf-lib always writes a 1.7 header: `saved` gets `original`'s (PDF/X-4 is 1.6, X-1a 1.4; same length). */
export function keepHeader(original: Uint8Array, saved: Uint8Array): Uint8Array {
  if (/^%PDF-\d\.\d/.test(new TextDecoder().decode(original.subarray(0, 8)))) saved.set(original.subarray(0, 8), 0);
  return saved;
}

export const mergeSeparatePages: TaskModule<'merge-separate-pages'> = {
  async run(ctx, p) {
    const doc = await PDFDocument.create();
    const inputs = ctx.task.inputs.flatMap((ref) => ctx.inputs(ref.name));
    if (!inputs.length) throw new TaskFailure('there is nothing to merge');
    for (const a of inputs) {
      const bytes = await ctx.read(a);
      if (isPdf(bytes)) {
        const src = await loadPdf(ctx, a, bytes);
        for (const page of await doc.copyPages(src, src.getPageIndices())) doc.addPage(page);
      } else if (isPng(bytes) || isJpeg(bytes)) {
        const image = isPng(bytes) ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
        const dpi = isPng(bytes) ? pngDpi(bytes) : 72;
        const w = (image.width * 72) / dpi;
        const h = (image.height * 72) / dpi;
        doc.addPage([w, h]).drawImage(image, { x: 0, y: 0, width: w, height: h });
      } else {
        throw new TaskFailure(`${a.fileName} is not a PDF, PNG or JPEG`);
      }
    }
    const bytes = await doc.save();
    const name = outputBase(p, inputs[0]!.fileName);
    await ctx.output(ctx.task.outputs[0]!.name, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', bytes, contentType: 'application/pdf' });
  },
};

export const drawCropMarks: TaskModule<'draw-crop-marks'> = {
  async run(ctx, p) {
    const input = unitInput(ctx);
    const bytes = await ctx.read(input);
    if (!isPdf(bytes)) throw new TaskFailure(`${input.fileName} is not a PDF`);
    const src = await loadPdf(ctx, input, bytes);
    const black = p.drawCropMarkBlackCropLineMaxLength;
    const white = p.drawCropMarkWhiteCropLineMaxLength;
    const length = Math.max(black, white);
    const grow = length + 6;
    const doc = await PDFDocument.create({ updateMetadata: false });
    const components = carryPdfx(src, doc);
    // Marks in the output intent's space (a CMYK print file allows no RGB): K, or grey, or RGB.
    const [markBlack, markWhite] = components === 4 ? [cmyk(0, 0, 0, 1), cmyk(0, 0, 0, 0)] : components === 1 ? [grayscale(0), grayscale(1)] : [rgb(0, 0, 0), rgb(1, 1, 1)];
    const embedded = await doc.embedPages(src.getPages());
    src.getPages().forEach((p, i) => {
      const media = p.getMediaBox();
      const trim = p.getTrimBox();
      const bleed = p.getBleedBox();
      const page = doc.addPage([media.width + 2 * grow, media.height + 2 * grow]);
      page.drawPage(embedded[i]!, { x: grow, y: grow });
      const dx = grow - media.x;
      const dy = grow - media.y;
      // The content's boxes keep their meaning on the grown page.
      page.setTrimBox(trim.x + dx, trim.y + dy, trim.width, trim.height);
      page.setBleedBox(bleed.x + dx, bleed.y + dy, bleed.width, bleed.height);
      const corners = [
        { x: trim.x, y: trim.y, sx: -1, sy: -1 },
        { x: trim.x + trim.width, y: trim.y, sx: 1, sy: -1 },
        { x: trim.x, y: trim.y + trim.height, sx: -1, sy: 1 },
        { x: trim.x + trim.width, y: trim.y + trim.height, sx: 1, sy: 1 },
      ];
      for (const [len, thickness, color] of [
        [white, 0.75, markWhite],
        [black, 0.25, markBlack],
      ] as const) {
        if (len <= 0) continue;
        for (const c of corners) {
          const x = c.x + dx;
          const y = c.y + dy;
          // Outside the bleed by 3 pt, then `len` outward.
          const hx0 = (c.sx < 0 ? bleed.x : bleed.x + bleed.width) + dx + c.sx * 3;
          const vy0 = (c.sy < 0 ? bleed.y : bleed.y + bleed.height) + dy + c.sy * 3;
          page.drawLine({ start: { x: hx0, y }, end: { x: hx0 + c.sx * len, y }, thickness, color });
          page.drawLine({ start: { x, y: vy0 }, end: { x, y: vy0 + c.sy * len }, thickness, color });
        }
      }
    });
    const out = components ? keepHeader(bytes, await doc.save({ useObjectStreams: false })) : await doc.save();
    const name = outputBase(p, input.fileName);
    await ctx.output(ctx.task.outputs[0]!.name, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', bytes: out, contentType: 'application/pdf', source: input.source });
  },
};
