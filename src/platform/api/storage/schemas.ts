/** Request and response schemas of /api/storage/v1 (also the processor's, which shares them). */
import { z } from '@hono/zod-openapi';
import { arrayQuery, boolQuery, pagedOf, pagingQuery } from '../../core';
import { BINARY, multipartBody, type PlainSchema } from '../../core/route';
import { ArtifactDto, ARTIFACT_TYPES, DTO_OF, FolderDto, type AssetKind, type AssetType } from '../../assets';

export const STRATEGIES = ['Abort', 'Rename', 'Overwrite', 'Skip'] as const;
export const Strategy = z.enum(STRATEGIES).optional().openapi({ description: 'On a name clash: Abort (409, default), Rename ("name (1)"), Overwrite (keeps the id), Skip (200 with the existing asset).' });
export const RETENTION = ['Unknown', 'Never', 'Default'] as const;

const ownerId = z.string().optional().openapi({ description: 'The private owner (1–256 characters).' });
export const OwnerQuery = z.object({ ownerId });
const NoQuery = z.object({});
/** The query of a collection's routes: `ownerId` for the private collections, none for the public ones. */
export const ownerQueryOf = (kind: { private: boolean }) => (kind.private ? OwnerQuery : NoQuery);
/** The owner a collection route's query names (public collections take none). */
export const ownerIdOf = (query: { ownerId?: string }): string | undefined => query.ownerId;
export const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: '65f1c0ffee0000000000abcd' }) });

const SORTABLE = ['name', 'lastModified', 'size', 'id'] as const;
// The fields each kind adds, as constants: spreads of variables keep their types (object literals in
// a conditional would gain `?: undefined` members, which zod reads as `unknown`).
const NO_FIELDS = {};
const FOLDER_FIELDS = {
  path: z.string().optional().openapi({ description: 'Folder path (`/cards/`); absent = every folder.' }),
  includeSubfolders: boolQuery(false),
};
const NAMESPACE_FIELDS = { namespace: z.string().optional() };
const DESIGN_FIELDS = { fontPostScriptName: z.string().optional().openapi({ description: 'Designs using this font.' }) };
const FONT_FIELDS = { postscriptNames: arrayQuery(z.string()).openapi({ description: 'Repeated: fonts with these PostScript names.' }) };
const PRIVATE_FIELDS = { ownerId, retentionPolicy: z.enum(RETENTION).optional() };
export const ListQuery = (kind: AssetKind) =>
  pagingQuery(SORTABLE).extend({
    ...(kind.folders ? FOLDER_FIELDS : NAMESPACE_FIELDS),
    ...(kind.type === 'design' ? DESIGN_FIELDS : NO_FIELDS),
    ...(kind.type === 'font' ? FONT_FIELDS : NO_FIELDS),
    type: z.string().optional().openapi({ description: 'Design type (Psd, PrintProduct), mockup type, image format or resource type.' }),
    ...(kind.private ? PRIVATE_FIELDS : NO_FIELDS),
  });

const pagedCache = new Map<AssetType, z.ZodTypeAny>();
const NAMES: Record<AssetType, string> = { design: 'Design', image: 'Image', mockup: 'Mockup', font: 'Font', resource: 'Resource' };
export function PagedOf(type: AssetType): z.ZodTypeAny {
  let s = pagedCache.get(type);
  if (!s) pagedCache.set(type, (s = pagedOf(DTO_OF[type], `PagedOf${NAMES[type]}Dto`)));
  return s;
}

const contentCache = new Map<AssetType, z.ZodTypeAny>();
export function FolderContentOf(type: AssetType): z.ZodTypeAny {
  let s = contentCache.get(type);
  if (!s) {
    s = z
      .object({ id: z.string().nullable(), folders: z.array(FolderDto), entities: z.array(DTO_OF[type]), entitiesCount: z.number().int() })
      .openapi(`FolderContentOf${NAMES[type]}Dto`);
    contentCache.set(type, s);
  }
  return s;
}

/** Multipart bodies are documented as plain OpenAPI schemas: the route streams them itself. */
export function uploadForm(kind: AssetKind | 'artifact', fileField = 'file') {
  const props: Record<string, PlainSchema> = {
    [fileField]: { ...BINARY, description: 'The file.' },
    name: { type: 'string', description: 'Default: the file name without its extension.' },
    customFields: { type: 'string', description: 'A JSON object.' },
  };
  if (kind === 'artifact') {
    Object.assign(props, {
      group: { type: 'string' },
      alias: { type: 'string' },
      type: { type: 'string', enum: [...ARTIFACT_TYPES] },
      description: { type: 'string' },
      anonymousAccess: { type: 'boolean' },
    });
  } else {
    props.id = { type: 'string', description: 'A client id `[A-Za-z0-9_-]{1,64}` (default: generated).' };
    if (kind.folders) props.path = { type: 'string', description: 'Folder path, created as needed.' };
    else Object.assign(props, { namespace: { type: 'string' }, sourceId: { type: 'string' }, type: { type: 'string' }, anonymousAccess: { type: 'boolean' } });
    if (kind.private) props.ownerId = { type: 'string', description: 'Required: the owner of the private asset.' };
  }
  return multipartBody(props, [fileField]);
}

