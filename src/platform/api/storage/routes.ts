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
import type { Context } from 'hono';
import { ArtifactDto, ASSET_KINDS, DTO_OF, FolderDto, RESOURCE_KINDS, type AssetKind } from '../../assets';
import { createPlatformArea, platformRoute, problemResponses, ConflictDto, type Access, type PlatformArea, type PlatformBindings, type ScopeLevel } from '../../core';
import { fileContent } from '../../core/route';
import { registerColourProfileRoutes } from './colour-profile-routes';
import * as h from './handlers';
import * as S from './schemas';

export const storageArea = createPlatformArea('storage');

type Handler = (c: Context<PlatformBindings>) => Promise<Response>;

const json = (schema: z.ZodTypeAny, description: string) => ({ description, content: { 'application/json': { schema } } });
const fileResponse = fileContent('The file (206 for a Range).', 'application/octet-stream');
const noContent = { description: 'Done.' };
const conflict = { 409: json(ConflictDto, 'A name (or id) clash: NameConflict, IdConflict, FolderOverwriteConflict or GeneralConflict.') };

/** Registers one route: spec + access + handler, nothing else (the route file reads like a table). */
export function addRoute(area: PlatformArea, spec: RouteConfig, access: Access, handler: Handler): void {
  area.openapi(platformRoute(spec, access), handler);
}

const accessOf = (kind: AssetKind, level: ScopeLevel): Access => ({ type: kind.private ? 'Private_assets' : 'Assets', level });
const jsonBody = (schema: z.ZodTypeAny, required = true) => ({ required, content: { 'application/json': { schema } } });

