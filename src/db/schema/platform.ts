/**
 * D1 tables of the platform APIs (docs/platform.md, "Tables"). Every table has `tenant_id`, and
 * it leads every primary key, unique index and index, so every query starts from the tenant.
 *
 * - Assets, folders, artifacts and jobs have text ids (24 hex, or a client id for assets and
 *   jobs): PRIMARY KEY (tenant_id, id).
 * - Storefront and back-office entities have integer ids from global sequences
 *   (`INTEGER PRIMARY KEY AUTOINCREMENT`, which SQLite only allows as the whole key), each with a
 *   unique (tenant_id, id) index that the queries use (`WHERE tenant_id = ? AND id = ?`).
 * - Times are Unix milliseconds (DTOs: ISO 8601 UTC with ms); JSON columns hold camelCase JSON.
 * - Names compared ignoring case (assets, folders, secrets) are indexed `COLLATE NOCASE`.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const tenantId = () => integer('tenant_id').notNull();
const created = () => integer('created').notNull().default(sql`(CAST(unixepoch('subsec') * 1000 AS INTEGER))`);
const lastModified = () => integer('last_modified').notNull().default(sql`(CAST(unixepoch('subsec') * 1000 AS INTEGER))`);
const json = <T>(name: string, fallback: string) => text(name, { mode: 'json' }).$type<T>().notNull().default(sql.raw(`'${fallback}'`));
/** A global-sequence id (storefront and back-office entities). */
const serialId = () => integer('id').primaryKey({ autoIncrement: true });
const bool = (name: string, fallback = false) => integer(name, { mode: 'boolean' }).notNull().default(fallback);

