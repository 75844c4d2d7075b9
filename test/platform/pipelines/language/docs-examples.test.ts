import { describe, expect, it } from 'vitest';
import doc from '../../../../docs/pipelines.md?raw';
import production from '../../../../docs/production.md?raw';
import { TASK_TYPES, resolveTaskType, validatePipeline } from '../../../../src/platform/pipelines/language';

type Task = { name: string; type: string; inputArtifacts?: string[]; finalArtifacts?: string[] };

const blocks = [...`${doc}\n${production}`.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>);
const pipelines = blocks.filter((b) => Array.isArray(b.tasks));
const tasks = blocks.filter((b): b is Task & Record<string, unknown> => typeof b.type === 'string' && typeof b.name === 'string');

/** A task example in a pipeline: a producer for each artifact it reads, then finalize. */
function around(task: Task) {
  const reads = [...(task.inputArtifacts ?? []), ...(task.finalArtifacts ?? [])];
  const producers = [...new Set(reads.map((r) => r.replace(/\?$/, '')))].map((out, i) => ({
    name: `source${i}`,
    type: 'extract-project-resource',
    outputArtifacts: [out],
    parameters: { resourceType: 'Hires' },
  }));
  return { tasks: task.type === 'finalize' ? [...producers, task] : [...producers, task, { name: 'fin', type: 'finalize' }] };
}

describe('docs/pipelines.md examples', () => {
  it('has an example for every task type of the contract table', () => {
    const documented = new Set(tasks.map((t) => (resolveTaskType(t.type) as { type?: string }).type));
    expect(TASK_TYPES.filter((t) => !documented.has(t))).toEqual([]);
  });

  it.each(pipelines.map((p, i) => [i, p] as const))('whole pipeline example %i validates', (_, p) => {
    const r = validatePipeline(p);
    expect(r.ok ? {} : r.errors).toEqual({});
  });

  it.each(tasks.map((t) => [t.name, t] as const))('task example %s validates', (_, t) => {
    const r = validatePipeline(around(t));
    expect(r.ok ? {} : r.errors).toEqual({});
  });
});
