/**
 * Starting and removing jobs in their ProjectJobs objects (`project:<t>:<id>` per project,
 * `job:<t>:<id>` per stand-alone job). The projects domain calls it with the project as it is
 * (projects/processing.ts); nothing here reads a project.
 */
import type { Env } from '../../env';
import { newId } from '../core';
import { canonicalJson, pipelineDefinition, validatePipeline } from '../pipelines/language';
import { type NewJob } from './store';
import { pipelineTexts } from '../catalogue/store/entities';
import { deleteProjectJobArtifacts } from '../assets/store/artifacts';

/** What renders in the built-in render-hires scenario (CreateProjectByRenderHiResScenarioDto). */
export interface RenderHiresScenario {
  designId: string;
  format: string;
  dpi: number;
  colorSpace: string | null;
  flipMode: string | null;
  rotateMode: string | null;
  anonymousAccess: boolean;
}

/**
 * A job to create for a project, in the order given (contract, "Jobs"):
 * - `project`: with-single-item, the item's pipeline over the whole project;
 * - `item`: with-multiple-items (an item job per item with a pipeline), and specific-pipeline's
 *   `itemPipelines`;
 * - `post-processing`: specific-pipeline's `postProcessingPipelineId`, after the others;
 * - `render-hires`: the built-in extract → render-hires (name "result") → finalize.
 * specific-pipeline's `pipelineId` is a `project` job.
 */
export type ProcessingJob =
  | { kind: 'project'; pipelineId: number }
  | { kind: 'item'; itemId: number; pipelineId: number }
  | { kind: 'post-processing'; pipelineId: number }
  | { kind: 'render-hires'; scenario: RenderHiresScenario };

/** A project as its jobs keep it: the snapshot tasks read, and who owns it. */
export interface ProjectForJobs {
  tenantId: number;
  projectId: number;
  /** The ProjectDto now (jobs keep it as their snapshot). */
  dto: Record<string, unknown> & { items: Array<Record<string, unknown>> };
  ownerId: string | null;
  orderId: string | null;
  /** The hop the project was created at (hops.ts). */
  hop: number;
}

export const projectDoName = (tenantId: number, projectId: number) => `project:${tenantId}:${projectId}`;
export const jobDoName = (tenantId: number, jobId: string) => `job:${tenantId}:${jobId}`;
export const jobStub = (env: Env, doName: string) => env.PROJECT_JOBS.get(env.PROJECT_JOBS.idFromName(doName));

/** Where the runner's anonymous URLs point when no request gave an origin. */
export const runnerBaseUrl = (env: Env) => (env.PUBLIC_BASE_URL || env.ISSUER || '').replace(/\/+$/, '');

/** The built-in render-hires scenario: extract → render-hires (name "result") → finalize. */
export function renderHiresPipeline(s: RenderHiresScenario): string {
  const params: Record<string, unknown> = { hiResOutputDpi: s.dpi, hiResOutputFileFormat: s.format };
  if (s.colorSpace) params.hiResOutputColorSpace = s.colorSpace;
  if (s.flipMode) params.hiResOutputFlipMode = s.flipMode;
  if (s.rotateMode) params.hiResOutputRotateMode = s.rotateMode;
  return JSON.stringify({
    tasks: [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      { name: 'render-hires', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: params },
      { name: 'finalize', type: 'finalize', inputArtifacts: ['result*'], finalArtifacts: ['result*'], parameters: { anonymousAccess: s.anonymousAccess } },
    ],
  });
}

/** The stored form of a pipeline (validated), or the reason it cannot run. */
function storedPipeline(raw: string): string {
  const r = validatePipeline(raw);
  if (!r.ok) throw new Error(`pipeline is not valid: ${JSON.stringify(r.errors)}`);
  return canonicalJson(pipelineDefinition(r.pipeline));
}

/**
 * Creates a project's jobs in its object and starts them. Pipelines are read now and kept as
 * snapshots, with the project as given. A pipeline that no longer validates becomes a job that
 * fails at once, saying why.
 */
export async function enqueueProjectJobs(env: Env, project: ProjectForJobs, jobs: ProcessingJob[]): Promise<void> {
  const { tenantId, projectId, dto } = project;
  const raw = await pipelineTexts(env.DB, tenantId, jobs.flatMap((j) => ('pipelineId' in j ? [j.pipelineId] : [])));
  const newJobs: Array<Omit<NewJob, 'taskNames'>> = [];
  for (const j of jobs) {
    let pipeline: string;
    let snapshot = dto;
    if (j.kind === 'render-hires') {
      pipeline = storedPipeline(renderHiresPipeline(j.scenario));
      snapshot = { ...dto, items: dto.items.map((i) => ({ ...i, designIds: [j.scenario.designId] })) };
    } else {
      const text = raw.get(j.pipelineId);
      if (text === undefined) continue;
      try {
        pipeline = storedPipeline(text);
      } catch {
        continue;
      }
    }
    newJobs.push({
      id: newId(),
      tenantId,
      projectId,
      itemId: j.kind === 'item' ? j.itemId : null,
      kind: j.kind,
      pipeline,
      project: JSON.stringify(snapshot),
      ownerId: project.ownerId,
      orderId: project.orderId,
      baseUrl: runnerBaseUrl(env),
      pipelineId: 'pipelineId' in j ? j.pipelineId : null,
      secretsAllowed: true,
      startRequested: true,
    });
  }
  const name = projectDoName(tenantId, projectId);
  await jobStub(env, name).enqueue(name, newJobs, project.hop);
}

/** A deleted project's jobs go, with their files. */
export async function stopProjectJobs(env: Env, tenantId: number, projectId: number): Promise<void> {
  await jobStub(env, projectDoName(tenantId, projectId)).removeAll();
  // Finals of the project's jobs live in D1 under the project id: they go with it.
  await deleteProjectJobArtifacts(env.DB, tenantId, projectId);
}