function registerCollection(area: PlatformArea, kind: AssetKind): void {
  const p = `/${kind.segment}`;
  const tag = [kind.private ? 'Private assets' : kind.type === 'resource' ? 'Resources' : `${kind.type[0]!.toUpperCase()}${kind.type.slice(1)}s`];
  const Dto = DTO_OF[kind.type];
  const read = accessOf(kind, 'read');
  const upd = accessOf(kind, 'update');
  const full = accessOf(kind, 'full');
  const owner = kind.private ? { query: S.OwnerQuery } : {};
  const r = (spec: Omit<RouteConfig, 'tags'>, access: Access, handler: Handler) => addRoute(area, { ...spec, tags: tag } as RouteConfig, access, handler);

  r({ method: 'get', path: p, summary: `List ${kind.segment}`, request: { query: S.ListQuery(kind) }, responses: { 200: json(S.PagedOf(kind.type), 'A page.') } }, read, h.list(kind));
  r(
    { method: 'post', path: p, summary: `Upload a ${kind.noun}`, request: { ...owner, body: S.uploadForm(kind) }, responses: { 201: json(Dto, 'Created.'), ...conflict, ...problemResponses(413, 415, 422) } },
    full,
    h.upload(kind),
  );
  r({ method: 'get', path: `${p}/file-storage-info`, summary: 'File count and volume', request: owner, responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read, h.storageInfo(kind, false));
  if (kind.private) {
    r({ method: 'get', path: `${p}/retainable-file-storage-info`, summary: 'What retention would delete', request: owner, responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read, h.storageInfo(kind, true));
  }
  r(
    { method: 'post', path: `${p}/import/from-url`, summary: `Import a ${kind.noun} from a URL`, request: { body: jsonBody(S.FromUrlBody) }, responses: { 201: json(Dto, 'Created.'), ...conflict, ...problemResponses(413, 422) } },
    full,
    h.importFromUrl(kind),
  );

  if (kind.folders) {
    const F = `${p}/folders`;
    r({ method: 'post', path: F, summary: 'Create a folder', request: { query: S.OwnerQuery, body: jsonBody(S.FolderCreateBody, false) }, responses: { 201: json(FolderDto, 'Created.'), ...conflict } }, full, h.folderCreate(kind));
    r({ method: 'get', path: F, summary: 'A folder by its full path', request: { query: S.FolderPathQuery }, responses: { 200: json(FolderDto, 'The folder.'), ...problemResponses(404) } }, read, h.folderByPath(kind));
    r({ method: 'delete', path: F, summary: 'Delete a folder by its full path', request: { query: S.FolderDeleteQuery }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } }, full, h.folderDeleteByPath(kind));
    r({ method: 'get', path: `${F}/content`, summary: 'Folders and files in a folder', request: { query: S.FolderContentQuery }, responses: { 200: json(S.FolderContentOf(kind.type), 'Content.'), ...problemResponses(404) } }, read, h.folderContent(kind));
    r({ method: 'get', path: `${F}/all`, summary: 'Every folder', request: owner, responses: { 200: json(z.array(FolderDto), 'Folders by path.') } }, read, h.folderAll(kind));
    r({ method: 'get', path: `${F}/{id}`, summary: 'A folder', request: { params: S.IdParam, ...owner }, responses: { 200: json(FolderDto, 'The folder.'), ...problemResponses(404) } }, read, h.folderGet(kind));
    r(
      { method: 'put', path: `${F}/{id}`, summary: 'Rename or move a folder', request: { params: S.IdParam, ...owner, body: jsonBody(S.FolderUpdateBody) }, responses: { 200: json(FolderDto, 'The folder.'), ...conflict, ...problemResponses(404) } },
      upd,
      h.folderUpdate(kind),
    );
    r(
      { method: 'delete', path: `${F}/{id}`, summary: 'Delete a folder (recursive=true with its content)', request: { params: S.IdParam, query: S.FolderDeleteQuery.omit({ fullPath: true }) }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } },
      full,
      h.folderDelete(kind),
    );
  } else {
    r(
      { method: 'delete', path: `${p}/namespaces/{namespace}`, summary: 'Delete every resource of a namespace', request: { params: z.object({ namespace: z.string() }), ...owner }, responses: { 204: noContent } },
      full,
      h.deleteNamespace(kind),
    );
  }

  const batch = (name: string, schema: z.ZodTypeAny, level: ScopeLevel, handler: Handler, summary: string) =>
    r(
      { method: 'post', path: `${p}/${name}`, summary, description: 'Atomic: an unknown id answers 404 and changes nothing.', request: { ...owner, body: jsonBody(schema) }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } },
      accessOf(kind, level),
      handler,
    );
  batch('batch-copy', S.BatchCopyBody, 'full', h.batchCopy(kind), 'Copy several');
  batch('batch-delete', S.BatchIdsBody, 'full', h.batchDelete(kind), 'Delete several');
  if (kind.folders) batch('batch-update-parent-folder', S.BatchParentBody, 'update', h.batchParent(kind), 'Move several to a folder');
  batch('batch-update-custom-fields', S.BatchFieldsBody, 'update', h.batchFields(kind), 'Set custom fields of several');
  batch('batch-update-custom-fields/discrete', S.DiscreteBody, 'update', h.batchDiscrete(kind), 'Add, update and remove custom fields per asset');
  if (kind.private) batch('batch-update-owner', S.BatchOwnerBody, 'update', h.batchOwner(kind), 'Give several to another owner');

  const I = `${p}/{id}`;
  r({ method: 'get', path: I, summary: `A ${kind.noun}`, request: { params: S.IdParam, ...owner }, responses: { 200: json(Dto, 'The asset.'), ...problemResponses(404) } }, read, h.get(kind));
  r(
    { method: 'put', path: I, summary: `Update a ${kind.noun}`, request: { params: S.IdParam, ...owner, body: jsonBody(S.UpdateAssetBody) }, responses: { 200: json(Dto, 'The asset.'), ...conflict, ...problemResponses(404) } },
    upd,
    h.update(kind),
  );
  r({ method: 'delete', path: I, summary: `Delete a ${kind.noun}`, request: { params: S.IdParam, ...owner }, responses: { 204: noContent, ...conflict, ...problemResponses(404) } }, full, h.remove(kind));
  r(
    {
      method: 'post',
      path: I,
      summary: `Copy a ${kind.noun}`,
      request: { params: S.IdParam, query: kind.folders ? S.CopyQuery : S.ResourceCopyQuery },
      responses: { 201: json(Dto, 'The copy (or the overwritten asset).'), 200: json(Dto, 'Skip: the existing asset.'), ...conflict, ...problemResponses(404) },
    },
    full,
    h.copy(kind),
  );
  r(
    { method: 'get', path: `${I}/file`, summary: 'The file', request: { params: S.IdParam, query: S.FileQuery }, responses: { 200: fileResponse, 206: fileResponse, ...problemResponses(404) } },
    read,
    h.file(kind),
  );
  if (kind.private) {
    r({ method: 'get', path: `${I}/retention-policy`, summary: 'Retention policy', request: { params: S.IdParam, ...owner }, responses: { 200: json(S.RetentionDto, 'The policy.'), ...problemResponses(404) } }, read, h.getRetention(kind));
    r({ method: 'post', path: `${I}/retention-policy`, summary: 'Set the retention policy', request: { params: S.IdParam, query: S.RetentionQuery }, responses: { 200: json(S.RetentionDto, 'The policy.'), ...problemResponses(404) } }, upd, h.setRetention(kind));
  }
}

