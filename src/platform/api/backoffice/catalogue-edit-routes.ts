/**
 * Back-office catalogue routes (registered by routes.ts on the back-office area). Scopes:
 * Products (products … workflows), ProcessingPipelines (pipelines, secrets), Storefronts
 * (storefronts, tenant settings); reads `_read`, edits and actions `_update`, create/delete `_full`.
 *
 *   GET    /products                                   PagedOfProductDto (search, sku, tags, customFields)
 *   POST   /products                                   200 ProductDto (its first version, options, variants)
 *   GET    /products/available-workflows|available-pipelines   paged workflows / pipelines
 *   GET    /products/{id}[/options|/variants[/{productVariantId}]|/variant-designs|/variant-mockups]
 *   PUT    /products/{id}                              ProductDto (options given → new version)
 *   DELETE /products/{id}                              204; used by projects, references, links, bundles → 409
 *   PUT    /products/{id}/options                      PagedOfProductOptionDto (new version)
 *   GET    /products/{id}/design-connections|mockup-connections   {connections} of a version
 *   POST   /products/{id}/design-connections|mockup-connections   ProductDto (new version)
 *   DELETE /products/{id}/design-connections|mockup-connections   ProductDto (new version)
 *   POST   /products/{id}/set-variant-sku|price|weight|availability  204
 *   POST   /products/{id}/set-image                    ProductDto (multipart `file` → public resource)
 *   POST   /product-references?storefrontId            201 ProductReferenceDto; exists → 409 existingReferences
 *   GET    /product-references?storefrontId, /product-references/{reference}?storefrontId
 *   DELETE /product-references/{reference}?storefrontId   200 ProductReferenceDto
 *   CRUD   /product-links, /product-specifications, /product-bundles, /personalization-workflows,
 *          /processing-pipelines (validated)           POST 201, PUT 200, DELETE 204; referenced → 409
 *   POST   /storefronts/custom                         200 StorefrontDto
 *   GET    /storefronts[/{id}]; DELETE /storefronts/{id}   200 StorefrontDto; with projects → 409
 *   GET|PUT /tenant-settings                           TenantSettingsDto
 *   PUT|DELETE /tenant-secrets/{name}                  204 (write-only)
 */
import { z } from '@hono/zod-openapi';
import { ConflictDto, intIdOr404, platformRoute, problemResponses, type PlatformArea, type TenantContext } from '../../core';
import { BINARY, multipartBody } from '../../core/route';
import { deleteEntity, getEntity, listEntities, saveBundle, saveLink, savePipeline, saveSpecification, saveWorkflow, type EntityKind } from '../../catalogue/entities';
import {
  addConnections,
  connectionsOfVersion,
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  productOr404,
  removeConnections,
  setOptions,
  setProductImage,
  setVariantField,
  updateProduct,
  versionOf,
  type ConnectionKind,
} from '../../catalogue/products';
import { createReference, deleteReference, getReference, listReferences, referenceDto } from '../../catalogue/references';
import {
  CreateProductDto,
  CreateStorefrontDto,
  DesignConnectionsDto,
  EntityListQuery,
  MockupConnectionsDto,
  PagedOfPersonalizationWorkflowDto,
  PagedOfProcessingPipelineDto,
  PagedOfProductBundleDto,
  PagedOfProductLinkDto,
  PagedOfProductOptionDto,
  PagedOfProductReferenceDto,
  PagedOfProductSpecificationDto,
  PagedOfStorefrontDto,
  PersonalizationWorkflowDto,
  PipelineInput,
  ProcessingPipelineDto,
  ProductBundleDto,
  ProductBundleInput,
  ProductDto,
  ProductLinkDto,
  ProductLinkInput,
  ProductReferenceDto,
  ProductReferenceInput,
  ProductSpecificationDto,
  ProductSpecificationInput,
  ReferenceListQuery,
  SET_VARIANT,
  SetOptionsDto,
  StorefrontDto,
  StorefrontListQuery,
  StorefrontQuery,
  TenantSecretInput,
  TenantSettingsDto,
  UpdateProductDto,
  UpdateTenantSettingsDto,
  VersionQuery,
  WorkflowInput,
  type VariantField,
} from '../../catalogue/schemas';
import { createStorefront, deleteStorefront, getStorefront, getTenantSettings, listStorefronts, putTenantSecret, deleteTenantSecret, updateTenantSettings } from '../../catalogue/tenant';
import { registerProductReadRoutes } from '../storefront/catalogue-read-routes';

