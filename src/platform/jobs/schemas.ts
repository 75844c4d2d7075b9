/**
 * Wire DTOs of rendering jobs (/api/rendering/v1/jobs): what the OpenAPI document names and the
 * routes validate (src/platform/api/rendering-jobs/routes.ts).
 */
import { z } from '@hono/zod-openapi';

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
