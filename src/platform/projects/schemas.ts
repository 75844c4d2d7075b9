/**
 * Wire DTOs of projects, their items, statuses, transitions and order data, and of storefront
 * users and the tenant (platform contract, "Storefront" and "Back-office").
 */
import { z } from '@hono/zod-openapi';
import { arrayQuery, intQuery, pagedOf, pagingQuery, storedJson } from '../core';
import { PreflightSummaryDto } from '../jobs/schemas';

// --- limits (contract, Reliability) ---------------------------------------------------------------

export const LIMITS = {
  itemsPerProject: 100,
  designIdsPerItem: 20,
  fieldsBytes: 64 * 1024,
  orderDataKeys: 200,
  batchIds: 1000,
  text: 1000,
  ownerId: 256,
} as const;

const text = (max: number = LIMITS.text) => z.string().max(max);
const optText = (max: number = LIMITS.text) => text(max).nullish();
const id = z.string().min(1).max(256);

const jsonBytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v ?? {})).length;
/** `fields`, `hidden`: a JSON object (keys verbatim) of at most 64 KB, nested at most 32 deep. */
const recordField = (name: string) =>
  storedJson(z.record(z.string(), z.unknown()).nullish()).refine((v) => jsonBytes(v) <= LIMITS.fieldsBytes, `${name} must be at most 64 KB of JSON.`);

export const OWNER_ID = z
  .string()
  .min(1)
  .max(LIMITS.ownerId)
  .refine((s) => s.trim().length > 0, 'ownerId must not be blank.')
  .openapi({ description: 'The storefront user who owns the project (created when missing).', example: 'demo-customer' });

export const ORDER_NAME = z
  .string()
  .regex(/^[A-Za-z0-9 ._-]{1,100}$/, 'orderName is 1–100 letters, digits, spaces, dots, underscores or hyphens.')
  .nullish()
  .openapi({ example: 'Order 1001' });

export const PROCESSING_STATUS = z.enum(['Pending', 'InProgress', 'Completed', 'Failed']).openapi('ProjectProcessingStatus');
export const RESOURCE_TYPE = z.enum(['General', 'Preview', 'Hires']).openapi('ProjectItemResourceType');
export const ORDER_DATA_TYPE = z.enum(['PlainText', 'CommaSeparatedList', 'SerializedJson']).openapi('OrderDataType');
/** Rolling windows ending now (ours: the contract names the filter, not its values). */
export const DATE_PERIOD = z.enum(['Today', 'LastDay', 'LastWeek', 'LastMonth', 'LastYear']).openapi('DatePeriod');
/** A project's preflight verdict (issue 21): the worst of its items' results at creation. */
export const PREFLIGHT_VERDICT = z.enum(['ok', 'warnings', 'errors']).openapi('ProjectPreflightVerdict');

// --- projects -------------------------------------------------------------------------------------

export const ProjectItemResourceDto = z
  .object({ resourceId: z.string().nullable(), name: z.string().nullable(), type: RESOURCE_TYPE, url: z.string().optional() })
  .openapi('ProjectItemResourceDto');

export const ProjectItemDto = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    groupId: z.string().nullable(),
    quantity: z.number().int(),
    orderLineItemId: z.string().nullable(),
    orderLineItemIndex: z.number().int().nullable(),
    productReference: z.string().nullable(),
    fields: z.record(z.string(), z.unknown()),
    hidden: z.record(z.string(), z.unknown()),
    designIds: z.array(z.string()),
    sku: z.string().nullable(),
    resources: z.array(ProjectItemResourceDto),
    preflight: PreflightSummaryDto.nullable().openapi({
      description:
        "The preflight of the item's designs with its fields, at creation (issue 21); null when the item has no design or its design could not be checked. Errors do not stop the create: the storefront decides what blocks.",
    }),
  })
  .openapi('ProjectItemDto');

