/**
 * Wire DTOs of rendering jobs (/api/rendering/v1/jobs): what the OpenAPI document names and the
 * routes validate (src/platform/api/rendering-jobs/routes.ts).
 */
import { z } from '@hono/zod-openapi';
import { PREFLIGHT_CODES } from '../../engine/preflight/report';

const ProjectItemInfo = z
  .object({
    itemId: z.union([z.string(), z.number()]).nullable(),
    name: z.string().nullable(),
    jobId: z.string().nullable(),
    quantity: z.number().int().nullable(),
    fields: z.record(z.string(), z.unknown()).nullable(),
    designIds: z.array(z.string()).max(20).nullable(),
  })
  .partial();

export const ProjectInfoDto = z
  .object({
    id: z.union([z.string(), z.number()]).nullable(),
    ownerId: z.string().nullable(),
    name: z.string().nullable(),
    orderId: z.string().nullable(),
    orderNumber: z.union([z.string(), z.number()]).nullable(),
    customerId: z.string().nullable(),
    customerName: z.string().nullable(),
    items: z.array(ProjectItemInfo).max(100).nullable(),
  })
  .partial()
  .openapi('ProjectInfoDto');

export const CreateRenderingJobDto = z
  .object({
    id: z.string().optional(),
    project: ProjectInfoDto.optional(),
    tasks: z.array(z.unknown()).openapi({ description: 'The pipeline tasks (docs/pipelines.md).' }),
  })
  .openapi('CreateRenderingJobDto');

/** One preflight problem (engine/preflight/report.ts) and the design asset it was found in. */
export const PreflightProblemDto = z
  .object({
    layer: z.string().openapi({ description: 'The layer (PSD) or item (print product) the problem is on.' }),
    code: z.enum(PREFLIGHT_CODES),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
    design: z.string().nullable().openapi({ description: 'The design asset id the problem was found in.' }),
  })
  .openapi('PreflightProblemDto');

/** A preflight result (issue 21): `ok` = no errors (warnings allowed), the counts and the problems, errors first. */
export const PreflightSummaryDto = z
  .object({
    ok: z.boolean(),
    errors: z.number().int(),
    warnings: z.number().int(),
    problems: z.array(PreflightProblemDto),
  })
  .openapi('PreflightSummaryDto');

const RenderingJobTaskDto = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    status: z.string(),
    requested: z.string().nullable(),
    started: z.string().nullable(),
    finished: z.string().nullable(),
    autoRetryCount: z.number().int(),
    longExecution: z.boolean(),
    statusDescription: z.string().nullable(),
    preflight: PreflightSummaryDto.nullable().openapi({
      description: 'Preflight problems this task recorded: the preflight task\'s report, a render task\'s warnings; null when none.',
    }),
  })
  .passthrough()
  .openapi('RenderingJobTaskDto');

export const RenderingJobDto = z
  .object({
    id: z.string(),
    project: z.record(z.string(), z.unknown()).nullable(),
    tasks: z.array(RenderingJobTaskDto).optional(),
    status: z.enum(['New', 'InProgress', 'Completed', 'Failed', 'Recovered', 'Discarded']),
    statusDescription: z.string().nullable(),
    created: z.string(),
    started: z.string().nullable(),
    finished: z.string().nullable(),
    tenantId: z.number().int(),
    ownerId: z.string().nullable(),
    lastModified: z.string(),
    preflight: PreflightSummaryDto.nullable().optional().openapi({
      description: 'Every task\'s preflight problems together (one job read; lists leave it out); null when no task recorded any.',
    }),
  })
  .openapi('RenderingJobDto');
export type RenderingJob = z.infer<typeof RenderingJobDto>;

export const UpdateProjectOwnerDto = z
  .object({
    jobIds: z.array(z.string()).max(1000).optional(),
    ownerId: z.string().max(255),
    newOwnerId: z.string().min(1).max(255),
    updateAll: z.boolean().optional(),
  })
  .openapi('UpdateJobsProjectOwnerDto');
