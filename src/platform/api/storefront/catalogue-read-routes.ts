/**
 * Storefront catalogue reads (registered by routes.ts on the storefront area). Products scope
 * (`Products_read`); processing pipelines `ProcessingPipelines_read`. The storefront products
 * routes are deprecated (spec: the Storefront Products API is deprecated): use the references.
 *
 *   GET /products                                             PagedOfProductDto (sku, tags, customFields)  deprecated
 *   GET /products/{id}                                        ProductDto (productVersionId)                  deprecated
 *   GET /products/{id}/options                                PagedOfProductOptionDto                        deprecated
 *   GET /products/{id}/variants                               PagedOfProductVariantDto (options, sku, takeAvailableOnly)  deprecated
 *   GET /products/{id}/variants/{productVariantId}            ProductVariantDto                              deprecated
 *   GET /products/{id}/variant-designs                        PagedOfProductVariantDesignDto (search, designPath, designCustomFields)  deprecated
 *   GET /products/{id}/variant-mockups                        PagedOfProductVariantMockupDto (mockupValidationType)  deprecated
 *   GET /products/{id}/personalization-workflow               PersonalizationWorkflowDto                     deprecated
 *   GET /products/{id}/personalization-parameters             PersonalizationParametersDto                   deprecated
 *   GET /product-references                                   PagedOfProductReferenceDto (storefrontId, tags, customFields, sku…)
 *   GET /product-references/products|product-links|product-specifications|product-bundles   paged targets
 *   GET /product-references/{reference}                       ProductReferenceDto
 *   GET /product-references/{reference}/product|product-link|product-specification|product-bundle
 *   GET /product-references/{reference}/personalization-workflow|personalization-parameters
 *   GET /product-links|product-specifications|product-bundles[/{id}[/personalization-workflow|parameters]]
 *   GET /processing-pipelines[/{id}]
 */
import { z } from '@hono/zod-openapi';
import { intIdOr404, NotFoundError, platformRoute, problemResponses, type PlatformArea } from '../../core';
import { getEntity, listEntities, type EntityKind } from '../../catalogue/entities';
import { getOptions, getProduct, getVariant, listProducts, listVariants, productOr404, versionOf } from '../../catalogue/products';
import {
  getReference,
  listReferences,
  personalizationParameters,
  referenceDto,
  referencedIds,
  resolveProductSpecifier,
  resolveReferenceTarget,
  storefrontOr404,
  workflowOf,
  type ReferenceType,
} from '../../catalogue/references';
import {
  EntityListQuery,
  PagedOfProcessingPipelineDto,
  PagedOfProductBundleDto,
  PagedOfProductDto,
  PagedOfProductLinkDto,
  PagedOfProductOptionDto,
  PagedOfProductReferenceDto,
  PagedOfProductSpecificationDto,
  PagedOfProductVariantDesignDto,
  PagedOfProductVariantDto,
  PagedOfProductVariantMockupDto,
  PersonalizationParametersDto,
  PersonalizationWorkflowDto,
  ProcessingPipelineDto,
  ProductBundleDto,
  ProductDto,
  ProductLinkDto,
  ProductListQuery,
  ProductReferenceDto,
  ProductSpecificationDto,
  ProductVariantDto,
  ReferenceListQuery,
  StorefrontQuery,
  VariantDesignsQuery,
  VariantListQuery,
  VariantMockupsQuery,
  VersionQuery,
} from '../../catalogue/schemas';
import { listVariantAssets } from '../../catalogue/variant-assets';

const PRODUCTS_READ = { type: 'Products', level: 'read' } as const;
const ok = (description: string, schema: z.ZodType) => ({ 200: { description, content: { 'application/json': { schema } } }, ...problemResponses(404) });
const idParam = z.object({ id: z.string() });
/** 404s of personalization reads name the query parameter that named nothing. */
const QUERY_PATHS = { id: 'id', versionId: 'productVersionId', variantId: 'productVariantId' };
const num = (s: string | undefined) => (s === undefined || s === '' ? undefined : Number(s));

