/**
 * Wire DTOs of the catalogue (platform contract, "Storefront" and "Back-office"): products and
 * their options, variants and connections, references, links, specifications, bundles,
 * personalization workflows, processing pipelines, storefronts, tenant settings and secrets.
 */
import { z } from '@hono/zod-openapi';
import { arrayQuery, boolQuery, customFieldsQuery, intQuery, pagedOf, pagingQuery, storedJson } from '../core';

export const CATALOGUE_LIMITS = {
  /** Options of a product, values of an option, variants of a version ("collections 500"). */
  options: 50,
  values: 500,
  variants: 500,
  connections: 500,
  bundleItems: 500,
  attributes: 500,
  batch: 1000,
  name: 255,
  text: 4000,
  tags: 100,
  customKeys: 100,
  customValueBytes: 4096,
  workflowBytes: 1024 * 1024,
  secretBytes: 64 * 1024,
} as const;

const name = z.string().trim().min(1).max(CATALOGUE_LIMITS.name);
const optText = z.string().max(CATALOGUE_LIMITS.text).nullish();
const intId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const optIntId = intId.nullish();

const customFields = storedJson(z.record(z.string().max(256), z.unknown()).nullish())
  .refine((v) => !v || Object.keys(v).length <= CATALOGUE_LIMITS.customKeys, `At most ${CATALOGUE_LIMITS.customKeys} custom fields.`)
  .refine(
    (v) => !v || Object.values(v).every((x) => JSON.stringify(x ?? null).length <= CATALOGUE_LIMITS.customValueBytes),
    'A custom field value is at most 4 KB of JSON.',
  );
const tags = z.array(z.string().min(1).max(CATALOGUE_LIMITS.name)).max(CATALOGUE_LIMITS.tags).nullish();

export const OPTION_TYPE = z.enum(['Simple', 'Size', 'PageCount']).openapi('ProductOptionType');
export const REFERENCE_TYPE = z.enum(['ProductSpecification', 'Product', 'ProductLink', 'ProductBundle']).openapi('ProductReferenceType');
export const WORKFLOW_TYPE = z.enum(['UIFramework', 'SimpleEditor', 'DesignEditor', 'WorkflowElements']).openapi('PersonalizationWorkflowType');
export const MOCKUP_VALIDATION_TYPE = z.enum(['Mockup3D', 'MockupLink', 'Mockup2D']).openapi('MockupValidationType');
export const STOREFRONT_STATUS = z.enum(['Dev', 'Prod']).openapi('StorefrontStatus');

// --- products ---------------------------------------------------------------------------------------

export const OptionValueInput = z.object({
  uid: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/).nullish().openapi({ description: 'Keep a value across versions (GET options shows it); omitted = a new value.' }),
  title: name,
  value: optText,
  description: optText,
  isDefault: z.boolean().nullish(),
  tag: optText,
});

export const OptionInput = z
  .object({
    uid: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/).nullish().openapi({ description: 'Keep an option across versions; omitted = a new option.' }),
    title: name,
    type: OPTION_TYPE.nullish(),
    traits: storedJson(z.array(z.unknown()).max(100).nullish(), 64 * 1024),
    tag: optText,
    values: z.array(OptionValueInput).min(1).max(CATALOGUE_LIMITS.values),
    useForDesignBinding: z.boolean().nullish(),
    useForMockupBinding: z.boolean().nullish(),
  })
  .openapi('ProductOptionInputDto');
export type OptionInput = z.infer<typeof OptionInput>;

const productFields = {
  name,
  description: optText,
  personalizationWorkflowId: optIntId,
  processingPipelineId: optIntId,
  tags,
  customFields,
  options: z.array(OptionInput).max(CATALOGUE_LIMITS.options).nullish(),
};
export const CreateProductDto = z.object(productFields).openapi('CreateProductDto');
export type CreateProduct = z.infer<typeof CreateProductDto>;
export const UpdateProductDto = z
  .object({ ...productFields, name: name.optional() })
  .openapi('UpdateProductDto', { description: 'Fields given replace the product\'s; `options` given make a new version.' });
export type UpdateProduct = z.infer<typeof UpdateProductDto>;

export const ProductImageDto = z.object({ resourceId: z.string(), url: z.string() }).openapi('ProductImageDto');

