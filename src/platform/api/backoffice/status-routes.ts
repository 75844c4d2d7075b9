/**
 * Back-office project statuses and transitions (contract, "Back-office"), registered on the
 * back-office area by routes.ts.
 *
 *   GET    /projects-statuses                          PagedOfBackofficeProjectStatusDto
 *   POST   /projects-statuses                          201 BackofficeProjectStatusDto
 *   GET    /projects-statuses/{id}                     BackofficeProjectStatusDto
 *   PUT    /projects-statuses/{id}                     BackofficeProjectStatusDto
 *   DELETE /projects-statuses/{id}                     200 the deleted DTO (initial or in use → 409)
 *   GET    /projects-transitions                       PagedOfProjectStatusTransitionDto
 *   POST   /projects-transitions/transitions           201 ProjectStatusTransitionDto
 *   GET    /projects-transitions/{id}                  ProjectStatusTransitionDto
 *   PUT    /projects-transitions/{id}                  ProjectStatusTransitionDto
 *   DELETE /projects-transitions/{id}                  200 the deleted DTO
 *
 * Codes are unique (409); exactly one status is initial: the first gets it, marking another moves
 * it, unsetting or deleting it → 409; `(name, startStatus)` is unique (409).
 */
import { z } from '@hono/zod-openapi';
import { pagingQuery, platformRoute, problemResponses, type PlatformArea } from '../../core';
import {
  BackofficeProjectStatusDto,
  CreateProjectStatusDto,
  CreateProjectTransitionDto,
  PagedOfBackofficeProjectStatusDto,
  PagedOfProjectStatusTransitionDto,
  ProjectStatusTransitionDto,
  UpdateProjectStatusDto,
  UpdateProjectTransitionDto,
} from '../../projects/schemas';
import * as statuses from '../../projects/statuses';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const read = { type: 'Projects', level: 'read' } as const;
const full = { type: 'Projects', level: 'full' } as const;
const IdParam = z.object({ id: z.string() });
const statusTags = ['Project statuses'];
const transitionTags = ['Project transitions'];

export function registerStatusRoutes(area: PlatformArea): void {
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects-statuses',
        tags: statusTags,
        summary: 'List project statuses',
        request: { query: pagingQuery(['id', 'code', 'displayName']) },
        responses: { 200: json(PagedOfBackofficeProjectStatusDto, 'Statuses.') },
      },
      read,
    ),
    async (c) => c.json(await statuses.listStatuses(c.var.tenant, c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/projects-statuses',
        tags: statusTags,
        summary: 'Create a project status',
        description: "The tenant's first status is initial; `isInitial: true` moves the flag here.",
        request: body(CreateProjectStatusDto),
        responses: { 201: json(BackofficeProjectStatusDto, 'The status.'), ...problemResponses(409) },
      },
      full,
    ),
    async (c) => c.json(await statuses.createStatus(c.var.tenant, c.req.valid('json')), 201),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects-statuses/{id}',
        tags: statusTags,
        summary: 'Get a project status',
        request: { params: IdParam },
        responses: { 200: json(BackofficeProjectStatusDto, 'The status.'), ...problemResponses(404) },
      },
      read,
    ),
    async (c) => c.json(await statuses.getStatus(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/projects-statuses/{id}',
        tags: statusTags,
        summary: 'Update a project status',
        description: 'A new code carries projects and transitions along. Unsetting `isInitial` → 409 (mark another status instead).',
        request: { params: IdParam, ...body(UpdateProjectStatusDto) },
        responses: { 200: json(BackofficeProjectStatusDto, 'The status.'), ...problemResponses(404, 409) },
      },
      full,
    ),
    async (c) => c.json(await statuses.updateStatus(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/projects-statuses/{id}',
        tags: statusTags,
        summary: 'Delete a project status',
        description: 'The initial status, or one used by projects or transitions → 409.',
        request: { params: IdParam },
        responses: { 200: json(BackofficeProjectStatusDto, 'The deleted status.'), ...problemResponses(404, 409) },
      },
      full,
    ),
    async (c) => c.json(await statuses.deleteStatus(c.var.tenant, c.req.valid('param').id), 200),
  );

  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects-transitions',
        tags: transitionTags,
        summary: 'List project status transitions',
        request: { query: pagingQuery(['id', 'name', 'startStatus', 'resultStatus']) },
        responses: { 200: json(PagedOfProjectStatusTransitionDto, 'Transitions.') },
      },
      read,
    ),
    async (c) => c.json(await statuses.listTransitions(c.var.tenant, c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/projects-transitions/transitions',
        tags: transitionTags,
        summary: 'Create a project status transition',
        description: 'Both statuses must exist (404); `(name, startStatus)` is unique (409).',
        request: body(CreateProjectTransitionDto),
        responses: { 201: json(ProjectStatusTransitionDto, 'The transition.'), ...problemResponses(404, 409) },
      },
      full,
    ),
    async (c) => c.json(await statuses.createTransition(c.var.tenant, c.req.valid('json')), 201),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/projects-transitions/{id}',
        tags: transitionTags,
        summary: 'Get a project status transition',
        request: { params: IdParam },
        responses: { 200: json(ProjectStatusTransitionDto, 'The transition.'), ...problemResponses(404) },
      },
      read,
    ),
    async (c) => c.json(await statuses.getTransition(c.var.tenant, c.req.valid('param').id), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/projects-transitions/{id}',
        tags: transitionTags,
        summary: 'Update a project status transition',
        request: { params: IdParam, ...body(UpdateProjectTransitionDto) },
        responses: { 200: json(ProjectStatusTransitionDto, 'The transition.'), ...problemResponses(404, 409) },
      },
      full,
    ),
    async (c) => c.json(await statuses.updateTransition(c.var.tenant, c.req.valid('param').id, c.req.valid('json')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/projects-transitions/{id}',
        tags: transitionTags,
        summary: 'Delete a project status transition',
        request: { params: IdParam },
        responses: { 200: json(ProjectStatusTransitionDto, 'The deleted transition.'), ...problemResponses(404) },
      },
      full,
    ),
    async (c) => c.json(await statuses.deleteTransition(c.var.tenant, c.req.valid('param').id), 200),
  );
}
