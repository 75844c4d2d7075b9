/**
 * preflight (ours, issue 21): a design artifact per member checked with its item's fields by the
 * design atoms' preflight (the storefront's project create makes the same call,
 * projects/preflight.ts), without rendering. The problems are recorded on the job (the task's
 * `preflight` in the job DTO); `failOnErrors` (default true) fails the task when there are
 * errors, `failOnWarnings` (default false) when there are warnings too; with neither the task
 * only records. An output artifact gets the report as JSON (`<design>-preflight.json`).
 */
import { describeProblems, preflightSummary, problemsOfDesign } from '../../jobs/preflight';
import { designPreflight } from '../../projects/preflight';
import { TaskFailure } from './errors';
import { itemFields } from './personalise';
import { designTenant } from './print-product';
import { outputBase } from './project';
import { designOf } from './render';
import type { TaskModule } from './types';
import { unitInput } from './unit-input';

export const preflight: TaskModule<'preflight'> = {
  async run(ctx, p) {
    const input = unitInput(ctx);
    const design = await designOf(ctx, input);
    const report = await designPreflight(designTenant(ctx), design.id, itemFields(ctx, input));
    ctx.preflight(design.id, report.problems);
    const summary = preflightSummary(problemsOfDesign(design.id, report.problems));

    const out = ctx.task.outputs[0];
    if (out) {
      const name = `${outputBase(p, design.name)}-preflight`;
      const body = { design: design.id, designName: design.name, itemId: input.itemId, ...summary };
      const bytes = new TextEncoder().encode(JSON.stringify(body, null, 2));
      await ctx.output(out.name, { ext: 'json', fileName: `${name}.json`, format: 'json', bytes, contentType: 'application/json', source: design.id });
    }

    if ((p.failOnErrors && summary.errors) || (p.failOnWarnings && summary.problems.length)) throw new TaskFailure(`${design.name}: ${describeProblems(summary)}`);
  },
};