export const ProductDto = z
  .object({
    id: z.number().int(),
    productVersionId: z.number().int(),
    tenantId: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    image: ProductImageDto.nullable(),
    tags: z.array(z.string()),
    customFields: z.record(z.string(), z.unknown()),
    personalizationWorkflowId: z.number().int().nullable(),
    processingPipelineId: z.number().int().nullable(),
    storefrontId: z.number().int().nullable(),
    storefrontProductId: z.string().nullable(),
    storefrontProductName: z.string().nullable(),
    created: z.string(),
    lastModified: z.string(),
  })
  .openapi('ProductDto');
export const PagedOfProductDto = pagedOf(ProductDto, 'PagedOfProductDto');

export const ProductOptionValueDto = z
  .object({ id: z.number().int(), title: z.string(), value: z.string().nullable(), description: z.string().nullable(), sortIndex: z.number().int(), isDefault: z.boolean(), tag: z.string().nullable(), uid: z.string() })
  .openapi('ProductOptionValueDto');
export const ProductOptionDto = z
  .object({
    id: z.number().int(),
    productVersionId: z.number().int(),
    productId: z.number().int(),
    type: OPTION_TYPE,
    title: z.string(),
    traits: z.array(z.unknown()),
    sortIndex: z.number().int(),
    tag: z.string().nullable(),
    uid: z.string(),
    useForDesignBinding: z.boolean(),
    useForMockupBinding: z.boolean(),
    productOptionValues: z.array(ProductOptionValueDto),
  })
  .openapi('ProductOptionDto');
export const PagedOfProductOptionDto = pagedOf(ProductOptionDto, 'PagedOfProductOptionDto');
export const SetOptionsDto = z.object({ options: z.array(OptionInput).max(CATALOGUE_LIMITS.options) }).openapi('SetProductOptionsDto');

export const ProductVariantOptionDto = z
  .object({ productOptionId: z.number().int(), productOptionValueId: z.number().int(), productOptionType: OPTION_TYPE, productOptionTitle: z.string(), productOptionValueTitle: z.string() })
  .openapi('ProductVariantOptionDto');
const variantFields = {
  productVersionId: z.number().int(),
  productId: z.number().int(),
  tenantId: z.number().int(),
  isAvailable: z.boolean(),
  price: z.number().nullable(),
  weight: z.number().nullable(),
  sortIndex: z.number().int(),
  storefrontProductVariantId: z.string().nullable(),
  sku: z.string().nullable(),
  productVariantOptions: z.array(ProductVariantOptionDto),
};
export const ProductVariantDto = z.object({ id: z.number().int(), uid: z.string(), ...variantFields }).openapi('ProductVariantDto');
export const PagedOfProductVariantDto = pagedOf(ProductVariantDto, 'PagedOfProductVariantDto');
export const ProductVariantDesignDto = z
  .object({
    productVariantId: z.number().int(),
    productVariantUID: z.string(),
    ...variantFields,
    designId: z.string(),
    designName: z.string(),
    designGroup: z.string().nullable(),
    personalizationWorkflowId: z.number().int().nullable(),
  })
  .openapi('ProductVariantDesignDto');
export const PagedOfProductVariantDesignDto = pagedOf(ProductVariantDesignDto, 'PagedOfProductVariantDesignDto');
export const ProductVariantMockupDto = z
  .object({
    productVariantId: z.number().int(),
    productVariantUID: z.string(),
    ...variantFields,
    mockupId: z.string(),
    mockupName: z.string(),
    mockupValidationType: MOCKUP_VALIDATION_TYPE,
    personalizationWorkflowId: z.number().int().nullable(),
  })
  .openapi('ProductVariantMockupDto');
export const PagedOfProductVariantMockupDto = pagedOf(ProductVariantMockupDto, 'PagedOfProductVariantMockupDto');

const ConnectionOptionDto = z.object({ optionUID: z.string().min(1).max(64), optionValueUIDs: z.array(z.string().min(1).max(64)).max(CATALOGUE_LIMITS.values) });
export const DesignConnectionDto = z
  .object({ designId: z.string().min(1).max(64), designGroup: z.string().max(CATALOGUE_LIMITS.name).nullish(), options: z.array(ConnectionOptionDto).max(CATALOGUE_LIMITS.options).nullish() })
  .openapi('DesignConnectionDto');
export const MockupConnectionDto = z
  .object({ mockupId: z.string().min(1).max(64), options: z.array(ConnectionOptionDto).max(CATALOGUE_LIMITS.options).nullish() })
  .openapi('MockupConnectionDto');
