/**
 * Asset storage: /api/storage/v1 (contract, "Asset storage"; docs/platform.md).
 *
 * For every collection {t} = designs, images, mockups, fonts, private-designs, private-images,
 * private-mockups (literal paths first, so `/designs/folders` is not read as a design id):
 *
 *   GET    /{t}                                        list (path, includeSubfolders, customFields…)  PagedOf{T}Dto
 *   POST   /{t}                                        multipart upload                                201 {T}Dto
 *   GET    /{t}/file-storage-info                      FileStorageInfoDto (private: + retainable-…)
 *   POST   /{t}/import/from-url                        201 {T}Dto
 *   POST   /{t}/folders · GET /{t}/folders?fullPath · GET /{t}/folders/content · GET /{t}/folders/all
 *   GET|PUT|DELETE /{t}/folders/{id} · DELETE /{t}/folders?fullPath&recursive
 *   POST   /{t}/batch-copy | batch-delete | batch-update-parent-folder | batch-update-custom-fields[/discrete]
 *          | batch-update-owner (private)              204
 *   GET|PUT|DELETE /{t}/{id} · GET /{t}/{id}/file · POST /{t}/{id} (copy)
 *   GET|POST /private-{t}/{id}/retention-policy
 *
 * Resources (/resources, /private-resources): the same without folders, plus
 * DELETE /resources/namespaces/{namespace}. Artifacts: CRUD, file, DELETE /artifacts/group/{group},
 * storage info. GET /anonymous/{token}: a file by its anonymous capability (no token).
 */
import { z, type RouteConfig } from '@hono/zod-openapi';
import { ArtifactDto, ASSET_KINDS, DTO_OF, FolderDto, RESOURCE_KINDS, type AssetKind } from '../../assets';
import { createPlatformArea, platformRoute, problemResponses, ConflictDto, type Access, type PlatformArea, type ScopeLevel } from '../../core';
import { fileContent, jsonBody, jsonContent } from '../../core/route';
import { registerColourProfileRoutes } from './colour-profile-routes';
import * as h from './handlers';
import * as S from './schemas';

export const storageArea = createPlatformArea('storage');

/**
 * A JSON answer documented by its schema. Asset DTOs are built as records (assets.dtoWithUrl), so
 * the answer's type is not checked against the schema here; the requests' types are.
 */
const json = (schema: z.ZodType, description: string) => jsonContent(schema, description);
const fileResponse = fileContent('The file (206 for a Range).', 'application/octet-stream');
const noContent = { description: 'Done.' };
const conflict = { 409: json(ConflictDto, 'A name (or id) clash: NameConflict, IdConflict, FolderOverwriteConflict or GeneralConflict.') };

const accessOf = (kind: AssetKind, level: ScopeLevel): Access => ({ type: kind.private ? 'Private_assets' : 'Assets', level });

/** platformRoute with the area's tags last (the order the OpenAPI document has always had). */
const tagged = (tags: string[]) => <R extends RouteConfig>(spec: R, access: Access) => platformRoute({ ...spec, tags }, access);

