// Tenant 1's data for the tenant-isolation test: one row of every platform table with a known id
// and a name containing LEAK_MARKER, so a response that shows any of it to tenant 2 is caught.
// Area helpers: when you add a table's rows or an id kind, add a row here and its id to T1_IDS.
import { env } from 'cloudflare:workers';

export const LEAK_MARKER = 'T1-LEAK';

/** Tenant 1's ids by kind (hex ids are 24 hex; integer ids of the global sequences). */
export const T1_IDS = {
  design: 'a1a1a1a1a1a1a1a1a1a1a1a1',
  image: 'b1b1b1b1b1b1b1b1b1b1b1b1',
  mockup: 'c1c1c1c1c1c1c1c1c1c1c1c1',
  font: 'd1d1d1d1d1d1d1d1d1d1d1d1',
  resource: 'e1e1e1e1e1e1e1e1e1e1e1e1',
  privateDesign: 'f1f1f1f1f1f1f1f1f1f1f1f1',
  clientAsset: 'T1-client-asset',
  folder: '0a0a0a0a0a0a0a0a0a0a0a0a',
  artifact: '0b0b0b0b0b0b0b0b0b0b0b0b',
  job: '0c0c0c0c0c0c0c0c0c0c0c0c',
  clientJob: 'T1-client-job',
  storefront: 1,
  product: 1001,
  productVersion: 1001,
  variant: 1001,
  productLink: 1001,
  productSpecification: 1001,
  productBundle: 1001,
  workflow: 1001,
  pipeline: 1001,
  project: 1001,
  projectItem: 1001,
  statusCode: 1,
  reference: 'T1-LEAK-ref',
  namespace: 'T1-LEAK-namespace',
  group: 'T1-LEAK-group',
  secret: 'T1LEAKSECRET',
  owner: 'demo-customer',
  transition: 'start-production',
} as const;

const I = T1_IDS;
const M = LEAK_MARKER;