const P = {
  read: { type: 'Products', level: 'read' },
  update: { type: 'Products', level: 'update' },
  full: { type: 'Products', level: 'full' },
} as const;
const json = (description: string, schema: z.ZodType) => ({ description, content: { 'application/json': { schema } } });
const conflict = { 409: { description: 'In use, or already there.', content: { 'application/json': { schema: ConflictDto } } } };
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { 'application/json': { schema } } } });
const idParam = z.object({ id: z.string() });
type Connection = z.output<typeof DesignConnectionsDto>['connections'][number] | z.output<typeof MockupConnectionsDto>['connections'][number];
const productId = (c: { req: { valid: (k: 'param') => { id: string } } }) => intIdOr404(c.req.valid('param').id, 'product');

export function registerCatalogueRoutes(area: PlatformArea): void {
  registerProducts(area);
  registerReferences(area);
  registerEntities(area);
  registerTenant(area);
}

function registerProducts(area: PlatformArea): void {
  const tags = ['Products'];
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/products',
        tags,
        summary: 'Create a product',
        description: 'Makes the product, its first version, options, values and variants (the Cartesian product of the values; one variant without options). Answers 200.',
        request: body(CreateProductDto),
        responses: { 200: json('The product.', ProductDto), ...problemResponses(404) },
      },
      P.full,
    ),
    async (c) => c.json(await createProduct(c.var.tenant, c.req.valid('json')), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'get', path: '/products/available-workflows', tags, summary: 'Personalization workflows a product can use', request: { query: EntityListQuery }, responses: { 200: json('A page of workflows.', PagedOfPersonalizationWorkflowDto) } },
      P.read,
    ),
    async (c) => c.json(await listEntities(c.var.tenant, 'workflow', c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'get', path: '/products/available-pipelines', tags, summary: 'Processing pipelines a product can use', request: { query: EntityListQuery }, responses: { 200: json('A page of pipelines.', PagedOfProcessingPipelineDto) } },
      P.read,
    ),
    async (c) => c.json(await listEntities(c.var.tenant, 'pipeline', c.req.valid('query')), 200),
  );
  registerProductReadRoutes(area, { deprecated: false, tags });
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/products/{id}',
        tags,
        summary: 'Update a product',
        description: "Fields given replace the product's; `options` given make a new version (variants keep SKU, price, weight and availability by option-value uids).",
        request: { params: idParam, ...body(UpdateProductDto) },
        responses: { 200: json('The product.', ProductDto), ...problemResponses(404), ...conflict },
      },
      P.update,
    ),
    async (c) => c.json(await updateProduct(c.var.tenant, productId(c), c.req.valid('json')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/products/{id}',
        tags,
        summary: 'Delete a product',
        description: 'With all its versions. A product used by projects, product references, links or bundles → 409.',
        request: { params: idParam },
        responses: { 204: { description: 'Deleted.' }, ...problemResponses(404), ...conflict },
      },
      P.full,
    ),
    async (c) => {
      await deleteProduct(c.var.tenant, productId(c));
      return c.body(null, 204);
    },
  );
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/products/{id}/options',
        tags,
        summary: "Replace a product's options",
        description: 'Makes a new version. Give `uid`s (from GET options) to keep options and values: variants with the same option-value uids keep their SKU, price, weight and availability.',
        request: { params: idParam, ...body(SetOptionsDto) },
        responses: { 200: json('The new version\'s options.', PagedOfProductOptionDto), ...problemResponses(404), ...conflict },
      },
      P.update,
    ),
    async (c) => c.json(await setOptions(c.var.tenant, productId(c), c.req.valid('json').options), 200),
  );

  for (const kind of ['design', 'mockup'] as ConnectionKind[]) {
    const schema = kind === 'design' ? DesignConnectionsDto : MockupConnectionsDto;
    const toInput = (list: Connection[]): Parameters<typeof addConnections>[3] =>
      list.map((x) => ('designId' in x ? { assetId: x.designId, designGroup: x.designGroup, options: x.options } : { assetId: x.mockupId, options: x.options }));
    area.openapi(
      platformRoute(
        {
          method: 'get',
          path: `/products/{id}/${kind}-connections`,
          tags,
          summary: `A product's ${kind} connections`,
          request: { params: idParam, query: VersionQuery },
          responses: { 200: json('The connections of the version.', schema), ...problemResponses(404) },
        },
        P.read,
      ),
      async (c) => {
        const t = c.var.tenant;
        const product = await productOr404(t.env.DB, t.tenantId, productId(c));
        const version = await versionOf(t.env.DB, t.tenantId, product, c.req.valid('query').productVersionId);
        const rows = await connectionsOfVersion(t.env.DB, t.tenantId, version, kind);
        return c.json({ connections: rows.map((r) => (kind === 'design' ? { designId: r.assetId, designGroup: r.designGroup, options: r.options } : { mockupId: r.assetId, options: r.options })) }, 200);
      },
    );
    area.openapi(
      platformRoute(
        {
          method: 'post',
          path: `/products/{id}/${kind}-connections`,
          tags,
          summary: `Connect ${kind}s to a product`,
          description: `Makes a new version. Each connection binds a public ${kind} to the variants whose options match \`options\` (empty = every variant).${kind === 'design' ? ' A design and group already connected gets the new options.' : ''}`,
          request: { params: idParam, ...body(schema) },
          responses: { 200: json('The product at its new version.', ProductDto), ...problemResponses(404), ...conflict },
        },
        P.update,
      ),
      async (c) => {
        const id = productId(c);
        await addConnections(c.var.tenant, id, kind, toInput(c.req.valid('json').connections));
        return c.json(await getProduct(c.var.tenant, id), 200);
      },
    );
    area.openapi(
      platformRoute(
        {
          method: 'delete',
          path: `/products/{id}/${kind}-connections`,
          tags,
          summary: `Disconnect ${kind}s from a product`,
          description: `Makes a new version without the given connections${kind === 'design' ? ' (a design without designGroup: in every group)' : ''}; one that is not connected → 404.`,
          request: { params: idParam, ...body(schema) },
          responses: { 200: json('The product at its new version.', ProductDto), ...problemResponses(404), ...conflict },
        },
        P.update,
      ),
      async (c) => {
        const id = productId(c);
        await removeConnections(c.var.tenant, id, kind, toInput(c.req.valid('json').connections));
        return c.json(await getProduct(c.var.tenant, id), 200);
      },
    );
  }

  for (const field of Object.keys(SET_VARIANT) as VariantField[]) {
    area.openapi(
      platformRoute(
        {
          method: 'post',
          path: `/products/{id}/set-variant-${field}`,
          tags,
          summary: `Set variants' ${field}`,
          description: "`[{productVariantId, value}]`, variants of the current version. While no project uses the version it changes in place; otherwise a new version is made (the projects' version stays).",
          request: { params: idParam, ...body(SET_VARIANT[field]) },
          responses: { 204: { description: 'Set.' }, ...problemResponses(404), ...conflict },
        },
        P.update,
      ),
      async (c) => {
        await setVariantField(c.var.tenant, productId(c), field, c.req.valid('json') as Array<{ productVariantId: number; value: unknown }>);
        return c.body(null, 204);
      },
    );
  }

  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/products/{id}/set-image',
        tags,
        summary: "Set a product's image",
        description: 'Multipart, the image in the field `file`: stored as a public resource with an anonymous URL, shown as the product\'s `image`.',
        request: {
          params: idParam,
          // A plain schema object, not zod: no validator may read the stream before the handler.
          body: multipartBody({ file: BINARY }, ['file']),
        },
        responses: { 200: json('The product.', ProductDto), ...problemResponses(400, 404, 413, 415, 422) },
      },
      P.update,
    ),
    async (c) => c.json(await setProductImage(c.var.tenant, productId(c), c.req.raw), 200),
  );
}

