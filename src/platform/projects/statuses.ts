/**
 * Project statuses and transitions (contract, "Back-office" and "Storefront"): the tenant's own
 * status model. Codes are unique; exactly one status is initial (the first one gets it, marking
 * another moves it, it is never deleted or unset); any number are final; a status or transition
 * in use is not deleted; `(name, startStatus)` is unique. Projects store the status code.
 */
import { ConflictError, NotFoundError, type SortKey, type TenantContext } from '../core';
import { initialProcessingStatus, startProjectProcessing } from './processing';
import { jobsOf, plannedJobs, projectOr404 } from './service';
import * as store from './store';
import { emit as emitWebhook } from '../webhooks/events';

const intId = (s: string): number => (/^[1-9][0-9]{0,14}$/.test(s) ? Number(s) : 0);

// --- back office ----------------------------------------------------------------------------------

/**
 * A page of a tenant's small configuration list, sorted and searched in memory (a tenant has a
 * handful of statuses and transitions; `search` matches the display name or name).
 */
function page<T extends Record<string, unknown>>(all: T[], q: ListQuery, text: (x: T) => string) {
  const needle = q.search?.toLowerCase();
  const found = needle ? all.filter((x) => text(x).toLowerCase().includes(needle)) : all;
  const sorted = [...found].sort((a, b) => {
    for (const k of q.sorting) {
      const [x, y] = [a[k.field], b[k.field]] as [string | number, string | number];
      if (x !== y) return (x < y ? -1 : 1) * (k.direction === 'DESC' ? -1 : 1);
    }
    return 0;
  });
  return { total: found.length, items: sorted.slice(q.skip, q.skip + q.take) };
}

type ListQuery = { skip: number; take: number; sorting: SortKey[]; search?: string };

export async function listStatuses(t: TenantContext, q: ListQuery) {
  const rows = (await store.statuses(t.env.DB, t.tenantId)).map(store.backofficeStatusDto);
  return page(rows, q, (s) => s.displayName);
}

async function statusOr404(t: TenantContext, id: string): Promise<store.StatusRow> {
  const row = intId(id) ? await store.statusById(t.env.DB, t.tenantId, intId(id)) : null;
  if (!row) throw new NotFoundError(`No project status ${id}.`);
  return row;
}

export async function getStatus(t: TenantContext, id: string) {
  return store.backofficeStatusDto(await statusOr404(t, id));
}

const codeTaken = (code: number) => new ConflictError('GeneralConflict', `A project status with code ${code} already exists.`);

export async function createStatus(t: TenantContext, input: { code: number; color?: string | null; displayName?: string | null; isInitial?: boolean | null; isFinal?: boolean | null }) {
  try {
    const row = await store.insertStatus(t.env.DB, t.tenantId, {
      code: input.code,
      color: input.color ?? null,
      displayName: input.displayName ?? '',
      isInitial: input.isInitial === true,
      isFinal: input.isFinal === true,
    });
    return store.backofficeStatusDto(row);
  } catch (err) {
    if (store.isUniqueViolation(err)) throw codeTaken(input.code);
    throw err;
  }
}

export async function updateStatus(
  t: TenantContext,
  id: string,
  input: { code?: number | null; color?: string | null; displayName?: string | null; isInitial?: boolean | null; isFinal?: boolean | null },
) {
  const row = await statusOr404(t, id);
  if (row.is_initial === 1 && input.isInitial === false) {
    throw new ConflictError('GeneralConflict', 'The initial status cannot be unset; mark another status as initial instead.');
  }
  const next = {
    code: input.code ?? row.code,
    color: input.color === undefined ? row.color : input.color,
    displayName: input.displayName ?? row.display_name,
    isInitial: input.isInitial ?? row.is_initial === 1,
    isFinal: input.isFinal ?? row.is_final === 1,
  };
  try {
    return store.backofficeStatusDto(await store.updateStatus(t.env.DB, t.tenantId, row.id, row.code, next));
  } catch (err) {
    if (store.isUniqueViolation(err)) throw codeTaken(next.code);
    throw err;
  }
}

export async function deleteStatus(t: TenantContext, id: string) {
  const row = await statusOr404(t, id);
  if (row.is_initial === 1) throw new ConflictError('GeneralConflict', 'The initial status cannot be deleted; mark another status as initial first.');
  const use = await store.statusUse(t.env.DB, t.tenantId, row.code);
  if (use.projects || use.transitions) {
    throw new ConflictError('GeneralConflict', `Status ${row.code} is in use by ${use.projects ? 'projects' : 'transitions'}.`, {
      usedByProjects: use.projects,
      usedByTransitions: use.transitions,
    });
  }
  await store.deleteStatus(t.env.DB, t.tenantId, row.id);
  return store.backofficeStatusDto(row);
}

export async function listTransitions(t: TenantContext, q: ListQuery) {
  const rows = (await store.transitions(t.env.DB, t.tenantId)).map(store.transitionDto);
  return page(rows, q, (x) => `${x.name} ${x.displayName}`);
}

async function transitionOr404(t: TenantContext, id: string): Promise<store.TransitionRow> {
  const row = intId(id) ? await store.transitionById(t.env.DB, t.tenantId, intId(id)) : null;
  if (!row) throw new NotFoundError(`No project transition ${id}.`);
  return row;
}

export async function getTransition(t: TenantContext, id: string) {
  return store.transitionDto(await transitionOr404(t, id));
}