export const DesignConnectionsDto = z
  .object({ connections: z.array(DesignConnectionDto).min(1).max(CATALOGUE_LIMITS.connections) })
  .openapi('DesignConnectionsDto', { description: 'Empty `options` = every variant. Adding a design and group already connected replaces its options.' });
export const MockupConnectionsDto = z
  .object({ connections: z.array(MockupConnectionDto).min(1).max(CATALOGUE_LIMITS.connections) })
  .openapi('MockupConnectionsDto', { description: 'Empty `options` = every variant.' });
export type DesignConnectionInput = z.infer<typeof DesignConnectionDto>;
export type MockupConnectionInput = z.infer<typeof MockupConnectionDto>;

const variantValue = <T extends z.ZodType>(value: T) =>
  z.array(z.object({ productVariantId: intId, value })).min(1).max(CATALOGUE_LIMITS.batch);
export const SET_VARIANT = {
  sku: variantValue(z.string().max(CATALOGUE_LIMITS.name).nullable()).openapi('SetVariantSkuDto'),
  price: variantValue(z.number().min(0).max(1e12).nullable()).openapi('SetVariantPriceDto'),
  weight: variantValue(z.number().min(0).max(1e12).nullable()).openapi('SetVariantWeightDto'),
  availability: variantValue(z.boolean()).openapi('SetVariantAvailabilityDto'),
} as const;
export type VariantField = keyof typeof SET_VARIANT;

export const VersionQuery = z.object({
  productVersionId: z.string().regex(/^\d{1,15}$/, 'Expected a product version id.').optional().openapi({ description: 'A version of the product; omitted = the current one.' }),
});
export const ProductListQuery = pagingQuery(['id', 'name', 'created', 'lastModified']).extend({
  sku: z.string().max(CATALOGUE_LIMITS.name).optional().openapi({ description: "Products whose current version has a variant with this SKU." }),
  tags: arrayQuery(z.string().max(CATALOGUE_LIMITS.name)).openapi({ description: 'Products with every tag given (repeat: tags=a&tags=b).' }),
});
export const VariantListQuery = VersionQuery.extend({
  skip: intQuery(0, Number.MAX_SAFE_INTEGER, 0),
  take: intQuery(0, 1000, 100),
  sku: z.string().max(CATALOGUE_LIMITS.name).optional().openapi({ description: 'Case-insensitive substring of the SKU.' }),
  options: customFieldsQuery.openapi({ type: 'string', description: 'JSON object: option title (or uid) → value title (or uid); variants with all of them.', example: '{"Paper":"Matte"}' }),
  takeAvailableOnly: boolQuery(false),
});
export const VariantDesignsQuery = VariantListQuery.extend({
  productVariantId: z.string().regex(/^\d{1,15}$/).optional(),
  search: z.string().max(CATALOGUE_LIMITS.name).optional().openapi({ description: 'Case-insensitive substring of the design name.' }),
  designPath: z.string().max(4096).optional().openapi({ description: 'Designs in this folder path (e.g. /cards/).' }),
  designCustomFields: customFieldsQuery,
});
export const VariantMockupsQuery = VariantListQuery.extend({
  productVariantId: z.string().regex(/^\d{1,15}$/).optional(),
  search: z.string().max(CATALOGUE_LIMITS.name).optional().openapi({ description: 'Case-insensitive substring of the mockup name.' }),
  mockupValidationType: MOCKUP_VALIDATION_TYPE.optional(),
});

// --- workflows and pipelines -----------------------------------------------------------------------

export const PersonalizationWorkflowDto = z
  .object({ id: z.number().int(), name: z.string(), content: z.string(), workflowType: WORKFLOW_TYPE, created: z.string(), lastModified: z.string() })
  .openapi('PersonalizationWorkflowDto');
export const PagedOfPersonalizationWorkflowDto = pagedOf(PersonalizationWorkflowDto, 'PagedOfPersonalizationWorkflowDto');
export const WorkflowInput = z
  .object({ name: z.string().max(CATALOGUE_LIMITS.name).nullish(), content: z.string().max(CATALOGUE_LIMITS.workflowBytes), workflowType: WORKFLOW_TYPE })
  .openapi('PersonalizationWorkflowInputDto');
export type WorkflowInput = z.infer<typeof WorkflowInput>;

export const ProcessingPipelineDto = z
  .object({ id: z.number().int(), name: z.string(), rawContent: z.string(), created: z.string(), lastModified: z.string() })
  .openapi('ProcessingPipelineDto');