export const UpdateAssetBody = z
  .object({
    name: z.string().optional(),
    path: z.string().optional().openapi({ description: 'Move to this folder (created as needed).' }),
    folderId: z.string().nullable().optional().openapi({ description: 'Move to this folder (null = root).' }),
    customFields: z.record(z.string(), z.unknown()).optional().openapi({ description: 'Replaces the custom fields.' }),
    anonymousAccess: z.boolean().optional(),
    namespace: z.string().nullable().optional(),
    sourceId: z.string().nullable().optional(),
    type: z.string().nullable().optional(),
  })
  .openapi('UpdateAssetDto');

export const CopyQuery = z.object({ path: z.string().optional(), name: z.string().optional(), strategy: Strategy, ownerId });
export const ResourceCopyQuery = z.object({ name: z.string().optional(), namespace: z.string().optional(), sourceId: z.string().optional(), strategy: Strategy, ownerId });

const Ids = z.array(z.string()).min(1).max(1000);
export const BatchIdsBody = z.object({ ids: Ids }).openapi('BatchIdsDto');
export const BatchCopyBody = z.object({ ids: Ids, path: z.string().optional(), strategy: Strategy, ownerId }).openapi('BatchCopyDto');
export const BatchParentBody = z.object({ ids: Ids, path: z.string().optional(), folderId: z.string().nullable().optional() }).openapi('BatchUpdateParentFolderDto');
export const BatchFieldsBody = z
  .object({ ids: Ids, customFields: z.record(z.string(), z.unknown()).openapi({ description: 'Merged into each (a null value removes the key).' }) })
  .openapi('BatchUpdateCustomFieldsDto');
export const DiscreteBody = z
  .record(
    z.string(),
    z.object({
      fieldsToAdd: z.record(z.string(), z.unknown()).optional(),
      fieldsToUpdate: z.record(z.string(), z.unknown()).optional(),
      fieldsToRemove: z.array(z.string()).optional(),
    }),
  )
  .openapi('BatchUpdateCustomFieldsDiscreteDto');
export const BatchOwnerBody = z.object({ ids: Ids, ownerId: z.string().min(1).max(256) }).openapi('BatchUpdateOwnerDto');

export const StorageInfoDto = z
  .object({ fileCount: z.number().int(), fileSizeInBytes: z.number().int(), temporaryFileCount: z.number().int(), temporaryFileSizeInBytes: z.number().int() })
  .openapi('FileStorageInfoDto');

export const FolderCreateBody = z
  .object({
    name: z.string().optional().openapi({ description: 'The new folder; with `path` its parent.' }),
    path: z.string().optional().openapi({ description: 'Parent path (or, without name, the full path to create).' }),
    ownerId,
  })
  .openapi('CreateFolderDto');
export const FolderUpdateBody = z
  .object({ name: z.string().optional(), parentId: z.string().nullable().optional(), path: z.string().optional().openapi({ description: 'New parent path.' }) })
  .openapi('UpdateFolderDto');
export const FolderPathQuery = z.object({ fullPath: z.string().openapi({ description: 'The folder, e.g. `/cards/xmas/` (`/` = the root).' }), ownerId });
export const FolderDeleteQuery = z.object({ fullPath: z.string().optional(), recursive: boolQuery(false), ownerId });
export const FolderContentQuery = z.object({ folderId: z.string().optional(), ownerId });
export const RetentionQuery = z.object({ policy: z.enum(RETENTION), ownerId });
export const RetentionDto = z.enum(RETENTION).openapi('RetentionPolicy');

export const RequestHeaders = z
  .union([z.record(z.string(), z.string()), z.array(z.object({ name: z.string(), value: z.string() }))])
  .optional()
  .openapi({ description: 'Headers sent with the download: a map or `[{name, value}]`.' });
export const FromUrlBody = z
  .object({
    sourceUrl: z.string().min(1),
    requestHeaders: RequestHeaders,
    name: z.string().optional(),
    path: z.string().optional(),
    customFields: z.record(z.string(), z.unknown()).optional(),
    id: z.string().optional(),
    ownerId,
    namespace: z.string().optional(),
    sourceId: z.string().optional(),
    type: z.string().optional(),
    anonymousAccess: z.boolean().optional(),
  })
  .openapi('ImportFromUrlDto');

export const ArtifactListQuery = pagingQuery(SORTABLE).extend({ group: z.string().optional(), jobId: z.string().optional(), type: z.enum(ARTIFACT_TYPES).optional() });
export const PagedOfArtifactDto = pagedOf(ArtifactDto, 'PagedOfArtifactDto');
export const UpdateArtifactBody = z
  .object({
    name: z.string().optional(),
    group: z.string().nullable().optional(),
    alias: z.string().nullable().optional(),
    type: z.enum(ARTIFACT_TYPES).optional(),
    description: z.string().nullable().optional(),
    customFields: z.record(z.string(), z.unknown()).optional(),
    anonymousAccess: z.boolean().optional(),
  })
  .openapi('UpdateArtifactDto');
export const FileQuery = z.object({ attachment: boolQuery(false), ownerId });