/** Both ends must be statuses of the tenant (404 with errors at the field). */
async function checkEnds(t: TenantContext, startStatus: number, resultStatus: number) {
  const codes = new Set((await store.statuses(t.env.DB, t.tenantId)).map((s) => s.code));
  const errors: Record<string, string[]> = {};
  if (!codes.has(startStatus)) errors.startStatus = [`No project status with code ${startStatus}.`];
  if (!codes.has(resultStatus)) errors.resultStatus = [`No project status with code ${resultStatus}.`];
  if (Object.keys(errors).length) throw new NotFoundError('The transition names statuses that do not exist.', errors);
}

const nameTaken = (name: string, start: number) =>
  new ConflictError('NameConflict', `A transition "${name}" from status ${start} already exists.`);

export async function createTransition(t: TenantContext, input: { name: string; displayName?: string | null; startStatus: number; resultStatus: number }) {
  await checkEnds(t, input.startStatus, input.resultStatus);
  try {
    const row = await store.insertTransition(t.env.DB, t.tenantId, {
      name: input.name,
      displayName: input.displayName ?? input.name,
      startStatus: input.startStatus,
      resultStatus: input.resultStatus,
    });
    return store.transitionDto(row);
  } catch (err) {
    if (store.isUniqueViolation(err)) throw nameTaken(input.name, input.startStatus);
    throw err;
  }
}

export async function updateTransition(
  t: TenantContext,
  id: string,
  input: { name?: string | null; displayName?: string | null; startStatus?: number | null; resultStatus?: number | null },
) {
  const row = await transitionOr404(t, id);
  const next = {
    name: input.name ?? row.name,
    displayName: input.displayName ?? row.display_name,
    startStatus: input.startStatus ?? row.start_status,
    resultStatus: input.resultStatus ?? row.result_status,
  };
  await checkEnds(t, next.startStatus, next.resultStatus);
  try {
    return store.transitionDto(await store.updateTransition(t.env.DB, t.tenantId, row.id, next));
  } catch (err) {
    if (store.isUniqueViolation(err)) throw nameTaken(next.name, next.startStatus);
    throw err;
  }
}

/** Transitions are configuration: projects keep only the status, so a transition is never "in use". */
export async function deleteTransition(t: TenantContext, id: string) {
  const row = await transitionOr404(t, id);
  await store.deleteTransition(t.env.DB, t.tenantId, row.id);
  return store.transitionDto(row);
}

// --- storefront -----------------------------------------------------------------------------------

export async function storefrontStatuses(t: TenantContext) {
  return (await store.statuses(t.env.DB, t.tenantId)).map(store.statusDto);
}

export async function storefrontTransitions(t: TenantContext) {
  return (await store.transitions(t.env.DB, t.tenantId)).map(store.transitionDto);
}

/** The transitions available from the project's current status. */
export async function projectTransitions(t: TenantContext, projectId: string) {
  const { project } = await projectOr404(t, projectId);
  return (await store.transitions(t.env.DB, t.tenantId, project.status)).map(store.transitionDto);
}

/** Applies the named transition from the project's status; none → 409 with availableTransitions. */
export async function applyTransition(t: TenantContext, projectId: string, name: string) {
  const { project, items } = await projectOr404(t, projectId);
  const available = await store.transitions(t.env.DB, t.tenantId, project.status);
  const transition = available.find((x) => x.name === name);
  if (!transition) {
    throw new ConflictError('GeneralConflict', `No transition "${name}" from status ${project.status}.`, {
      availableTransitions: available.map(store.transitionDto),
    });
  }
  return moveTo(t, project, items, transition.result_status);
}

/** Sets the status whatever the transitions say (the forced `statuses/{code}`). */
export async function forceStatus(t: TenantContext, projectId: string, code: string) {
  const { project, items } = await projectOr404(t, projectId);
  const n = /^-?\d{1,10}$/.test(code) ? Number(code) : NaN;
  if (!Number.isSafeInteger(n)) throw new NotFoundError(`No project status ${code}.`);
  return moveTo(t, project, items, n);
}

async function moveTo(t: TenantContext, project: store.ProjectRow, items: store.ItemRow[], code: number) {
  const db = t.env.DB;
  const [status, startOn] = await Promise.all([store.statusByCode(db, t.tenantId, code), store.startProcessingOnStatus(db, t.tenantId)]);
  if (!status) throw new NotFoundError(`No project status ${code}.`);
  const planned = plannedJobs(project.processing);
  // startProcessingOnStatus: the first time the project enters that status starts processing.
  const trigger = startOn === code && project.processing_triggered_at === null ? { status: initialProcessingStatus(planned) } : null;
  const { moved, triggered } = await store.setProjectStatus(db, t.tenantId, project.id, project.status, code, trigger);
  if (!moved) {
    // Another call changed the status since we read it: this one did nothing.
    const now = await store.projectRow(db, t.tenantId, project.id);
    const current = now?.status ?? project.status;
    throw new ConflictError('GeneralConflict', `The project's status changed from ${project.status} to ${current} meanwhile; nothing was done.`, {
      availableTransitions: (await store.transitions(db, t.tenantId, current)).map(store.transitionDto),
    });
  }
  if (triggered) await startProjectProcessing(t.env, t.tenantId, project.id, jobsOf(planned, items));
  await emitWebhook(t.env, t.tenantId, 'project.status-changed', { projectId: project.id, previousStatus: project.status, status: code });
  return store.statusDto(status);
}