/** Inserts tenant 1's rows (idempotent). Call after seedPlatform(). */
export async function seedTenant1Fixtures(): Promise<void> {
  const rows: Array<[string, ...unknown[]]> = [
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, design_type, custom_fields) VALUES (1, ?1, 'design', ?2, 'Psd', '{"leak":"${M}"}')`, I.design, `${M}-design`],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, mime_type) VALUES (1, ?1, 'image', ?2, 'image/png')`, I.image, `${M}-image`],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, mockup_type) VALUES (1, ?1, 'mockup', ?2, 'Mockup2D')`, I.mockup, `${M}-mockup`],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, postscript_name) VALUES (1, ?1, 'font', ?2, 'T1LeakFont-Regular')`, I.font, `${M}-font`],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, namespace) VALUES (1, ?1, 'resource', ?2, ?3)`, I.resource, `${M}-resource`, I.namespace],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, name, retention_policy) VALUES (1, ?1, 'design', ?2, ?3, 'Default')`, I.privateDesign, I.owner, `${M}-private-design`],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name) VALUES (1, ?1, 'design', ?2)`, I.clientAsset, `${M}-client-design`],
    [`INSERT OR IGNORE INTO folders (tenant_id, id, type, name, path, depth) VALUES (1, ?1, 'design', ?2, ?3, 1)`, I.folder, `${M}-folder`, `/${M}-folder/`],
    [`INSERT OR IGNORE INTO artifacts (tenant_id, id, type, name, group_name, job_id) VALUES (1, ?1, 'Final', ?2, ?3, ?4)`, I.artifact, `${M}-artifact`, I.group, I.job],
    [`INSERT OR IGNORE INTO jobs (tenant_id, id, do_name, status, project_id) VALUES (1, ?1, ?2, 'Completed', ?3)`, I.job, `job:1:${I.job}`, I.project],
    [`INSERT OR IGNORE INTO jobs (tenant_id, id, do_name, status) VALUES (1, ?1, ?2, 'Failed')`, I.clientJob, `job:1:${I.clientJob}`],
    [`INSERT OR IGNORE INTO processing_pipelines (id, tenant_id, name, raw_content) VALUES (?1, 1, ?2, '{"tasks":[]}')`, I.pipeline, `${M}-pipeline`],
    [`INSERT OR IGNORE INTO personalization_workflows (id, tenant_id, name, content, workflow_type) VALUES (?1, 1, ?2, ?2, 'WorkflowElements')`, I.workflow, `${M}-workflow`],
    [`INSERT OR IGNORE INTO products (id, tenant_id, name, current_version_id, processing_pipeline_id, personalization_workflow_id) VALUES (?1, 1, ?2, ?3, ?4, ?5)`, I.product, `${M}-product`, I.productVersion, I.pipeline, I.workflow],
    [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (?1, 1, ?2)`, I.productVersion, I.product],
    [`INSERT OR IGNORE INTO product_options (id, tenant_id, product_version_id, product_id, uid, title) VALUES (1001, 1, ?1, ?2, 't1-option', ?3)`, I.productVersion, I.product, `${M}-option`],
    [`INSERT OR IGNORE INTO option_values (id, tenant_id, product_version_id, option_uid, uid, title) VALUES (1001, 1, ?1, 't1-option', 't1-value', ?2)`, I.productVersion, `${M}-value`],
    [`INSERT OR IGNORE INTO variants (id, tenant_id, product_version_id, product_id, uid, option_value_uids, sku) VALUES (?1, 1, ?2, ?3, 't1-variant', '["t1-value"]', ?4)`, I.variant, I.productVersion, I.product, `${M}-SKU`],
    [`INSERT OR IGNORE INTO design_connections (id, tenant_id, product_version_id, design_id, design_group) VALUES (1001, 1, ?1, ?2, 'front')`, I.productVersion, I.design],
    [`INSERT OR IGNORE INTO mockup_connections (id, tenant_id, product_version_id, mockup_id) VALUES (1001, 1, ?1, ?2)`, I.productVersion, I.mockup],
    [`INSERT OR IGNORE INTO product_links (id, tenant_id, name, product_id) VALUES (?1, 1, ?2, ?3)`, I.productLink, `${M}-link`, I.product],
    [`INSERT OR IGNORE INTO product_specifications (id, tenant_id, name) VALUES (?1, 1, ?2)`, I.productSpecification, `${M}-specification`],
    [`INSERT OR IGNORE INTO product_bundles (id, tenant_id, name, items) VALUES (?1, 1, ?2, ?3)`, I.productBundle, `${M}-bundle`, JSON.stringify([{ productId: I.product, productLinkId: null }])],
    [`INSERT OR IGNORE INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_id) VALUES (1, ?1, ?2, 'Product', ?2, ?3)`, I.storefront, I.reference, I.product],
    [`INSERT OR IGNORE INTO projects (id, tenant_id, storefront_id, product_reference, owner_id, name, order_id, status, processing_status) VALUES (?1, 1, ?2, ?3, ?4, ?5, 'T1-order', 1, 'Completed')`, I.project, I.storefront, I.reference, I.owner, `${M}-project`],
    [`INSERT OR IGNORE INTO project_items (id, tenant_id, project_id, name, design_ids) VALUES (?1, 1, ?2, ?3, ?4)`, I.projectItem, I.project, `${M}-item`, JSON.stringify([I.design])],
    [`INSERT OR IGNORE INTO order_data (tenant_id, project_id, item_id, key, value) VALUES (1, ?1, 0, 'note', ?2)`, I.project, `${M}-order-data`],
    [`INSERT OR IGNORE INTO tenant_settings (tenant_id, start_processing_on_status, enable_assets_retention) VALUES (1, 2, 1)`],
    [`INSERT OR IGNORE INTO tenant_secrets (tenant_id, name_key, name, iv, ciphertext) VALUES (1, lower(?1), ?1, 'iv', ?2)`, I.secret, `${M}-ciphertext`],
  ];
  await env.DB.batch(rows.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
  await env.FILES.put(`p/1/blobs/${'0'.repeat(64)}`, `${M}-blob`);
}

/**
 * Takes tenant 1's rows of seedTenant1Fixtures out again (by their ids), so that a file running
 * after the tenancy test in the same runtime (vitest.shared.config.ts) finds tenant 1 as the
 * seed left it: `hadSettings` says whether tenant 1 had a tenant_settings row before seeding (the
 * fixture's row processes projects only from status 2 on).
 */
export async function removeTenant1Fixtures(hadSettings: boolean): Promise<void> {
  const byId: Array<[string, string, unknown]> = [
    ['assets', 'id', I.design], ['assets', 'id', I.image], ['assets', 'id', I.mockup], ['assets', 'id', I.font], ['assets', 'id', I.resource],
    ['assets', 'id', I.privateDesign], ['assets', 'id', I.clientAsset], ['folders', 'id', I.folder], ['artifacts', 'id', I.artifact],
    ['jobs', 'id', I.job], ['jobs', 'id', I.clientJob], ['processing_pipelines', 'id', I.pipeline], ['personalization_workflows', 'id', I.workflow],
    ['products', 'id', I.product], ['product_versions', 'id', I.productVersion], ['product_options', 'id', 1001], ['option_values', 'id', 1001],
    ['variants', 'id', I.variant], ['design_connections', 'id', 1001], ['mockup_connections', 'id', 1001], ['product_links', 'id', I.productLink],
    ['product_specifications', 'id', I.productSpecification], ['product_bundles', 'id', I.productBundle], ['product_references', 'product_reference', I.reference],
    ['projects', 'id', I.project], ['project_items', 'id', I.projectItem], ['order_data', 'project_id', I.project], ['tenant_secrets', 'name', I.secret],
  ];
  const rows = byId.map(([table, column, id]) => env.DB.prepare(`DELETE FROM ${table} WHERE tenant_id = 1 AND ${column} = ?1`).bind(id));
  if (!hadSettings) rows.push(env.DB.prepare(`DELETE FROM tenant_settings WHERE tenant_id = 1`));
  await env.DB.batch(rows);
  await env.FILES.delete(`p/1/blobs/${'0'.repeat(64)}`);
}