/**
 * Product reads shared by the storefront (deprecated there) and the back office: the product,
 * its options, variants, variant designs and mockups.
 */
export function registerProductReadRoutes(area: PlatformArea, opts: { deprecated: boolean; tags: string[] }): void {
  const base = { method: 'get' as const, tags: opts.tags, ...(opts.deprecated ? { deprecated: true } : {}) };
  area.openapi(
    platformRoute({ ...base, path: '/products', summary: 'List products', request: { query: ProductListQuery }, responses: ok('A page of products.', PagedOfProductDto) }, PRODUCTS_READ),
    async (c) => {
      const q = c.req.valid('query');
      return c.json(await listProducts(c.var.tenant, q), 200);
    },
  );
  area.openapi(
    platformRoute(
      { ...base, path: '/products/{id}', summary: 'Get a product', request: { params: idParam, query: VersionQuery }, responses: ok('The product (at the version asked for, else the current one).', ProductDto) },
      PRODUCTS_READ,
    ),
    async (c) => c.json(await getProduct(c.var.tenant, intIdOr404(c.req.valid('param').id, 'product'), c.req.valid('query').productVersionId), 200),
  );
  area.openapi(
    platformRoute(
      { ...base, path: '/products/{id}/options', summary: "A product's options and their values", request: { params: idParam, query: VersionQuery }, responses: ok('The options.', PagedOfProductOptionDto) },
      PRODUCTS_READ,
    ),
    async (c) => c.json(await getOptions(c.var.tenant, intIdOr404(c.req.valid('param').id, 'product'), c.req.valid('query').productVersionId), 200),
  );
  area.openapi(
    platformRoute(
      { ...base, path: '/products/{id}/variants', summary: "A product's variants", request: { params: idParam, query: VariantListQuery }, responses: ok('A page of variants.', PagedOfProductVariantDto) },
      PRODUCTS_READ,
    ),
    async (c) => c.json(await listVariants(c.var.tenant, intIdOr404(c.req.valid('param').id, 'product'), c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute(
      {
        ...base,
        path: '/products/{id}/variants/{productVariantId}',
        summary: 'Get a variant',
        request: { params: z.object({ id: z.string(), productVariantId: z.string() }) },
        responses: ok('The variant (of any version of the product).', ProductVariantDto),
      },
      PRODUCTS_READ,
    ),
    async (c) => {
      const p = c.req.valid('param');
      return c.json(await getVariant(c.var.tenant, intIdOr404(p.id, 'product'), intIdOr404(p.productVariantId, 'variant')), 200);
    },
  );
  // Variant designs and variant mockups: one read of the variants' connected assets, by kind.
  const variantAssets = [
    {
      kind: 'design',
      summary: "A product's variant designs",
      description: 'A row per variant and connected design whose option binding matches the variant (an empty binding matches every variant).',
      query: VariantDesignsQuery,
      page: PagedOfProductVariantDesignDto,
    },
    {
      kind: 'mockup',
      summary: "A product's variant mockups",
      description: '`mockupValidationType` is the mockup\'s type (Mockup2D, Mockup3D, MockupLink).',
      query: VariantMockupsQuery,
      page: PagedOfProductVariantMockupDto,
    },
  ] as const;
  for (const assets of variantAssets) {
    area.openapi(
      platformRoute(
        {
          ...base,
          path: `/products/{id}/variant-${assets.kind}s`,
          summary: assets.summary,
          description: assets.description,
          request: { params: idParam, query: assets.query },
          responses: ok(`A page of variant ${assets.kind}s.`, assets.page),
        },
        PRODUCTS_READ,
      ),
      async (c) => {
        const q = c.req.valid('query');
        return c.json(await listVariantAssets(c.var.tenant, intIdOr404(c.req.valid('param').id, 'product'), assets.kind, { ...q, productVariantId: num(q.productVariantId) }), 200);
      },
    );
  }
}

const ParametersQuery = VersionQuery.extend({ productVariantId: z.string().regex(/^\d{1,15}$/).optional() });
const ReferenceParametersQuery = StorefrontQuery.extend(ParametersQuery.shape);

const TARGETS: Array<{ segment: string; type: ReferenceType; kind?: EntityKind; list: z.ZodType; one: z.ZodType; noun: string }> = [
  { segment: 'product-links', type: 'ProductLink', kind: 'link', list: PagedOfProductLinkDto, one: ProductLinkDto, noun: 'product link' },
  { segment: 'product-specifications', type: 'ProductSpecification', kind: 'specification', list: PagedOfProductSpecificationDto, one: ProductSpecificationDto, noun: 'product specification' },
  { segment: 'product-bundles', type: 'ProductBundle', kind: 'bundle', list: PagedOfProductBundleDto, one: ProductBundleDto, noun: 'product bundle' },
];

/**
 * The route of `<path>/personalization-workflow` or `<path>/personalization-parameters`: one spec for
 * every kind of catalogue target (product, reference, link, specification, bundle), which differ only
 * in path, tags, their summaries' owner and the parameters that name the target (each handler
 * resolves those its own way, then answers the same DTO).
 */
function personalizationRoute<P extends z.ZodObject, Q extends z.ZodObject | undefined = undefined>(
  read: 'workflow' | 'parameters',
  target: { path: string; tags: string[]; deprecated?: true; owner: string; workflowDescription?: string },
  params: P,
  query?: Q,
) {
  const workflow = read === 'workflow';
  return platformRoute(
    {
      method: 'get',
      path: `${target.path}/personalization-${read}`,
      tags: target.tags,
      ...(target.deprecated ? { deprecated: true } : {}),
      summary: `${target.owner}'s personalization ${read}`,
      ...(workflow && target.workflowDescription ? { description: target.workflowDescription } : {}),
      request: { params, query: query as Q }, // no query (Q undefined): the route takes only the tenant
      responses: workflow ? ok('The workflow.', PersonalizationWorkflowDto) : ok('Workflow, pipeline, designs and mockups.', PersonalizationParametersDto),
    },
    PRODUCTS_READ,
  );
}

export function registerCatalogueRoutes(area: PlatformArea): void {
  const tags = ['Products'];
  registerProductReadRoutes(area, { deprecated: true, tags });

  const productTarget = { path: '/products/{id}', tags, deprecated: true, owner: 'A product' } as const;
  area.openapi(personalizationRoute('workflow', productTarget, idParam, VersionQuery), async (c) => {
    const t = c.var.tenant;
    const r = await resolveProductSpecifier(t.env.DB, t.tenantId, { type: 'Product', id: intIdOr404(c.req.valid('param').id, 'product'), versionId: num(c.req.valid('query').productVersionId) }, QUERY_PATHS);
    return c.json(await workflowOf(t, r), 200);
  });
  area.openapi(personalizationRoute('parameters', productTarget, idParam, ParametersQuery), async (c) => {
    const t = c.var.tenant;
    const q = c.req.valid('query');
    const id = intIdOr404(c.req.valid('param').id, 'product');
    const product = await productOr404(t.env.DB, t.tenantId, id);
    const version = await versionOf(t.env.DB, t.tenantId, product, q.productVersionId);
    const r = await resolveProductSpecifier(t.env.DB, t.tenantId, { type: 'Product', id, versionId: version, variantId: num(q.productVariantId) }, QUERY_PATHS);
    return c.json(await personalizationParameters(t, r), 200);
  });

  // --- product references ---------------------------------------------------------------------------
  const refTags = ['Product references'];
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/product-references',
        tags: refTags,
        summary: "A storefront's product references",
        description: '`tags`, `customFields` and `sku` filter by the referenced product (a link\'s product for link references).',
        request: { query: ReferenceListQuery },
        responses: ok('A page of references.', PagedOfProductReferenceDto),
      },
      PRODUCTS_READ,
    ),
    async (c) => {
      const q = c.req.valid('query');
      return c.json(await listReferences(c.var.tenant, Number(q.storefrontId), { ...q, productIds: q.productIds?.map(Number) }), 200);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/product-references/products',
        tags: refTags,
        summary: 'Products a storefront references',
        request: { query: StorefrontQuery.extend(ProductListQuery.shape) },
        responses: ok('A page of products.', PagedOfProductDto),
      },
      PRODUCTS_READ,
    ),
    async (c) => {
      const t = c.var.tenant;
      const q = c.req.valid('query');
      const storefrontId = await storefrontOr404(t.env.DB, t.tenantId, q.storefrontId);
      return c.json(await listProducts(t, { ...q, ids: await referencedIds(t.env.DB, t.tenantId, storefrontId, 'Product') }), 200);
    },
  );
  for (const target of TARGETS) {
    area.openapi(
      platformRoute(
        {
          method: 'get',
          path: `/product-references/${target.segment}`,
          tags: refTags,
          summary: `${target.noun[0]!.toUpperCase()}${target.noun.slice(1)}s a storefront references`,
          request: { query: StorefrontQuery.extend(EntityListQuery.shape) },
          responses: ok('A page of them.', target.list),
        },
        PRODUCTS_READ,
      ),
      async (c) => {
        const t = c.var.tenant;
        const q = c.req.valid('query');
        const storefrontId = await storefrontOr404(t.env.DB, t.tenantId, q.storefrontId);
        return c.json(await listEntities(t, target.kind!, { ...q, ids: await referencedIds(t.env.DB, t.tenantId, storefrontId, target.type) }), 200);
      },
    );
  }
  const refParam = z.object({ reference: z.string() });
  area.openapi(
    platformRoute(
      { method: 'get', path: '/product-references/{reference}', tags: refTags, summary: 'Get a product reference', request: { params: refParam, query: StorefrontQuery }, responses: ok('The reference.', ProductReferenceDto) },
      PRODUCTS_READ,
    ),
    async (c) => c.json(referenceDto(await getReference(c.var.tenant, Number(c.req.valid('query').storefrontId), c.req.valid('param').reference)), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'get',
        path: '/product-references/{reference}/product',
        tags: refTags,
        summary: 'The product a reference names',
        description: "A Product reference's product (at its pinned version), or a ProductLink reference's product.",
        request: { params: refParam, query: StorefrontQuery },
        responses: ok('The product.', ProductDto),
      },
      PRODUCTS_READ,
    ),
    async (c) => {
      const t = c.var.tenant;
      const ref = await getReference(t, Number(c.req.valid('query').storefrontId), c.req.valid('param').reference);
      if (ref.productId == null) throw new NotFoundError(`The reference "${ref.productReference}" names no product.`);
      return c.json(await getProduct(t, ref.productId, ref.productVersionId), 200);
    },
  );
  for (const target of TARGETS) {
    const field = target.type === 'ProductLink' ? 'productLinkId' : target.type === 'ProductSpecification' ? 'productSpecificationId' : 'productBundleId';
    area.openapi(
      platformRoute(
        {
          method: 'get',
          path: `/product-references/{reference}/${target.segment.slice(0, -1)}`,
          tags: refTags,
          summary: `The ${target.noun} a reference names`,
          request: { params: refParam, query: StorefrontQuery },
          responses: ok(`The ${target.noun}.`, target.one),
        },
        PRODUCTS_READ,
      ),
      async (c) => {
        const t = c.var.tenant;
        const ref = await getReference(t, Number(c.req.valid('query').storefrontId), c.req.valid('param').reference);
        const id = ref[field];
        if (id == null) throw new NotFoundError(`The reference "${ref.productReference}" names no ${target.noun}.`);
        return c.json(await getEntity(t, target.kind!, id), 200);
      },
    );
  }
  const referenceTarget = {
    path: '/product-references/{reference}',
    tags: refTags,
    owner: 'A reference',
    workflowDescription: "The link's workflow, else its product's; a specification's or bundle's own.",
  } as const;
  area.openapi(personalizationRoute('workflow', referenceTarget, refParam, StorefrontQuery), async (c) => {
    const t = c.var.tenant;
    const storefrontId = await storefrontOr404(t.env.DB, t.tenantId, c.req.valid('query').storefrontId);
    const r = await resolveReferenceTarget(t.env.DB, t.tenantId, storefrontId, c.req.valid('param').reference, {}, 'reference');
    return c.json(await workflowOf(t, r), 200);
  });
  area.openapi(personalizationRoute('parameters', referenceTarget, refParam, ReferenceParametersQuery), async (c) => {
    const t = c.var.tenant;
    const q = c.req.valid('query');
    const storefrontId = await storefrontOr404(t.env.DB, t.tenantId, q.storefrontId);
    const r = await resolveReferenceTarget(t.env.DB, t.tenantId, storefrontId, c.req.valid('param').reference, { versionId: num(q.productVersionId), variantId: num(q.productVariantId) }, 'reference', { ...QUERY_PATHS, id: 'reference' });
    return c.json(await personalizationParameters(t, r), 200);
  });

  // --- links, specifications, bundles -----------------------------------------------------------------------
  for (const target of TARGETS) {
    const kind = target.kind!;
    const entityTags = [`${target.noun[0]!.toUpperCase()}${target.noun.slice(1)}s`];
    area.openapi(
      platformRoute({ method: 'get', path: `/${target.segment}`, tags: entityTags, summary: `List ${target.noun}s`, request: { query: EntityListQuery }, responses: ok('A page of them.', target.list) }, PRODUCTS_READ),
      async (c) => c.json(await listEntities(c.var.tenant, kind, c.req.valid('query')), 200),
    );
    area.openapi(
      platformRoute({ method: 'get', path: `/${target.segment}/{id}`, tags: entityTags, summary: `Get a ${target.noun}`, request: { params: idParam }, responses: ok(`The ${target.noun}.`, target.one) }, PRODUCTS_READ),
      async (c) => c.json(await getEntity(c.var.tenant, kind, intIdOr404(c.req.valid('param').id, target.noun)), 200),
    );
    const entityTarget = { path: `/${target.segment}/{id}`, tags: entityTags, owner: `A ${target.noun}` };
    area.openapi(personalizationRoute('workflow', entityTarget, idParam), async (c) => {
      const t = c.var.tenant;
      const r = await resolveProductSpecifier(t.env.DB, t.tenantId, { type: target.type, id: intIdOr404(c.req.valid('param').id, target.noun) }, QUERY_PATHS);
      return c.json(await workflowOf(t, r), 200);
    });
    area.openapi(personalizationRoute('parameters', entityTarget, idParam, ParametersQuery), async (c) => {
      const t = c.var.tenant;
      const q = c.req.valid('query');
      const r = await resolveProductSpecifier(t.env.DB, t.tenantId, { type: target.type, id: intIdOr404(c.req.valid('param').id, target.noun), versionId: num(q.productVersionId), variantId: num(q.productVariantId) }, QUERY_PATHS);
      return c.json(await personalizationParameters(t, r), 200);
    });
  }

  // --- processing pipelines -----------------------------------------------------------------------------------
  const PIPELINES_READ = { type: 'ProcessingPipelines', level: 'read' } as const;
  area.openapi(
    platformRoute({ method: 'get', path: '/processing-pipelines', tags: ['Processing pipelines'], summary: 'List processing pipelines', request: { query: EntityListQuery }, responses: ok('A page of pipelines.', PagedOfProcessingPipelineDto) }, PIPELINES_READ),
    async (c) => c.json(await listEntities(c.var.tenant, 'pipeline', c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute({ method: 'get', path: '/processing-pipelines/{id}', tags: ['Processing pipelines'], summary: 'Get a processing pipeline', request: { params: idParam }, responses: ok('The pipeline.', ProcessingPipelineDto) }, PIPELINES_READ),
    async (c) => c.json(await getEntity(c.var.tenant, 'pipeline', intIdOr404(c.req.valid('param').id, 'pipeline')), 200),
  );
}
