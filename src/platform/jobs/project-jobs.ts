import { DurableObject } from 'cloudflare:workers';
import { emitJobSettled } from '../webhooks/events';
import type { Env } from '../../env';
import {
  type Pipeline,
  type PipelineContext,
  SecretMask,
  evaluateConditions,
  interpolateParameters,
  perMemberInput,
  validatePipeline,
} from '../pipelines/language';
import { classify, retryDelayMs, TaskFailure } from '../pipelines/tasks/errors';
import { platformOrigins } from '../../http/outbound';
import type { OutputFile, UnitContext } from '../pipelines/tasks/types';
import { tenantKey } from '../core/tenancy';
import { aliasOf, deleteKeys, writeFinals, dropFinals, dropTemporaryRows, processingStatusOf, temporaryUrl } from './d1';
import { readSecret } from './secrets';
import { type ArtifactRecord, type JobRow, type JobStatus, type NewJob, type TaskProblemsRow, type TaskRow, JobStore, RUNNING, deleteJobRow, mirrorJobStatement } from './store';
import { projectStatusStatement } from '../projects/store';
import { problemsOfDesign, type RecordedProblem } from './preflight';

/** Starts of one unit that did not end before the task fails "interrupted 3 times". */
const MAX_STARTS = 3;
/**
 * Set before each unit: if the object crashes or is evicted inside the unit, this alarm (durable)
 * starts it again; a unit that ends sets an earlier one.
 */
const SAFETY_MS = 60_000;
/** A unit longer than this marks its task `longExecution`. */
const LONG_UNIT_MS = 60_000;
/** Mirror writes that failed are retried after this long. */
const MIRROR_RETRY_MS = 5_000;

export type Outcome = { ok: true } | { ok: false; reason: 'notFound' | 'conflict'; message: string };

export interface JobView {
  job: JobRow;
  tasks: TaskRow[];
  /** Preflight problems the run's units recorded (JSON per unit: RPC passes no `unknown`); read with taskProblems. */
  problems: TaskProblemsRow[];
}

/**
 * The runner (contract, "Pipelines & rendering jobs"): one object per project
 * (`project:<t>:<id>`) or stand-alone job (`job:<t>:<id>`) runs its jobs one at a time from its
 * own SQLite. All work happens in `alarm()`, one unit per call:
 *
 *   attempt += 1 (committed) → interpolate, check conditions → task writes outputs to R2
 *   → artifact rows + cursor in one transaction → mirror status to D1 → next alarm
 *
 * A crash between the outputs and the commit redoes the unit onto the same keys; the fourth
 * start of one unit fails the task. Errors are classified and never rethrown; the object sets
 * its next alarm itself.
 */