export const ProjectDto = z
  .object({
    id: z.number().int(),
    storefrontId: z.number().int(),
    tenantId: z.number().int(),
    productReference: z.string().nullable(),
    ownerId: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    orderId: z.string().nullable(),
    orderUrl: z.string().nullable(),
    orderNumber: z.number().int().nullable(),
    orderName: z.string().nullable(),
    orderLineItemId: z.string().nullable(),
    orderLineItemIndex: z.number().int().nullable(),
    customerId: z.string().nullable(),
    customerName: z.string().nullable(),
    status: z.number().int().openapi({ description: 'The project status code.' }),
    processingStatus: PROCESSING_STATUS,
    preflight: PREFLIGHT_VERDICT.nullable().openapi({ description: "The worst of the items' preflight results: errors, warnings or ok; null when no item was checked." }),
    created: z.string(),
    lastModified: z.string(),
    items: z.array(ProjectItemDto),
  })
  .openapi('ProjectDto');

export const PagedOfProjectDto = pagedOf(ProjectDto, 'PagedOfProjectDto');

export const ProductSpecifierDto = z
  .object({
    type: z.enum(['ProductSpecification', 'Product', 'ProductLink']),
    id: z.number().int().positive(),
    versionId: z.number().int().positive().nullish(),
    variantId: z.number().int().positive().nullish(),
  })
  .openapi('ProductSpecifierDto');

const ResourceInput = z
  .object({
    resourceId: id.nullish(),
    url: z.string().url().max(2048).nullish(),
    name: optText(255),
    type: RESOURCE_TYPE.default('General'),
  })
  .refine((r) => Boolean(r.resourceId) !== Boolean(r.url), 'Give a resource by resourceId or by url (one of them).');

export const CreateProjectItemDto = z
  .object({
    name: optText(255),
    groupId: optText(255),
    quantity: z.number().int().min(1, 'quantity must be at least 1.').max(1_000_000).nullish(),
    orderLineItemId: optText(255),
    orderLineItemIndex: z.number().int().min(0).nullish(),
    productReference: optText(255),
    productSpecifier: ProductSpecifierDto.nullish(),
    fields: recordField('fields'),
    hidden: recordField('hidden'),
    designIds: z.array(id).max(LIMITS.designIdsPerItem).nullish(),
    sku: optText(255),
    resources: z.array(ResourceInput).max(100).nullish(),
  })
  .openapi('CreateProjectItemDto');
export type CreateProjectItem = z.infer<typeof CreateProjectItemDto>;

const orderFields = {
  orderId: optText(255),
  orderUrl: optText(2048),
  orderNumber: z.number().int().nullish(),
  orderName: ORDER_NAME,
  orderLineItemId: optText(255),
  orderLineItemIndex: z.number().int().min(0).nullish(),
  customerId: optText(255),
  customerName: optText(255),
};

const projectFields = {
  ownerId: OWNER_ID,
  productReference: optText(255),
  name: optText(255),
  description: optText(4000),
  ...orderFields,
};

const items = z.array(CreateProjectItemDto).max(LIMITS.itemsPerProject);

export const CreateSingleItemProjectDto = z
  .object({ ...projectFields, item: CreateProjectItemDto.nullish(), items: items.nullish() })
  .openapi('CreateSingleItemProjectDto');

export const CreateMultipleItemsProjectDto = z
  .object({ ...projectFields, items: items.min(1) })
  .openapi('CreateMultipleItemsProjectDto');

export const OrderDetailsDto = z.object(orderFields).openapi('OrderDetailsDto');

const scenarioProject = {
  ownerId: OWNER_ID,
  productReference: optText(255),
  name: optText(255),
  description: optText(4000),
  orderDetails: OrderDetailsDto.nullish(),
};

export const SpecificPipelineScenarioDto = z
  .object({
    pipelineId: z.number().int().positive().nullish(),
    itemPipelines: z.array(z.object({ itemName: text(255), pipelineId: z.number().int().positive() })).max(LIMITS.itemsPerProject).nullish(),
    postProcessingPipelineId: z.number().int().positive().nullish(),
  })
  .openapi('SpecificPipelineScenarioDto');