export const ASSET_TYPES = ['design', 'image', 'mockup', 'font', 'resource'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
export const RETENTION_POLICIES = ['Unknown', 'Never', 'Default'] as const;

// --- asset storage ------------------------------------------------------------------------------

/**
 * Every stored asset, all types in one table. `owner_id` '' = public (DTO `ownerId: null`),
 * otherwise the private owner. `folder_id` '' = the root folder (resources have no folders).
 * The content is the blob `blob_sha` (`p/<t>/blobs/<sha>`); a copy shares it.
 */
export const assets = sqliteTable(
  'assets',
  {
    tenantId: tenantId(),
    id: text('id').notNull(),
    type: text('type', { enum: ASSET_TYPES }).notNull(),
    ownerId: text('owner_id').notNull().default(''),
    folderId: text('folder_id').notNull().default(''),
    name: text('name').notNull(),
    blobSha: text('blob_sha'),
    size: integer('size').notNull().default(0),
    /** MIME type of the content (ImageDto.mimeType). */
    mimeType: text('mime_type'),
    /** File format as the DTOs name it: psd, psb, json, jpeg, png, svg, pdf, glb, ttf, otf… */
    format: text('format'),
    customFields: json<Record<string, unknown>>('custom_fields', '{}'),
    /** Computed from the file: DesignMetadata, ImageMetadata, MockupMetadataDto, FontMetadata. */
    metadata: json<Record<string, unknown>>('metadata', '{}'),
    retentionPolicy: text('retention_policy', { enum: RETENTION_POLICIES }).notNull().default('Unknown'),
    /** Designs: Psd | PrintProduct; `has_problems` when fonts are missing. */
    designType: text('design_type', { enum: ['Psd', 'PrintProduct'] }),
    hasProblems: bool('has_problems'),
    /** Mockups: Mockup2D | Mockup3D | MockupLink; a link names its source mockup. */
    mockupType: text('mockup_type', { enum: ['Mockup2D', 'Mockup3D', 'MockupLink'] }),
    linkSourceId: text('link_source_id'),
    /** Fonts: the PostScript name, for the per-tenant uniqueness and the font lookup. */
    postscriptName: text('postscript_name'),
    /** Resources: namespace, the asset they were made from, and their type. */
    namespace: text('namespace'),
    sourceId: text('source_id'),
    resourceType: text('resource_type'),
    /** Whether an anonymous URL exists (its token lives in `anonymous_tokens`). */
    anonymousAccess: bool('anonymous_access'),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    // Names are unique per folder ignoring case (not resources).
    uniqueIndex('assets_name_in_folder')
      .on(t.tenantId, t.type, t.ownerId, t.folderId, sql`${t.name} COLLATE NOCASE`)
      .where(sql`${t.type} <> 'resource'`),
    // Covers a folder listing: pages come in name order without a sort, and the customFields
    // filter and the count read the index alone (migration 0002; docs/platform.md).
    index('assets_list_by_name').on(t.tenantId, t.type, t.ownerId, t.folderId, sql`${t.name} COLLATE NOCASE`, t.id, t.customFields),
    index('assets_list_modified').on(t.tenantId, t.type, t.ownerId, t.lastModified),
    index('assets_blob').on(t.tenantId, t.blobSha),
    index('assets_retention').on(t.tenantId, t.retentionPolicy, t.lastModified),
    index('assets_namespace').on(t.tenantId, t.namespace, t.ownerId),
    index('assets_source').on(t.tenantId, t.sourceId),
    index('assets_font').on(t.tenantId, t.type, t.postscriptName),
    index('assets_link_source').on(t.tenantId, t.linkSourceId),
  ],
);

/**
 * Folders of designs, images, mockups and fonts. `parent_id` '' = a top-level folder; `path` is
 * the full path with the first spelling kept (`/cards/xmas/`), matched ignoring case.
 */
export const folders = sqliteTable(
  'folders',
  {
    tenantId: tenantId(),
    id: text('id').notNull(),
    type: text('type', { enum: ['design', 'image', 'mockup', 'font'] }).notNull(),
    ownerId: text('owner_id').notNull().default(''),
    parentId: text('parent_id').notNull().default(''),
    name: text('name').notNull(),
    path: text('path').notNull(),
    depth: integer('depth').notNull(),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('folders_name_in_parent').on(t.tenantId, t.type, t.ownerId, t.parentId, sql`${t.name} COLLATE NOCASE`),
    uniqueIndex('folders_path').on(t.tenantId, t.type, t.ownerId, sql`${t.path} COLLATE NOCASE`),
  ],
);

/** Content-addressed file bodies (`p/<t>/blobs/<sha256>`), counted by the rows naming them. */
export const blobs = sqliteTable(
  'blobs',
  {
    tenantId: tenantId(),
    sha256: text('sha256').notNull(),
    size: integer('size').notNull(),
    contentType: text('content_type'),
    refcount: integer('refcount').notNull().default(0),
    created: created(),
    /** When the refcount last changed: the cron deletes blobs at 0 once this is old enough. */
    lastModified: lastModified(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.sha256] }), index('blobs_unreferenced').on(t.tenantId, t.refcount, t.lastModified)],
);

/**
 * 128-bit capabilities of anonymous file URLs, stored as SHA-256. Looked up by the hash alone
 * (the URL carries no tenant): the one index not led by tenant_id, over a value unique worldwide.
 */
export const anonymousTokens = sqliteTable(
  'anonymous_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    tenantId: tenantId(),
    kind: text('kind', { enum: ['asset', 'artifact'] }).notNull(),
    targetId: text('target_id').notNull(),
    created: created(),
  },
  (t) => [index('anonymous_tokens_target').on(t.tenantId, t.kind, t.targetId)],
);

/**
 * Artifacts: uploaded (`blob_sha`) or produced by jobs (`r2_key` under `p/<t>/jobs/…`).
 * Temporary ones expire 24 h after creation (`expires_at`); finals of a job have group = job id.
 */
