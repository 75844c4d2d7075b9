/**
 * finalize: each of `finalArtifacts` becomes a Final row in D1 `artifacts` (group = job id,
 * alias = member name, id = first 24 hex of SHA-256(`<job>/<run>/<task>/<artifact>/<n>`)),
 * pointing at its job key. Idempotent: a redone finalize upserts the same ids.
 */
import type { TaskModule } from './types';

export const finalize: TaskModule<'finalize'> = {
  async run(ctx, p) {
    // finalArtifacts; a finalize that names none makes its inputs final.
    const refs = ctx.task.finalArtifacts.length ? ctx.task.finalArtifacts : ctx.task.inputs;
    await ctx.publishFinals(
      refs.map((r) => ({ name: r.name, collection: r.collection })),
      p.anonymousAccess,
    );
  },
};
