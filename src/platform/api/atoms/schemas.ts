/** Request and response schemas of /api/atoms/v1 (contract, "Design atoms"). */
import { z } from '@hono/zod-openapi';
import { OutputColorSpaceValue, PdfFormatValue } from '../../../dynamic-image/schemas';

const owner = z.string().optional().openapi({ description: 'The private owner (1–256 characters).' });
const MAX_SIDE = 10_000;

/**
 * A PrintProduct model. Checked by the model's one validator (every problem at once by JSON
 * path, fonts against the tenant's and the instance's stores), not by this schema, so it is
 * declared as an object here. docs/design-atoms.md describes it with an example.
 */
export const ModelJson = z.record(z.string(), z.unknown()).openapi('PrintProductModel', {
  description: 'A PrintProduct design model `{version: 1, surfaces: [...]}` (docs/design-atoms.md).',
  example: { version: 1, surfaces: [{ width: 252, height: 144, printAreas: [{ bounds: { x: 0, y: 0, width: 252, height: 144 } }], containers: [{ items: [] }] }] },
});
export const EntityJson = z.record(z.string(), z.unknown()).openapi('PrintProductEntity', { description: 'A surface, container, item or print area of the model.' });

export const OwnerQuery = z.object({ ownerId: owner });
export const CreateQuery = z.object({ privateStorageOwner: owner });
export const CreateDesignBody = z
  .object({ product: ModelJson, name: z.string().min(1).max(255), path: z.string().max(1024).optional() })
  .openapi('CreatePrintProductDesignDto');

export const VariableInfo = z.object({ name: z.string(), value: z.string(), type: z.string().optional() }).openapi('VariableInfo');
export const VariablesDto = z
  .object({
    items: z.array(
      z.object({
        name: z.string(),
        value: z.string(),
        type: z.enum(['Text', 'Image', 'Barcode']),
        constraints: z.object({ allowedFolder: z.string().optional(), maxLength: z.number().int().optional(), required: z.boolean() }),
      }),
    ),
  })
  .openapi('DesignVariablesDto');
export const ItemsDataBody = z
  .object({ itemsData: z.record(z.string(), z.record(z.string(), z.unknown())) })
  .openapi('ApplyItemsDataDto', { example: { itemsData: { Title: { text: 'Hello', color: '#336699' }, Badge: { visible: false } } } });

const side = (d: number) => z.number().int().min(1).max(MAX_SIDE).optional().openapi({ description: `Pixels (default ${d}).` });
const fileFormat = z.enum(['Jpeg', 'Png']).optional();

export const PreviewConfig = z
  .object({
    width: side(800),
    height: side(800),
    fileFormat,
    jpegQuality: z.number().int().min(1).max(100).optional(),
    surfaceIndex: z.number().int().min(0).optional(),
    stub: z.boolean().optional(),
    visualizePrintAreas: z.boolean().optional(),
    mockupStrategy: z.enum(['Auto', 'None', 'DesignMockups', 'SpecifiedMockup']).optional(),
  })
  .openapi('DesignPreviewRenderingConfig');
export const ProofConfig = z
  .object({
    width: side(1200),
    height: side(1200),
    fileFormat: z.enum(['Jpeg', 'Png', 'Pdf']).optional(),
    jpegQuality: z.number().int().min(1).max(100).optional(),
    surfaceIndex: z.number().int().min(0).optional().openapi({ description: 'Absent: PDF proofs have every surface; images the first.' }),
    pdfTextOutputMode: z.enum(['Outlines', 'Text']).optional(),
    // PDF proofs' print colour, named as the Dynamic Image API names it (issue 20); none: RGB as before.
    colorSpace: OutputColorSpaceValue.optional(),
    colorProfile: z.string().min(1).max(255).optional().openapi({ description: 'Output ICC profile by name (a colour-profile asset or a shipped default); needs `colorSpace`.' }),
    pdfFormat: PdfFormatValue.optional(),
    renderingIntent: z.enum(['Perceptual', 'RelativeColorimetric', 'Saturation', 'AbsoluteColorimetric']).optional(),
    keepOriginalColors: z.boolean().optional().openapi({ description: '`cmyk()` colours and CMYK pictures go into CMYK output unchanged (default true).' }),
  })
  .openapi('DesignProofRenderingConfig');

const resourceFields = {
  resourceName: z.string().min(1).max(255).optional(),
  resourceNamespace: z.string().max(255).optional(),
  resourceOwnerId: owner,
  resourceSourceId: z.string().max(255).optional(),
  resourceType: z.string().max(255).optional(),
  anonymousAccess: z.boolean().optional(),
  overwriteExistingResource: z.boolean().optional(),
};

const designRender = {
  designId: z.string().min(1),
  ownerId: owner,
  variableData: z.array(VariableInfo).max(1000).optional(),
};
export const PreviewBody = z.object({ ...designRender, mockupId: z.string().optional(), mockupOwnerId: owner, renderingConfig: PreviewConfig.optional() }).openapi('DesignRenderPreviewDto');
export const ProofBody = z.object({ ...designRender, renderingConfig: ProofConfig.optional() }).openapi('DesignRenderProofDto');
export const PreviewToResourceBody = PreviewBody.extend(resourceFields).openapi('DesignRenderPreviewToResourceDto');
export const ProofToResourceBody = ProofBody.extend(resourceFields).openapi('DesignRenderProofToResourceDto');

// --- preflight (issue 21) -------------------------------------------------------------------------

