// How the runner hands a unit to its task (src/platform/pipelines/tasks/registry.ts): the
// parameters normalised for the task's type, typed, before the module runs.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../../../src/platform/pipelines/language';
import { prepareTask } from '../../../../src/platform/pipelines/tasks/registry';
import type { UnitContext } from '../../../../src/platform/pipelines/tasks/types';

/** A finalize unit that records what it publishes. */
function finalizeUnit() {
  const published: Array<{ refs: Array<{ name: string; collection: boolean }>; anonymousAccess: boolean }> = [];
  const ctx = {
    task: { finalArtifacts: [], inputs: [{ name: 'proof', collection: true }] },
    publishFinals: async (refs: Array<{ name: string; collection: boolean }>, anonymousAccess: boolean) => {
      published.push({ refs, anonymousAccess });
      return refs.length;
    },
  } as unknown as UnitContext;
  return { ctx, published };
}

describe('prepareTask', () => {
  it('gives the module its parameters normalised for its type (names ignoring case, values parsed)', async () => {
    const { ctx, published } = finalizeUnit();
    await prepareTask('finalize', { AnonymousAccess: 'TRUE' })(ctx);
    expect(published).toEqual([{ refs: [{ name: 'proof', collection: true }], anonymousAccess: true }]);
  });

  it('applies defaults for parameters not given', async () => {
    const { ctx, published } = finalizeUnit();
    await prepareTask('finalize', {})(ctx);
    expect(published[0]!.anonymousAccess).toBe(false);
  });

  it('throws ParameterError before anything runs when a parameter is wrong or missing', () => {
    expect(() => prepareTask('finalize', { anonymousAccess: 'maybe' })).toThrow(ParameterError);
    expect(() => prepareTask('invoke-url', {})).toThrow(ParameterError);
  });
});