function registerReferences(area: PlatformArea): void {
  const tags = ['Product references'];
  const refParam = z.object({ reference: z.string() });
  area.openapi(
    platformRoute(
      {
        method: 'post',
        path: '/product-references',
        tags,
        summary: 'Create a product reference',
        description: "A storefront's name for a product, link, specification or bundle (the id matching `productReferenceType`). A reference of that name already in the storefront → 409 with `existingReferences`.",
        request: { query: StorefrontQuery, ...body(ProductReferenceInput) },
        responses: { 201: json('The reference.', ProductReferenceDto), ...problemResponses(404), ...conflict },
      },
      P.full,
    ),
    async (c) => c.json(referenceDto(await createReference(c.var.tenant, Number(c.req.valid('query').storefrontId), c.req.valid('json'))), 201),
  );
  area.openapi(
    platformRoute(
      { method: 'get', path: '/product-references', tags, summary: "A storefront's product references", request: { query: ReferenceListQuery }, responses: { 200: json('A page of references.', PagedOfProductReferenceDto), ...problemResponses(404) } },
      P.read,
    ),
    async (c) => {
      const q = c.req.valid('query');
      return c.json(await listReferences(c.var.tenant, Number(q.storefrontId), { ...q, productIds: q.productIds?.map(Number) }), 200);
    },
  );
  area.openapi(
    platformRoute(
      { method: 'get', path: '/product-references/{reference}', tags, summary: 'Get a product reference', request: { params: refParam, query: StorefrontQuery }, responses: { 200: json('The reference.', ProductReferenceDto), ...problemResponses(404) } },
      P.read,
    ),
    async (c) => c.json(referenceDto(await getReference(c.var.tenant, Number(c.req.valid('query').storefrontId), c.req.valid('param').reference)), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'delete', path: '/product-references/{reference}', tags, summary: 'Delete a product reference', request: { params: refParam, query: StorefrontQuery }, responses: { 200: json('The deleted reference.', ProductReferenceDto), ...problemResponses(404) } },
      P.full,
    ),
    async (c) => c.json(referenceDto(await deleteReference(c.var.tenant, Number(c.req.valid('query').storefrontId), c.req.valid('param').reference)), 200),
  );
}

