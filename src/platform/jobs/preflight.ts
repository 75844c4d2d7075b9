/**
 * Preflight results as the platform shows them (issue 21): a summary with counts, used by the
 * job DTO (per task and for the whole job) and by the storefront project item DTO.
 *
 *   { ok, errors, warnings, problems }   ok: no errors (warnings allowed)
 *
 * A problem is the engine's one shape (engine/preflight/report.ts) with `design`: the design
 * asset it was found in, so an item or a job with several designs says which one is at fault.
 * Engine-free apart from that small module: the runner's object loads this at start-up.
 */
import { preflightReport, type PreflightProblem } from '../../engine/preflight/report';

/** A problem and the design it was found in (null when the check had no design, e.g. a failed load). */
export type RecordedProblem = PreflightProblem & { design: string | null };

export interface PreflightSummary {
  ok: boolean;
  errors: number;
  warnings: number;
  problems: RecordedProblem[];
}

/** The summary of problems found together: duplicates dropped, errors first (preflightReport). */
export function preflightSummary(problems: readonly RecordedProblem[]): PreflightSummary {
  // preflightReport dedups by layer, code and message: keep problems of different designs apart.
  const byDesign = new Map<string | null, RecordedProblem[]>();
  for (const p of problems) byDesign.set(p.design, [...(byDesign.get(p.design) ?? []), p]);
  const kept = [...byDesign.entries()].flatMap(([design, list]) => preflightReport(list).problems.map((p) => ({ ...p, design })));
  kept.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  const errors = kept.filter((p) => p.severity === 'error').length;
  return { ok: errors === 0, errors, warnings: kept.length - errors, problems: kept };
}

/** Problems of one design's report, tagged with the design. */
export const problemsOfDesign = (design: string | null, problems: readonly PreflightProblem[]): RecordedProblem[] => problems.map((p) => ({ ...p, design }));

/** The problems a job view's units recorded, by task index. */
export function taskProblems(rows: ReadonlyArray<{ idx: number; problems: string }>): Map<number, RecordedProblem[]> {
  const byTask = new Map<number, RecordedProblem[]>();
  for (const r of rows) byTask.set(r.idx, [...(byTask.get(r.idx) ?? []), ...(JSON.parse(r.problems) as RecordedProblem[])]);
  return byTask;
}

/**
 * A job view's preflight (JobView.problems): each task's summary by task index, and the whole
 * job's (null when no task checked anything). The job DTO and the back office read it alike.
 */
export function viewPreflight(rows: ReadonlyArray<{ idx: number; problems: string }>): { job: PreflightSummary | null; tasks: Map<number, PreflightSummary> } {
  const byTask = taskProblems(rows);
  const tasks = new Map([...byTask].map(([idx, problems]) => [idx, preflightSummary(problems)] as const));
  return { job: byTask.size ? preflightSummary([...byTask.values()].flat()) : null, tasks };
}

/** The worst verdict of summaries (null ones, items without a design, are left out): errors, warnings, ok, or null. */
export function preflightVerdict(summaries: ReadonlyArray<PreflightSummary | null>): 'errors' | 'warnings' | 'ok' | null {
  const checked = summaries.filter((s): s is PreflightSummary => s !== null);
  if (!checked.length) return null;
  if (checked.some((s) => s.errors > 0)) return 'errors';
  if (checked.some((s) => s.warnings > 0)) return 'warnings';
  return 'ok';
}

/** One line for a job's statusDescription: the errors (else the warnings), counted, and the first few messages. */
export function describeProblems(summary: PreflightSummary, max = 3): string {
  const severity = summary.errors ? 'error' : 'warning';
  const listed = summary.problems.filter((p) => p.severity === severity);
  const shown = listed.slice(0, max).map((p) => p.message).join(' ');
  const more = listed.length > max ? ` (and ${listed.length - max} more)` : '';
  return `${listed.length} preflight ${severity}${listed.length === 1 ? '' : 's'}: ${shown}${more}`;
}
