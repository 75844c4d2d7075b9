/**
 * Skip conditions in task parameters (contract: Pipelines & rendering jobs).
 *
 * `skipIf`, `skipIfNot` take one condition; `skipIfAny`, `skipIfAll`, `skipIfNotAny`,
 * `skipIfNotAll` take an array. A condition is `A`, `A = B` or `A != B`, each side interpolated
 * (`{{…}}`) and trimmed; `name?` (or `name*?`) as a side is `true`/`false`: the artifact exists
 * (a collection: has members). A lone operand holds unless it is empty, `false` or `0`.
 * The task is skipped when any present condition parameter says so:
 *
 * | parameter      | skips when              |
 * |----------------|-------------------------|
 * | skipIf         | the condition holds     |
 * | skipIfNot      | it does not hold        |
 * | skipIfAny      | at least one holds      |
 * | skipIfAll      | all hold                |
 * | skipIfNotAny   | none holds              |
 * | skipIfNotAll   | at least one fails      |
 *
 * An empty array is no condition. Missing references fail the task (InterpolationError) unless
 * written with `?`.
 */
import { type Condition, type Operand, ExpressionSyntaxError, parseCondition } from './expressions';
import { type PipelineContext, InterpolationError, interpolateString, toText } from './interpolate';
import { type ConditionParameter, isConditionParameter } from './tasks';

export interface SkipDecision {
  skip: boolean;
  /** Why, for statusDescription: `skipIf "{{…}} = x" holds`. Null when not skipped. */
  reason: string | null;
}

/** True when the task's conditions say to skip it. */
export async function shouldSkip(
  parameters: Record<string, unknown> | null | undefined,
  ctx: PipelineContext,
): Promise<boolean> {
  return (await evaluateConditions(parameters, ctx)).skip;
}

/** As `shouldSkip`, with the reason. */
export async function evaluateConditions(
  parameters: Record<string, unknown> | null | undefined,
  ctx: PipelineContext,
): Promise<SkipDecision> {
  for (const [written, value] of Object.entries(parameters ?? {})) {
    const which = isConditionParameter(written);
    if (!which || value === undefined || value === null) continue;
    const list = conditionList(which, value);
    if (list.length === 0) continue;
    const results: boolean[] = [];
    for (const c of list) results.push(await evaluateCondition(c, ctx));
    const skip = decide(which, results);
    if (skip) return { skip, reason: reasonFor(written, which, list, results) };
  }
  return { skip: false, reason: null };
}

function decide(which: ConditionParameter, r: boolean[]): boolean {
  switch (which) {
    case 'skipIf':
    case 'skipIfAny':
      return r.some(Boolean);
    case 'skipIfNot':
    case 'skipIfNotAll':
      return r.some((x) => !x);
    case 'skipIfAll':
      return r.every(Boolean);
    case 'skipIfNotAny':
      return !r.some(Boolean);
  }
}

function reasonFor(written: string, which: ConditionParameter, list: string[], r: boolean[]): string {
  const quote = (s: string) => JSON.stringify(s);
  switch (which) {
    case 'skipIf':
    case 'skipIfAny':
      return `${written} ${quote(list[r.indexOf(true)]!)} holds`;
    case 'skipIfNot':
    case 'skipIfNotAll':
      return `${written} ${quote(list[r.indexOf(false)]!)} does not hold`;
    case 'skipIfAll':
      return `${written}: all ${list.length} conditions hold`;
    case 'skipIfNotAny':
      return `${written}: none of ${list.length} conditions holds`;
  }
}

/** The conditions a parameter holds; throws InterpolationError('bad_expression') if mistyped. */
export function conditionList(which: ConditionParameter, value: unknown): string[] {
  const single = which === 'skipIf' || which === 'skipIfNot';
  if (typeof value === 'string') return [value];
  if (!single && Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new InterpolationError(
    'bad_expression',
    which,
    single ? `${which} must be a string` : `${which} must be an array of strings`,
  );
}

/** Evaluates one condition text (`A`, `A = B`, `A != B`). */
export async function evaluateCondition(text: string, ctx: PipelineContext): Promise<boolean> {
  let c: Condition;
  try {
    c = parseCondition(text);
  } catch (e) {
    if (e instanceof ExpressionSyntaxError) throw new InterpolationError('bad_expression', text, e.message);
    throw e;
  }
  const left = await operandValue(c.left, ctx);
  if (c.operator === null) return isTruthy(left);
  const right = await operandValue(c.right!, ctx);
  return c.operator === '=' ? left === right : left !== right;
}

async function operandValue(op: Operand, ctx: PipelineContext): Promise<string> {
  if (op.kind === 'exists') return String(await artifactExists(op.name, ctx));
  return toText(await interpolateString(op.template, ctx)).trim();
}

/** `name?`: the artifact exists; a collection exists when it has members. */
export async function artifactExists(name: string, ctx: PipelineContext): Promise<boolean> {
  const found = ctx.artifact ? await ctx.artifact(name) : undefined;
  if (found === undefined || found === null) return false;
  return Array.isArray(found) ? found.length > 0 : true;
}

/** A lone operand holds unless it is empty, `false` (any case) or `0`. */
export function isTruthy(value: string): boolean {
  const t = value.trim();
  return t !== '' && t.toLowerCase() !== 'false' && t !== '0';
}
