/**
 * Storefront projects (contract, "Storefront"), registered on the storefront area by routes.ts.
 *
 *   GET    /projects                                        PagedOfProjectDto (filters incl. ?preflight=ok|warnings|errors, created DESC)
 *   POST   /projects/with-single-item                       201 ProjectDto
 *   POST   /projects/with-multiple-items  (alias /multiple-items)   201 ProjectDto
 *   POST   /projects/by-scenario/specific-pipeline          201 ProjectDto
 *   POST   /projects/by-scenario/render-hires               201 ProjectDto
 *   DELETE /projects/batch-delete                           {total, items: []}
 *   GET    /projects/statuses | /projects/transitions       ProjectStatusDto[] | ProjectStatusTransitionDto[]
 *   GET    /projects/{id}                                   ProjectDto
 *   DELETE /projects/{id}                                   200 empty
 *   GET    /projects/{id}/transitions                       ProjectStatusTransitionDto[]
 *   POST   /projects/{id}/transitions/{name}                ProjectStatusDto (409 + availableTransitions)
 *   POST   /projects/{id}/statuses/{code}                   ProjectStatusDto (forced)
 *   POST   /projects/{id}/order-data?itemId                 204 (upsert by key)
 *   GET    /projects/{id}/order                             ProjectOrderDto
 *   GET    /projects/{id}/preview | /preview-url            image | text/plain URL
 *   GET    /projects/{id}/processing-results?itemId         ProjectProcessingResultsDto (the runner's)
 *   POST   /projects/{id}/resume-processing?itemId          204 (wrong state → 409)
 *   POST   /projects/{id}/restart-processing?itemId         204 (wrong state → 409)
 */
