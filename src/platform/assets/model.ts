/**
 * The asset model shared by storage, processor, atoms, storefront and pipelines: the kinds of
 * assets and their route segments, the row as read from D1, and the DTOs the contract names.
 */
import { z } from '@hono/zod-openapi';
import type { AssetRow, AssetType } from './store/assets';

export type { AssetType };

/** One asset collection as routes name it: `designs`, `private-designs`, … `resources`. */
export interface AssetKind {
  type: AssetType;
  /** Public collections keep ownerId null; `private-*` ones need an owner. */
  private: boolean;
  /** `designs` | `private-designs` | … */
  segment: string;
  /** "design", for messages. */
  noun: string;
  folders: boolean;
}

const PLURAL: Record<AssetType, string> = { design: 'designs', image: 'images', mockup: 'mockups', font: 'fonts', resource: 'resources' };

export function assetKind(type: AssetType, isPrivate: boolean): AssetKind {
  return {
    type,
    private: isPrivate,
    segment: `${isPrivate ? 'private-' : ''}${PLURAL[type]}`,
    noun: `${isPrivate ? 'private ' : ''}${type}`,
    folders: type !== 'resource',
  };
}

/** Every storage collection: public designs, images, mockups, fonts, resources and the private ones. */
export const ASSET_KINDS: AssetKind[] = [
  assetKind('design', false),
  assetKind('image', false),
  assetKind('mockup', false),
  assetKind('font', false),
  assetKind('design', true),
  assetKind('image', true),
  assetKind('mockup', true),
];
export const RESOURCE_KINDS: AssetKind[] = [assetKind('resource', false), assetKind('resource', true)];

// The row as read from D1 lives with the SQL that reads it.
export { ASSET_COLUMNS, assetRow, type AssetRow, type RetentionPolicy } from './store/assets';
// --- DTOs ----------------------------------------------------------------------------------------

const iso = (ms: number) => new Date(ms).toISOString();

export const PreviewDto = z
  .object({ id: z.string(), name: z.string(), namespace: z.string(), width: z.number(), height: z.number(), url: z.string() })
  .openapi('AssetPreviewDto');

const common = {
  id: z.string().openapi({ example: '65f1c0ffee0000000000abcd' }),
  name: z.string(),
  ownerId: z.string().nullable(),
  tenantId: z.number().int(),
  customFields: z.record(z.string(), z.unknown()),
  lastModified: z.string().openapi({ format: 'date-time' }),
};
const stored = {
  ...common,
  folderId: z.string().nullable().openapi({ description: 'null = the root folder.' }),
  private: z.boolean(),
  size: z.number().int(),
  previews: z.record(z.string(), PreviewDto),
  url: z.string().openapi({ description: 'The file: `<base>/api/storage/v1/<type>/<id>/file` (bearer token).' }),
};

export const DesignMetadata = z
  .object({
    fonts: z.array(z.object({ postscriptName: z.string(), family: z.string().nullable(), style: z.string().nullable() })),
    surfaces: z.array(z.object({ width: z.number(), height: z.number() })),
    printAreas: z.array(z.object({ width: z.number(), height: z.number() })),
    hasDataSchema: z.boolean(),
  })
  .partial()
  .openapi('DesignMetadata');
export const ImageMetadata = z
  .object({
    isVector: z.boolean(),
    width: z.number(),
    height: z.number(),
    format: z.string(),
    dpiX: z.number().nullable(),
    dpiY: z.number().nullable(),
    pages: z.number().int(),
  })
  .partial()
  .openapi('ImageMetadata');
export const MockupMetadata = z.object({ format: z.string(), linkSourceId: z.string().nullable() }).partial().openapi('MockupMetadataDto');
export const FontMetadata = z.object({ postscriptName: z.string(), family: z.string(), style: z.string() }).partial().openapi('FontMetadata');

export const DesignDto = z
  .object({ ...stored, metadata: DesignMetadata, hasProblems: z.boolean(), designType: z.enum(['Psd', 'PrintProduct']) })
  .openapi('DesignDto');
