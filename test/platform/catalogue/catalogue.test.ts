// The rest of the catalogue (platform contract, "Back-office" and "Storefront"): product
// references, links, specifications, bundles, personalization workflows, processing pipelines,
// storefronts, tenant settings and secrets, and the storefront's reads of them.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTenantSecret, resolveProductSpecifier, resolveReferenceTarget, itemPipeline, variantDesigns } from '../../../src/platform/catalogue';
import { api, apiJson, DEMO_PIPELINE, seedPlatform, tenantToken } from '../../helpers/platform';
import { clearTenantSettings, keepTenantRows } from '../../helpers/tenant-state';

keepTenantRows(2, ['tenant_settings', 'tenant_secrets']); // vitest.shared.config.ts: later files find tenant 2's settings and secrets as this one did

const BO = '/api/backoffice/v1';
const SF = '/api/storefront/v1';

beforeAll(async () => {
  await seedPlatform();
  await env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, design_type) VALUES (1, 'demo-card-design', 'design', 'Demo card design', 'Psd')`).run();
  await env.DB.prepare(`INSERT OR IGNORE INTO assets (tenant_id, id, type, name, mockup_type) VALUES (1, 'demo-mockup', 'mockup', 'Demo mockup', 'Mockup2D')`).run();
});

const newProduct = async (name: string, extra: Record<string, unknown> = {}) => apiJson('POST', `${BO}/products`, { name, ...extra }, { token: 1 }, 200);

describe('product references', () => {
  it('POST answers 201; a reference already in the storefront → 409 with existingReferences; storefrontId is required', async () => {
    const p = await newProduct('Referenced', { tags: ['ref-tag'], customFields: { line: 'x' } });
    const body = { productReference: 'ref-1', productReferenceType: 'Product', productReferenceName: 'Ref one', productId: p.id };
    const created = await apiJson('POST', `${BO}/product-references?storefrontId=1`, body, { token: 1 }, 201);
    expect(created).toMatchObject({ productReference: 'ref-1', productReferenceType: 'Product', productId: p.id, storefrontId: 1, tenantId: 1, productLinkId: null });
    const again = await api('POST', `${BO}/product-references?storefrontId=1`, { ...body, productReferenceName: 'other' }, { token: 1 });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/application\/json/);
    const conflict = (await again.json()) as any;
    expect(conflict.type).toBe('NameConflict');
    expect(conflict.existingReferences).toEqual([expect.objectContaining({ productReference: 'ref-1', productReferenceName: 'Ref one' })]);
    const noStorefront = await api('POST', `${BO}/product-references`, body, { token: 1 });
    expect(noStorefront.status).toBe(400);
    expect((await noStorefront.json() as any).errors).toHaveProperty('storefrontId');
    expect((await api('GET', `${SF}/product-references`, undefined, { token: 1 })).status).toBe(400);
    // The product now shows its first reference's storefront fields.
    expect(await apiJson('GET', `${BO}/products/${p.id}`, undefined, { token: 1 })).toMatchObject({ storefrontId: 1, storefrontProductId: 'ref-1', storefrontProductName: 'Ref one' });
  });

  it('the target must exist in the tenant (404 naming the field) and match the type (400)', async () => {
    const missing = await api('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'r-x', productReferenceType: 'Product', productId: 999999 }, { token: 1 });
    expect(missing.status).toBe(404);
    expect((await missing.json() as any).errors).toHaveProperty('productId');
    const typeless = await api('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'r-y', productReferenceType: 'ProductLink', productId: 1 }, { token: 1 });
    expect(typeless.status).toBe(400);
    expect((await typeless.json() as any).errors).toHaveProperty('productLinkId');
    const otherTenant = await api('POST', `${BO}/product-references?storefrontId=2`, { productReference: 'r-z', productReferenceType: 'Product', productId: 1 }, { token: 2 });
    expect(otherTenant.status).toBe(404);
    expect((await api('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'r-z', productReferenceType: 'Product', productId: 1 }, { token: 2 })).status).toBe(404);
  });

  it('lists filter by tags, customFields, sku and type; GET and DELETE by reference (DELETE answers 200 with it)', async () => {
    const p = await newProduct('Listed', { tags: ['list-tag', 'b'], customFields: { series: 'L' } });
    const variant = (await apiJson('GET', `${BO}/products/${p.id}/variants`, undefined, { token: 1 })).items[0];
    await apiJson('POST', `${BO}/products/${p.id}/set-variant-sku`, [{ productVariantId: variant.id, value: 'LIST-SKU' }], { token: 1 }, 204);
    await apiJson('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'listed', productReferenceType: 'Product', productId: p.id }, { token: 1 }, 201);
    const q = (s: string) => apiJson('GET', `${SF}/product-references?storefrontId=1&${s}`, undefined, { token: 1 });
    expect((await q('tags=list-tag&tags=b')).items.map((r: any) => r.productReference)).toEqual(['listed']);
    expect((await q('tags=list-tag&tags=nope')).total).toBe(0);
    expect((await q(`customFields=${encodeURIComponent('{"series":"L"}')}`)).items.map((r: any) => r.productReference)).toEqual(['listed']);
    expect((await q('sku=list-sku')).items.map((r: any) => r.productReference)).toEqual(['listed']);
    expect((await q('productReferenceType=ProductBundle')).total).toBe(0);
    expect((await apiJson('GET', `${SF}/product-references/listed?storefrontId=1`, undefined, { token: 1 })).productId).toBe(p.id);
    expect((await apiJson('GET', `${SF}/product-references/listed/product?storefrontId=1`, undefined, { token: 1 })).id).toBe(p.id);
    const products = await apiJson('GET', `${SF}/product-references/products?storefrontId=1&search=listed`, undefined, { token: 1 });
    expect(products.items.map((x: any) => x.id)).toEqual([p.id]);
    const deleted = await apiJson('DELETE', `${BO}/product-references/listed?storefrontId=1`, undefined, { token: 1 });
    expect(deleted).toMatchObject({ productReference: 'listed', productId: p.id });
    expect((await api('GET', `${BO}/product-references/listed?storefrontId=1`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('DELETE', `${BO}/product-references/listed?storefrontId=1`, undefined, { token: 1 })).status).toBe(404);
  });

  it("another tenant's storefront or reference answers 404", async () => {
    expect((await api('GET', `${SF}/product-references?storefrontId=1`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/product-references/demo-card?storefrontId=1`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/product-references/demo-card?storefrontId=2`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('DELETE', `${BO}/product-references/demo-card?storefrontId=1`, undefined, { token: 2 })).status).toBe(404);
    expect((await apiJson('GET', `${SF}/product-references?storefrontId=2`, undefined, { token: 2 })).items).toEqual([]);
  });

  it('a referenced product cannot be deleted (409); once the reference is gone it can (204)', async () => {
    const p = await newProduct('Delete me');
    await apiJson('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'del-me', productReferenceType: 'Product', productId: p.id }, { token: 1 }, 201);
    const refused = await api('DELETE', `${BO}/products/${p.id}`, undefined, { token: 1 });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ type: 'GeneralConflict', productId: p.id });
    await apiJson('DELETE', `${BO}/product-references/del-me?storefrontId=1`, undefined, { token: 1 });
    expect((await api('DELETE', `${BO}/products/${p.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${BO}/products/${p.id}`, undefined, { token: 1 })).status).toBe(404);
    const left = await env.DB.prepare(`SELECT (SELECT count(*) FROM product_versions WHERE product_id = ?1) + (SELECT count(*) FROM variants WHERE product_id = ?1) AS n`).bind(p.id).first<{ n: number }>();
    expect(left!.n).toBe(0);
  });
});

describe('links, specifications, bundles', () => {
  it('CRUD of links, specifications and bundles; POST 201, PUT 200, DELETE 204; unknown ids in bodies → 404 by path', async () => {
    const p = await newProduct('Linked', { processingPipelineId: 1 });
    const link = await apiJson('POST', `${BO}/product-links`, { name: 'Link A', productId: p.id }, { token: 1 }, 201);
    expect(link).toMatchObject({ name: 'Link A', productId: p.id, productVersionId: null, processingPipelineId: null });
    const renamed = await apiJson('PUT', `${BO}/product-links/${link.id}`, { name: 'Link B', productId: p.id, productVersionId: p.productVersionId }, { token: 1 });
    expect(renamed).toMatchObject({ name: 'Link B', productVersionId: p.productVersionId });
    const badLink = await api('POST', `${BO}/product-links`, { name: 'x', productId: 999999 }, { token: 1 });
    expect(badLink.status).toBe(404);
    expect((await badLink.json() as any).errors).toHaveProperty('productId');

    const spec = await apiJson('POST', `${BO}/product-specifications`, { name: 'Spec', productAttributes: [{ name: 'width', type: 'number', value: 90 }], processingPipelineId: 1 }, { token: 1 }, 201);
    expect(spec.productAttributes).toEqual([{ name: 'width', type: 'number', value: 90 }]);
    const bundle = await apiJson('POST', `${BO}/product-bundles`, { name: 'Bundle', items: [{ productId: p.id }, { productLinkId: link.id }] }, { token: 1 }, 201);
    expect(bundle.items).toEqual([{ productId: p.id, productLinkId: null }, { productId: null, productLinkId: link.id }]);
    const badBundle = await api('POST', `${BO}/product-bundles`, { name: 'B', items: [{ productId: p.id }, { productLinkId: 999999 }] }, { token: 1 });
    expect(badBundle.status).toBe(404);
    expect((await badBundle.json() as any).errors).toEqual({ 'items[1].productLinkId': [expect.any(String)] });
    expect((await api('POST', `${BO}/product-bundles`, { name: 'B', items: [{ productId: p.id, productLinkId: link.id }] }, { token: 1 })).status).toBe(400);

    // In use: the link is in a bundle, the product in a link and a bundle.
    expect((await api('DELETE', `${BO}/product-links/${link.id}`, undefined, { token: 1 })).status).toBe(409);
    expect((await api('DELETE', `${BO}/products/${p.id}`, undefined, { token: 1 })).status).toBe(409);
    await apiJson('POST', `${BO}/product-references?storefrontId=1`, { productReference: 'spec-ref', productReferenceType: 'ProductSpecification', productSpecificationId: spec.id }, { token: 1 }, 201);
    expect((await api('DELETE', `${BO}/product-specifications/${spec.id}`, undefined, { token: 1 })).status).toBe(409);
    expect((await api('DELETE', `${BO}/product-bundles/${bundle.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('DELETE', `${BO}/product-links/${link.id}`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('GET', `${SF}/product-links/${link.id}`, undefined, { token: 1 })).status).toBe(404);

    // Storefront reads.
    expect((await apiJson('GET', `${SF}/product-specifications/${spec.id}`, undefined, { token: 1 })).name).toBe('Spec');
    expect((await apiJson('GET', `${SF}/product-references/spec-ref/product-specification?storefrontId=1`, undefined, { token: 1 })).id).toBe(spec.id);
    expect((await api('GET', `${SF}/product-references/spec-ref/product?storefrontId=1`, undefined, { token: 1 })).status).toBe(404);
    const specs = await apiJson('GET', `${SF}/product-references/product-specifications?storefrontId=1`, undefined, { token: 1 });
    expect(specs.items.map((s: any) => s.id)).toEqual([spec.id]);
    expect((await api('GET', `${SF}/product-specifications/${spec.id}`, undefined, { token: 2 })).status).toBe(404);
  });
});

