/**
 * populate-psd-template: images (every input artifact, in order, each `inputRepeatCount` times)
 * → the PSD template (`templateId`, or `templateName` in `templateFolder`) with its smart objects
 * replaced, in reading order (top to bottom, then left to right; layers sharing a name are one
 * slot, since the engine's `data` is keyed by layer name). Each full set of images fills one
 * sheet; images left over after the last full set are not placed, and fewer images than smart
 * objects fail the task. The replacement is the Dynamic Image API's `data` image command
 * (`{type: 'image', resizeMode}`): `inputImageResizeMode` Fit shows the whole image, ImageFill
 * covers the smart object (cropping). The sheets are written as the engine's print PDF (the
 * same prepareHires + writePdf path as render-hires), one page per sheet, or one PDF per sheet
 * with `outputToSeparateFiles`. PDF inputs (the results of render-hires and other design
 * renders) are read at `inputImageDpi` (default 300): each page becomes one image of its physical
 * size at that resolution (long side capped at MAX_PDF_IMAGE_SIDE px), which is then scaled to its
 * smart object's box like any JPEG or PNG.
 */
import type { Env } from '../../../env';
import { walkLayers } from '../../../engine/compiled/info';
import { sha256Hex } from '../../../engine/hash';
import { writePdf } from '../../../engine/pdf/document';
import { prepareHires } from '../../../engine/pdf/prepare';
import { R2Sink } from '../../../engine/pdf/sink';
import type { PersonalisationData } from '../../../engine/personalise';
import { pdfPageSizes, rasterisePdfPagesPng } from '../../../engine/pdf-raster';
import { preparePreview } from '../../../engine/preview';
import { designIdByPath, normalisePath, TenantInputStore, WithImages } from '../../assets';
import { designOr404 } from './assets';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { deps } from './render';
import type { TaskModule } from './types';

/** The template: by id, or by name in a folder (the root when none); PSD designs only. */
/** A PSD template by id, else by name in its folder (populate-psd-template's, produce-imposition's). */
export async function templateOf(env: Env, tenantId: number, p: { templateId?: string; templateName?: string; templateFolder?: string }) {
  let id = p.templateId || null;
  if (!id) {
    const name = String(p.templateName);
    let folder: string;
    try {
      folder = normalisePath(p.templateFolder ?? '/', 'templateFolder');
    } catch {
      throw new TaskFailure(`templateFolder "${String(p.templateFolder)}" is not a folder path`);
    }
    id = await designIdByPath(env.DB, tenantId, name, folder);
    if (!id) throw new TaskFailure(`there is no template named "${name}" in ${folder}`);
  }
  const d = await designOr404(env, tenantId, id);
  if (d.designType === 'PrintProduct') throw new TaskFailure(`${d.name} is a print-product design; populate-psd-template takes a PSD template`);
  return d;
}

/** Smart-object layer names in reading order: rows top to bottom, left to right within a row. */
export function smartObjectSlots(layers: Parameters<typeof walkLayers>[0]): string[] {
  const sos = [...walkLayers(layers)].filter((l) => l.smartObject);
  sos.sort((a, b) => {
    // Same row when their vertical extents overlap by half the smaller height.
    const overlap = Math.min(a.bounds.bottom, b.bounds.bottom) - Math.max(a.bounds.top, b.bounds.top);
    const minH = Math.min(a.bounds.bottom - a.bounds.top, b.bounds.bottom - b.bounds.top);
    if (overlap > minH / 2) return a.bounds.left - b.bounds.left;
    return a.bounds.top - b.bounds.top;
  });
  return [...new Set(sos.map((l) => l.name))];
}

function imageType(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0x25 && bytes[1] === 0x50 && bytes[2] === 0x44 && bytes[3] === 0x46) return 'application/pdf';
  return null;
}

/** Bitmaps of PDF pages stay within 4,096 px a side (64 MB of RGBA at most, in a 128 MB isolate). */
export const MAX_PDF_IMAGE_SIDE = 4096;

/**
 * A PDF input's pages as PNGs read at `dpi`: a page of w × h pt becomes w·dpi/72 × h·dpi/72 px
 * (the reference product's "DPI of the input images, for reading the PDF results of design
 * rendering"), its long side capped at MAX_PDF_IMAGE_SIDE; transparent where the page paints nothing.
 */