export const PagedOfProcessingPipelineDto = pagedOf(ProcessingPipelineDto, 'PagedOfProcessingPipelineDto');
export const PipelineInput = z
  .object({ name, rawContent: z.string().openapi({ description: 'The pipeline JSON as a string (docs/pipelines.md); validated on save.' }) })
  .openapi('ProcessingPipelineInputDto');
export type PipelineInput = z.infer<typeof PipelineInput>;

// --- links, specifications, bundles --------------------------------------------------------------------

const attached = { personalizationWorkflowId: optIntId, processingPipelineId: optIntId };
const attachedOut = { personalizationWorkflowId: z.number().int().nullable(), processingPipelineId: z.number().int().nullable() };
const stamps = { created: z.string(), lastModified: z.string() };

export const ProductLinkInput = z
  .object({ name, description: optText, productId: intId, productVersionId: optIntId, ...attached })
  .openapi('ProductLinkInputDto');
export type ProductLinkInput = z.infer<typeof ProductLinkInput>;
export const ProductLinkDto = z
  .object({ id: z.number().int(), name: z.string(), description: z.string().nullable(), productId: z.number().int(), productVersionId: z.number().int().nullable(), ...attachedOut, ...stamps })
  .openapi('ProductLinkDto');
export const PagedOfProductLinkDto = pagedOf(ProductLinkDto, 'PagedOfProductLinkDto');

const ProductAttribute = z.object({ name: z.string().min(1).max(CATALOGUE_LIMITS.name), type: z.string().max(64).nullish(), value: storedJson(z.unknown(), 64 * 1024) });
export const ProductSpecificationInput = z
  .object({ name, description: optText, productAttributes: z.array(ProductAttribute).max(CATALOGUE_LIMITS.attributes).nullish(), ...attached })
  .openapi('ProductSpecificationInputDto');
export type ProductSpecificationInput = z.infer<typeof ProductSpecificationInput>;
export const ProductSpecificationDto = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    productAttributes: z.array(z.object({ name: z.string(), type: z.string().nullable(), value: z.unknown() })),
    ...attachedOut,
    ...stamps,
  })
  .openapi('ProductSpecificationDto');
export const PagedOfProductSpecificationDto = pagedOf(ProductSpecificationDto, 'PagedOfProductSpecificationDto');

const BundleItem = z
  .object({ productId: optIntId, productLinkId: optIntId })
  .refine((i) => (i.productId == null) !== (i.productLinkId == null), 'A bundle item names a productId or a productLinkId (one of them).');
export const ProductBundleInput = z
  .object({ name, description: optText, items: z.array(BundleItem).max(CATALOGUE_LIMITS.bundleItems).nullish(), ...attached })
  .openapi('ProductBundleInputDto');
export type ProductBundleInput = z.infer<typeof ProductBundleInput>;
export const ProductBundleDto = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    items: z.array(z.object({ productId: z.number().int().nullable(), productLinkId: z.number().int().nullable() })),
    ...attachedOut,
    ...stamps,
  })
  .openapi('ProductBundleDto');
export const PagedOfProductBundleDto = pagedOf(ProductBundleDto, 'PagedOfProductBundleDto');

export const EntityListQuery = pagingQuery(['id', 'name', 'created', 'lastModified']);

// --- references ------------------------------------------------------------------------------------------

export const StorefrontQuery = z.object({
  storefrontId: z.string().regex(/^\d{1,15}$/, 'Expected a storefront id.').openapi({ description: 'The storefront (required).', example: '1' }),
});
export const ProductReferenceInput = z
  .object({
    productReference: z.string().trim().min(1).max(CATALOGUE_LIMITS.name),
    productReferenceType: REFERENCE_TYPE,
    productReferenceName: z.string().max(CATALOGUE_LIMITS.name).nullish(),
    productId: optIntId,
    productVersionId: optIntId,
    productLinkId: optIntId,
    productSpecificationId: optIntId,
    productBundleId: optIntId,
  })
  .openapi('CreateProductReferenceDto');
export type ProductReferenceInput = z.infer<typeof ProductReferenceInput>;
export const ProductReferenceDto = z
  .object({
    productReference: z.string(),
    productReferenceType: REFERENCE_TYPE,
    productReferenceName: z.string().nullable(),
    productSpecificationId: z.number().int().nullable(),
    productId: z.number().int().nullable(),
    productVersionId: z.number().int().nullable(),
    productLinkId: z.number().int().nullable(),
    productBundleId: z.number().int().nullable(),
    storefrontId: z.number().int(),
    tenantId: z.number().int(),
    created: z.string(),
  })
  .openapi('ProductReferenceDto');
