/**
 * Colour profiles: /api/storage/v1/color-profiles (issue 20; docs/colour.md). Registered on the
 * storage area by src/platform/api/storage/routes.ts.
 *
 *   POST   /color-profiles          multipart `file` (ICC), optional `name`   201 ColourProfileDto
 *   GET    /color-profiles          the tenant's profiles                     200 ColourProfileDto[]
 *   GET    /color-profiles/{id}                                               200 ColourProfileDto
 *   DELETE /color-profiles/{id}     409 while a pipeline or tenant setting names it    204
 */
import { z } from '@hono/zod-openapi';
import { readAll } from '../../../http/read-limited';
import { multipartBoundary, readMultipart } from '../../assets/multipart';
import { ConflictDto, PayloadTooLargeError, ValidationError, hexIdOr404, platformRoute, problemResponses, type PlatformArea } from '../../core';
import { BINARY, jsonContent as json, multipartBody } from '../../core/route';
import * as service from '../../colour-profiles/service';

export const ColourProfileDto = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: 'Unique per tenant, ignoring case; pipelines and tenant settings name profiles by it.' }),
    colorSpace: z.enum(['Rgb', 'Cmyk', 'Grayscale']),
    description: z.string().openapi({ description: "The profile's own description tag." }),
    size: z.number().int().openapi({ description: 'Bytes.' }),
    created: z.string(),
  })
  .openapi('ColorProfileDto');

const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
const tags = ['Color profiles'];
const read = { type: 'Assets', level: 'read' } as const;
const full = { type: 'Assets', level: 'full' } as const;

export function registerColourProfileRoutes(area: PlatformArea): void {
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/color-profiles',
        tags,
        summary: 'Upload an ICC colour profile',
        description: 'RGB, CMYK or grey ICC profiles (v2 or v4). Not an ICC profile, or one LittleCMS cannot use: 422.',
        request: {
          body: multipartBody({ file: { ...BINARY, description: 'The ICC profile.' }, name: { type: 'string', description: "Default: the profile's description." } }, ['file']),
        },
        responses: { 201: json(ColourProfileDto, 'Created.'), 409: json(ConflictDto, 'The name is taken (NameConflict).'), ...problemResponses(400, 413, 415, 422) },
      },
      full,
    ),
    async (c) => {
      const { fields, file } = await readMultipart(c.req.raw.body, multipartBoundary(c.req.header('content-type')), ['file'], (f) => readAll(f.stream, service.MAX_PROFILE_BYTES, () => new PayloadTooLargeError(`An ICC profile may have at most ${service.MAX_PROFILE_BYTES / 1024 / 1024} MB.`), 'cancel'));
      if (!file) throw new ValidationError({ file: ['An ICC profile file is required.'] });
      const name = Object.entries(fields).find(([k]) => k.toLowerCase() === 'name')?.[1];
      return c.json(await service.uploadProfile(c.var.tenant, file.result, name, file.filename), 201);
    },
  );
  area.openapi(
    platformRoute({ method: 'get', path: '/color-profiles', tags, summary: 'List colour profiles', responses: { 200: json(z.array(ColourProfileDto), 'The profiles, by name.') } }, read),
    async (c) => c.json(await service.listProfiles(c.var.tenant), 200),
  );
  area.openapi(
    platformRoute({ method: 'get', path: '/color-profiles/{id}', tags, summary: 'A colour profile', request: { params: IdParam }, responses: { 200: json(ColourProfileDto, 'The profile.'), ...problemResponses(404) } }, read),
    async (c) => c.json(await service.getProfile(c.var.tenant, hexIdOr404(c.req.valid('param').id, 'colour profile')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/color-profiles/{id}',
        tags,
        summary: 'Delete a colour profile',
        request: { params: IdParam },
        responses: { 204: { description: 'Deleted.' }, 409: json(ConflictDto, 'A pipeline or tenant setting names it (GeneralConflict).'), ...problemResponses(404) },
      },
      full,
    ),
    async (c) => {
      await service.deleteProfile(c.var.tenant, hexIdOr404(c.req.valid('param').id, 'colour profile'));
      return c.body(null, 204);
    },
  );
}