import { z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { platformRoute, problemResponses, type PlatformArea } from '../../core';
import { projectProcessingResults, restartProject, resumeProject } from '../../jobs';
import { withHop } from '../../jobs/hops';
import { projectPreview, projectPreviewUrl } from '../../projects/preview';
import {
  BatchDeleteDto,
  BatchDeleteResultDto,
  CreateMultipleItemsProjectDto,
  CreateProjectByRenderHiResScenarioDto,
  CreateProjectBySpecificPipelineScenarioDto,
  CreateSingleItemProjectDto,
  ItemIdQuery,
  ListProjectsQuery,
  OrderDataBody,
  OrderDataQuery,
  PagedOfProjectDto,
  ProjectDto,
  ProjectOrderDto,
  ProjectProcessingResultsDto,
  ProjectStatusDto,
  ProjectStatusTransitionDto,
  StorefrontIdQuery,
} from '../../projects/schemas';
import * as projects from '../../projects/service';
import * as statuses from '../../projects/statuses';

const read = { type: 'Projects', level: 'read' } as const;
const update = { type: 'Projects', level: 'update' } as const;
const full = { type: 'Projects', level: 'full' } as const;
const tags = ['Projects'];
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const IdParam = z.object({ id: z.string() });

/**
 * `Server-Timing: total;dur=…` on every project route: the time inside the Worker from the
 * route's first middleware (token, validation) to the response — what the bench reads.
 */
const serverTiming: MiddlewareHandler = async (c, next) => {
  const started = Date.now();
  await next();
  try {
    c.res.headers.append('Server-Timing', `total;dur=${Date.now() - started}`);
  } catch {
    // An immutable response (a streamed file) goes out without the header.
  }
};

type CreateFn<B> = (t: Parameters<typeof projects.createSingleItemProject>[0], storefrontId: number, body: B) => Promise<unknown>;

export function registerProjectRoutes(area: PlatformArea): void {
  area.use('/projects/*', serverTiming);

  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects',
        tags,
        summary: 'List projects',
        description: 'Filters: ownerId, productReference, status (codes, repeatable), datePeriod (Today = since 00:00 UTC; LastDay, LastWeek, LastMonth, LastYear = the last 1, 7, 30, 365 days), orderId, processingStatus (repeatable), preflight (`ok`, `warnings`, `errors`, repeatable: the worst of the items\' preflight at creation; projects with no checked item match none), storefrontId. Default order: created DESC.',
        request: { query: ListProjectsQuery },
        responses: { 200: json(PagedOfProjectDto, 'A page of projects.') },
      },
      read,
    ),
    async (c) => c.json(await projects.listProjects(c.var.tenant, c.req.valid('query')), 200),
  );

  const create = <B extends z.ZodType>(path: string, summary: string, schema: B, fn: CreateFn<z.infer<B>>, extra: Record<string, unknown> = {}) =>
    area.openapi(
      platformRoute(
        {
          method: 'post',
          path,
          tags,
          summary,
          description:
            'A repeated create for the same order line (`orderId` + line id or index) returns the project already created (201, body ignored); only the first call starts processing.',
          request: { query: StorefrontIdQuery, ...body(schema) },
          responses: { 201: json(ProjectDto, 'The project.'), ...problemResponses(404, 409) },
          ...extra,
        },
        full,
      ),
      async (c) => {
        // The generic body type defeats hono's inference; the route's schemas validated both.
        const req = c.req as unknown as { valid(target: 'query'): { storefrontId: number }; valid(target: 'json'): z.infer<B> };
        const dto = await fn(withHop(c.var.tenant, c.req.raw.headers), req.valid('query').storefrontId, req.valid('json'));
        return c.json(dto as z.infer<typeof ProjectDto>, 201);
      },
    );

  create('/projects/with-single-item', 'Create a project with one item', CreateSingleItemProjectDto, projects.createSingleItemProject);
  create('/projects/with-multiple-items', 'Create a project with several items', CreateMultipleItemsProjectDto, projects.createMultipleItemsProject);
  create('/projects/multiple-items', 'Create a project with several items (alias)', CreateMultipleItemsProjectDto, projects.createMultipleItemsProject, { deprecated: true });
  create('/projects/by-scenario/specific-pipeline', 'Create a project processed by given pipelines', CreateProjectBySpecificPipelineScenarioDto, projects.createSpecificPipelineProject);
  create('/projects/by-scenario/render-hires', 'Create a project that renders one design in high resolution', CreateProjectByRenderHiResScenarioDto, projects.createRenderHiresProject);

  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/projects/batch-delete',
        tags,
        summary: 'Delete projects',
        description: 'Ids naming nothing here are skipped. Deletes items, jobs and outputs.',
        request: body(BatchDeleteDto),
        responses: { 200: json(BatchDeleteResultDto, '`total` = how many were deleted.') },
      },
      full,
    ),
    async (c) => c.json(await projects.batchDeleteProjects(c.var.tenant, c.req.valid('json').ids), 200),
  );

  area.openapi(
    platformRoute(
      { method: 'get', path: '/projects/statuses', tags, summary: "The tenant's project statuses", responses: { 200: json(z.array(ProjectStatusDto), 'Statuses.') } },
      read,
    ),
    async (c) => c.json(await statuses.storefrontStatuses(c.var.tenant), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects/transitions',
        tags,
        summary: "The tenant's project status transitions",
        responses: { 200: json(z.array(ProjectStatusTransitionDto), 'Transitions.') },
      },
      read,
    ),
    async (c) => c.json(await statuses.storefrontTransitions(c.var.tenant), 200),
  );

  area.openapi(
    platformRoute(
      { method: 'get', path: '/projects/{id}', tags, summary: 'Get a project', request: { params: IdParam }, responses: { 200: json(ProjectDto, 'The project.'), ...problemResponses(404) } },
      read,
    ),
    async (c) => c.json(await projects.getProject(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/projects/{id}',
        tags,
        summary: 'Delete a project',
        description: 'Deletes its items, jobs and outputs.',
        request: { params: IdParam },
        responses: { 200: { description: 'Deleted (empty body).' }, ...problemResponses(404) },
      },
      full,
    ),
    async (c) => {
      await projects.deleteProject(c.var.tenant, c.req.valid('param').id);
      return c.body(null, 200);
    },
  );

  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects/{id}/transitions',
        tags,
        summary: "Transitions from the project's status",
        request: { params: IdParam },
        responses: { 200: json(z.array(ProjectStatusTransitionDto), 'Available transitions.'), ...problemResponses(404) },
      },
      read,
    ),
    async (c) => c.json(await statuses.projectTransitions(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/projects/{id}/transitions/{name}',
        tags,
        summary: 'Apply a transition',
        description: 'No such transition from the current status → 409 with `availableTransitions`.',
        request: { params: z.object({ id: z.string(), name: z.string() }) },
        responses: { 200: json(ProjectStatusDto, 'The new status.'), ...problemResponses(404, 409) },
      },
      update,
    ),
    async (c) => {
      const { id, name } = c.req.valid('param');
      return c.json(await statuses.applyTransition(c.var.tenant, id, name), 200);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/projects/{id}/statuses/{code}',
        tags,
        summary: 'Set the status (forced)',
        description: 'Sets the status whatever the transitions allow.',
        request: { params: z.object({ id: z.string(), code: z.string() }) },
        responses: { 200: json(ProjectStatusDto, 'The new status.'), ...problemResponses(404) },
      },
      update,
    ),
    async (c) => {
      const { id, code } = c.req.valid('param');
      return c.json(await statuses.forceStatus(c.var.tenant, id, code), 200);
    },
  );

  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/projects/{id}/order-data',
        tags,
        summary: 'Attach order data',
        description: 'Upserted by key (keys verbatim); `itemId` attaches to one item. At most 200 keys per project or item.',
        request: { params: IdParam, query: OrderDataQuery, ...body(OrderDataBody) },
        responses: { 204: { description: 'Stored.' }, ...problemResponses(404) },
      },
      update,
    ),
    async (c) => {
      await projects.putOrderData(c.var.tenant, c.req.valid('param').id, c.req.valid('query').itemId, c.req.valid('json'));
      return c.body(null, 204);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects/{id}/order',
        tags,
        summary: "The project's order and its data",
        request: { params: IdParam },
        responses: { 200: json(ProjectOrderDto, 'The order.'), ...problemResponses(404) },
      },
      read,
    ),
    async (c) => c.json(await projects.projectOrder(c.var.tenant, c.req.valid('param').id), 200),
  );

  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects/{id}/preview',
        tags,
        summary: "The project's preview image",
        description: "The items' first Preview resource, else an 800 px JPEG of the first design (kept as an anonymous resource).",
        request: { params: IdParam },
        responses: { 200: { description: 'The image.', content: { 'image/jpeg': { schema: z.string().openapi({ format: 'binary' }) } } }, ...problemResponses(404) },
      },
      read,
    ),
    async (c) => projectPreview(c.var.tenant, c.req.valid('param').id),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects/{id}/preview-url',
        tags,
        summary: "The URL of the project's preview image",
        request: { params: IdParam },
        responses: { 200: { description: 'The URL.', content: { 'text/plain': { schema: z.string() } } }, ...problemResponses(404) },
      },
      read,
    ),
    async (c) => c.text(await projectPreviewUrl(c.var.tenant, c.req.valid('param').id), 200),
  );

  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects/{id}/processing-results',
        tags,
        summary: "The project's processing status and output files",
        description: '`itemId` narrows to one item. Status: Pending until processing starts, then Failed, InProgress or Completed.',
        request: { params: IdParam, query: ItemIdQuery },
        responses: { 200: json(ProjectProcessingResultsDto, 'The results.'), ...problemResponses(404) },
      },
      read,
    ),
    async (c) => {
      const { id } = c.req.valid('param');
      const project = await projects.projectOr404(c.var.tenant, id);
      const itemId = c.req.valid('query').itemId;
      return c.json(await projectProcessingResults(c.var.tenant, project.project.id, itemId === undefined ? null : Number(itemId)), 200);
    },
  );
  for (const [path, summary, fn] of [
    ['/projects/{id}/resume-processing', 'Resume failed processing (earlier outputs kept)', resumeProject],
    ['/projects/{id}/restart-processing', 'Restart processing (outputs replaced when the new run finishes)', restartProject],
  ] as const) {
    area.openapi(
      platformRoute(
        {
          method: 'post',
          path,
          tags,
          summary,
          description: '`itemId` narrows to one item. A project in the wrong state → 409.',
          request: { params: IdParam, query: ItemIdQuery },
          responses: { 204: { description: 'Done.' }, ...problemResponses(404, 409) },
        },
        update,
      ),
      async (c) => {
        const project = await projects.projectOr404(c.var.tenant, c.req.valid('param').id);
        const itemId = c.req.valid('query').itemId;
        await fn(c.var.tenant, project.project.id, itemId === undefined ? null : Number(itemId));
        return c.body(null, 204);
      },
    );
  }
}