export const PagedOfProductReferenceDto = pagedOf(ProductReferenceDto, 'PagedOfProductReferenceDto');
export const ReferenceListQuery = StorefrontQuery.extend(pagingQuery(['productReference', 'productReferenceName', 'created']).shape).extend({
  productReferenceType: REFERENCE_TYPE.optional(),
  tags: arrayQuery(z.string().max(CATALOGUE_LIMITS.name)).openapi({ description: "References whose product has every tag given." }),
  sku: z.string().max(CATALOGUE_LIMITS.name).optional().openapi({ description: "References whose product has a variant with this SKU." }),
  productIds: arrayQuery(z.string().regex(/^\d{1,15}$/)).openapi({ description: 'References to these products.' }),
});

export const PersonalizationParametersDto = z
  .object({
    productReference: z.string().nullable(),
    productId: z.number().int().nullable(),
    productVersionId: z.number().int().nullable(),
    productLinkId: z.number().int().nullable(),
    productSpecificationId: z.number().int().nullable(),
    productBundleId: z.number().int().nullable(),
    personalizationWorkflow: PersonalizationWorkflowDto.nullable(),
    processingPipelineId: z.number().int().nullable(),
    designs: z.array(z.object({ designId: z.string(), designName: z.string(), designGroup: z.string().nullable(), productVariantId: z.number().int() })),
    mockups: z.array(z.object({ mockupId: z.string(), mockupName: z.string(), mockupValidationType: MOCKUP_VALIDATION_TYPE, productVariantId: z.number().int() })),
  })
  .openapi('PersonalizationParametersDto');

// --- storefronts, tenant settings, secrets ------------------------------------------------------------------

export const StorefrontDto = z
  .object({ id: z.number().int(), tenantId: z.number().int(), name: z.string(), type: z.string(), status: STOREFRONT_STATUS, created: z.string() })
  .openapi('StorefrontDto');
export const PagedOfStorefrontDto = pagedOf(StorefrontDto, 'PagedOfStorefrontDto');
export const CreateStorefrontDto = z.object({ name, status: STOREFRONT_STATUS.nullish() }).openapi('CreateCustomStorefrontDto');
export const StorefrontListQuery = pagingQuery(['id', 'name', 'created']);

export const TenantSettingsDto = z
  .object({
    startProcessingOnStatus: z.number().int().nullable().openapi({ description: 'A status code: processing starts the first time a project enters it; null = at creation.' }),
    enableAssetsRetention: z.boolean(),
    assetsRetentionPeriodInDays: z.number().int(),
    allowSelfCalls: z.boolean().openapi({ description: "Pipelines may call the platform's own origins (ISSUER, PUBLIC_BASE_URL); off by default. Project creation past hop depth 3 is refused either way." }),
    defaultCmykColorProfile: z.string().optional().openapi({ description: 'Default CMYK output profile (a colour-profile name); absent: the shipped default.' }),
    defaultRgbColorProfile: z.string().optional().openapi({ description: 'Default RGB output profile; absent: sRGB.' }),
    defaultGrayscaleColorProfile: z.string().optional().openapi({ description: 'Default grey output profile; absent: the shipped grey profile.' }),
  })
  .openapi('TenantSettingsDto');
export const UpdateTenantSettingsDto = z
  .object({
    startProcessingOnStatus: z.number().int().min(-2147483648).max(2147483647).nullish(),
    enableAssetsRetention: z.boolean().nullish(),
    assetsRetentionPeriodInDays: z.number().int().min(1).max(36500).nullish(),
    allowSelfCalls: z.boolean().nullish(),
    defaultCmykColorProfile: z.string().min(1).max(200).nullish().openapi({ description: 'A CMYK colour profile of the tenant, by name; null clears.' }),
    defaultRgbColorProfile: z.string().min(1).max(200).nullish(),
    defaultGrayscaleColorProfile: z.string().min(1).max(200).nullish(),
  })
  .openapi('UpdateTenantSettingsDto', { description: 'Fields given replace the current values; `startProcessingOnStatus: null` clears it.' });
export type TenantSettingsChange = z.infer<typeof UpdateTenantSettingsDto>;

export const TenantSecretInput = z
  .object({ value: z.string().min(1).max(CATALOGUE_LIMITS.secretBytes) })
  .openapi('TenantSecretDto', { description: 'Write-only: the value is never returned.' });
