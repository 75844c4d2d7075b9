/**
 * A validated pipeline, as `validatePipeline` returns it, and what the routes and the runner
 * derive from it: the stored form, canonical JSON for job-id idempotency, the secrets it needs
 * and the collection a per-member task iterates.
 */
import { type ArtifactRef, hasExpression, parseTemplate } from './expressions';
import { type TaskType, isBuiltInNamespace, taskSpec } from './tasks';

export type { ArtifactRef } from './expressions';

export const DEFAULT_PROCESSING_TIMEOUT = 600;
export const DEFAULT_MAX_AUTO_RETRY_COUNT = 2;

/** A validated task: canonical type, parsed artifact names, defaults applied. */
export interface PipelineTask {
  name: string;
  type: TaskType;
  /** As written; null when omitted (every accepted namespace means built-in). */
  namespace: string | null;
  description: string | null;
  inputs: ArtifactRef[];
  outputs: ArtifactRef[];
  /** finalize only (task-level `finalArtifacts`, or `parameters.finalArtifacts`). */
  finalArtifacts: ArtifactRef[];
  /** As written (DTOs return parameters as written; interpolation happens per unit). */
  parameters: Record<string, unknown>;
  /** Seconds; checked before each unit and bounding each awaited I/O. */
  processingTimeout: number;
  maxAutoRetryCount: number;
}

export interface Pipeline {
  tasks: PipelineTask[];
}

/**
 * The collection input a per-member task iterates (its first `name*` input), or undefined when
 * the task runs as one unit. The runner makes one unit per member of it.
 */
export function perMemberInput(task: PipelineTask): ArtifactRef | undefined {
  if (taskSpec(task.type).mode !== 'perMember') return undefined;
  return task.inputs.find((r) => r.collection);
}

/** Secret names a pipeline references (`{{secrets.x}}`), lower-cased, for the 403 check. */
export function secretNames(pipeline: Pipeline): string[] {
  const names = new Set<string>();
  // Iterative: no stack to overflow, whatever the parameters hold.
  const stack: unknown[] = pipeline.tasks.map((t) => t.parameters);
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!hasExpression(v)) continue;
      for (const seg of segmentsOrNone(v)) {
        if (seg.kind === 'ref' && seg.ref.root === 'secret') names.add(seg.ref.name.toLowerCase());
      }
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object') stack.push(...Object.values(v));
  }
  return [...names];
}

function segmentsOrNone(v: string) {
  try {
    return parseTemplate(v);
  } catch {
    return [];
  }
}

/**
 * The stored/returned form of a validated pipeline: declared names, built-in namespace omitted,
 * defaults applied, parameters as written. Two bodies that mean the same give the same
 * `canonicalJson(pipelineDefinition(…))` (job-id idempotency).
 */
export function pipelineDefinition(pipeline: Pipeline) {
  return {
    tasks: pipeline.tasks.map((t) => ({
      name: t.name,
      type: t.type,
      ...(t.namespace !== null && !isBuiltInNamespace(t.namespace) ? { namespace: t.namespace } : {}),
      ...(t.description !== null ? { description: t.description } : {}),
      inputArtifacts: t.inputs.map((r) => r.raw),
      outputArtifacts: t.outputs.map((r) => r.raw),
      parameters: t.parameters,
      finalArtifacts: t.finalArtifacts.map((r) => r.raw),
      processingTimeout: t.processingTimeout,
      maxAutoRetryCount: t.maxAutoRetryCount,
    })),
  };
}

/** JSON with object keys sorted at every level (the one shared by engine and platform). */
export { canonicalJson } from '../../../lib/json';