export class ProjectJobs extends DurableObject<Env> {
  private readonly store: JobStore;
  private readonly pipelines = new Map<string, Pipeline>();
  private busy = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new JobStore(ctx.storage.sql);
  }

  // --- RPC ---------------------------------------------------------------------------------

  /**
   * Adds jobs (in order) and starts the loop; the D1 rows are written before this returns.
   * `hop`: of the request that created the project or job (hops.ts); its calls send hop + 1.
   */
  async enqueue(doName: string, jobs: Array<Omit<NewJob, 'taskNames'>>, hop = 0): Promise<void> {
    this.store.setMeta('doName', doName);
    this.store.setMeta('hop', String(hop));
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      for (const j of jobs) {
        if (this.store.job(j.id)) continue;
        this.store.insertJob({ ...j, taskNames: this.pipelineFrom(j.pipeline).tasks.map((t) => t.name) }, now);
      }
    });
    await this.flushMirrors();
    await this.wake();
  }

  async view(id: string): Promise<JobView | null> {
    const job = this.store.job(id);
    return job ? this.viewOf(job) : null;
  }

  async views(): Promise<JobView[]> {
    return this.store.jobs().map((job) => this.viewOf(job));
  }

  private viewOf(job: JobRow): JobView {
    return { job, tasks: this.store.tasks(job.id), problems: this.store.problems(job.id, job.run) };
  }

  /** /start: a New job that waited for it runs. */
  async start(id: string): Promise<Outcome> {
    const job = this.store.job(id);
    if (!job) return notFound(id);
    if (job.status !== 'New' || job.startRequested) return conflict(`Job ${id} is ${job.status}${job.startRequested ? ' and already started' : ''}.`);
    this.store.setJob(id, { startRequested: 1 });
    await this.flushMirrors();
    await this.wake();
    return { ok: true };
  }

  /** resume (/recover, resume-processing): a Failed job continues at its failed task. */
  async recover(id: string): Promise<Outcome> {
    const job = this.store.job(id);
    if (!job) return notFound(id);
    if (job.status !== 'Failed') return conflict(`Job ${id} is ${job.status}; only a Failed job can be resumed.`);
    this.ctx.storage.transactionSync(() => {
      for (const t of this.store.tasks(id)) {
        if (t.status === 'Failed' || t.status === 'RequestFailed') {
          this.store.setTask(id, t.idx, { status: 'Pending', attempts: 0, autoRetries: 0, callRetries: 0, notBefore: null, description: null, started: null, finished: null, waited: 0 });
        }
      }
      this.store.setJob(id, { status: 'Recovered', statusDescription: null, finished: null });
    });
    await this.flushMirrors();
    await this.wake();
    return { ok: true };
  }

  /** /discard: the job stops for good; its temporaries go now. */
  async discard(id: string): Promise<Outcome> {
    const job = this.store.job(id);
    if (!job) return notFound(id);
    if (job.status === 'Completed' || job.status === 'Discarded') return conflict(`Job ${id} is ${job.status}.`);
    this.store.setJob(id, { status: 'Discarded', finished: Date.now() });
    await this.dropTemporaries(job);
    await this.flushMirrors();
    await this.wake();
    return { ok: true };
  }

  /**
   * Restart of a stand-alone job: a fresh run of the same job (run + 1). The previous run's
   * temporaries go now, its finals when the new run's finalize commits.
   */
  async restartRun(id: string): Promise<Outcome> {
    const job = this.store.job(id);
    if (!job) return notFound(id);
    if (RUNNING.includes(job.status) && !(job.status === 'New' && !job.startRequested)) return conflict(`Job ${id} is ${job.status}.`);
    await this.dropTemporaries(job);
    this.ctx.storage.transactionSync(() => {
      this.store.resetRun(id, this.pipelineOf(job).tasks.map((t) => t.name), Date.now());
      this.store.setJob(id, { replaces: JSON.stringify([id]) });
    });
    await this.flushMirrors();
    await this.wake();
    return { ok: true };
  }

  /**
   * Project restart (restart-processing): each current job (of `itemId`, when given) is
   * Discarded and a new job with the same pipeline starts (`newIds[i]` for the i-th).
   */
  async restartJobs(itemId: number | null, newIds: string[]): Promise<Outcome> {
    const current = this.currentJobs(itemId);
    if (!current.length) return { ok: false, reason: 'notFound', message: 'The project has no jobs to restart.' };
    if (current.some((j) => RUNNING.includes(j.status))) return conflict('Processing is in progress; wait until it ends.');
    const now = Date.now();
    for (const j of current) await this.dropTemporaries(j);
    this.ctx.storage.transactionSync(() => {
      current.forEach((j, i) => {
        this.store.setJob(j.id, { status: 'Discarded', finished: j.finished ?? now });
        const replaces = [j.id, ...(JSON.parse(j.replaces) as string[])];
        this.store.insertJob(
          {
            id: newIds[i]!, tenantId: j.tenantId, projectId: j.projectId, itemId: j.itemId, kind: j.kind, pipeline: j.pipeline,
            taskNames: this.pipelineOf(j).tasks.map((t) => t.name), project: j.project, ownerId: j.ownerId, orderId: j.orderId,
            baseUrl: j.baseUrl, pipelineId: j.pipelineId, secretsAllowed: !!j.secretsAllowed, startRequested: true, replaces,
          },
          now,
        );
      });
    });
    await this.flushMirrors();
    await this.wake();
    return { ok: true };
  }

  /** Project resume (resume-processing): every Failed current job (of `itemId`) continues. */
  async resumeJobs(itemId: number | null): Promise<Outcome> {
    const current = this.currentJobs(itemId);
    if (current.some((j) => RUNNING.includes(j.status))) return conflict('Processing is in progress; wait until it ends.');
    const failed = current.filter((j) => j.status === 'Failed');
    if (!failed.length) return conflict('No job of the project has failed.');
    for (const j of failed) await this.recover(j.id);
    return { ok: true };
  }

  /** Deletes a job: its rows here, its files (temporaries and finals) and its D1 rows. */
  async remove(id: string): Promise<Outcome> {
    const job = this.store.job(id);
    if (!job) return notFound(id);
    const keys = this.store.allArtifacts(id).filter((a) => a.owned).map((a) => a.key);
    const finalKeys = await dropFinals(this.env, job.tenantId, [id]);
    await dropTemporaryRows(this.env, job.tenantId, id);
    await deleteKeys(this.env.FILES, [...new Set([...keys, ...finalKeys])]);
    await deleteJobRow(this.env.DB, job.tenantId, id);
    this.store.deleteJob(id);
    this.pipelines.delete(id);
    return { ok: true };
  }

  /** The project was deleted: every job goes, with its files. */
  async removeAll(): Promise<void> {
    for (const j of this.store.jobs()) await this.remove(j.id);
    await this.ctx.storage.deleteAlarm();
  }

  async setOwner(id: string, ownerId: string): Promise<void> {
    if (this.store.job(id)) this.store.setJob(id, { ownerId });
  }

  /** Watchdog: makes sure an alarm is set while there is work. */
  async ensureStarted(): Promise<boolean> {
    const busy = !!this.store.currentJob() || this.store.pendingMirrors().length > 0;
    if (busy && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
    return busy;
  }

  /** Re-arms the loop now (watchdog for InProgress jobs idle too long). */
  async rearm(): Promise<void> {
    if (this.store.currentJob()) await this.ctx.storage.setAlarm(Date.now());
  }

  // --- the alarm loop ------------------------------------------------------------------------

  override async alarm(): Promise<void> {
    // One step at a time: an alarm that arrives while a step runs leaves the work to it (the
    // running step sets the next alarm itself).
    if (this.busy) return;
    this.busy = true;
    try {
      await this.step();
    } catch (e) {
      // Never rethrow: the runtime's own alarm retries are not relied on.
      console.error('ProjectJobs step failed', e);
      await this.ctx.storage.setAlarm(Date.now() + MIRROR_RETRY_MS).catch(() => {});
    } finally {
      this.busy = false;
    }
  }

  private async wake(at = Date.now()): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** One unit of the current job (or the bookkeeping that moves it on). */
  private async step(): Promise<void> {
    const mirrored = await this.flushMirrors();
    const job = this.store.currentJob();
    if (!job) {
      if (!mirrored) await this.wake(Date.now() + MIRROR_RETRY_MS);
      return;
    }
    const pipeline = this.pipelineOf(job);
    const task = this.store.currentTask(job.id);
    if (!task) return this.completeJob(job);
    const def = pipeline.tasks[task.idx]!;
    const now = Date.now();
    if (task.notBefore && task.notBefore > now) return this.wake(task.notBefore);

    const timeoutMs = def.processingTimeout * 1000;
    if (task.started && now - task.started - task.waited > timeoutMs) {
      return this.failTask(job, task, `processingTimeout of ${def.processingTimeout} s exceeded`);
    }
    const attempts = task.attempts + 1;
    if (attempts > MAX_STARTS) return this.failTask(job, task, `interrupted ${MAX_STARTS} times`);
    // Committed before the unit starts: a crash inside it is counted on the next start.
    this.ctx.storage.transactionSync(() => {
      this.store.setTask(job.id, task.idx, { attempts, status: 'InProgress', started: task.started ?? now, notBefore: null });
      if (job.status !== 'InProgress') this.store.setJob(job.id, { status: 'InProgress', started: job.started ?? now, statusDescription: null });
      this.store.setJob(job.id, { lastActivity: now });
    });
    await this.ctx.storage.setAlarm(now + SAFETY_MS);
    await this.ctx.storage.sync();
    await this.flushMirrors();

    const mask = new SecretMask();
    // Problems the unit records stay with it even when it then fails (a preflight task failing on errors).
    const recorded: Recorded = { checked: false, problems: [] };
    try {
      const result = await this.runUnit(job, pipeline, task, mask, AbortSignal.timeout(timeoutMs), recorded);
      // A unit over a minute marks the task `longExecution` (shown in the task DTO).
      if (Date.now() - now > LONG_UNIT_MS) this.store.setTask(job.id, task.idx, { longExecution: 1 });
      await this.commitUnit(job, task, result, recorded);
    } catch (e) {
      const c = classify(e);
      const message = mask.mask(c.message);
      if (c.kind === 'fail') return this.failTask(job, task, message, 'Failed', recorded);
      if (c.kind === 'call') {
        if (task.callRetries < c.retryCount) return this.retryLater(job, task, c.retryDelaySeconds * 1000, message, 'call');
        return this.failTask(job, task, message, 'RequestFailed');
      }
      if (task.autoRetries < def.maxAutoRetryCount) return this.retryLater(job, task, retryDelayMs(task.autoRetries), message, 'auto');
      return this.failTask(job, task, message);
    }
    await this.wake();
  }

  private async runUnit(job: JobRow, pipeline: Pipeline, task: TaskRow, mask: SecretMask, signal: AbortSignal, recorded: Recorded): Promise<UnitResult> {
    const def = pipeline.tasks[task.idx]!;
    const memberRef = perMemberInput(def);
    const members = memberRef ? this.store.artifacts(job.id, job.run, memberRef.name) : null;
    const memberIndex = memberRef ? task.cursor : null;
    const result: UnitResult = { outputs: [], finals: [], done: true, skipped: false };
    if (members && task.cursor >= members.length) return result; // an empty collection: nothing to do
    result.done = !members || task.cursor + 1 >= members.length;
    const member = members && memberIndex !== null ? members[memberIndex]! : null;
    const project = job.project ? (JSON.parse(job.project) as Record<string, unknown>) : null;
    const itemId = member?.itemId ?? job.itemId;
    const pctx: PipelineContext = {
      projectId: job.projectId ?? (project?.id as string | number | undefined) ?? null,
      project,
      item: itemId != null ? { id: itemId } : undefined,
      memberIndex,
      artifact: (name) => this.lookup(job, pipeline, name),
      secret: job.secretsAllowed ? (name) => readSecret(this.env, job.tenantId, name) : undefined,
      secretMask: mask,
    };
    if (task.cursor === 0) {
      // Never a secret in a condition (an oracle through Skipped): the validator refuses them; no resolver here either.
      const skip = await evaluateConditions(def.parameters, { ...pctx, secret: undefined });
      if (skip.skip) {
        result.skipped = true;
        result.reason = skip.reason ?? undefined;
        return result;
      }
    }
    // The task registry (and with it the engine) and the catalogue load when a unit first runs,
    // not when an isolate starts (docs/performance.md, Start-up).
    const { prepareTask } = await import('../pipelines/tasks/registry');
    const run = prepareTask(def.type, await interpolateParameters(def.parameters, pctx));
    const produced = new Map<string, number>();
    const ctx: UnitContext = {
      env: this.env,
      tenantId: job.tenantId,
      jobId: job.id,
      run: job.run,
      task: def,
      memberIndex,
      member,
      project,
      projectId: job.projectId,
      itemId: job.itemId,
      ownerId: job.ownerId,
      baseUrl: job.baseUrl,
      callRetries: task.callRetries,
      unitKey: `${job.id}-${job.run}-${def.name}-${memberIndex ?? 0}`,
      signal,
      // Calls to the platform's own origins only where the tenant allows them (docs/security.md);
      // the hop header goes out either way, so project creation still stops a loop at depth 3.
      outbound: {
        hop: Number(this.store.meta('hop') ?? 0) + 1,
        refuseOrigins: (await (await import('../catalogue/tenant')).getTenantSettings(this.env.DB, job.tenantId)).allowSelfCalls ? [] : platformOrigins(this.env, job.baseUrl),
      },
      inputs: (name) => this.store.artifacts(job.id, job.run, name),
      allArtifacts: () => this.store.artifacts(job.id, job.run),
      read: async (a) => {
        const obj = await this.env.FILES.get(a.key);
        if (!obj) throw new TaskFailure(`the artifact ${a.name} has no content`);
        return new Uint8Array(await obj.arrayBuffer());
      },
      output: async (name, file) => {
        // n: this unit's next member of the output; the same on a redo (nothing of this unit is committed).
        const base = produced.get(name) ?? this.store.artifacts(job.id, job.run, name).length;
        produced.set(name, base + 1);
        const record = await this.writeOutput(job, def.name, name, base, file, member?.itemId ?? job.itemId);
        result.outputs.push(record);
        return record;
      },
      publishFinals: async (refs, anonymousAccess) => {
        const finals = refs.flatMap((r) =>
          this.store.artifacts(job.id, job.run, r.name).map((record) => ({ record, alias: aliasOf(record, r.collection) })),
        );
        const ids = await writeFinals(this.env, job, finals, anonymousAccess);
        const replaced = JSON.parse(job.replaces) as string[];
        const keep = new Set(finals.map((f) => f.record.key));
        const oldKeys = await dropFinals(this.env, job.tenantId, replaced, ids);
        await deleteKeys(this.env.FILES, oldKeys.filter((k) => !keep.has(k)));
        result.finals.push(...refs.map((r) => r.name));
        return finals.length;
      },
      note: (text) => void (result.reason = text),
      preflight: (design, problems) => {
        recorded.checked = true;
        recorded.problems.push(...problemsOfDesign(design, problems));
      },
    };
    await run(ctx);
    return result;
  }

  private async writeOutput(job: JobRow, task: string, name: string, n: number, file: OutputFile, itemId: number | null): Promise<ArtifactRecord> {
    let key = file.borrowedKey;
    let size = file.size ?? file.bytes?.length ?? 0;
    if (!key) {
      key = tenantKey(job.tenantId, 'jobs', job.id, `r${job.run}`, task, name, `${n}.${file.ext}`);
      if (file.write) size = await file.write(this.env.FILES, key);
      else await this.env.FILES.put(key, file.bytes ?? new Uint8Array(), file.contentType ? { httpMetadata: { contentType: file.contentType } } : undefined);
    }
    return {
      jobId: job.id, run: job.run, task, name, n, key, fileName: file.fileName, format: file.format, size,
      itemId: file.itemId !== undefined ? file.itemId : itemId, source: file.source ?? null, final: 0, owned: file.borrowedKey ? 0 : 1,
    };
  }

  /** Rows and cursor in one transaction; the injected fault (tests) strikes just before it. */
  private async commitUnit(job: JobRow, task: TaskRow, r: UnitResult, recorded: Recorded): Promise<void> {
    const def = this.pipelineOf(job).tasks[task.idx]!;
    const fault = `${def.name}:after-outputs`;
    const faults = (this.env.PIPELINE_FAULTS ?? '').split(',').map((s) => s.trim());
    if (!r.skipped && faults.includes(fault) && !this.store.faultFired(fault)) {
      this.store.recordFault(fault);
      await this.ctx.storage.sync();
      this.ctx.abort(`PIPELINE_FAULTS ${fault}`);
    }
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.recordProblems(job, task, recorded);
      for (const o of r.outputs) this.store.putArtifact(o);
      for (const f of r.finals) this.store.setFinal(job.id, job.run, f);
      const done = r.done || r.skipped;
      this.store.setTask(job.id, task.idx, {
        attempts: 0,
        autoRetries: 0,
        callRetries: 0,
        cursor: r.skipped ? task.cursor : task.cursor + 1,
        status: r.skipped ? 'Skipped' : done ? 'Completed' : 'InProgress',
        finished: done ? now : null,
        description: r.reason ?? null,
      });
      this.store.setJob(job.id, { lastActivity: now });
    });
  }

  private async retryLater(job: JobRow, task: TaskRow, delayMs: number, message: string, kind: 'auto' | 'call'): Promise<void> {
    const at = Date.now() + delayMs;
    this.store.setTask(job.id, task.idx, {
      status: 'Pending',
      attempts: 0,
      notBefore: at,
      description: message,
      waited: task.waited + delayMs,
      ...(kind === 'auto' ? { autoRetries: task.autoRetries + 1 } : { callRetries: task.callRetries + 1 }),
    });
    await this.wake(at);
  }

  /**
   * A unit's problems, under its member: a redo (or a resumed member) replaces what it recorded
   * before. A check that found nothing is kept as `[]` (checked, clean); no check, no row.
   */
  private recordProblems(job: JobRow, task: TaskRow, recorded: Recorded): void {
    this.store.putProblems(job.id, job.run, task.idx, task.cursor, recorded.checked ? JSON.stringify(recorded.problems) : null);
  }

  private async failTask(job: JobRow, task: TaskRow, reason: string, status: 'Failed' | 'RequestFailed' = 'Failed', recorded: Recorded = { checked: false, problems: [] }): Promise<void> {
    // Webhook events go to the outbox before the state changes: a redone step emits the same ids.
    await emitJobSettled(this.env, job, 'Failed', this.store.jobs().filter((j) => j.id !== job.id).map((j) => j.status), `${task.name}: ${reason}`);
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.recordProblems(job, task, recorded);
      this.store.setTask(job.id, task.idx, { status, attempts: 0, finished: now, description: reason });
      this.store.setJob(job.id, { status: 'Failed', statusDescription: `${task.name}: ${reason}`, finished: now, lastActivity: now });
    });
    await this.flushMirrors();
    await this.wake(); // the next job, if any
  }

  private async completeJob(job: JobRow): Promise<void> {
    await emitJobSettled(this.env, job, 'Completed', this.store.jobs().filter((j) => j.id !== job.id).map((j) => j.status));
    const now = Date.now();
    this.store.setJob(job.id, { status: 'Completed', finished: now, lastActivity: now });
    await this.ctx.storage.sync();
    await this.dropTemporaries(job).catch((e) => console.error('temporaries of', job.id, e));
    await this.flushMirrors();
    await this.wake();
  }

  /** Deletes the job's temporaries: only owned, non-final keys listed here. */
  private async dropTemporaries(job: JobRow): Promise<void> {
    const temporaries = this.store.allArtifacts(job.id).filter((a) => a.owned && !a.final);
    await deleteKeys(this.env.FILES, temporaries.map((a) => a.key));
    await dropTemporaryRows(this.env, job.tenantId, job.id);
    this.store.dropArtifacts(job.id, temporaries.map((a) => a.key));
  }

  /** Writes pending job rows and the project's processingStatus to D1; false when D1 failed. */
  private async flushMirrors(): Promise<boolean> {
    const pending = this.store.pendingMirrors();
    if (!pending.length) return true;
    const doName = this.store.meta('doName') ?? '';
    const all = this.store.jobs();
    try {
      const statements = pending.map((j) => mirrorJobStatement(this.env.DB, doName, j));
      const projectId = all.find((j) => j.projectId != null)?.projectId;
      if (projectId != null && all[0]!.kind !== 'standalone') {
        statements.push(projectStatusStatement(this.env.DB, all[0]!.tenantId, projectId, processingStatusOf(all.map((j) => j.status))));
      }
      await this.env.DB.batch(statements);
      for (const j of pending) this.store.markMirrored(j.id, j.status, j.statusDescription);
      return true;
    } catch (e) {
      console.error('D1 mirror failed; retrying', e);
      await this.wake(Date.now() + MIRROR_RETRY_MS);
      return false;
    }
  }

  private currentJobs(itemId: number | null): JobRow[] {
    return this.store.jobs().filter((j) => j.status !== 'Discarded' && (itemId === null || j.itemId === itemId));
  }

  private pipelineFrom(json: string): Pipeline {
    const r = validatePipeline(json);
    if (!r.ok) throw new TaskFailure(`the stored pipeline is not valid: ${JSON.stringify(r.errors)}`);
    return r.pipeline;
  }

  private pipelineOf(job: JobRow): Pipeline {
    let p = this.pipelines.get(job.id);
    if (!p) {
      p = this.pipelineFrom(job.pipeline);
      this.pipelines.set(job.id, p);
    }
    return p;
  }

  /** `{{artifact}}`: members with their file name and (lazily issued) anonymous URL. */
  private lookup(job: JobRow, pipeline: Pipeline, name: string) {
    const produced = pipeline.tasks.flatMap((t) => t.outputs).find((o) => o.name === name);
    const rows = this.store.artifacts(job.id, job.run, name);
    const info = (a: ArtifactRecord) => ({ name: a.fileName, url: () => temporaryUrl(this.env, job, a) });
    if (produced?.collection) return rows.map(info);
    return rows[0] ? info(rows[0]) : undefined;
  }
}

/** What a unit's checks recorded through `ctx.preflight`. */
interface Recorded {
  checked: boolean;
  problems: RecordedProblem[];
}

interface UnitResult {
  outputs: ArtifactRecord[];
  finals: string[];
  /** The last unit of the task. */
  done: boolean;
  skipped: boolean;
  reason?: string;
}

const notFound = (id: string): Outcome => ({ ok: false, reason: 'notFound', message: `No job ${id}.` });
const conflict = (message: string): Outcome => ({ ok: false, reason: 'conflict', message });

export type { JobStatus };