for (const kind of [...ASSET_KINDS, ...RESOURCE_KINDS]) registerCollection(storageArea, kind);

// --- artifacts -----------------------------------------------------------------------------------
{
  const tags = ['Artifacts'];
  const read: Access = { type: 'Artifacts', level: 'read' };
  const r = (spec: Omit<RouteConfig, 'tags'>, access: Access, handler: Handler) => addRoute(storageArea, { ...spec, tags } as RouteConfig, access, handler);
  r({ method: 'get', path: '/artifacts', summary: 'List artifacts', request: { query: S.ArtifactListQuery }, responses: { 200: json(S.PagedOfArtifactDto, 'A page.') } }, read, h.artifactList);
  r(
    { method: 'post', path: '/artifacts', summary: 'Upload an artifact', request: { body: S.uploadForm('artifact') }, responses: { 201: json(ArtifactDto, 'Created.'), ...problemResponses(413, 415) } },
    { type: 'Artifacts', level: 'full' },
    h.artifactUpload,
  );
  r({ method: 'get', path: '/artifacts/file-storage-info', summary: 'File count and volume', responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read, h.artifactStorageInfo(false));
  r({ method: 'get', path: '/artifacts/retainable-file-storage-info', summary: 'What expiry would delete (Temporary)', responses: { 200: json(S.StorageInfoDto, 'Counts.') } }, read, h.artifactStorageInfo(true));
  r(
    { method: 'delete', path: '/artifacts/group/{group}', summary: 'Delete a group of artifacts', request: { params: z.object({ group: z.string() }) }, responses: { 204: noContent, ...problemResponses(404) } },
    { type: 'Artifacts', level: 'full' },
    h.artifactGroupDelete,
  );
  r({ method: 'get', path: '/artifacts/{id}', summary: 'An artifact', request: { params: S.IdParam }, responses: { 200: json(ArtifactDto, 'The artifact.'), ...problemResponses(404) } }, read, h.artifactGet);
  r(
    { method: 'put', path: '/artifacts/{id}', summary: 'Update an artifact', request: { params: S.IdParam, body: jsonBody(S.UpdateArtifactBody) }, responses: { 200: json(ArtifactDto, 'The artifact.'), ...problemResponses(404) } },
    { type: 'Artifacts', level: 'update' },
    h.artifactUpdate,
  );
  r({ method: 'delete', path: '/artifacts/{id}', summary: 'Delete an artifact', request: { params: S.IdParam }, responses: { 204: noContent, ...problemResponses(404) } }, { type: 'Artifacts', level: 'full' }, h.artifactDelete);
  r(
    { method: 'get', path: '/artifacts/{id}/file', summary: 'The file', request: { params: S.IdParam, query: S.FileQuery.omit({ ownerId: true }) }, responses: { 200: fileResponse, 206: fileResponse, ...problemResponses(404) } },
    read,
    h.artifactFile,
  );
}

addRoute(
  storageArea,
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
  h.anonymous,
);

registerColourProfileRoutes(storageArea);