function registerCollection(area: PlatformArea, kind: AssetKind): void {
  const p = `/${kind.segment}`;
  const route = tagged([kind.private ? 'Private assets' : kind.type === 'resource' ? 'Resources' : `${kind.type[0]!.toUpperCase()}${kind.type.slice(1)}s`]);
  const Dto = DTO_OF[kind.type];
  const read = accessOf(kind, 'read');
  const upd = accessOf(kind, 'update');
  const full = accessOf(kind, 'full');
  // `ownerId` is a parameter of the private collections only; an empty query documents as none.
  const owner = S.ownerQueryOf(kind);

  area.openapi(
    route({ method: 'get', path: p, summary: `List ${kind.segment}`, request: { query: S.ListQuery(kind) }, responses: { 200: json(S.PagedOf(kind.type), 'A page.') } }, read),
    async (c) => c.json(await h.list(c, kind, c.req.valid('query')), 200),
  );
  area.openapi(
    route(
      { method: 'post', path: p, summary: `Upload a ${kind.noun}`, request: { query: owner, body: S.uploadForm(kind) }, responses: { 201: json(Dto, 'Created.'), ...conflict, ...problemResponses(413, 415, 422) } },
      full,
    ),
    async (c) => c.json(await h.upload(c, kind, S.ownerIdOf(c.req.valid('query'))), 201),
  );
  area.openapi(
    route({ method: 'get', path: `${p}/file-storage-info`, summary: 'File count and volume', request: { query: owner }, responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read),
    async (c) => c.json(await h.storageInfo(c, kind, false, S.ownerIdOf(c.req.valid('query'))), 200),
  );
  if (kind.private) {
    area.openapi(
      route({ method: 'get', path: `${p}/retainable-file-storage-info`, summary: 'What retention would delete', request: { query: owner }, responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read),
      async (c) => c.json(await h.storageInfo(c, kind, true, S.ownerIdOf(c.req.valid('query'))), 200),
    );
  }
  area.openapi(
    route(
      { method: 'post', path: `${p}/import/from-url`, summary: `Import a ${kind.noun} from a URL`, request: { body: jsonBody(S.FromUrlBody) }, responses: { 201: json(Dto, 'Created.'), ...conflict, ...problemResponses(413, 422) } },
      full,
    ),
    async (c) => c.json(await h.importFromUrl(c, kind, c.req.valid('json')), 201),
  );

  if (kind.folders) {
    const F = `${p}/folders`;
    area.openapi(
      route({ method: 'post', path: F, summary: 'Create a folder', request: { query: S.OwnerQuery, body: jsonBody(S.FolderCreateBody, false) }, responses: { 201: json(FolderDto, 'Created.'), ...conflict } }, full),
      async (c) => c.json(await h.folderCreate(c, kind, c.req.valid('query'), c.req.valid('json')), 201),
    );
    area.openapi(
      route({ method: 'get', path: F, summary: 'A folder by its full path', request: { query: S.FolderPathQuery }, responses: { 200: json(FolderDto, 'The folder.'), ...problemResponses(404) } }, read),
      async (c) => c.json(await h.folderByPath(c, kind, c.req.valid('query')), 200),
    );
    area.openapi(
      route({ method: 'delete', path: F, summary: 'Delete a folder by its full path', request: { query: S.FolderDeleteQuery }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } }, full),
      async (c) => {
        await h.folderDeleteByPath(c, kind, c.req.valid('query'));
        return c.body(null, 204);
      },
    );
    area.openapi(
      route({ method: 'get', path: `${F}/content`, summary: 'Folders and files in a folder', request: { query: S.FolderContentQuery }, responses: { 200: json(S.FolderContentOf(kind.type), 'Content.'), ...problemResponses(404) } }, read),
      async (c) => c.json(await h.folderContent(c, kind, c.req.valid('query')), 200),
    );
    area.openapi(
      route({ method: 'get', path: `${F}/all`, summary: 'Every folder', request: { query: owner }, responses: { 200: json(z.array(FolderDto), 'Folders by path.') } }, read),
      async (c) => c.json(await h.folderAll(c, kind, S.ownerIdOf(c.req.valid('query'))), 200),
    );
    area.openapi(
      route({ method: 'get', path: `${F}/{id}`, summary: 'A folder', request: { params: S.IdParam, query: owner }, responses: { 200: json(FolderDto, 'The folder.'), ...problemResponses(404) } }, read),
      async (c) => c.json(await h.folderGet(c, kind, c.req.valid('param').id, S.ownerIdOf(c.req.valid('query'))), 200),
    );
    area.openapi(
      route(
        { method: 'put', path: `${F}/{id}`, summary: 'Rename or move a folder', request: { params: S.IdParam, query: owner, body: jsonBody(S.FolderUpdateBody) }, responses: { 200: json(FolderDto, 'The folder.'), ...conflict, ...problemResponses(404) } },
        upd,
      ),
      async (c) => c.json(await h.folderUpdate(c, kind, c.req.valid('param').id, S.ownerIdOf(c.req.valid('query')), c.req.valid('json')), 200),
    );
    area.openapi(
      route(
        { method: 'delete', path: `${F}/{id}`, summary: 'Delete a folder (recursive=true with its content)', request: { params: S.IdParam, query: S.FolderDeleteQuery.omit({ fullPath: true }) }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } },
        full,
      ),
      async (c) => {
        await h.folderDelete(c, kind, c.req.valid('param').id, c.req.valid('query'));
        return c.body(null, 204);
      },
    );
  } else {
    area.openapi(
      route(
        { method: 'delete', path: `${p}/namespaces/{namespace}`, summary: 'Delete every resource of a namespace', request: { params: z.object({ namespace: z.string() }), query: owner }, responses: { 204: noContent } },
        full,
      ),
      async (c) => {
        await h.deleteNamespace(c, kind, c.req.valid('param').namespace, S.ownerIdOf(c.req.valid('query')));
        return c.body(null, 204);
      },
    );
  }

  /** A batch route: atomic, answers 204 (each handler below reads its own body type). */
  const batch = <B extends z.ZodType>(name: string, schema: B, level: ScopeLevel, summary: string) =>
    route(
      { method: 'post', path: `${p}/${name}`, summary, description: 'Atomic: an unknown id answers 404 and changes nothing.', request: { query: owner, body: jsonBody(schema) }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } },
      accessOf(kind, level),
    );
  area.openapi(batch('batch-copy', S.BatchCopyBody, 'full', 'Copy several'), async (c) => {
    await h.batchCopy(c, kind, S.ownerIdOf(c.req.valid('query')), c.req.valid('json'));
    return c.body(null, 204);
  });
  area.openapi(batch('batch-delete', S.BatchIdsBody, 'full', 'Delete several'), async (c) => {
    await h.batchDelete(c, kind, S.ownerIdOf(c.req.valid('query')), c.req.valid('json'));
    return c.body(null, 204);
  });
  if (kind.folders) {
    area.openapi(batch('batch-update-parent-folder', S.BatchParentBody, 'update', 'Move several to a folder'), async (c) => {
      await h.batchParent(c, kind, S.ownerIdOf(c.req.valid('query')), c.req.valid('json'));
      return c.body(null, 204);
    });
  }
  area.openapi(batch('batch-update-custom-fields', S.BatchFieldsBody, 'update', 'Set custom fields of several'), async (c) => {
    await h.batchFields(c, kind, S.ownerIdOf(c.req.valid('query')), c.req.valid('json'));
    return c.body(null, 204);
  });
  area.openapi(batch('batch-update-custom-fields/discrete', S.DiscreteBody, 'update', 'Add, update and remove custom fields per asset'), async (c) => {
    await h.batchDiscrete(c, kind, S.ownerIdOf(c.req.valid('query')), c.req.valid('json'));
    return c.body(null, 204);
  });
  if (kind.private) {
    area.openapi(batch('batch-update-owner', S.BatchOwnerBody, 'update', 'Give several to another owner'), async (c) => {
      await h.batchOwner(c, kind, c.req.valid('json'));
      return c.body(null, 204);
    });
  }

  const I = `${p}/{id}`;
  area.openapi(
    route({ method: 'get', path: I, summary: `A ${kind.noun}`, request: { params: S.IdParam, query: owner }, responses: { 200: json(Dto, 'The asset.'), ...problemResponses(404) } }, read),
    async (c) => c.json(await h.get(c, kind, c.req.valid('param').id, S.ownerIdOf(c.req.valid('query'))), 200),
  );
  area.openapi(
    route(
      { method: 'put', path: I, summary: `Update a ${kind.noun}`, request: { params: S.IdParam, query: owner, body: jsonBody(S.UpdateAssetBody) }, responses: { 200: json(Dto, 'The asset.'), ...conflict, ...problemResponses(404) } },
      upd,
    ),
    async (c) => c.json(await h.update(c, kind, c.req.valid('param').id, S.ownerIdOf(c.req.valid('query')), c.req.valid('json')), 200),
  );
  area.openapi(
    route({ method: 'delete', path: I, summary: `Delete a ${kind.noun}`, request: { params: S.IdParam, query: owner }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } }, full),
    async (c) => {
      await h.remove(c, kind, c.req.valid('param').id, S.ownerIdOf(c.req.valid('query')));
      return c.body(null, 204);
    },
  );
  area.openapi(
    route(
      {
        method: 'post',
        path: I,
        summary: `Copy a ${kind.noun}`,
        request: { params: S.IdParam, query: kind.folders ? S.CopyQuery : S.ResourceCopyQuery },
        responses: { 201: json(Dto, 'The copy (or the overwritten asset).'), 200: json(Dto, 'Skip: the existing asset.'), ...conflict, ...problemResponses(404) },
      },
      full,
    ),
    async (c) => {
      const { dto, created } = await h.copy(c, kind, c.req.valid('param').id, c.req.valid('query'));
      return created ? c.json(dto, 201) : c.json(dto, 200);
    },
  );
  area.openapi(
    route({ method: 'get', path: `${I}/file`, summary: 'The file', request: { params: S.IdParam, query: S.FileQuery }, responses: { 200: fileResponse, 206: fileResponse, ...problemResponses(404) } }, read),
    async (c) => h.file(c, kind, c.req.valid('param').id, c.req.valid('query')),
  );
  if (kind.private) {
    area.openapi(
      route({ method: 'get', path: `${I}/retention-policy`, summary: 'Retention policy', request: { params: S.IdParam, query: owner }, responses: { 200: json(S.RetentionDto, 'The policy.'), ...problemResponses(404) } }, read),
      async (c) => c.json(await h.getRetention(c, kind, c.req.valid('param').id, S.ownerIdOf(c.req.valid('query'))), 200),
    );
    area.openapi(
      route({ method: 'post', path: `${I}/retention-policy`, summary: 'Set the retention policy', request: { params: S.IdParam, query: S.RetentionQuery }, responses: { 200: json(S.RetentionDto, 'The policy.'), ...problemResponses(404) } }, upd),
      async (c) => c.json(await h.setRetention(c, kind, c.req.valid('param').id, c.req.valid('query')), 200),
    );
  }
}