export const artifacts = sqliteTable(
  'artifacts',
  {
    tenantId: tenantId(),
    id: text('id').notNull(),
    ownerId: text('owner_id').notNull().default(''),
    jobId: text('job_id'),
    projectId: integer('project_id'),
    /** Project item the artifact belongs to (processing results `projectItemId`). */
    projectItemId: integer('project_item_id'),
    groupName: text('group_name'),
    alias: text('alias'),
    type: text('type', { enum: ['Temporary', 'Final', 'Service'] }).notNull(),
    name: text('name').notNull(),
    format: text('format'),
    size: integer('size').notNull().default(0),
    description: text('description'),
    blobSha: text('blob_sha'),
    r2Key: text('r2_key'),
    customFields: json<Record<string, unknown>>('custom_fields', '{}'),
    anonymousAccess: bool('anonymous_access'),
    expiresAt: integer('expires_at'),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('artifacts_group').on(t.tenantId, t.groupName),
    index('artifacts_job').on(t.tenantId, t.jobId),
    index('artifacts_project').on(t.tenantId, t.projectId),
    index('artifacts_expiry').on(t.tenantId, t.type, t.expiresAt),
    index('artifacts_blob').on(t.tenantId, t.blobSha),
  ],
);

// --- storefronts and their users ----------------------------------------------------------------

export const storefronts = sqliteTable(
  'storefronts',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    /** New storefronts are Custom. */
    type: text('type').notNull().default('Custom'),
    status: text('status', { enum: ['Dev', 'Prod'] }).notNull().default('Dev'),
    created: created(),
  },
  (t) => [uniqueIndex('storefronts_tenant').on(t.tenantId, t.id)],
);

export const storefrontUsers = sqliteTable(
  'storefront_users',
  {
    tenantId: tenantId(),
    storefrontId: integer('storefront_id').notNull(),
    userId: text('user_id').notNull(),
    isAnonymous: bool('is_anonymous'),
    created: created(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.storefrontId, t.userId] }), index('storefront_users_user').on(t.tenantId, t.userId)],
);

// --- catalogue: products and their copy-on-write versions ---------------------------------------

export const products = sqliteTable(
  'products',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    description: text('description'),
    /** The product image: a public resource (`/set-image`). */
    imageResourceId: text('image_resource_id'),
    tags: json<string[]>('tags', '[]'),
    customFields: json<Record<string, unknown>>('custom_fields', '{}'),
    personalizationWorkflowId: integer('personalization_workflow_id'),
    processingPipelineId: integer('processing_pipeline_id'),
    /** The version edits apply to; older versions stay while projects use them. */
    currentVersionId: integer('current_version_id'),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [
    uniqueIndex('products_tenant').on(t.tenantId, t.id),
    index('products_name').on(t.tenantId, t.name),
    index('products_workflow').on(t.tenantId, t.personalizationWorkflowId),
    index('products_pipeline').on(t.tenantId, t.processingPipelineId),
  ],
);

/** Product versions (the spec's drafts): options, values, variants and connections hang off one. */
export const productVersions = sqliteTable(
  'product_versions',
  {
    id: serialId(),
    tenantId: tenantId(),
    productId: integer('product_id').notNull(),
    created: created(),
  },
  (t) => [uniqueIndex('product_versions_tenant').on(t.tenantId, t.id), index('product_versions_product').on(t.tenantId, t.productId)],
);

export const productOptions = sqliteTable(
  'product_options',
  {
    id: serialId(),
    tenantId: tenantId(),
    productVersionId: integer('product_version_id').notNull(),
    productId: integer('product_id').notNull(),
    uid: text('uid').notNull(),
    type: text('type', { enum: ['Simple', 'Size', 'PageCount'] }).notNull().default('Simple'),
    title: text('title').notNull(),
    traits: json<unknown[]>('traits', '[]'),
    sortIndex: integer('sort_index').notNull().default(0),
    tag: text('tag'),
    useForDesignBinding: bool('use_for_design_binding'),
    useForMockupBinding: bool('use_for_mockup_binding'),
  },
  (t) => [uniqueIndex('product_options_tenant').on(t.tenantId, t.id), uniqueIndex('product_options_uid').on(t.tenantId, t.productVersionId, t.uid)],
);

