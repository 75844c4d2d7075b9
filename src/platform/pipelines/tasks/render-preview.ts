/**
 * render-preview / render-proof: design → an image per member fitting
 * `previewOutput{Width,Height}` (800) or `proofOutput{Width,Height}` (1200), JPEG or PNG, through
 * the engine's preview render. PSD designs have one surface, so the print-area filter keeps it
 * unless the filter excludes page 1; mockups and print-area outlines are not drawn yet.
 */
import type { PageRange } from '../language';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, renderImage } from './render';
import type { TaskModule, UnitContext } from './types';

const includesFirstPage = (filter: PageRange[] | undefined) => !filter || !filter.length || filter.some((r) => r.from <= 1 && (r.to === null || r.to >= 1));

function imageTask(prefix: 'preview' | 'proof'): TaskModule {
  return {
    async run(ctx: UnitContext) {
      const ref = ctx.task.inputs[0]!;
      const input = ctx.member ?? ctx.inputs(ref.name)[0];
      if (!input) throw new TaskFailure(`${ref.name} is missing`);
      const p = ctx.params;
      if (!includesFirstPage(p[`${prefix}OutputPrintAreaFilter`] as PageRange[] | undefined)) return;
      const design = await designOf(ctx, input);
      const format = p[`${prefix}OutputFileFormat`] === 'Png' ? 'png' : 'jpg';
      const box = { width: Number(p[`${prefix}OutputWidth`]), height: Number(p[`${prefix}OutputHeight`]) };
      const image = await renderImage(ctx, design.id, format, { box });
      const name = outputBase(p, design.name);
      await ctx.output(ctx.task.outputs[0]!.name, {
        ext: format, fileName: `${name}.${format}`, format: format === 'png' ? 'png' : 'jpeg', bytes: image.bytes, contentType: image.contentType, source: design.id,
      });
    },
  };
}

export const renderPreview = imageTask('preview');
export const renderProof = imageTask('proof');
