/**
 * render-preview / render-proof: design → images fitting `previewOutput{Width,Height}` (800) or
 * `proofOutput{Width,Height}` (1200), JPEG or PNG, personalised by the item's `fields`
 * (personalise.ts).
 *
 * - PSD designs: the engine's preview render; one surface, so the print-area filter keeps it
 *   unless the filter excludes page 1; mockups and print-area outlines are not drawn.
 * - Print-product designs: the design atoms' preview, a picture per surface the filter keeps
 *   (surface n = page n), with the stub (`…ShowStubContent`), the surface's own mockups
 *   (`…ShowMockup`) and print-area bounds (`…VisualizePrintAreas`) as asked. Several surfaces
 *   are named `<name>_<n>` and need a collection output.
 */
import type { PageRange, PreviewParams, ProofParams, TaskParams } from '../language';
import { TaskFailure } from './errors';
import { itemFields, printProductVariables, psdFieldData } from './personalise';
import { loadModel, surfacePictures, type PreviewSettings } from './print-product';
import { outputBase } from './project';
import { designOf, includesFirstPage, isPrintProduct, renderImage } from './render';
import type { TaskModule, UnitContext } from './types';
import { unitInput } from './unit-input';

/** What a picture task asks for: the picture settings (size, format, stub, mockup, print-area bounds) and the print-area filter. */
interface PictureRequest {
  settings: PreviewSettings;
  filter: PageRange[] | undefined;
}

/** `previewOutput…`; render-vdp-preview takes them too. */
export function previewSettings(p: PreviewParams): PictureRequest {
  return {
    settings: {
      width: p.previewOutputWidth,
      height: p.previewOutputHeight,
      format: p.previewOutputFileFormat === 'Png' ? 'png' : 'jpg',
      stub: p.previewOutputShowStubContent,
      mockup: p.previewOutputShowMockup,
      visualizePrintAreas: p.previewOutputVisualizePrintAreas,
    },
    filter: p.previewOutputPrintAreaFilter,
  };
}

/** `proofOutput…`. */
function proofSettings(p: ProofParams): PictureRequest {
  return {
    settings: {
      width: p.proofOutputWidth,
      height: p.proofOutputHeight,
      format: p.proofOutputFileFormat === 'Png' ? 'png' : 'jpg',
      stub: p.proofOutputShowStubContent,
      mockup: p.proofOutputShowMockup,
      visualizePrintAreas: p.proofOutputVisualizePrintAreas,
    },
    filter: p.proofOutputPrintAreaFilter,
  };
}

function imageTask<T extends 'render-preview' | 'render-proof'>(request: (p: TaskParams<T>) => PictureRequest): TaskModule<T> {
  return {
    async run(ctx: UnitContext, p: TaskParams<T>) {
      const input = unitInput(ctx);
      const { settings, filter } = request(p);
      const design = await designOf(ctx, input);
      const { format } = settings;
      const box = { width: settings.width, height: settings.height };
      const name = outputBase(p, design.name);
      const out = ctx.task.outputs[0]!;
      const fields = itemFields(ctx, input);
      if (isPrintProduct(design)) {
        const model = await loadModel(ctx, design);
        const pictures = await surfacePictures(ctx, model, filter, settings, printProductVariables(model, fields));
        if (pictures.length > 1 && !out.collection) throw new TaskFailure(`${design.name} gives ${pictures.length} pictures (one per surface); ${out.name} takes one (use ${out.name}* or a print-area filter)`);
        for (const pic of pictures) {
          const file = model.surfaces.length > 1 ? `${name}_${pic.index + 1}` : name;
          await ctx.output(out.name, { ext: pic.ext, fileName: `${file}.${pic.ext}`, format: pic.ext === 'png' ? 'png' : 'jpeg', bytes: pic.bytes, contentType: pic.contentType, source: design.id });
        }
        return;
      }
      if (!includesFirstPage(filter)) return;
      const image = await renderImage(ctx, design.id, format, { box }, 90, await psdFieldData(ctx, design.id, fields));
      await ctx.output(out.name, {
        ext: format, fileName: `${name}.${format}`, format: format === 'png' ? 'png' : 'jpeg', bytes: image.bytes, contentType: image.contentType, source: design.id,
      });
    },
  };
}

export const renderPreview = imageTask<'render-preview'>(previewSettings);
export const renderProof = imageTask<'render-proof'>(proofSettings);