export const optionValues = sqliteTable(
  'option_values',
  {
    id: serialId(),
    tenantId: tenantId(),
    productVersionId: integer('product_version_id').notNull(),
    optionUid: text('option_uid').notNull(),
    uid: text('uid').notNull(),
    title: text('title').notNull(),
    value: text('value'),
    description: text('description'),
    sortIndex: integer('sort_index').notNull().default(0),
    isDefault: bool('is_default'),
    tag: text('tag'),
  },
  (t) => [
    uniqueIndex('option_values_tenant').on(t.tenantId, t.id),
    uniqueIndex('option_values_uid').on(t.tenantId, t.productVersionId, t.uid),
    index('option_values_option').on(t.tenantId, t.productVersionId, t.optionUid),
  ],
);

/** Variants: the Cartesian product of option values (one variant when there are no options). */
export const variants = sqliteTable(
  'variants',
  {
    id: serialId(),
    tenantId: tenantId(),
    productVersionId: integer('product_version_id').notNull(),
    productId: integer('product_id').notNull(),
    uid: text('uid').notNull(),
    /** The combination: option-value uids, sorted; what SKU, price… are kept by across versions. */
    optionValueUids: json<string[]>('option_value_uids', '[]'),
    isAvailable: bool('is_available', true),
    price: real('price'),
    weight: real('weight'),
    sortIndex: integer('sort_index').notNull().default(0),
    storefrontProductVariantId: text('storefront_product_variant_id'),
    sku: text('sku'),
  },
  (t) => [
    uniqueIndex('variants_tenant').on(t.tenantId, t.id),
    uniqueIndex('variants_uid').on(t.tenantId, t.productVersionId, t.uid),
    index('variants_sku').on(t.tenantId, t.sku),
  ],
);

type ConnectionOptions = Array<{ optionUID: string; optionValueUIDs: string[] }>;

/** A design connected to a version's variants whose options match (`options` [] = all). */
export const designConnections = sqliteTable(
  'design_connections',
  {
    id: serialId(),
    tenantId: tenantId(),
    productVersionId: integer('product_version_id').notNull(),
    designId: text('design_id').notNull(),
    designGroup: text('design_group'),
    options: json<ConnectionOptions>('options', '[]'),
  },
  (t) => [
    uniqueIndex('design_connections_tenant').on(t.tenantId, t.id),
    index('design_connections_version').on(t.tenantId, t.productVersionId),
    index('design_connections_design').on(t.tenantId, t.designId),
  ],
);

export const mockupConnections = sqliteTable(
  'mockup_connections',
  {
    id: serialId(),
    tenantId: tenantId(),
    productVersionId: integer('product_version_id').notNull(),
    mockupId: text('mockup_id').notNull(),
    options: json<ConnectionOptions>('options', '[]'),
  },
  (t) => [
    uniqueIndex('mockup_connections_tenant').on(t.tenantId, t.id),
    index('mockup_connections_version').on(t.tenantId, t.productVersionId),
    index('mockup_connections_mockup').on(t.tenantId, t.mockupId),
  ],
);

/** A storefront's name for a product, link, specification or bundle. */
export const productReferences = sqliteTable(
  'product_references',
  {
    tenantId: tenantId(),
    storefrontId: integer('storefront_id').notNull(),
    productReference: text('product_reference').notNull(),
    productReferenceType: text('product_reference_type', { enum: ['ProductSpecification', 'Product', 'ProductLink', 'ProductBundle'] }).notNull(),
    productReferenceName: text('product_reference_name'),
    productSpecificationId: integer('product_specification_id'),
    productId: integer('product_id'),
    productVersionId: integer('product_version_id'),
    productLinkId: integer('product_link_id'),
    productBundleId: integer('product_bundle_id'),
    created: created(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.storefrontId, t.productReference] }),
    index('product_references_product').on(t.tenantId, t.productId),
    index('product_references_link').on(t.tenantId, t.productLinkId),
    index('product_references_specification').on(t.tenantId, t.productSpecificationId),
    index('product_references_bundle').on(t.tenantId, t.productBundleId),
  ],
);

