/**
 * Task type → module. Types without a module are "not available yet": job creation and pipeline
 * save refuse them (`unavailableTasks`), and the runner fails such a task saying so.
 *
 * The runner hands a unit to `prepareTask`, which normalises the parameters for the task's type
 * and gives them to its module typed (`TaskParams<T>`).
 */
import { NOT_AVAILABLE_YET, normaliseParameters, type Pipeline, type TaskParams, type TaskType } from '../language';
import { TaskFailure } from './errors';
import { extractProjectArtifacts, extractProjectResource } from './extract';
import { extractProjectDesign } from './extract-project-design';
import { extractDesignImages } from './extract-design-images';
import { populatePsdTemplate } from './populate-psd-template';
import { finalize } from './finalize';
import { invokeUrl } from './invoke-url';
import { exportOrderDetailsToCsv, exportToEcommerce } from './order';
import { changeGroupInOrderDesk, exportToOrderDesk } from './order-desk';
import { drawCropMarks, mergeSeparatePages } from './pdf';
import { produceImposition } from './imposition';
import { combineWithCutPattern } from './cut-pattern';
import { downloadFiles } from './download-files';
import { extractAssets } from './extract-assets';
import { preflight } from './preflight';
import { renderHires } from './render-hires';
import { renderPreview, renderProof } from './render-preview';
import { uploadToFtp } from './ftp';
import { renderImagePreview } from './image-preview';
import { renderDesignPreviewWithMockup } from './mockup';
import { renderVdpHires, renderVdpPreview } from './vdp';
import { uploadToDropbox, uploadToS3 } from './upload';
import type { TaskModule, UnitContext } from './types';

/** Each type's module sees that type's parameters. */
type TaskModules = { readonly [T in TaskType]?: TaskModule<T> };

const MODULES: TaskModules = {
  finalize,
  'extract-project-design': extractProjectDesign,
  'extract-project-resource': extractProjectResource,
  'extract-project-artifacts': extractProjectArtifacts,
  preflight,
  'render-hires': renderHires,
  'render-preview': renderPreview,
  'render-proof': renderProof,
  'invoke-url': invokeUrl,
  'export-to-ecommerce': exportToEcommerce,
  'sn-export-order-details-to-csv': exportOrderDetailsToCsv,
  'merge-separate-pages': mergeSeparatePages,
  'draw-crop-marks': drawCropMarks,
  'produce-imposition': produceImposition,
  'combine-with-cut-pattern': combineWithCutPattern,
  'download-files': downloadFiles,
  'extract-assets': extractAssets,
  'upload-to-s3': uploadToS3,
  'upload-to-dropbox': uploadToDropbox,
  'upload-to-ftp': uploadToFtp,
  'render-vdp-preview': renderVdpPreview,
  'render-vdp-hires': renderVdpHires,
  'render-image-preview': renderImagePreview,
  'render-image-preview-with-mockup': renderImagePreview,
  'render-design-preview-with-mockup': renderDesignPreviewWithMockup,
  'extract-design-images': extractDesignImages,
  'populate-psd-template': populatePsdTemplate,
  'export-to-order-desk': exportToOrderDesk,
  'change-group-in-order-desk': changeGroupInOrderDesk,
};

/** `tasks[i].type` → "not available yet" for each task the runner cannot run (errors by path). */
export function unavailableTasks(pipeline: Pipeline): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  pipeline.tasks.forEach((t, i) => {
    if (!MODULES[t.type]) errors[`tasks[${i}].type`] = [`${t.type} is ${NOT_AVAILABLE_YET}`];
  });
  return errors;
}

/**
 * One unit of a task, ready to run: `parameters` (interpolated) normalised for `type` (throws
 * `ParameterError`), its module found (throws `TaskFailure` when the type is not available yet).
 */
export function prepareTask<T extends TaskType>(type: T, parameters: Record<string, unknown>): (ctx: UnitContext) => Promise<void> {
  const params = normaliseParameters(type, parameters);
  const module = MODULES[type];
  if (!module) throw new TaskFailure(`${type} is ${NOT_AVAILABLE_YET}`);
  return (ctx) => module.run(ctx, params);
}