export const ImageDto = z.object({ ...stored, metadata: ImageMetadata, mimeType: z.string().nullable() }).openapi('ImageDto');
export const MockupDto = z
  .object({ ...stored, metadata: MockupMetadata, type: z.enum(['Mockup2D', 'Mockup3D', 'MockupLink']) })
  .openapi('MockupDto');
export const FontDto = z.object({ ...stored, metadata: FontMetadata }).openapi('FontDto');
export const ResourceDto = z
  .object({
    ...common,
    namespace: z.string().nullable(),
    sourceId: z.string().nullable(),
    type: z.string().nullable(),
    format: z.string().nullable(),
    size: z.number().int(),
    private: z.boolean(),
    anonymousAccess: z.boolean(),
    url: z.string(),
  })
  .openapi('ResourceDto');
export const ResourceInfoDto = z
  .object({ id: z.string(), ownerId: z.string().nullable(), name: z.string(), namespace: z.string().nullable(), private: z.boolean(), url: z.string() })
  .openapi('ResourceInfoDto');

export const DTO_OF: Record<AssetType, z.ZodTypeAny> = { design: DesignDto, image: ImageDto, mockup: MockupDto, font: FontDto, resource: ResourceDto };

/** Metadata keys starting with `_` are the service's own (compiled hash, full font name…). */
const publicMetadata = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('_')));

export const fileUrl = (baseUrl: string, row: Pick<AssetRow, 'type' | 'ownerId' | 'id'>) =>
  `${baseUrl}/api/storage/v1/${assetKind(row.type, row.ownerId !== '').segment}/${encodeURIComponent(row.id)}/file`;

/**
 * The DTO of a row. `anonymousUrl`, when the caller has it (the asset's anonymous URL), replaces
 * the bearer URL.
 */
export function toDto(row: AssetRow, baseUrl: string, anonymousUrl?: string): Record<string, unknown> {
  const base = {
    id: row.id,
    name: row.name,
    ownerId: row.ownerId === '' ? null : row.ownerId,
    tenantId: row.tenantId,
    customFields: row.customFields,
    lastModified: iso(row.lastModified),
  };
  const url = anonymousUrl ?? fileUrl(baseUrl, row);
  if (row.type === 'resource') {
    return {
      ...base,
      namespace: row.namespace,
      sourceId: row.sourceId,
      type: row.resourceType,
      format: row.format,
      size: row.size,
      private: row.ownerId !== '',
      anonymousAccess: row.anonymousAccess,
      url,
    };
  }
  const metadata = publicMetadata(row.metadata);
  const previews = (row.metadata._previews as Record<string, unknown>) ?? {};
  const dto: Record<string, unknown> = {
    ...base,
    folderId: row.folderId === '' ? null : row.folderId,
    private: row.ownerId !== '',
    size: row.size,
    metadata,
    previews,
    url,
  };
  if (row.type === 'design') Object.assign(dto, { hasProblems: row.hasProblems, designType: row.designType ?? 'Psd' });
  if (row.type === 'image') dto.mimeType = row.mimeType;
  if (row.type === 'mockup') {
    dto.type = row.mockupType ?? 'Mockup2D';
    dto.metadata = { format: row.format, linkSourceId: row.linkSourceId, ...metadata };
  }
  return dto;
}

export const toResourceInfo = (row: AssetRow, baseUrl: string) => ({
  id: row.id,
  ownerId: row.ownerId === '' ? null : row.ownerId,
  name: row.name,
  namespace: row.namespace,
  private: row.ownerId !== '',
  url: fileUrl(baseUrl, row),
});

/** Extension of a stored format, for download file names. */
export const EXTENSION: Record<string, string> = {
  psd: 'psd', psb: 'psb', json: 'json', jpeg: 'jpg', png: 'png', svg: 'svg', pdf: 'pdf', glb: 'glb', ttf: 'ttf', otf: 'otf', ttc: 'ttc',
};