export const CreateProjectBySpecificPipelineScenarioDto = z
  .object({ ...scenarioProject, items: items.nullish(), scenario: SpecificPipelineScenarioDto })
  .openapi('CreateProjectBySpecificPipelineScenarioDto');

export const RenderHiResScenarioDto = z
  .object({
    designId: id,
    format: z.enum(['Pdf', 'Png', 'Jpeg', 'Tiff']).default('Pdf'),
    dpi: z.number().int().min(1).max(1200).nullish(),
    colorSpace: z.enum(['Rgb', 'Cmyk', 'Grayscale']).nullish(),
    flipMode: z.enum(['None', 'Horizontal', 'Vertical', 'Both']).nullish(),
    rotateMode: z.enum(['None', 'Rotate90', 'Rotate180', 'Rotate270']).nullish(),
    anonymousAccess: z.boolean().nullish(),
  })
  .openapi('RenderHiResScenarioDto');

export const CreateProjectByRenderHiResScenarioDto = z
  .object({ ...scenarioProject, scenario: RenderHiResScenarioDto })
  .openapi('CreateProjectByRenderHiResScenarioDto');

export const StorefrontIdQuery = z.object({
  storefrontId: intQuery(1, Number.MAX_SAFE_INTEGER, 0).refine((v) => v > 0, 'storefrontId is required.'),
});

export const ListProjectsQuery = pagingQuery(['created', 'lastModified', 'id', 'name', 'status', 'processingStatus', 'orderId']).extend({
  ownerId: z.string().optional(),
  productReference: z.string().optional(),
  status: arrayQuery(z.string().regex(/^-?\d{1,9}$/, 'Expected an integer status code.')),
  datePeriod: DATE_PERIOD.optional(),
  orderId: z.string().optional(),
  processingStatus: arrayQuery(PROCESSING_STATUS),
  preflight: arrayQuery(PREFLIGHT_VERDICT),
  storefrontId: z.string().regex(/^\d{1,15}$/, 'Expected an integer storefront id.').optional(),
});

export const BatchDeleteDto = z.object({ ids: z.array(z.number().int()).max(LIMITS.batchIds) }).openapi('BatchDeleteProjectsDto');
export const BatchDeleteResultDto = z.object({ total: z.number().int(), items: z.array(z.unknown()) }).openapi('BatchDeleteProjectsResultDto');

// --- order data -----------------------------------------------------------------------------------

export const OrderDataItemDto = z
  .object({ key: z.string().min(1).max(255), value: z.string().max(LIMITS.fieldsBytes), type: ORDER_DATA_TYPE.default('PlainText') })
  .openapi('OrderDataItemDto');
export const OrderDataBody = z.array(OrderDataItemDto).max(LIMITS.orderDataKeys);
export const OrderDataQuery = z.object({ itemId: z.string().regex(/^\d{1,15}$/, 'Expected an integer item id.').optional() });

export const ProjectOrderDto = z
  .object({
    orderId: z.string().nullable(),
    orderUrl: z.string().nullable(),
    orderNumber: z.number().int().nullable(),
    orderName: z.string().nullable(),
    customerId: z.string().nullable(),
    customerName: z.string().nullable(),
    data: z.array(z.object({ key: z.string(), value: z.string(), type: ORDER_DATA_TYPE, itemId: z.number().int().nullable() })),
  })
  .openapi('ProjectOrderDto');

// --- statuses and transitions ---------------------------------------------------------------------

export const ProjectStatusDto = z
  .object({ id: z.number().int(), code: z.number().int(), color: z.string().nullable(), displayName: z.string() })
  .openapi('ProjectStatusDto');
export const BackofficeProjectStatusDto = ProjectStatusDto.extend({ isInitial: z.boolean(), isFinal: z.boolean() }).openapi('BackofficeProjectStatusDto');
export const ProjectStatusTransitionDto = z
  .object({ id: z.number().int(), name: z.string(), displayName: z.string(), startStatus: z.number().int(), resultStatus: z.number().int() })
  .openapi('ProjectStatusTransitionDto');