/** One CRUD resource of the catalogue: its wire schemas and the domain function that saves it. */
interface EntityRoutes<Input extends z.ZodType> {
  segment: string;
  kind: EntityKind;
  noun: string;
  tag: string;
  input: Input;
  dto: z.ZodType;
  paged: z.ZodType;
  scope: 'Products' | 'ProcessingPipelines';
  save: (t: TenantContext, id: number | null, v: z.output<Input>) => Promise<Record<string, unknown>>;
  note?: string;
}

function registerEntities(area: PlatformArea): void {
  registerEntity(area, { segment: 'product-links', kind: 'link', noun: 'product link', tag: 'Product links', input: ProductLinkInput, dto: ProductLinkDto, paged: PagedOfProductLinkDto, scope: 'Products', save: saveLink });
  registerEntity(area, {
    segment: 'product-specifications',
    kind: 'specification',
    noun: 'product specification',
    tag: 'Product specifications',
    input: ProductSpecificationInput,
    dto: ProductSpecificationDto,
    paged: PagedOfProductSpecificationDto,
    scope: 'Products',
    save: saveSpecification,
  });
  registerEntity(area, { segment: 'product-bundles', kind: 'bundle', noun: 'product bundle', tag: 'Product bundles', input: ProductBundleInput, dto: ProductBundleDto, paged: PagedOfProductBundleDto, scope: 'Products', save: saveBundle });
  registerEntity(area, {
    segment: 'personalization-workflows',
    kind: 'workflow',
    noun: 'personalization workflow',
    tag: 'Personalization workflows',
    input: WorkflowInput,
    dto: PersonalizationWorkflowDto,
    paged: PagedOfPersonalizationWorkflowDto,
    scope: 'Products',
    save: saveWorkflow,
  });
  registerEntity(area, {
    segment: 'processing-pipelines',
    kind: 'pipeline',
    noun: 'processing pipeline',
    tag: 'Processing pipelines',
    input: PipelineInput,
    dto: ProcessingPipelineDto,
    paged: PagedOfProcessingPipelineDto,
    scope: 'ProcessingPipelines',
    save: savePipeline,
    note: '`rawContent` is validated (docs/pipelines.md): 400 with every problem by its path in the pipeline.',
  });
}