export const productLinks = sqliteTable(
  'product_links',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    description: text('description'),
    productId: integer('product_id').notNull(),
    productVersionId: integer('product_version_id'),
    personalizationWorkflowId: integer('personalization_workflow_id'),
    processingPipelineId: integer('processing_pipeline_id'),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [uniqueIndex('product_links_tenant').on(t.tenantId, t.id), index('product_links_product').on(t.tenantId, t.productId)],
);

export const productSpecifications = sqliteTable(
  'product_specifications',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    description: text('description'),
    productAttributes: json<Array<{ name: string; type: string; value: unknown }>>('product_attributes', '[]'),
    personalizationWorkflowId: integer('personalization_workflow_id'),
    processingPipelineId: integer('processing_pipeline_id'),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [uniqueIndex('product_specifications_tenant').on(t.tenantId, t.id)],
);

export const productBundles = sqliteTable(
  'product_bundles',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    description: text('description'),
    items: json<Array<{ productId: number | null; productLinkId: number | null }>>('items', '[]'),
    personalizationWorkflowId: integer('personalization_workflow_id'),
    processingPipelineId: integer('processing_pipeline_id'),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [uniqueIndex('product_bundles_tenant').on(t.tenantId, t.id)],
);

export const personalizationWorkflows = sqliteTable(
  'personalization_workflows',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull().default(''),
    content: text('content').notNull().default(''),
    workflowType: text('workflow_type', { enum: ['UIFramework', 'SimpleEditor', 'DesignEditor', 'WorkflowElements'] }).notNull(),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [uniqueIndex('personalization_workflows_tenant').on(t.tenantId, t.id)],
);

/** Pipelines: `raw_content` is the pipeline JSON exactly as saved (validated on save). */
export const processingPipelines = sqliteTable(
  'processing_pipelines',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    rawContent: text('raw_content').notNull(),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [uniqueIndex('processing_pipelines_tenant').on(t.tenantId, t.id)],
);

// --- projects ------------------------------------------------------------------------------------

export const PROCESSING_STATUSES = ['Pending', 'InProgress', 'Completed', 'Failed'] as const;

/**
 * Projects. One project per order line: the partial unique indexes make a repeated create lose
 * (`INSERT … ON CONFLICT DO NOTHING`); `create_nonce` lets only the inserting call add items.
 */