const code = z.number().int().min(-1_000_000_000).max(1_000_000_000);
export const CreateProjectStatusDto = z
  .object({ code, color: optText(64), displayName: text(255).nullish(), isInitial: z.boolean().nullish(), isFinal: z.boolean().nullish() })
  .openapi('CreateProjectStatusDto');
export const UpdateProjectStatusDto = z
  .object({ code: code.nullish(), color: optText(64), displayName: text(255).nullish(), isInitial: z.boolean().nullish(), isFinal: z.boolean().nullish() })
  .openapi('UpdateProjectStatusDto');
const transitionName = z.string().min(1).max(255);
export const CreateProjectTransitionDto = z
  .object({ name: transitionName, displayName: text(255).nullish(), startStatus: code, resultStatus: code })
  .openapi('CreateProjectTransitionDto');
export const UpdateProjectTransitionDto = z
  .object({ name: transitionName.nullish(), displayName: text(255).nullish(), startStatus: code.nullish(), resultStatus: code.nullish() })
  .openapi('UpdateProjectTransitionDto');

export const PagedOfBackofficeProjectStatusDto = pagedOf(BackofficeProjectStatusDto, 'PagedOfBackofficeProjectStatusDto');
export const PagedOfProjectStatusTransitionDto = pagedOf(ProjectStatusTransitionDto, 'PagedOfProjectStatusTransitionDto');

// --- storefront users and the tenant --------------------------------------------------------------

export const StorefrontUserDto = z
  .object({ userId: z.string(), tenantId: z.number().int(), storefrontId: z.number().int(), isAnonymous: z.boolean() })
  .openapi('StorefrontUserDto');
export const PagedOfStorefrontUserDto = pagedOf(StorefrontUserDto, 'PagedOfStorefrontUserDto');
export const CreateStorefrontUserDto = z
  .object({ storefrontUserId: OWNER_ID, isAnonymous: z.boolean().nullish() })
  .openapi('CreateStorefrontUserDto');
export const MergeAnonymousDto = z
  .object({ anonymousStorefrontUserId: OWNER_ID, regularStorefrontUserId: OWNER_ID })
  .openapi('MergeAnonymousStorefrontUserDto');
export const ListStorefrontUsersQuery = pagingQuery(['userId', 'created']).extend({
  storefrontId: StorefrontIdQuery.shape.storefrontId,
  includeAnonymous: z.string().optional(),
});
export const TokenQuery = z.object({
  storefrontId: StorefrontIdQuery.shape.storefrontId,
  storefrontUserId: OWNER_ID,
});

export const StorefrontDto = z
  .object({ id: z.number().int(), tenantId: z.number().int(), name: z.string(), type: z.string(), status: z.enum(['Dev', 'Prod']), created: z.string() })
  .openapi('StorefrontDto');
export const PagedOfStorefrontDto = pagedOf(StorefrontDto, 'PagedOfStorefrontDto');
export const TenantInfoDto = z
  .object({ tenantId: z.number().int(), tenancyName: z.string(), tenantCreationTime: z.string(), isActive: z.boolean() })
  .openapi('TenantInfoDto');
export const TenantUserDto = z
  .object({ userId: z.string(), userName: z.string(), email: z.string().nullable(), role: z.string(), isActive: z.boolean() })
  .openapi('TenantUserDto');

// --- processing results (the runner's, src/platform/jobs) ------------------------------------------

export const OutputFileDetailDto = z
  .object({
    projectItemId: z.number().int().nullable(),
    orderLineItemId: z.string().nullable(),
    orderLineItemIndex: z.number().int().nullable(),
    url: z.string(),
    name: z.string(),
    format: z.string().nullable(),
    artifactId: z.string(),
    anonymousAccess: z.boolean(),
    size: z.number().int(),
  })
  .openapi('OutputFileDetailDto');
export const ProjectProcessingResultsDto = z
  .object({ status: z.string(), statusDescription: z.string().nullable(), outputFileDetails: z.array(OutputFileDetailDto) })
  .openapi('ProjectProcessingResultsDto');
export const ItemIdQuery = z.object({ itemId: z.string().regex(/^\d{1,15}$/, 'Expected an integer item id.').optional() });
