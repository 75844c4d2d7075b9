/**
 * The ProjectJobs object's own SQLite: jobs (with pipeline and project snapshots), their tasks
 * (status, attempts, member cursor, retry counters) and the artifacts units produced (key, name,
 * item, source, final). Only project-jobs.ts and the runner use it; everything here is
 * synchronous (Durable Object SQL), so a group of calls inside `transactionSync` commits whole.
 * (The D1 side of the jobs domain is ./jobs.ts.)
 */

export const JOB_STATUSES = ['New', 'InProgress', 'Completed', 'Failed', 'Recovered', 'Discarded'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const TASK_STATUSES = ['New', 'Pending', 'InProgress', 'Completed', 'Failed', 'RequestFailed', 'Skipped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** A job is "running" (resume/restart refused) while New or InProgress (contract); Recovered runs too. */
export const RUNNING: readonly JobStatus[] = ['New', 'InProgress', 'Recovered'];

export interface JobRow {
  seq: number;
  id: string;
  tenantId: number;
  projectId: number | null;
  itemId: number | null;
  kind: string;
  run: number;
  status: JobStatus;
  statusDescription: string | null;
  /** pipelineDefinition(…) JSON. */
  pipeline: string;
  /** ProjectDto (project jobs) or ProjectInfo (stand-alone) JSON, or null. */
  project: string | null;
  ownerId: string | null;
  orderId: string | null;
  baseUrl: string;
  pipelineId: number | null;
  secretsAllowed: number;
  startRequested: number;
  /** JSON array of job ids whose finals this job's finalize replaces (restart). */
  replaces: string;
  created: number;
  started: number | null;
  finished: number | null;
  lastActivity: number | null;
  mirrorPending: number;
}

export interface TaskRow {
  jobId: string;
  idx: number;
  name: string;
  status: TaskStatus;
  /** Starts of the current unit that did not end (crash, eviction): the 4th start fails the task. */
  attempts: number;
  /** Units done: the next member index of a per-member task. */
  cursor: number;
  autoRetries: number;
  callRetries: number;
  notBefore: number | null;
  requested: number | null;
  started: number | null;
  finished: number | null;
  description: string | null;
  longExecution: number;
  /** Milliseconds spent waiting for retries (not counted against processingTimeout). */
  waited: number;
}

export interface ArtifactRecord {
  jobId: string;
  run: number;
  task: string;
  /** Base artifact name (no `*` / `?`). */
  name: string;
  /** Member index in its collection (0 for a single artifact). */
  n: number;
  /** R2 key: under the job's prefix (owned), or an asset's blob (borrowed, never deleted). */
  key: string;
  /** File name, e.g. `card.pdf` (`{{a:name}}`, the final's name). */
  fileName: string;
  format: string | null;
  size: number;
  itemId: number | null;
  /** The asset it came from (extracted designs, resources): the engine renders that asset. */
  source: string | null;
  final: number;
  owned: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  tenant_id INTEGER NOT NULL,
  project_id INTEGER,
  item_id INTEGER,
  kind TEXT NOT NULL,
  run INTEGER NOT NULL DEFAULT 1,
  status TEXT NOT NULL,
  status_description TEXT,
  pipeline TEXT NOT NULL,
  project TEXT,
  owner_id TEXT,
  order_id TEXT,
  base_url TEXT NOT NULL DEFAULT '',
  pipeline_id INTEGER,
  secrets_allowed INTEGER NOT NULL DEFAULT 1,
  start_requested INTEGER NOT NULL DEFAULT 1,
  replaces TEXT NOT NULL DEFAULT '[]',
  created INTEGER NOT NULL,
  started INTEGER,
  finished INTEGER,
  last_activity INTEGER,
  mirror_pending INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS tasks (
  job_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  cursor INTEGER NOT NULL DEFAULT 0,
  auto_retries INTEGER NOT NULL DEFAULT 0,
  call_retries INTEGER NOT NULL DEFAULT 0,
  not_before INTEGER,
  requested INTEGER,
  started INTEGER,
  finished INTEGER,
  description TEXT,
  long_execution INTEGER NOT NULL DEFAULT 0,
  waited INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (job_id, idx)
);
CREATE TABLE IF NOT EXISTS artifacts (
  job_id TEXT NOT NULL,
  run INTEGER NOT NULL,
  task TEXT NOT NULL,
  name TEXT NOT NULL,
  n INTEGER NOT NULL,
  key TEXT NOT NULL,
  file_name TEXT NOT NULL,
  format TEXT,
  size INTEGER NOT NULL DEFAULT 0,
  item_id INTEGER,
  source TEXT,
  final INTEGER NOT NULL DEFAULT 0,
  owned INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (job_id, run, name, n)
);
CREATE TABLE IF NOT EXISTS faults (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS task_problems (
  job_id TEXT NOT NULL,
  run INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  member INTEGER NOT NULL,
  problems TEXT NOT NULL,
  PRIMARY KEY (job_id, run, idx, member)
);
`;

const JOB_COLUMNS = `seq, id, tenant_id AS tenantId, project_id AS projectId, item_id AS itemId, kind, run, status,
  status_description AS statusDescription, pipeline, project, owner_id AS ownerId, order_id AS orderId, base_url AS baseUrl,
  pipeline_id AS pipelineId, secrets_allowed AS secretsAllowed, start_requested AS startRequested, replaces, created, started,
  finished, last_activity AS lastActivity, mirror_pending AS mirrorPending`;
const TASK_COLUMNS = `job_id AS jobId, idx, name, status, attempts, cursor, auto_retries AS autoRetries, call_retries AS callRetries,
  not_before AS notBefore, requested, started, finished, description, long_execution AS longExecution, waited`;
const ARTIFACT_COLUMNS = `job_id AS jobId, run, task, name, n, key, file_name AS fileName, format, size, item_id AS itemId, source,
  final, owned`;

/**
 * Preflight problems one unit of a task recorded (issue 21): the `preflight` task's report, a
 * render's warnings. Keyed by member, so a redone unit replaces what it recorded before.
 */
export interface TaskProblemsRow {
  idx: number;
  member: number;
  /** JSON: RecordedProblem[] (jobs/preflight.ts). */
  problems: string;
}

export interface NewJob {
  id: string;
  tenantId: number;
  projectId: number | null;
  itemId: number | null;
  kind: string;
  pipeline: string;
  taskNames: string[];
  project: string | null;
  ownerId: string | null;
  orderId: string | null;
  baseUrl: string;
  pipelineId: number | null;
  secretsAllowed: boolean;
  startRequested: boolean;
  replaces?: string[];
  run?: number;
}

export class JobStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  private rows<T>(query: string, ...params: unknown[]): T[] {
    return this.sql.exec(query, ...params).toArray() as unknown as T[];
  }

  meta(k: string): string | null {
    return this.rows<{ v: string }>(`SELECT v FROM meta WHERE k = ?`, k)[0]?.v ?? null;
  }

  setMeta(k: string, v: string): void {
    this.sql.exec(`INSERT INTO meta (k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v`, k, v);
  }

  // --- jobs ---

  insertJob(j: NewJob, now: number): void {
    this.sql.exec(
      `INSERT INTO jobs (id, tenant_id, project_id, item_id, kind, run, status, pipeline, project, owner_id, order_id, base_url, pipeline_id,
         secrets_allowed, start_requested, replaces, created, mirror_pending)
       VALUES (?, ?, ?, ?, ?, ?, 'New', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
      j.id, j.tenantId, j.projectId, j.itemId, j.kind, j.run ?? 1, j.pipeline, j.project, j.ownerId, j.orderId, j.baseUrl, j.pipelineId,
      j.secretsAllowed ? 1 : 0, j.startRequested ? 1 : 0, JSON.stringify(j.replaces ?? []), now,
    );
    this.insertTasks(j.id, j.taskNames, now);
  }

  private insertTasks(jobId: string, names: string[], now: number): void {
    names.forEach((name, idx) => {
      this.sql.exec(`INSERT INTO tasks (job_id, idx, name, status, requested) VALUES (?, ?, ?, 'New', ?)`, jobId, idx, name, now);
    });
  }

  job(id: string): JobRow | null {
    return this.rows<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = ?`, id)[0] ?? null;
  }

  jobs(): JobRow[] {
    return this.rows<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs ORDER BY seq`);
  }

  /** The job to work on: the first (oldest) that runs; New jobs only once started. */
  currentJob(): JobRow | null {
    return (
      this.rows<JobRow>(
        `SELECT ${JOB_COLUMNS} FROM jobs WHERE status IN ('InProgress', 'Recovered') OR (status = 'New' AND start_requested = 1)
         ORDER BY seq LIMIT 1`,
      )[0] ?? null
    );
  }

  pendingMirrors(): JobRow[] {
    return this.rows<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE mirror_pending = 1 ORDER BY seq`);
  }

  setJob(id: string, change: Partial<Pick<JobRow, 'status' | 'statusDescription' | 'started' | 'finished' | 'lastActivity' | 'startRequested' | 'run' | 'ownerId' | 'replaces'>>): void {
    const cols: Record<string, string> = {
      status: 'status', statusDescription: 'status_description', started: 'started', finished: 'finished', lastActivity: 'last_activity',
      startRequested: 'start_requested', run: 'run', ownerId: 'owner_id', replaces: 'replaces',
    };
    const entries = Object.entries(change).filter(([, v]) => v !== undefined);
    if (!entries.length) return;
    const set = entries.map(([k]) => `${cols[k]} = ?`).join(', ');
    // Every change (status or a unit's last activity) is mirrored to D1, retried until written.
    const mirror = ', mirror_pending = 1';
    this.sql.exec(`UPDATE jobs SET ${set}${mirror} WHERE id = ?`, ...entries.map(([, v]) => v), id);
  }

  markMirrored(id: string, seenStatus: string, seenDescription: string | null): void {
    // Only when nothing changed since the mirror read the row.
    this.sql.exec(
      `UPDATE jobs SET mirror_pending = 0 WHERE id = ? AND status = ? AND coalesce(status_description, '') = ?`,
      id, seenStatus, seenDescription ?? '',
    );
  }

  deleteJob(id: string): void {
    this.sql.exec(`DELETE FROM task_problems WHERE job_id = ?`, id);
    this.sql.exec(`DELETE FROM artifacts WHERE job_id = ?`, id);
    this.sql.exec(`DELETE FROM tasks WHERE job_id = ?`, id);
    this.sql.exec(`DELETE FROM jobs WHERE id = ?`, id);
  }

  /** A fresh run of the same job (stand-alone restart): tasks back to New, run + 1. */
  resetRun(id: string, taskNames: string[], now: number): void {
    const job = this.job(id)!;
    this.sql.exec(`DELETE FROM tasks WHERE job_id = ?`, id);
    this.sql.exec(`DELETE FROM task_problems WHERE job_id = ?`, id);
    this.insertTasks(id, taskNames, now);
    this.setJob(id, { run: job.run + 1, status: 'New', statusDescription: null, started: null, finished: null, startRequested: 1 });
  }

  // --- tasks ---

  tasks(jobId: string): TaskRow[] {
    return this.rows<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE job_id = ? ORDER BY idx`, jobId);
  }

  /** The first task not Completed or Skipped. */
  currentTask(jobId: string): TaskRow | null {
    return (
      this.rows<TaskRow>(
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE job_id = ? AND status NOT IN ('Completed', 'Skipped') ORDER BY idx LIMIT 1`,
        jobId,
      )[0] ?? null
    );
  }

  setTask(jobId: string, idx: number, change: Partial<Omit<TaskRow, 'jobId' | 'idx' | 'name'>>): void {
    const cols: Record<string, string> = {
      status: 'status', attempts: 'attempts', cursor: 'cursor', autoRetries: 'auto_retries', callRetries: 'call_retries',
      notBefore: 'not_before', requested: 'requested', started: 'started', finished: 'finished', description: 'description',
      longExecution: 'long_execution', waited: 'waited',
    };
    const entries = Object.entries(change).filter(([, v]) => v !== undefined);
    if (!entries.length) return;
    this.sql.exec(
      `UPDATE tasks SET ${entries.map(([k]) => `${cols[k]} = ?`).join(', ')} WHERE job_id = ? AND idx = ?`,
      ...entries.map(([, v]) => v),
      jobId,
      idx,
    );
  }

  /** What a unit recorded (replacing the same unit's earlier record: a redo or a resumed member); null: nothing. */
  putProblems(jobId: string, run: number, idx: number, member: number, problems: string | null): void {
    if (problems === null) {
      this.sql.exec(`DELETE FROM task_problems WHERE job_id = ? AND run = ? AND idx = ? AND member = ?`, jobId, run, idx, member);
      return;
    }
    this.sql.exec(
      `INSERT INTO task_problems (job_id, run, idx, member, problems) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (job_id, run, idx, member) DO UPDATE SET problems = excluded.problems`,
      jobId, run, idx, member, problems,
    );
  }

  /** The run's recorded problems, by task and member. */
  problems(jobId: string, run: number): TaskProblemsRow[] {
    return this.rows<TaskProblemsRow>(`SELECT idx, member, problems FROM task_problems WHERE job_id = ? AND run = ? ORDER BY idx, member`, jobId, run);
  }

  // --- artifacts ---

  /** Upsert by (job, run, name, n): a redone unit writes the same rows onto the same keys. */
  putArtifact(a: ArtifactRecord): void {
    this.sql.exec(
      `INSERT INTO artifacts (job_id, run, task, name, n, key, file_name, format, size, item_id, source, final, owned)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job_id, run, name, n) DO UPDATE SET task = excluded.task, key = excluded.key, file_name = excluded.file_name,
         format = excluded.format, size = excluded.size, item_id = excluded.item_id, source = excluded.source, owned = excluded.owned`,
      a.jobId, a.run, a.task, a.name, a.n, a.key, a.fileName, a.format, a.size, a.itemId, a.source, a.final, a.owned,
    );
  }

  artifacts(jobId: string, run: number, name?: string): ArtifactRecord[] {
    return name === undefined
      ? this.rows<ArtifactRecord>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE job_id = ? AND run = ? ORDER BY name, n`, jobId, run)
      : this.rows<ArtifactRecord>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE job_id = ? AND run = ? AND name = ? ORDER BY n`, jobId, run, name);
  }

  allArtifacts(jobId: string): ArtifactRecord[] {
    return this.rows<ArtifactRecord>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE job_id = ? ORDER BY run, name, n`, jobId);
  }

  /** Rows of a task's outputs (a task redone from the start drops what it made before). */
  dropTaskArtifacts(jobId: string, run: number, task: string): ArtifactRecord[] {
    const rows = this.rows<ArtifactRecord>(`SELECT ${ARTIFACT_COLUMNS} FROM artifacts WHERE job_id = ? AND run = ? AND task = ?`, jobId, run, task);
    this.sql.exec(`DELETE FROM artifacts WHERE job_id = ? AND run = ? AND task = ?`, jobId, run, task);
    return rows;
  }

  setFinal(jobId: string, run: number, name: string): void {
    this.sql.exec(`UPDATE artifacts SET final = 1 WHERE job_id = ? AND run = ? AND name = ?`, jobId, run, name);
  }

  dropArtifacts(jobId: string, keys: string[]): void {
    for (const key of keys) this.sql.exec(`DELETE FROM artifacts WHERE job_id = ? AND key = ?`, jobId, key);
  }

  // --- test-only fault injection (PIPELINE_FAULTS) ---

  faultFired(name: string): boolean {
    return this.rows(`SELECT 1 FROM faults WHERE name = ?`, name).length > 0;
  }

  recordFault(name: string): void {
    this.sql.exec(`INSERT OR IGNORE INTO faults (name) VALUES (?)`, name);
  }
}
