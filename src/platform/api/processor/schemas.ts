/** Request and response schemas of /api/processor/v1. */
import { z } from '@hono/zod-openapi';

const owner = z.string().optional().openapi({ description: 'The private owner (1–256 characters).' });
export const OwnerQuery = z.object({ ownerId: owner });
const NoQuery = z.object({});
/** The query of a collection's routes: `ownerId` for the private collections, none for the public ones. */
export const ownerQueryOf = (kind: { private: boolean }) => (kind.private ? OwnerQuery : NoQuery);
export const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
export const PageParams = z.object({ id: z.string(), pageIndex: z.string().openapi({ description: '0-based page index.' }) });

export const CheckDto = z.object({ hasProblems: z.boolean(), missingFonts: z.array(z.string()) }).openapi('DesignCheckDto');

const pt = z.number().finite();
export const CountBody = z
  .object({
    sheetWidth: pt.positive(),
    sheetHeight: pt.positive(),
    margin: z.object({ left: pt.min(0).optional(), top: pt.min(0).optional(), right: pt.min(0).optional(), bottom: pt.min(0).optional() }).optional(),
    gapX: pt.min(0).optional(),
    gapY: pt.min(0).optional(),
    bleed: pt.min(0).optional().openapi({ description: 'Default: the largest bleed of the print areas.' }),
    allowRotation: z.boolean().optional(),
    surfaceIndex: z.number().int().min(0).optional(),
  })
  .openapi('CalculateCountPerSheetDto');
export const CountDto = z
  .object({ count: z.number().int(), columns: z.number().int(), rows: z.number().int(), rotated: z.boolean(), itemWidth: z.number(), itemHeight: z.number() })
  .openapi('CountPerSheetDto');

export const ArtworkLayerDto = z
  .object({ name: z.string(), index: z.number().int(), width: z.number(), height: z.number(), corners: z.array(z.number()) })
  .openapi('ArtworkLayerDto');
export const MockupGroupDto = z.object({ name: z.string(), layers: z.array(z.string()) }).openapi('MockupGroupDto');
export const MockupLinkBody = z.object({ artworkLayer: z.string().min(1), name: z.string().optional(), path: z.string().optional() }).openapi('CreateMockupLinkDto');
export const BatchMockupLinksBody = z
  .union([z.array(MockupLinkBody).min(1).max(100), z.object({ links: z.array(MockupLinkBody).min(1).max(100) })])
  .openapi('BatchCreateMockupLinksDto');

export const DesignParams = z
  .object({ name: z.string().optional(), path: z.string().optional(), customFields: z.record(z.string(), z.unknown()).optional(), ownerId: owner })
  .optional();
export const FromMockupBody = z.object({ mockupId: z.string().min(1), mockupOwnerId: owner, designParams: DesignParams, ownerId: owner }).openapi('DesignFromMockupDto');
export const FromDesignQuery = z.object({ designId: z.string().min(1), ownerId: owner, privateDesignId: z.string().optional(), name: z.string().optional(), path: z.string().optional() });
export const FromResourceQuery = z.object({
  resourceId: z.string().min(1),
  resourceOwnerId: owner,
  ownerId: owner,
  privateDesignId: z.string().optional(),
  name: z.string().optional(),
  path: z.string().optional(),
});
export const PreviewQuery = z.object({ width: z.string().optional(), height: z.string().optional(), format: z.string().optional(), ownerId: owner });
export const PreviewWithMockupBody = z.object({ mockupId: z.string(), mockupOwnerId: owner }).openapi('PagePreviewWithMockupDto');