/** Whether tenant 1 has a tenant_settings row (see removeTenant1Fixtures). */
export const tenant1HasSettings = async () => Boolean(await env.DB.prepare(`SELECT 1 FROM tenant_settings WHERE tenant_id = 1`).first());

const TABLES = [
  'assets', 'folders', 'blobs', 'artifacts', 'storefronts', 'storefront_users', 'products', 'product_versions', 'product_options',
  'option_values', 'variants', 'design_connections', 'mockup_connections', 'product_references', 'product_links',
  'product_specifications', 'product_bundles', 'personalization_workflows', 'processing_pipelines', 'projects', 'project_items',
  'project_statuses', 'project_transitions', 'order_data', 'tenant_settings', 'tenant_secrets', 'jobs', 'anonymous_tokens',
];

/** Everything tenant 1 has (D1 rows and R2 keys), to prove a run changed none of it. */
export async function tenant1Snapshot(): Promise<string> {
  const parts: unknown[] = [];
  for (const table of TABLES) {
    const { results } = await env.DB.prepare(`SELECT * FROM ${table} WHERE tenant_id = 1 ORDER BY rowid`).all();
    parts.push(table, results);
  }
  const listed = await env.FILES.list({ prefix: 'p/1/' });
  parts.push(listed.objects.map((o) => [o.key, o.size, o.etag]));
  return JSON.stringify(parts);
}

/** Candidate tenant-1 values for a path or query parameter, by its name. */
export function tenant1ValuesFor(param: string): Array<string | number> {
  const p = param.toLowerCase();
  if (p === 'pageindex') return [0];
  if (p === 'namespace' || p === 'ns') return [I.namespace];
  if (p === 'group') return [I.group];
  if (p === 'reference' || p === 'productreference') return [I.reference, 'demo-card'];
  if (p === 'name' || p === 'secretname') return [I.secret, I.transition];
  if (p === 'code' || p === 'statuscode') return [I.statusCode];
  if (p === 'storefrontid') return [I.storefront];
  if (p === 'token') return ['0'.repeat(32)];
  if (/variant/.test(p)) return [I.variant, 1];
  if (/(product|project|pipeline|workflow|link|specification|bundle|storefront|status|transition|item)/.test(p)) {
    return [I.product, I.project, I.pipeline, I.projectItem, 1];
  }
  // Generic ids: every kind.
  return [I.design, I.image, I.mockup, I.font, I.resource, I.privateDesign, I.clientAsset, I.folder, I.artifact, I.job, I.clientJob, I.product, 1];
}

/**
 * Request bodies that name tenant 1's ids, by `METHOD /path/template` as the OpenAPI document
 * lists it. Routes not listed get `{}`. Area helpers: add a body that would succeed for tenant 1,
 * so the isolation test reaches the id lookup instead of stopping at validation.
 */
