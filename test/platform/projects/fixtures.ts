// Catalogue and asset rows the project tests need (as the demo seed and the catalogue write them):
// a public PSD design, a private design of `owner`, a pipeline, a product (version, variant) using
// it, a product without a pipeline, and references to both in storefront 1.
import { env } from 'cloudflare:workers';

export const FX = {
  design: 'aaaaaaaaaaaaaaaaaaaa0001',
  privateDesign: 'aaaaaaaaaaaaaaaaaaaa0002',
  otherOwnersDesign: 'aaaaaaaaaaaaaaaaaaaa0003',
  previewResource: 'aaaaaaaaaaaaaaaaaaaa0004',
  owner: 'fx-owner',
  pipeline: 5001,
  product: 5001,
  version: 5001,
  variant: 5001,
  plainProduct: 5002,
  plainVersion: 5002,
  reference: 'fx-card',
  plainReference: 'fx-plain',
  sku: 'FX-CARD-1',
} as const;

export async function seedProjectFixtures(): Promise<void> {
  const rows: Array<[string, ...unknown[]]> = [
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, design_type) VALUES (1, ?1, 'design', 'fx-design', 'Psd')`, FX.design],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, name, design_type, retention_policy) VALUES (1, ?1, 'design', ?2, 'fx-private', 'Psd', 'Default')`, FX.privateDesign, FX.owner],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, name, design_type) VALUES (1, ?1, 'design', 'someone-else', 'fx-other', 'Psd')`, FX.otherOwnersDesign],
    [`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, blob_sha, mime_type) VALUES (1, ?1, 'resource', 'fx-preview', ?2, 'image/png')`, FX.previewResource, 'f'.repeat(64)],
    [`INSERT OR IGNORE INTO processing_pipelines (id, tenant_id, name, raw_content) VALUES (?1, 1, 'fx-pipeline', '{"tasks":[]}')`, FX.pipeline],
    [`INSERT OR IGNORE INTO products (id, tenant_id, name, current_version_id, processing_pipeline_id) VALUES (?1, 1, 'fx-product', ?2, ?3)`, FX.product, FX.version, FX.pipeline],
    [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (?1, 1, ?2)`, FX.version, FX.product],
    [`INSERT OR IGNORE INTO variants (id, tenant_id, product_version_id, product_id, uid, sku) VALUES (?1, 1, ?2, ?3, 'fx-variant', ?4)`, FX.variant, FX.version, FX.product, FX.sku],
    [`INSERT OR IGNORE INTO products (id, tenant_id, name, current_version_id) VALUES (?1, 1, 'fx-plain', ?2)`, FX.plainProduct, FX.plainVersion],
    [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (?1, 1, ?2)`, FX.plainVersion, FX.plainProduct],
    [`INSERT OR IGNORE INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_id) VALUES (1, 1, ?1, 'Product', ?2)`, FX.reference, FX.product],
    [`INSERT OR IGNORE INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_id) VALUES (1, 1, ?1, 'Product', ?2)`, FX.plainReference, FX.plainProduct],
  ];
  await env.DB.batch(rows.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
  await env.FILES.put(`p/1/blobs/${'f'.repeat(64)}`, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
}