export const projects = sqliteTable(
  'projects',
  {
    id: serialId(),
    tenantId: tenantId(),
    storefrontId: integer('storefront_id').notNull(),
    productReference: text('product_reference'),
    ownerId: text('owner_id').notNull(),
    name: text('name'),
    description: text('description'),
    orderId: text('order_id'),
    orderUrl: text('order_url'),
    orderNumber: integer('order_number'),
    orderName: text('order_name'),
    orderLineItemId: text('order_line_item_id'),
    orderLineItemIndex: integer('order_line_item_index'),
    customerId: text('customer_id'),
    customerName: text('customer_name'),
    /** The project status code (`project_statuses.code`; 0 when the tenant has none). */
    status: integer('status').notNull().default(0),
    processingStatus: text('processing_status', { enum: PROCESSING_STATUSES }).notNull().default('Pending'),
    processingTriggeredAt: integer('processing_triggered_at'),
    /** How processing runs: the scenario and its pipelines (JSON), fixed at creation. */
    processing: json<Record<string, unknown>>('processing', '{}'),
    createNonce: text('create_nonce'),
    /** The worst preflight verdict over the items at creation (null: nothing checked). */
    preflight: text('preflight', { enum: ['ok', 'warnings', 'errors'] }),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [
    uniqueIndex('projects_tenant').on(t.tenantId, t.id),
    index('projects_preflight').on(t.tenantId, t.preflight, t.created),
    index('projects_processing').on(t.tenantId, t.processingStatus, t.created),
    index('projects_created').on(t.tenantId, t.created),
    index('projects_owner').on(t.tenantId, t.ownerId, t.created),
    index('projects_storefront').on(t.tenantId, t.storefrontId, t.created),
    index('projects_status').on(t.tenantId, t.status, t.created),
    index('projects_order').on(t.tenantId, t.orderId),
    index('projects_nonce').on(t.tenantId, t.createNonce),
    index('projects_triggered').on(t.tenantId, t.processingTriggeredAt),
    uniqueIndex('projects_order_line_id')
      .on(t.tenantId, t.storefrontId, t.orderId, t.orderLineItemId)
      .where(sql`${t.orderId} IS NOT NULL`),
    uniqueIndex('projects_order_line_index')
      .on(t.tenantId, t.storefrontId, t.orderId, t.orderLineItemIndex)
      .where(sql`${t.orderId} IS NOT NULL`),
  ],
);

export const projectItems = sqliteTable(
  'project_items',
  {
    id: serialId(),
    tenantId: tenantId(),
    projectId: integer('project_id').notNull(),
    sortIndex: integer('sort_index').notNull().default(0),
    name: text('name'),
    groupId: text('group_id'),
    quantity: integer('quantity').notNull().default(1),
    orderLineItemId: text('order_line_item_id'),
    orderLineItemIndex: integer('order_line_item_index'),
    productReference: text('product_reference'),
    /** `{type, id, versionId, variantId}` as given; the ids below are what it resolved to. */
    productSpecifier: text('product_specifier', { mode: 'json' }).$type<Record<string, unknown>>(),
    productId: integer('product_id'),
    productVersionId: integer('product_version_id'),
    productVariantId: integer('product_variant_id'),
    productLinkId: integer('product_link_id'),
    productSpecificationId: integer('product_specification_id'),
    fields: json<Record<string, unknown>>('fields', '{}'),
    hidden: json<Record<string, unknown>>('hidden', '{}'),
    designIds: json<string[]>('design_ids', '[]'),
    sku: text('sku'),
    resources: json<Array<{ resourceId: string; name: string; type: string }>>('resources', '[]'),
    /** The pipeline this item's job runs (product link's, else product's, else specification's). */
    processingPipelineId: integer('processing_pipeline_id'),
    /** The item's preflight report at creation ({ok, errors, warnings, problems}; null: no design). */
    preflight: text('preflight', { mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [
    uniqueIndex('project_items_tenant').on(t.tenantId, t.id),
    index('project_items_project').on(t.tenantId, t.projectId, t.sortIndex),
    index('project_items_version').on(t.tenantId, t.productVersionId),
  ],
);

export const projectStatuses = sqliteTable(
  'project_statuses',
  {
    id: serialId(),
    tenantId: tenantId(),
    code: integer('code').notNull(),
    color: text('color'),
    displayName: text('display_name').notNull().default(''),
    isInitial: bool('is_initial'),
    isFinal: bool('is_final'),
  },
  (t) => [
    uniqueIndex('project_statuses_tenant').on(t.tenantId, t.id),
    uniqueIndex('project_statuses_code').on(t.tenantId, t.code),
    // At most one initial status per tenant (the service keeps exactly one).
    uniqueIndex('project_statuses_initial').on(t.tenantId).where(sql`${t.isInitial} = 1`),
  ],
);

export const projectTransitions = sqliteTable(
  'project_transitions',
  {
    id: serialId(),
    tenantId: tenantId(),
    name: text('name').notNull(),
    displayName: text('display_name').notNull().default(''),
    startStatus: integer('start_status').notNull(),
    resultStatus: integer('result_status').notNull(),
  },
  (t) => [
    uniqueIndex('project_transitions_tenant').on(t.tenantId, t.id),
    uniqueIndex('project_transitions_name').on(t.tenantId, t.startStatus, t.name),
    index('project_transitions_result').on(t.tenantId, t.resultStatus),
  ],
);

/** Order data attached to a project (item_id 0) or one of its items; upserted by key. */
export const orderData = sqliteTable(
  'order_data',
  {
    tenantId: tenantId(),
    projectId: integer('project_id').notNull(),
    itemId: integer('item_id').notNull().default(0),
    key: text('key').notNull(),
    value: text('value').notNull(),
    type: text('type', { enum: ['PlainText', 'CommaSeparatedList', 'SerializedJson'] }).notNull().default('PlainText'),
    lastModified: lastModified(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.projectId, t.itemId, t.key] })],
);

// --- tenant configuration -------------------------------------------------------------------------

export const tenantSettings = sqliteTable('tenant_settings', {
  tenantId: integer('tenant_id').primaryKey(),
  startProcessingOnStatus: integer('start_processing_on_status'),
  enableAssetsRetention: bool('enable_assets_retention'),
  assetsRetentionPeriodInDays: integer('assets_retention_period_in_days').notNull().default(30),
  defaultCmykColorProfile: text('default_cmyk_color_profile'),
  defaultRgbColorProfile: text('default_rgb_color_profile'),
  defaultGrayscaleColorProfile: text('default_grayscale_color_profile'),
  allowSelfCalls: bool('allow_self_calls'),
  lastModified: lastModified(),
});

/**
 * Write-only pipeline secrets, AES-GCM (key = HKDF(KEY_ENCRYPTION_SECRET, "tenant-secrets/v1"),
 * AAD `<tenantId>/<name>`). `name_key` is the lower-case name: names are case-insensitive.
 */
export const tenantSecrets = sqliteTable(
  'tenant_secrets',
  {
    tenantId: tenantId(),
    nameKey: text('name_key').notNull(),
    name: text('name').notNull(),
    iv: text('iv').notNull(),
    ciphertext: text('ciphertext').notNull(),
    created: created(),
    lastModified: lastModified(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.nameKey] })],
);

