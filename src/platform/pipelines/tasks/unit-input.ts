import { TaskFailure } from './errors';
import type { ArtifactRecord, UnitContext } from './types';

/**
 * The artifact a one-input task works on: the member its unit processes (a collection input gives
 * one unit per member), else the first artifact of the task's first input. None → the task fails,
 * naming that input.
 */
export function unitInput(ctx: Pick<UnitContext, 'task' | 'member' | 'inputs'>): ArtifactRecord {
  const ref = ctx.task.inputs[0]!;
  const input = ctx.member ?? ctx.inputs(ref.name)[0];
  if (!input) throw new TaskFailure(`${ref.name} is missing`);
  return input;
}
