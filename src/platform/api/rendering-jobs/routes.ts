/**
 * Rendering jobs: /api/rendering/v1 (docs/platform.md, docs/pipelines.md, contract). Scope:
 * Projects (reads `_read`, actions `_update`, create and delete `_full`).
 *
 *   GET|HEAD /info                        InfoDto (no token)
 *   POST   /jobs?startImmediately=true    201 RenderingJobDto; same id + same body → 201 that job; else 409 IdConflict
 *   GET    /jobs?status&projectId&projectOrderId   PagedOfRenderingJobDto (no tasks; project = {id, orderId})
 *   POST   /jobs/update-project-owner     204 (jobs and their finals)
 *   GET    /jobs/{id}                     RenderingJobDto (tasks from the job's object)
 *   DELETE /jobs/{id}                     200 RenderingJobDto (its files go too)
 *   POST   /jobs/{id}/start|restart|recover|discard   true, or 409 in the wrong state
 */
import { z } from '@hono/zod-openapi';
import { boolQuery, createPlatformArea, pagedOf, pagingQuery, platformRoute, problemResponses } from '../../core';
import { withHop } from '../../jobs/hops';
import { createJob, deleteJob, getJob, jobAction, listJobs, updateProjectOwner, type JobAction } from '../../jobs/rendering-jobs';
import { CreateRenderingJobDto, RenderingJobDto, UpdateProjectOwnerDto } from '../../jobs/schemas';

export const renderingJobsArea = createPlatformArea('rendering');

const IdParam = z.object({ id: z.string() });
const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } });

renderingJobsArea.openapi(
  platformRoute(
    {
      method: 'post',
      path: '/jobs',
      tags: ['Jobs'],
      summary: 'Create a rendering job',
      description:
        'Validates the pipeline (every error by path) and creates the job; `startImmediately=false` leaves it New until `/start`. An existing id with the same canonical body answers that job; another body → 409 IdConflict. `{{secrets.…}}` need ProcessingPipelines_full.',
      request: { query: z.object({ startImmediately: boolQuery(true) }), body: { required: true, content: json(CreateRenderingJobDto) } },
      responses: { 201: { description: 'The job.', content: json(RenderingJobDto) }, ...problemResponses(403, 409) },
    },
    { type: 'Projects', level: 'full' },
  ),
  async (c) => c.json(await createJob(withHop(c.var.tenant, c.req.raw.headers), c.req.valid('json'), c.req.valid('query').startImmediately !== false), 201),
);

renderingJobsArea.openapi(
  platformRoute(
    {
      method: 'get',
      path: '/jobs',
      tags: ['Jobs'],
      summary: 'List rendering jobs (project jobs too)',
      request: {
        query: pagingQuery(['created', 'lastModified', 'status', 'id']).extend({
          status: z.enum(['New', 'InProgress', 'Completed', 'Failed', 'Recovered', 'Discarded']).optional(),
          projectId: z.string().optional(),
          projectOrderId: z.string().optional(),
        }),
      },
      responses: { 200: { description: 'Jobs, newest first.', content: json(pagedOf(RenderingJobDto.omit({ tasks: true }), 'PagedOfRenderingJobDto')) } },
    },
    { type: 'Projects', level: 'read' },
  ),
  async (c) => c.json(await listJobs(c.var.tenant, c.req.valid('query')), 200),
);

renderingJobsArea.openapi(
  platformRoute(
    {
      method: 'post',
      path: '/jobs/update-project-owner',
      tags: ['Jobs'],
      summary: "Move jobs and their final artifacts to another owner",
      request: { body: { required: true, content: json(UpdateProjectOwnerDto) } },
      responses: { 204: { description: 'Moved.' } },
    },
    { type: 'Projects', level: 'update' },
  ),
  async (c) => {
    await updateProjectOwner(c.var.tenant, c.req.valid('json'));
    return c.body(null, 204);
  },
);

renderingJobsArea.openapi(
  platformRoute(
    {
      method: 'get',
      path: '/jobs/{id}',
      tags: ['Jobs'],
      summary: 'Get a rendering job with its tasks',
      request: { params: IdParam },
      responses: { 200: { description: 'The job.', content: json(RenderingJobDto) }, ...problemResponses(404) },
    },
    { type: 'Projects', level: 'read' },
  ),
  async (c) => c.json(await getJob(c.var.tenant, c.req.valid('param').id), 200),
);

renderingJobsArea.openapi(
  platformRoute(
    {
      method: 'delete',
      path: '/jobs/{id}',
      tags: ['Jobs'],
      summary: 'Delete a rendering job and its files',
      request: { params: IdParam },
      responses: { 200: { description: 'The deleted job.', content: json(RenderingJobDto) }, ...problemResponses(404) },
    },
    { type: 'Projects', level: 'full' },
  ),
  async (c) => c.json(await deleteJob(c.var.tenant, c.req.valid('param').id), 200),
);

const ACTIONS: Array<[JobAction, string]> = [
  ['start', 'Start a job created with startImmediately=false'],
  ['restart', 'Restart a job from its first task (a fresh run; 409 while New or InProgress)'],
  ['recover', 'Resume a Failed job at its failed task (Recovered until a task starts)'],
  ['discard', 'Discard a job (its temporaries are deleted)'],
];

for (const [action, summary] of ACTIONS) {
  renderingJobsArea.openapi(
    platformRoute(
      {
        method: 'post',
        path: `/jobs/{id}/${action}`,
        tags: ['Jobs'],
        summary,
        request: { params: IdParam },
        responses: { 200: { description: '`true`.', content: json(z.boolean()) }, ...problemResponses(404, 409) },
      },
      { type: 'Projects', level: 'update' },
    ),
    async (c) => c.json(await jobAction(c.var.tenant, c.req.valid('param').id, action), 200),
  );
}