function registerEntity<Input extends z.ZodType>(area: PlatformArea, e: EntityRoutes<Input>): void {
  // The routes see the input as a plain schema (TypeScript cannot resolve a route type over a
  // generic schema); the body reaching `save` is the output of `e.input`, validated at the edge.
  const input: z.ZodType = e.input;
  const validBody = (body: unknown) => body as z.output<Input>;
  const access = (level: 'read' | 'update' | 'full') => ({ type: e.scope, level }) as const;
  const tags = [e.tag];
  const path = `/${e.segment}`;
  const one = `${path}/{id}`;
  const idOf = (c: { req: { valid: (k: 'param') => { id: string } } }) => intIdOr404(c.req.valid('param').id, e.noun);
  area.openapi(
    platformRoute({ method: 'get', path, tags, summary: `List ${e.noun}s`, request: { query: EntityListQuery }, responses: { 200: json('A page of them.', e.paged) } }, access('read')),
    async (c) => c.json(await listEntities(c.var.tenant, e.kind, c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'post', path, tags, summary: `Create a ${e.noun}`, description: e.note, request: body(input), responses: { 201: json(`The ${e.noun}.`, e.dto), ...problemResponses(404) } },
      access('full'),
    ),
    async (c) => c.json(await e.save(c.var.tenant, null, validBody(c.req.valid('json'))), 201),
  );
  area.openapi(
    platformRoute({ method: 'get', path: one, tags, summary: `Get a ${e.noun}`, request: { params: idParam }, responses: { 200: json(`The ${e.noun}.`, e.dto), ...problemResponses(404) } }, access('read')),
    async (c) => c.json(await getEntity(c.var.tenant, e.kind, idOf(c)), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'put', path: one, tags, summary: `Update a ${e.noun}`, description: e.note, request: { params: idParam, ...body(input) }, responses: { 200: json(`The ${e.noun}.`, e.dto), ...problemResponses(404) } },
      access('update'),
    ),
    async (c) => c.json(await e.save(c.var.tenant, idOf(c), validBody(c.req.valid('json'))), 200),
  );
  area.openapi(
    platformRoute(
      { method: 'delete', path: one, tags, summary: `Delete a ${e.noun}`, description: 'Referenced (by products, links, references, bundles or projects) → 409.', request: { params: idParam }, responses: { 204: { description: 'Deleted.' }, ...problemResponses(404), ...conflict } },
      access('full'),
    ),
    async (c) => {
      await deleteEntity(c.var.tenant, e.kind, idOf(c));
      return c.body(null, 204);
    },
  );
}

