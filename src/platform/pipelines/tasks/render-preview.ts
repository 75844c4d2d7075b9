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
import type { PageRange } from '../language';
import { TaskFailure } from './errors';
import { itemFields, printProductVariables, psdFieldData } from './personalise';
import { loadModel, surfacePictures, type PreviewSettings } from './print-product';
import { outputBase } from './project';
import { designOf, includesFirstPage, isPrintProduct, renderImage } from './render';
import type { TaskModule, UnitContext } from './types';

/** The picture settings of `<prefix>Output…` (size, format, stub, mockup, print-area bounds); render-vdp-preview uses them too. */
export function previewSettings(p: UnitContext['params'], prefix: 'preview' | 'proof'): PreviewSettings {
  return {
    width: Number(p[`${prefix}OutputWidth`]),
    height: Number(p[`${prefix}OutputHeight`]),
    format: p[`${prefix}OutputFileFormat`] === 'Png' ? 'png' : 'jpg',
    stub: p[`${prefix}OutputShowStubContent`] !== false,
    mockup: p[`${prefix}OutputShowMockup`] !== false,
    visualizePrintAreas: p[`${prefix}OutputVisualizePrintAreas`] === true,
  };
}

function imageTask(prefix: 'preview' | 'proof'): TaskModule {
  return {
    async run(ctx: UnitContext) {
      const ref = ctx.task.inputs[0]!;
      const input = ctx.member ?? ctx.inputs(ref.name)[0];
      if (!input) throw new TaskFailure(`${ref.name} is missing`);
      const p = ctx.params;
      const filter = p[`${prefix}OutputPrintAreaFilter`] as PageRange[] | undefined;
      const design = await designOf(ctx, input);
      const settings = previewSettings(p, prefix);
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

export const renderPreview = imageTask('preview');
export const renderProof = imageTask('proof');