describe('personalization workflows and processing pipelines', () => {
  it('workflows: CRUD; one used by a product → 409', async () => {
    const w = await apiJson('POST', `${BO}/personalization-workflows`, { name: 'WF', content: '{"a":1}', workflowType: 'designeditor' }, { token: 1 }, 201);
    expect(w).toMatchObject({ name: 'WF', content: '{"a":1}', workflowType: 'DesignEditor' });
    expect((await api('POST', `${BO}/personalization-workflows`, { content: 'x', workflowType: 'Canvas' }, { token: 1 })).status).toBe(400);
    const p = await newProduct('Personalised', { personalizationWorkflowId: w.id });
    expect((await api('DELETE', `${BO}/personalization-workflows/${w.id}`, undefined, { token: 1 })).status).toBe(409);
    const available = await apiJson('GET', `${BO}/products/available-workflows?take=1000`, undefined, { token: 1 });
    expect(available.items.map((x: any) => x.id)).toContain(w.id);
    await apiJson('PUT', `${BO}/products/${p.id}`, { personalizationWorkflowId: null }, { token: 1 });
    expect((await api('DELETE', `${BO}/personalization-workflows/${w.id}`, undefined, { token: 1 })).status).toBe(204);
  });

  it('pipelines are validated on save: 400 with the validator\'s errors by path; a valid one is stored verbatim', async () => {
    const bad = await api('POST', `${BO}/processing-pipelines`, { name: 'Bad', rawContent: JSON.stringify({ tasks: [{ name: 'r', type: 'render-hires', inputArtifacts: ['design'] }] }) }, { token: 1 });
    expect(bad.status).toBe(400);
    const problem = (await bad.json()) as any;
    expect(problem.detail).toBe('The pipeline is not valid.');
    expect(Object.keys(problem.errors)).toEqual(expect.arrayContaining(['tasks[0].inputArtifacts[0]', 'tasks']));
    expect((await api('POST', `${BO}/processing-pipelines`, { name: 'NotJson', rawContent: '{' }, { token: 1 })).status).toBe(400);
    const ok = await apiJson('POST', `${BO}/processing-pipelines`, { name: 'Good', rawContent: DEMO_PIPELINE }, { token: 1 }, 201);
    expect(ok).toMatchObject({ name: 'Good', rawContent: DEMO_PIPELINE });
    const updated = await apiJson('PUT', `${BO}/processing-pipelines/${ok.id}`, { name: 'Better', rawContent: DEMO_PIPELINE }, { token: 1 });
    expect(updated.name).toBe('Better');
    expect((await apiJson('GET', `${SF}/processing-pipelines/${ok.id}`, undefined, { token: 1 })).rawContent).toBe(DEMO_PIPELINE);
    expect((await api('GET', `${SF}/processing-pipelines/${ok.id}`, undefined, { token: 2 })).status).toBe(404);
    expect((await apiJson('GET', `${BO}/products/available-pipelines?search=better`, undefined, { token: 1 })).items.map((x: any) => x.id)).toEqual([ok.id]);
  });

  it('a pipeline referenced by a product, link, specification or project item → 409; pipelines need ProcessingPipelines scopes', async () => {
    expect((await api('DELETE', `${BO}/processing-pipelines/1`, undefined, { token: 1 })).status).toBe(409);
    const p = await apiJson('POST', `${BO}/processing-pipelines`, { name: 'Item pipeline', rawContent: DEMO_PIPELINE }, { token: 1 }, 201);
    await env.DB.prepare(`INSERT INTO project_items (tenant_id, project_id, processing_pipeline_id) VALUES (1, 990001, ?1)`).bind(p.id).run();
    expect((await api('DELETE', `${BO}/processing-pipelines/${p.id}`, undefined, { token: 1 })).status).toBe(409);
    const productsOnly = await tenantToken(1, 'Products_full');
    expect((await api('GET', `${BO}/processing-pipelines`, undefined, { token: productsOnly })).status).toBe(403);
  });
});