// --- jobs ----------------------------------------------------------------------------------------

export const JOB_STATUSES = ['New', 'InProgress', 'Completed', 'Failed', 'Recovered', 'Discarded'] as const;

/**
 * Rendering jobs as lists see them; the job itself (tasks, snapshots, artifacts) lives in its
 * ProjectJobs Durable Object (`do_name`), which writes this row on each status change.
 */
export const jobs = sqliteTable(
  'jobs',
  {
    tenantId: tenantId(),
    id: text('id').notNull(),
    projectId: integer('project_id'),
    /** Item jobs: the project item they process. */
    projectItemId: integer('project_item_id'),
    /** project | item | post-processing | standalone */
    kind: text('kind').notNull().default('standalone'),
    doName: text('do_name').notNull(),
    status: text('status', { enum: JOB_STATUSES }).notNull().default('New'),
    statusDescription: text('status_description'),
    ownerId: text('owner_id'),
    projectOrderId: text('project_order_id'),
    pipelineId: integer('pipeline_id'),
    /** SHA-256 of the canonical create body: a repeated id with the same body is the same job. */
    bodyHash: text('body_hash'),
    created: created(),
    started: integer('started'),
    finished: integer('finished'),
    lastActivity: integer('last_activity'),
    lastModified: lastModified(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    index('jobs_created').on(t.tenantId, t.created),
    index('jobs_project').on(t.tenantId, t.projectId, t.created),
    index('jobs_status').on(t.tenantId, t.status, t.lastActivity),
    index('jobs_order').on(t.tenantId, t.projectOrderId),
    index('jobs_owner').on(t.tenantId, t.ownerId),
  ],
);

// --- batches ---------------------------------------------------------------------------------------

/**
 * The guard of atomic batches (src/platform/core/d1.ts): a batch's first statement upserts
 * `ok` = "every id was found", and CHECK (ok) aborts the whole batch otherwise. Not tenant data.
 */
export const platformGuard = sqliteTable(
  'platform_guard',
  {
    id: integer('id').primaryKey(),
    ok: integer('ok').notNull(),
  },
  () => [check('platform_guard_ok', sql`ok <> 0`)],
);