for (const kind of [...ASSET_KINDS, ...RESOURCE_KINDS]) registerCollection(storageArea, kind);

// --- artifacts -----------------------------------------------------------------------------------
{
  const route = tagged(['Artifacts']);
  const read: Access = { type: 'Artifacts', level: 'read' };
  const upd: Access = { type: 'Artifacts', level: 'update' };
  const full: Access = { type: 'Artifacts', level: 'full' };
  storageArea.openapi(
    route({ method: 'get', path: '/artifacts', summary: 'List artifacts', request: { query: S.ArtifactListQuery }, responses: { 200: json(S.PagedOfArtifactDto, 'A page.') } }, read),
    async (c) => c.json(await h.artifactList(c, c.req.valid('query')), 200),
  );
  storageArea.openapi(
    route({ method: 'post', path: '/artifacts', summary: 'Upload an artifact', request: { body: S.uploadForm('artifact') }, responses: { 201: json(ArtifactDto, 'Created.'), ...problemResponses(413, 415) } }, full),
    async (c) => c.json(await h.artifactUpload(c), 201),
  );
  storageArea.openapi(
    route({ method: 'get', path: '/artifacts/file-storage-info', summary: 'File count and volume', responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read),
    async (c) => c.json(await h.artifactStorageInfo(c, false), 200),
  );
  storageArea.openapi(
    route({ method: 'get', path: '/artifacts/retainable-file-storage-info', summary: 'What expiry would delete (Temporary)', responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read),
    async (c) => c.json(await h.artifactStorageInfo(c, true), 200),
  );
  storageArea.openapi(
    route({ method: 'delete', path: '/artifacts/group/{group}', summary: 'Delete a group of artifacts', request: { params: z.object({ group: z.string() }) }, responses: { 204: noContent, ...problemResponses(404) } }, full),
    async (c) => {
      await h.artifactGroupDelete(c, c.req.valid('param').group);
      return c.body(null, 204);
    },
  );
  storageArea.openapi(
    route({ method: 'get', path: '/artifacts/{id}', summary: 'An artifact', request: { params: S.IdParam }, responses: { 200: json(ArtifactDto, 'The artifact.'), ...problemResponses(404) } }, read),
    async (c) => c.json(await h.artifactGet(c, c.req.valid('param').id), 200),
  );
  storageArea.openapi(
    route(
      { method: 'put', path: '/artifacts/{id}', summary: 'Update an artifact', request: { params: S.IdParam, body: jsonBody(S.UpdateArtifactBody) }, responses: { 200: json(ArtifactDto, 'The artifact.'), ...problemResponses(404) } },
      upd,
    ),
    async (c) => c.json(await h.artifactUpdate(c, c.req.valid('param').id, c.req.valid('json')), 200),
  );
  storageArea.openapi(
    route({ method: 'delete', path: '/artifacts/{id}', summary: 'Delete an artifact', request: { params: S.IdParam }, responses: { 204: noContent, ...problemResponses(404) } }, full),
    async (c) => {
      await h.artifactDelete(c, c.req.valid('param').id);
      return c.body(null, 204);
    },
  );
  storageArea.openapi(
    route(
      { method: 'get', path: '/artifacts/{id}/file', summary: 'The file', request: { params: S.IdParam, query: S.FileQuery.omit({ ownerId: true }) }, responses: { 200: fileResponse, 206: fileResponse, ...problemResponses(404) } },
      read,
    ),
    async (c) => h.artifactFile(c, c.req.valid('param').id, Boolean(c.req.valid('query').attachment)),
  );
}

storageArea.openapi(
  platformRoute(
    {
      method: 'get',
      path: '/anonymous/{token}',
      tags: ['Anonymous files'],
      summary: 'A file by its anonymous URL',
      description: 'No token: the 128-bit capability in the path is the permission. `Cache-Control: private, max-age=300`; Range honoured.',
      request: { params: z.object({ token: z.string() }) },
      responses: { 200: fileResponse, 206: fileResponse, ...problemResponses(404) },
    },
    'public',
  ),
  async (c) => h.anonymous(c, c.req.valid('param').token),
);

registerColourProfileRoutes(storageArea);