describe('storefronts, tenant settings and secrets', () => {
  it('POST /storefronts/custom answers 200 with a Custom storefront; DELETE answers 200 with it; with projects → 409', async () => {
    const s = await apiJson('POST', `${BO}/storefronts/custom`, { name: 'Shop' }, { token: 1 }, 200);
    expect(s).toMatchObject({ name: 'Shop', type: 'Custom', status: 'Dev', tenantId: 1 });
    expect((await apiJson('GET', `${BO}/storefronts/${s.id}`, undefined, { token: 1 })).name).toBe('Shop');
    expect((await api('GET', `${BO}/storefronts/${s.id}`, undefined, { token: 2 })).status).toBe(404);
    expect((await apiJson('GET', `${BO}/storefronts?search=shop`, undefined, { token: 1 })).items.map((x: any) => x.id)).toContain(s.id);
    await env.DB.prepare(`INSERT INTO projects (tenant_id, storefront_id, owner_id) VALUES (1, ?1, 'someone')`).bind(s.id).run();
    const refused = await api('DELETE', `${BO}/storefronts/${s.id}`, undefined, { token: 1 });
    expect(refused.status).toBe(409);
    await env.DB.prepare(`DELETE FROM projects WHERE tenant_id = 1 AND storefront_id = ?1`).bind(s.id).run();
    expect(await apiJson('DELETE', `${BO}/storefronts/${s.id}`, undefined, { token: 1 })).toMatchObject({ id: s.id, name: 'Shop' });
    expect((await api('DELETE', `${BO}/storefronts/${s.id}`, undefined, { token: 1 })).status).toBe(404);
  });

  it('tenant settings default to null, false, 30; PUT changes the fields given; an unknown status code → 400', async () => {
    await clearTenantSettings(2); // a tenant without a settings row, whatever files before this one set
    expect(await apiJson('GET', `${BO}/tenant-settings`, undefined, { token: 2 })).toEqual({ startProcessingOnStatus: null, enableAssetsRetention: false, assetsRetentionPeriodInDays: 30, allowSelfCalls: false });
    expect(await apiJson('PUT', `${BO}/tenant-settings`, { startProcessingOnStatus: 1, assetsRetentionPeriodInDays: 7 }, { token: 2 })).toEqual({ startProcessingOnStatus: 1, enableAssetsRetention: false, assetsRetentionPeriodInDays: 7, allowSelfCalls: false });
    expect(await apiJson('PUT', `${BO}/tenant-settings`, { enableAssetsRetention: true }, { token: 2 })).toEqual({ startProcessingOnStatus: 1, enableAssetsRetention: true, assetsRetentionPeriodInDays: 7, allowSelfCalls: false });
    const unknown = await api('PUT', `${BO}/tenant-settings`, { startProcessingOnStatus: 42 }, { token: 2 });
    expect(unknown.status).toBe(400);
    expect((await unknown.json() as any).errors).toHaveProperty('startProcessingOnStatus');
    expect((await api('PUT', `${BO}/tenant-settings`, { assetsRetentionPeriodInDays: 0 }, { token: 2 })).status).toBe(400);
    expect(await apiJson('PUT', `${BO}/tenant-settings`, { startProcessingOnStatus: null }, { token: 2 })).toMatchObject({ startProcessingOnStatus: null });
    // Tenant 1 is untouched by tenant 2's changes.
    expect((await apiJson('GET', `${BO}/tenant-settings`, undefined, { token: 1 })).assetsRetentionPeriodInDays).toBe(30);
  });

  it('tenant secrets are write-only, sealed with AES-GCM bound to tenant and name, case-insensitive; they need ProcessingPipelines_full', async () => {
    expect((await api('PUT', `${BO}/tenant-secrets/Dropbox_Token`, { value: 's3cr3t-value' }, { token: 1 })).status).toBe(204);
    const row = await env.DB.prepare(`SELECT name, ciphertext FROM tenant_secrets WHERE tenant_id = 1 AND name_key = 'dropbox_token'`).first<{ name: string; ciphertext: string }>();
    expect(row!.name).toBe('Dropbox_Token');
    expect(row!.ciphertext).not.toContain('s3cr3t');
    expect(await readTenantSecret(env as never, 1, 'DROPBOX_TOKEN')).toBe('s3cr3t-value');
    expect(await readTenantSecret(env as never, 2, 'dropbox_token')).toBeNull();
    // A sealed value copied to another tenant does not open (AAD binds tenant and name).
    await env.DB.prepare(`INSERT OR REPLACE INTO tenant_secrets (tenant_id, name_key, name, iv, ciphertext) SELECT 2, name_key, name, iv, ciphertext FROM tenant_secrets WHERE tenant_id = 1 AND name_key = 'dropbox_token'`).run();
    await expect(readTenantSecret(env as never, 2, 'dropbox_token')).rejects.toThrow();
    await env.DB.prepare(`DELETE FROM tenant_secrets WHERE tenant_id = 2`).run();

    expect((await api('PUT', `${BO}/tenant-secrets/dropbox_token`, { value: 'replaced' }, { token: 1 })).status).toBe(204);
    expect(await readTenantSecret(env as never, 1, 'Dropbox_Token')).toBe('replaced');
    expect((await api('GET', `${BO}/tenant-secrets/dropbox_token`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('PUT', `${BO}/tenant-secrets/bad.name`, { value: 'x' }, { token: 1 })).status).toBe(400);
    expect((await api('PUT', `${BO}/tenant-secrets/x`, { value: '' }, { token: 1 })).status).toBe(400);
    const updateOnly = await tenantToken(1, 'ProcessingPipelines_update');
    expect((await api('PUT', `${BO}/tenant-secrets/x`, { value: 'v' }, { token: updateOnly })).status).toBe(403);
    expect((await api('DELETE', `${BO}/tenant-secrets/DROPBOX_token`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('DELETE', `${BO}/tenant-secrets/DROPBOX_token`, undefined, { token: 1 })).status).toBe(204);
    expect((await api('DELETE', `${BO}/tenant-secrets/DROPBOX_token`, undefined, { token: 1 })).status).toBe(404);
  });
});

describe('resolution for projects (the exported catalogue API)', () => {
  it('a reference resolves to its product, current version, only variant, pipeline and designs', async () => {
    const r = await resolveReferenceTarget(env.DB, 1, 1, 'demo-card');
    expect(r).toEqual({
      productReference: 'demo-card',
      productId: 1,
      productVersionId: 1,
      productVariantId: 1,
      productLinkId: null,
      productSpecificationId: null,
      productBundleId: null,
      sku: 'DEMO-CARD-MATTE',
      processingPipelineId: 1,
      personalizationWorkflowId: 1,
    });
    expect(await variantDesigns(env.DB, 1, 1, 1)).toEqual([{ designId: 'demo-card-design', designName: 'Demo card design', designGroup: 'front', productVariantId: 1 }]);
    await expect(resolveReferenceTarget(env.DB, 2, 1, 'demo-card')).rejects.toMatchObject({ status: 404, errors: { productReference: [expect.any(String)] } });
  });

  it("an item's pipeline: its link's, else its product's, else its specification's", async () => {
    const pipeline = await apiJson('POST', `${BO}/processing-pipelines`, { name: 'Link pipeline', rawContent: DEMO_PIPELINE }, { token: 1 }, 201);
    const link = await apiJson('POST', `${BO}/product-links`, { name: 'L', productId: 1, processingPipelineId: pipeline.id }, { token: 1 }, 201);
    const bare = await apiJson('POST', `${BO}/product-links`, { name: 'L2', productId: 1 }, { token: 1 }, 201);
    expect((await resolveProductSpecifier(env.DB, 1, { type: 'ProductLink', id: link.id })).processingPipelineId).toBe(pipeline.id);
    expect((await resolveProductSpecifier(env.DB, 1, { type: 'ProductLink', id: bare.id })).processingPipelineId).toBe(1);
    expect(await itemPipeline(env.DB, 1, { productLinkId: bare.id, productId: 1 })).toBe(1);
    expect(await itemPipeline(env.DB, 1, { productLinkId: link.id, productId: 1 })).toBe(pipeline.id);
    await expect(resolveProductSpecifier(env.DB, 1, { type: 'Product', id: 1, variantId: 999999 }, 'items[0].productSpecifier')).rejects.toMatchObject({
      status: 404,
      errors: { 'items[0].productSpecifier.variantId': [expect.any(String)] },
    });
    await expect(resolveProductSpecifier(env.DB, 2, { type: 'Product', id: 1 })).rejects.toMatchObject({ status: 404 });
    const params = await apiJson('GET', `${SF}/product-references/demo-card/personalization-parameters?storefrontId=1`, undefined, { token: 1 });
    expect(params).toMatchObject({ productId: 1, productVersionId: 1, processingPipelineId: 1, personalizationWorkflow: { id: 1 }, designs: [{ designId: 'demo-card-design', designGroup: 'front' }], mockups: [{ mockupId: 'demo-mockup', mockupValidationType: 'Mockup2D' }] });
    expect((await apiJson('GET', `${SF}/product-links/${link.id}/personalization-workflow`, undefined, { token: 1 })).id).toBe(1);
    const unknownVariant = await api('GET', `${SF}/product-references/demo-card/personalization-parameters?storefrontId=1&productVariantId=999999`, undefined, { token: 1 });
    expect(unknownVariant.status).toBe(404);
    expect((await unknownVariant.json() as any).errors).toHaveProperty('productVariantId');
    const otherVersion = await api('GET', `${SF}/products/1/personalization-parameters?productVersionId=999999`, undefined, { token: 1 });
    expect(otherVersion.status).toBe(404);
    const bundle = await apiJson('POST', `${BO}/product-bundles`, { name: 'Params bundle', items: [{ productId: 1 }], processingPipelineId: 1 }, { token: 1 }, 201);
    expect(await apiJson('GET', `${SF}/product-bundles/${bundle.id}/personalization-parameters`, undefined, { token: 1 })).toMatchObject({ productBundleId: bundle.id, processingPipelineId: 1, designs: [] });
    expect((await api('GET', `${SF}/product-bundles/${bundle.id}/personalization-workflow`, undefined, { token: 1 })).status).toBe(404);
  });
});