export async function pdfInputImages(bytes: Uint8Array, dpi: number): Promise<Uint8Array[]> {
  const sizes = await pdfPageSizes(bytes);
  const out: Uint8Array[] = [];
  for (const [i, size] of sizes.entries()) {
    const side = Math.min(MAX_PDF_IMAGE_SIDE, Math.max(1, Math.round((Math.max(size.width, size.height) * dpi) / 72)));
    await rasterisePdfPagesPng(bytes, { pages: [i], maxLongSide: side, background: 'transparent', onPage: (_n, png) => void out.push(png) });
  }
  return out;
}

export const populatePsdTemplate: TaskModule<'populate-psd-template'> = {
  async run(ctx, p) {
    const template = await templateOf(ctx.env, ctx.tenantId, p);
    const inputs = ctx.task.inputs.flatMap((r) => ctx.inputs(r.name));
    if (!inputs.length) throw new TaskFailure('populate-psd-template has no input images');

    const images = new Map<string, { bytes: Uint8Array; sha: string; contentType: string }>();
    const names: string[] = [];
    const dpi = p.inputImageDpi;
    const add = async (bytes: Uint8Array, contentType: string) => {
      const name = `populate-${names.length + 1}.${contentType === 'image/png' ? 'png' : 'jpg'}`;
      images.set(name, { bytes, sha: await sha256Hex(bytes), contentType });
      names.push(name);
    };
    for (const a of inputs) {
      const bytes = await ctx.read(a);
      const contentType = imageType(bytes);
      if (!contentType) throw new TaskFailure(`${a.fileName} is not a JPEG, PNG or PDF file`);
      if (contentType !== 'application/pdf') {
        await add(bytes, contentType);
        continue;
      }
      let pages: Uint8Array[];
      try {
        pages = await pdfInputImages(bytes, dpi);
      } catch (e) {
        throw new TaskFailure(`${a.fileName}: ${e instanceof Error ? e.message : String(e)}`);
      }
      for (const png of pages) await add(png, 'image/png');
    }
    const repeat = p.inputRepeatCount;
    const sequence = names.flatMap((n) => Array<string>(repeat).fill(n));

    const store = new WithImages(new TenantInputStore(ctx.env, ctx.tenantId), images);
    const probe = await preparePreview(store, { template: template.id, format: 'png', size: { width: 1, height: 1 }, jpegQuality: 90, unsharpMask: null }, deps(ctx.env));
    const slots = smartObjectSlots(probe.template.compiled.layers);
    if (!slots.length) throw new TaskFailure(`the template ${template.name} has no smart objects to populate`);
    const sheets = Math.floor(sequence.length / slots.length);
    if (!sheets) throw new TaskFailure(`the template ${template.name} has ${slots.length} smart objects; ${sequence.length} images fill none of its sheets`);

    const resizeMode = p.inputImageResizeMode === 'ImageFill' ? 'fill' : 'fit';
    const dataOf = (sheet: number): PersonalisationData =>
      Object.fromEntries(slots.map((slot, j) => [slot, { type: 'image', image: sequence[sheet * slots.length + j]!, resizeMode }])) as unknown as PersonalisationData;
    const base = outputBase(p, template.name);
    const out = ctx.task.outputs[0]!.name;
    const write = (from: number, to: number, title: string) => async (bucket: R2Bucket, key: string): Promise<number> => {
      const pages = [];
      for (let s = from; s < to; s++) pages.push(await prepareHires(store, { template: template.id, textOutputMode: 'outlines', data: dataOf(s) }, deps(ctx.env)));
      const sink = new R2Sink(bucket, key, { httpMetadata: { contentType: 'application/pdf' } });
      return (await writePdf(sink, pages.map((pg) => pg.load), { title })).bytes;
    };
    if (p.outputToSeparateFiles) {
      for (let s = 0; s < sheets; s++) {
        const name = sheets > 1 ? `${base}_${s + 1}` : base;
        await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: write(s, s + 1, name), contentType: 'application/pdf', source: template.id });
      }
      return;
    }
    await ctx.output(out, { ext: 'pdf', fileName: `${base}.pdf`, format: 'pdf', write: write(0, sheets, base), contentType: 'application/pdf', source: template.id });
  },
};