export const TENANT1_BODIES: Record<string, unknown> = {
  // Design atoms: bodies naming tenant 1's designs and images.
  'POST /api/atoms/v1/designs/render-preview': { designId: I.design },
  'POST /api/atoms/v1/designs/render-preview/to-resource': { designId: I.design },
  'POST /api/atoms/v1/designs/render-proof': { designId: I.design },
  'POST /api/atoms/v1/designs/render-proof/to-resource': { designId: I.design },
  'POST /api/atoms/v1/images/render-preview': { imageId: I.image },
  'POST /api/atoms/v1/images/render-preview/to-resource': { imageId: I.image },
  'POST /api/atoms/v1/designs/model/items/extract-image': { designId: I.design, itemId: 'x' },
  'POST /api/atoms/v1/designs/print-product/items/extract-image': { designId: I.design, itemId: 'x' },
  'POST /api/atoms/v1/designs/print-product/items/extract-image/to-resource': { designId: I.design, itemId: 'x' },
  'POST /api/atoms/v1/designs/print-product/items/from-storage/batch-create': { items: [{ imageId: I.image }] },
  'POST /api/atoms/v1/designs/print-product/items/apply-effects': { item: { type: 'Image', width: 1, height: 1, source: { type: 'Storage', id: I.image } }, effects: { recolor: '#ff0000' } },
  'POST /api/storefront/v1/projects/with-single-item': { ownerId: I.owner, productReference: I.reference, item: { designIds: [I.design] } },
  'POST /api/storefront/v1/projects/with-multiple-items': { ownerId: I.owner, items: [{ productSpecifier: { type: 'Product', id: I.product }, designIds: [I.design] }] },
  'POST /api/storefront/v1/projects/multiple-items': { ownerId: I.owner, items: [{ productReference: I.reference }] },
  'POST /api/storefront/v1/projects/by-scenario/specific-pipeline': { ownerId: I.owner, items: [{ name: 'a' }], scenario: { pipelineId: I.pipeline } },
  'POST /api/storefront/v1/projects/by-scenario/render-hires': { ownerId: I.owner, scenario: { designId: I.design } },
  'DELETE /api/storefront/v1/projects/batch-delete': { ids: [I.project] },
  'POST /api/storefront/v1/projects/{id}/order-data': [{ key: 'note', value: 'x' }],
  'POST /api/storefront/v1/storefront-users/merge-anonymous': { anonymousStorefrontUserId: I.owner, regularStorefrontUserId: I.owner },
  'POST /api/storefront/v1/storefront-users': { storefrontUserId: I.owner },
  'POST /api/storefront/v1/storefront-users/register': { storefrontUserId: I.owner },
  'POST /api/backoffice/v1/projects-transitions/transitions': { name: 'x', startStatus: I.statusCode, resultStatus: I.statusCode },
  'PUT /api/backoffice/v1/projects-statuses/{id}': { displayName: 'x' },
  'PUT /api/backoffice/v1/projects-transitions/{id}': { displayName: 'x' },
  // Catalogue (back office): bodies naming tenant 1's product, variant, workflow, pipeline, design, mockup, link.
  'POST /api/backoffice/v1/products': { name: 'x', processingPipelineId: I.pipeline, personalizationWorkflowId: I.workflow },
  'PUT /api/backoffice/v1/products/{id}': { name: 'x', processingPipelineId: I.pipeline },
  'PUT /api/backoffice/v1/products/{id}/options': { options: [{ uid: 't1-option', title: 'x', values: [{ uid: 't1-value', title: 'y' }] }] },
  'POST /api/backoffice/v1/products/{id}/design-connections': { connections: [{ designId: I.design, designGroup: 'front' }] },
  'DELETE /api/backoffice/v1/products/{id}/design-connections': { connections: [{ designId: I.design }] },
  'POST /api/backoffice/v1/products/{id}/mockup-connections': { connections: [{ mockupId: I.mockup }] },
  'DELETE /api/backoffice/v1/products/{id}/mockup-connections': { connections: [{ mockupId: I.mockup }] },
  'POST /api/backoffice/v1/products/{id}/set-variant-sku': [{ productVariantId: I.variant, value: 'x' }],
  'POST /api/backoffice/v1/products/{id}/set-variant-price': [{ productVariantId: I.variant, value: 1 }],
  'POST /api/backoffice/v1/products/{id}/set-variant-weight': [{ productVariantId: I.variant, value: 1 }],
  'POST /api/backoffice/v1/products/{id}/set-variant-availability': [{ productVariantId: I.variant, value: false }],
  'POST /api/backoffice/v1/product-references': { productReference: 'x', productReferenceType: 'Product', productId: I.product },
  'POST /api/backoffice/v1/product-links': { name: 'x', productId: I.product },
  'PUT /api/backoffice/v1/product-links/{id}': { name: 'x', productId: I.product },
  'POST /api/backoffice/v1/product-specifications': { name: 'x', processingPipelineId: I.pipeline },
  'PUT /api/backoffice/v1/product-specifications/{id}': { name: 'x' },
  'POST /api/backoffice/v1/product-bundles': { name: 'x', items: [{ productId: I.product }, { productLinkId: I.productLink }] },
  'PUT /api/backoffice/v1/product-bundles/{id}': { name: 'x' },
  'PUT /api/backoffice/v1/personalization-workflows/{id}': { content: 'x', workflowType: 'WorkflowElements' },
  'PUT /api/backoffice/v1/processing-pipelines/{id}': { name: 'x', rawContent: '{"tasks":[{"name":"f","type":"finalize"}]}' },
  'PUT /api/backoffice/v1/tenant-secrets/{name}': { value: 'x' },
};