function registerTenant(area: PlatformArea): void {
  const S = { read: { type: 'Storefronts', level: 'read' }, update: { type: 'Storefronts', level: 'update' }, full: { type: 'Storefronts', level: 'full' } } as const;
  const tags = ['Storefronts'];
  area.openapi(
    platformRoute(
      { method: 'post', path: '/storefronts/custom', tags, summary: 'Create a custom storefront', description: 'Answers 200.', request: body(CreateStorefrontDto), responses: { 200: json('The storefront.', StorefrontDto) } },
      S.full,
    ),
    async (c) => c.json(await createStorefront(c.var.tenant, c.req.valid('json')), 200),
  );
  area.openapi(
    platformRoute({ method: 'get', path: '/storefronts', tags, summary: 'List storefronts', request: { query: StorefrontListQuery }, responses: { 200: json('A page of storefronts.', PagedOfStorefrontDto) } }, S.read),
    async (c) => c.json(await listStorefronts(c.var.tenant.env.DB, c.var.tenant.tenantId, c.req.valid('query')), 200),
  );
  area.openapi(
    platformRoute({ method: 'get', path: '/storefronts/{id}', tags, summary: 'Get a storefront', request: { params: idParam }, responses: { 200: json('The storefront.', StorefrontDto), ...problemResponses(404) } }, S.read),
    async (c) => c.json(await getStorefront(c.var.tenant.env.DB, c.var.tenant.tenantId, intIdOr404(c.req.valid('param').id, 'storefront')), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'delete',
        path: '/storefronts/{id}',
        tags,
        summary: 'Delete a storefront',
        description: 'With its product references and storefront users. A storefront with projects → 409.',
        request: { params: idParam },
        responses: { 200: json('The deleted storefront.', StorefrontDto), ...problemResponses(404), ...conflict },
      },
      S.full,
    ),
    async (c) => c.json(await deleteStorefront(c.var.tenant, intIdOr404(c.req.valid('param').id, 'storefront')), 200),
  );

  const settingsTags = ['Tenant settings'];
  area.openapi(
    platformRoute({ method: 'get', path: '/tenant-settings', tags: settingsTags, summary: "The tenant's settings", responses: { 200: json('The settings (defaults null, false, 30).', TenantSettingsDto) } }, S.read),
    async (c) => c.json(await getTenantSettings(c.var.tenant.env.DB, c.var.tenant.tenantId), 200),
  );
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/tenant-settings',
        tags: settingsTags,
        summary: "Change the tenant's settings",
        description: '`startProcessingOnStatus` is a project status code of the tenant (or null: processing starts at creation).',
        request: body(UpdateTenantSettingsDto),
        responses: { 200: json('The settings.', TenantSettingsDto) },
      },
      S.update,
    ),
    async (c) => c.json(await updateTenantSettings(c.var.tenant.env.DB, c.var.tenant.tenantId, c.req.valid('json')), 200),
  );

  const secretTags = ['Tenant secrets'];
  const nameParam = z.object({ name: z.string() });
  const PIPELINES_FULL = { type: 'ProcessingPipelines', level: 'full' } as const;
  area.openapi(
    platformRoute(
      {
        method: 'put',
        path: '/tenant-secrets/{name}',
        tags: secretTags,
        summary: 'Create or replace a tenant secret',
        description: 'Names `[A-Za-z0-9_-]{1,64}`, case-insensitive. Write-only: pipelines read it as `{{secrets.<name>}}`; no route returns it.',
        request: { params: nameParam, ...body(TenantSecretInput) },
        responses: { 204: { description: 'Stored.' } },
      },
      PIPELINES_FULL,
    ),
    async (c) => {
      await putTenantSecret(c.var.tenant, c.req.valid('param').name, c.req.valid('json').value);
      return c.body(null, 204);
    },
  );
  area.openapi(
    platformRoute(
      { method: 'delete', path: '/tenant-secrets/{name}', tags: secretTags, summary: 'Delete a tenant secret', request: { params: nameParam }, responses: { 204: { description: 'Deleted.' }, ...problemResponses(404) } },
      PIPELINES_FULL,
    ),
    async (c) => {
      await deleteTenantSecret(c.var.tenant, c.req.valid('param').name);
      return c.body(null, 204);
    },
  );
}
