/**
 * What a task module sees of one unit (a task, or one member of its collection input) and what
 * it may do: read its inputs, write outputs (to R2 first; the runner commits the rows after),
 * call out within the unit's deadline. Task modules know nothing of Durable Objects.
 */
import type { Env } from '../../../env';
import type { PipelineTask, TaskParams, TaskType } from '../language';
import type { ArtifactRecord } from '../../jobs/store';
import type { PreflightProblem } from '../../../engine/preflight/report';

export type { ArtifactRecord };

export interface OutputFile {
  /** File extension without the dot (`pdf`, `jpg`). */
  ext: string;
  /** The artifact's file name (`{{a:name}}`, the final's name). */
  fileName: string;
  format: string | null;
  /** The content; or `write` streams it into the key and returns the size. */
  bytes?: Uint8Array;
  write?: (bucket: R2Bucket, key: string) => Promise<number>;
  contentType?: string;
  itemId?: number | null;
  source?: string | null;
  /** A borrowed key (an asset's blob): no bytes are written and cleanup never deletes it. */
  borrowedKey?: string;
  size?: number;
}

export interface UnitContext {
  env: Env;
  tenantId: number;
  jobId: string;
  run: number;
  task: PipelineTask;
  /** The member index of a per-member unit; null for a whole-task unit. */
  memberIndex: number | null;
  /** The member this unit processes (per-member tasks). */
  member: ArtifactRecord | null;
  /** The job's project snapshot (ProjectDto, or ProjectInfo for stand-alone jobs). */
  project: Record<string, unknown> | null;
  projectId: number | null;
  /** The item of an item job. */
  itemId: number | null;
  ownerId: string | null;
  baseUrl: string;
  /** Retries of an external call already made (invoke-url's retryCount). */
  callRetries: number;
  /** `<job>-<run>-<task>-<member>`: the Idempotency-Key of outbound effects. */
  unitKey: string;
  /** Aborts when the task's processingTimeout passes. */
  signal: AbortSignal;
  /**
   * What every outbound call of this unit passes to `outboundFetch` (docs/security.md): the hop
   * it sends (X-Platform-Hop) and the platform's own origins, which it may not call.
   */
  outbound: { hop: number; refuseOrigins: readonly string[] };
  /** The input artifact(s) by base name, in member order (empty when absent). */
  inputs(name: string): ArtifactRecord[];
  /** Every artifact the job has so far. */
  allArtifacts(): ArtifactRecord[];
  read(a: ArtifactRecord): Promise<Uint8Array>;
  /** Writes an output member; the row is committed with the unit. */
  output(name: string, file: OutputFile): Promise<ArtifactRecord>;
  /**
   * finalize: writes the Final rows of these artifacts to D1 (idempotent ids), drops the finals
   * of the jobs this one replaces, and marks them final here (committed with the unit).
   */
  publishFinals(refs: Array<{ name: string; collection: boolean }>, anonymousAccess: boolean): Promise<number>;
  /** A line for the task's statusDescription once it completes (SFTP notes the host key it trusted). */
  note?(text: string): void;
  /**
   * Records preflight problems found in `design` (a design asset id) on the job (issue 21): the
   * `preflight` task's report, a render's warnings. Kept with the unit, also when it then fails.
   */
  preflight(design: string | null, problems: readonly PreflightProblem[]): void;
}

/**
 * One task type's code: `params` are the task's parameters after interpolation and
 * `normaliseParameters` for type `T` (defaults applied, values parsed), so a task reads them
 * without casts. A module may serve several types (`T` a union) when they share the parameters it reads.
 */
export interface TaskModule<T extends TaskType> {
  // A property, not a method, so that parameter types are checked strictly (no method bivariance).
  run: (ctx: UnitContext, params: TaskParams<T>) => Promise<void>;
}