export const PreflightBody = z
  .object({ variableData: z.array(VariableInfo).max(1000).optional().openapi({ description: 'Values of the variables, as renders take them.' }) })
  .openapi('DesignPreflightDto');
/** `{ok, problems}`: the rendering API's preflight report, one schema for both (issue 21). */
export { PreflightReportModel as PreflightReportDto } from '../../../dynamic-image/schemas';

export const ImageConfig = z
  .object({
    width: side(800),
    height: side(800),
    fileFormat,
    jpegQuality: z.number().int().min(1).max(100).optional(),
    fitMode: z.enum(['Fit', 'Fill']).optional(),
    pageIndex: z.number().int().min(0).optional(),
  })
  .openapi('ImagePreviewRenderingConfig');
const imageRender = { mockupId: z.string().optional(), mockupOwnerId: owner, renderingConfig: ImageConfig.optional() };
export const ImagePreviewBody = z.object({ imageId: z.string().min(1), ownerId: owner, ...imageRender }).openapi('ImageRenderPreviewDto');
export const ImageUrlBody = z
  .object({ url: z.string().min(1).max(8192), headers: z.record(z.string(), z.string()).optional(), ...imageRender })
  .openapi('ImageRenderPreviewFromUrlDto');
export const ImagePreviewToResourceBody = ImagePreviewBody.extend(resourceFields).openapi('ImageRenderPreviewToResourceDto');
export const ImageUrlToResourceBody = ImageUrlBody.extend(resourceFields).openapi('ImageRenderPreviewFromUrlToResourceDto');

export const ResourceFieldsDoc = Object.keys(resourceFields);

export const EmptyProductBody = z
  .object({ surfaces: z.array(z.object({ width: z.number().positive().max(14_400), height: z.number().positive().max(14_400), name: z.string().max(255).optional() })).min(1).max(50) })
  .openapi('CreateEmptyPrintProductDto');
export const FromStorageBody = z
  .object({
    items: z
      .array(z.object({ imageId: z.string().min(1), ownerId: owner, x: z.number().finite().optional(), y: z.number().finite().optional(), name: z.string().max(255).optional() }))
      .min(1)
      .max(100),
  })
  .openapi('CreateItemsFromStorageDto');
export const FromUrlBody = z
  .object({
    items: z
      .array(z.object({ url: z.string().min(1).max(8192), headers: z.record(z.string(), z.string()).optional(), x: z.number().finite().optional(), y: z.number().finite().optional(), name: z.string().max(255).optional() }))
      .min(1)
      .max(20),
  })
  .openapi('CreateItemsFromUrlDto');
export const ItemsDto = z.object({ items: z.array(EntityJson) }).openapi('PrintProductItemsDto');
export const EffectsBody = z
  .object({ item: EntityJson, effects: z.object({ recolor: z.string().nullable().optional() }) })
  .openapi('ApplyItemEffectsDto');
export const ExtractBody = z
  .object({ designId: z.string().optional(), ownerId: owner, itemId: z.string().optional(), item: EntityJson.optional(), outputType: z.enum(['Jpeg', 'Png']).optional() })
  .openapi('ExtractImageDto');
export const ExtractToResourceBody = ExtractBody.extend(resourceFields).openapi('ExtractImageToResourceDto');

// --- CRUD under /designs/{id}/print-product/ ------------------------------------------------------

const placement = {
  index: z.coerce.number().int().min(0).optional().openapi({ description: 'Position in its list (0 = bottom); absent: on top.' }),
};
export const SurfaceQuery = z.object({ ownerId: owner, surfaceId: z.string().optional() });
export const ItemsQuery = z.object({ ownerId: owner, surfaceId: z.string().optional(), containerId: z.string().optional(), parentItemId: z.string().optional() });
export const CreateSurfaceQuery = z.object({ ownerId: owner, ...placement });
export const CreateInSurfaceQuery = z.object({ ownerId: owner, surfaceId: z.string().optional().openapi({ description: 'Default: the first surface.' }), ...placement });
export const CreateItemQuery = z.object({
  ownerId: owner,
  surfaceId: z.string().optional(),
  containerId: z.string().optional().openapi({ description: 'Default: the top container of the surface.' }),
  parentItemId: z.string().optional().openapi({ description: 'A Group to add the item to.' }),
  ...placement,
  top: z.coerce.number().finite().optional().openapi({ description: 'The item\'s y (points).' }),
  left: z.coerce.number().finite().optional().openapi({ description: 'The item\'s x (points).' }),
});

export const SurfaceDto = z.record(z.string(), z.unknown()).openapi('DesignSurfaceDto', { description: 'A surface without its print areas and containers (`/model`: with them).' });
export const ContainerDto = z.record(z.string(), z.unknown()).openapi('DesignSurfaceContainerDto', { description: 'A container without its items (`/model`: with them), plus `surfaceId`.' });
export const ItemDto = z.record(z.string(), z.unknown()).openapi('DesignSurfaceItemDto', { description: 'An item (a Group without its children; `/model`: with them), plus `surfaceId`, `containerId`, `parentItemId`.' });
export const PrintAreaDto = z.record(z.string(), z.unknown()).openapi('DesignPrintAreaDto', { description: 'A print area plus `surfaceId`.' });
export const ListOf = (Dto: z.ZodTypeAny, name: string) => z.object({ total: z.number().int(), items: z.array(Dto) }).openapi(name);

export const MockupDto = z
  .object({ source: z.record(z.string(), z.unknown()), x: z.number(), y: z.number(), width: z.number(), height: z.number() })
  .openapi('DesignSurfaceMockupDto');
