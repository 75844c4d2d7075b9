/**
 * render-hires: design → a print file per member. PDF through the engine's print PDF (vector
 * text as outlines by default, `Text` embeds subsets); JPEG and PNG at `hiResOutputDpi`.
 * TIFF, BMP, rotation, flips and ZIP are not available yet (the task fails saying so).
 */
import type { TextOutputMode } from '../../../engine/pdf/prepare';
import { TaskFailure } from './errors';
import { outputBase } from './project';
import { designOf, pdfWriter, renderImage } from './render';
import type { TaskModule } from './types';

export const renderHires: TaskModule = {
  async run(ctx) {
    const input = ctx.member ?? ctx.inputs(ctx.task.inputs[0]!.name)[0];
    if (!input) throw new TaskFailure(`${ctx.task.inputs[0]!.name} is missing`);
    const p = ctx.params;
    const unsupported = [
      p.hiResOutputRotateMode !== 'None' && 'hiResOutputRotateMode',
      p.hiResOutputFlipMode !== 'None' && 'hiResOutputFlipMode',
      p.hiResOutputArchiveType !== 'None' && 'hiResOutputArchiveType',
      (p.hiResOutputFileFormat === 'Tiff' || p.hiResOutputFileFormat === 'Bmp') && `hiResOutputFileFormat ${p.hiResOutputFileFormat}`,
    ].filter(Boolean);
    if (unsupported.length) throw new TaskFailure(`${unsupported.join(', ')}: not available yet`);
    const design = await designOf(ctx, input);
    const name = outputBase(p, design.name);
    const out = ctx.task.outputs[0]!.name;
    if (p.hiResOutputFileFormat === 'Pdf') {
      const mode = (p.hiResOutputPdfTextMode === 'Text' ? 'text' : 'outlines') as TextOutputMode;
      await ctx.output(out, { ext: 'pdf', fileName: `${name}.pdf`, format: 'pdf', write: pdfWriter(ctx, design.id, name, mode), source: design.id });
      return;
    }
    const format = p.hiResOutputFileFormat === 'Png' ? 'png' : 'jpg';
    const image = await renderImage(ctx, design.id, format, { dpi: Number(p.hiResOutputDpi) }, Number(p.hiResOutputJpegCompressionQuality));
    await ctx.output(out, { ext: format, fileName: `${name}.${format}`, format: format === 'png' ? 'png' : 'jpeg', bytes: image.bytes, contentType: image.contentType, source: design.id });
  },
};
