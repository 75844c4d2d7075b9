/**
 * Design atoms: /api/atoms/v1 (contract, "Design atoms"; docs/design-atoms.md).
 *
 *   GET|HEAD /info                                                    InfoDto (no token)
 *   POST /designs?privateStorageOwner {product, name, path}            201 DesignDto
 *   GET, PUT /designs/{id}/model (ETag / If-Match)                     model
 *   GET  /designs/{id}/variables                                       {items}
 *   POST /designs/{id}/apply-items-data {itemsData}                    model
 *   POST /designs/{id}/preflight {variableData?}                       {ok, problems} (issue 21)
 *   POST /designs/render-preview, /designs/render-proof [/to-resource] file | ResourceInfoDto
 *   POST /images/render-preview, …/from-file, …/from-url [/to-resource] file | ResourceInfoDto
 *   POST /designs/print-product, …/items/{rectangle|ellipse}           model; item (any token)
 *   POST /designs/print-product/items/{from-storage|from-url|from-file}/batch-create   {items}
 *   POST /designs/print-product/items/apply-effects                    item (409: not applicable)
 *   POST /designs/model/items/extract-image, /designs/print-product/items/extract-image[/to-resource]
 *   /designs/{id}/print-product/{surfaces|containers|items|print-areas}: GET list, POST model,
 *     GET/PUT/DELETE /{eid}, GET/PUT /{eid}/model; GET/PUT /designs/{id}/print-product/model;
 *     GET/PATCH surfaces/{sid}/mockup-{up|down}, GET …/file
 *   GET  /mockups-3d/{id}/geometry/file?ownerId                        the stored GLB
 *
 * Scopes: Assets (reads and renders _read, edits _update, creates and /to-resource _full);
 * naming an owner also needs Private_assets; the stateless helpers take any valid token.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ServerTiming } from '../../../http/server-timing';
import * as assets from '../../assets';
import {
  ConflictDto,
  createPlatformArea,
  NotFoundError,
  PayloadTooLargeError,
  platformRoute,
  problemResponses,
  requireOwnerAccess,
  UnsupportedMediaTypeError,
  ValidationError,
  type Access,
  type PlatformBindings,
  type TenantContext,
} from '../../core';
import { bodyBytes } from '../../core/body';
import { BINARY, fileContent, jsonBody, jsonContent, multipartBody, type PlainSchema } from '../../core/route';
import { applyItemsData, listVariables, ModelValidationError, parseModel, type ItemModel, type PrintProductModel, type SourceModel } from '../../../engine/print-product';
import * as R from '../../designs/outputs';
import { preflightHeader, preflightReport } from '../../../engine/preflight/report';
import { fetchImage, fontsOf, imageFacts, sourceBytes, storageImage, storeEmbedded } from '../../designs/resolve';
import * as S from './schemas';
import * as edit from '../../designs/service';
import { preflightDesign } from '../../designs/preflight';
import { createDesign, editModel, ifMatch, loadDesign, loadPrintProduct, validateForTenant } from '../../designs/store';

export const atomsArea = createPlatformArea('atoms');

type C = Context<PlatformBindings>;
/**
 * A model answer: the schemas declare models as open objects (one validator checks them, not zod)
 * and the design service hands entities out as `unknown`, so the answer is documented, not typed.
 */
const json = (schema: z.ZodType, description: string) => jsonContent(schema, description);
const file = (description: string) => fileContent(description, 'image/jpeg', 'image/png', 'application/pdf');
const conflict = { 409: json(ConflictDto, 'A name clash, a lost edit race, or an effect that does not apply.') };
const TAGS = ['Design atoms'];
const PRINT_PRODUCT_TAGS = ['Design atoms: print product'];

const READ: Access = { type: 'Assets', level: 'read' };
const UPDATE: Access = { type: 'Assets', level: 'update' };
const FULL: Access = { type: 'Assets', level: 'full' };
const ANY: Access = 'anyToken';

/** A rendered file as the response (inline), with the render's Server-Timing and, for designs, its X-Preflight verdict. */
function fileResponse(c: C, f: R.RenderedFile, name: string, timing?: ServerTiming): Response {
  const headers: Record<string, string> = {
    'content-type': f.mime,
    'content-disposition': `inline; filename="${name}.${f.ext}"`,
    'cache-control': 'no-store',
  };
  if (timing) headers['server-timing'] = timing.header();
  // What the render found while drawing (issue 21), as the rendering API's previews say it.
  if (f.problems) headers['x-preflight'] = preflightHeader(preflightReport(f.problems));
  return c.body(bodyBytes(f.bytes), 200, headers);
}

/** `ETag` of the design version an answer shows (send it back as If-Match). */
const setEtag = (c: C, etag: string) => c.header('ETag', `"${etag}"`);

// --- designs ---------------------------------------------------------------------------------------

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs',
      summary: 'Create a print-product design',
      description: 'Validates `product` as a whole (400 by JSON path; fonts against the tenant\'s and the instance\'s stores) and stores it as a design asset with `designType: PrintProduct`.',
      request: { query: S.CreateQuery, body: jsonBody(S.CreateDesignBody) },
      responses: { 201: json(assets.DesignDto, 'Created.'), ...conflict },
    },
    FULL,
  ),
  async (c) => {
    const t = c.var.tenant;
    const b = c.req.valid('json');
    const model = await validateForTenant(t, b.product);
    const row = await createDesign(t, c.req.valid('query').privateStorageOwner, model, b.name, b.path);
    return c.json(await assets.dtoWithUrl(assets.scopeFor(t, assets.assetKind('design', row.ownerId !== ''), row.ownerId || undefined), row), 201);
  },
);

// Stateless builders and helpers (literal paths before /designs/{id}).

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/print-product',
      summary: 'An empty print product',
      description: 'Each surface gets a print area covering it and one container. Nothing is stored.',
      request: { body: jsonBody(S.EmptyProductBody) },
      responses: { 200: json(S.ModelJson, 'The model.') },
    },
    ANY,
  ),
  async (c) => c.json(await parseModel(edit.emptyProduct(c.req.valid('json').surfaces)), 200),
);

/** Validates one item by placing it in a scratch model; errors keep the item-relative path. */
async function validItem(t: TenantContext, item: unknown, path = '$'): Promise<ItemModel> {
  const { fontExists } = await fontsOf(t);
  const scratch = { surfaces: [{ width: 14_400, height: 14_400, containers: [{ items: [item] }] }] };
  try {
    const model = await parseModel(scratch, { fontExists });
    return model.surfaces[0]!.containers[0]!.items[0]!;
  } catch (e) {
    if (!(e instanceof ModelValidationError)) throw e;
    const prefix = 'surfaces[0].containers[0].items[0]';
    const errors = Object.fromEntries(Object.entries(e.errors).map(([k, v]) => [k.startsWith(prefix) ? (path === '$' ? k.slice(prefix.length).replace(/^\./, '') || '$' : path + k.slice(prefix.length)) : k, v]));
    throw new ModelValidationError(errors, 'The item is invalid.');
  }
}

for (const shape of ['rectangle', 'ellipse'] as const) {
  const type = shape === 'rectangle' ? 'Rectangle' : 'Ellipse';
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'post',
        path: `/designs/print-product/items/${shape}`,
        summary: `A ${type} item`,
        description: `The body is the item's properties (\`x, y, width, height, fillColor, borderColor, borderWidth${shape === 'rectangle' ? ', cornerRadius' : ''}\`…); the answer has its defaults and a generated id. Nothing is stored.`,
        request: { body: jsonBody(S.EntityJson) },
        responses: { 200: json(S.ItemDto, 'The item.') },
      },
      ANY,
    ),
    async (c) => c.json(await validItem(c.var.tenant, { ...c.req.valid('json'), type }), 200),
  );
}

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/print-product/items/from-storage/batch-create',
      summary: 'Image items from stored images',
      description: 'An Image item per image at its natural size (pixels at the image\'s dpi, 72 when unknown), with a `Storage` source.',
      request: { body: jsonBody(S.FromStorageBody) },
      responses: { 200: json(S.ItemsDto, 'The items.'), ...problemResponses(404) },
    },
    READ,
  ),
  async (c) => {
    const t = c.var.tenant;
    const items = [];
    for (const [i, spec] of c.req.valid('json').items.entries()) {
      const row = await storageImage(t, spec.imageId, spec.ownerId, `items[${i}].imageId`);
      const m = row.metadata as Record<string, any>;
      const source: SourceModel = { type: 'Storage', id: row.id, ...(row.ownerId ? { ownerId: row.ownerId } : {}) };
      const facts = { width: Number(m.width) || 1, height: Number(m.height) || 1, dpi: m.isVector ? 72 : m.dpiX };
      items.push(await validItem(t, R.naturalItem(source, facts, { x: spec.x, y: spec.y, name: spec.name ?? row.name }), `items[${i}]`));
    }
    return c.json({ items }, 200);
  },
);

/** Bytes become an Embedded item at natural size (72 dpi: one pixel is one point). */
async function embeddedItem(t: TenantContext, bytes: Uint8Array, at: { x?: number; y?: number; name?: string }, path: string): Promise<ItemModel> {
  const facts = imageFacts(bytes);
  if (!facts) throw new ValidationError({ [path]: ['not a JPEG, PNG, GIF, WebP, SVG or PDF image'] });
  const key = await storeEmbedded(t, bytes);
  return validItem(t, R.naturalItem({ type: 'Embedded', key }, facts.width && facts.height ? facts : { width: 100, height: 100 }, at), path);
}

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/print-product/items/from-url/batch-create',
      summary: 'Image items from URLs',
      description: 'Each URL is fetched through the outbound policy and stored Embedded (`p/<t>/embedded/<sha256>`); items at natural size.',
      request: { body: jsonBody(S.FromUrlBody) },
      responses: { 200: json(S.ItemsDto, 'The items.'), ...problemResponses(413, 422) },
    },
    ANY,
  ),
  async (c) => {
    const t = c.var.tenant;
    const items = [];
    for (const [i, spec] of c.req.valid('json').items.entries()) {
      const bytes = await fetchImage(t, spec.url, spec.headers, `items[${i}].url`);
      items.push(await embeddedItem(t, bytes, { x: spec.x, y: spec.y, name: spec.name }, `items[${i}]`));
    }
    return c.json({ items }, 200);
  },
);

const MAX_FORM_BYTES = assets.LIMITS.image;

/** Files of a multipart request (every file part), bounded by Content-Length. */
async function formFiles(c: C): Promise<{ files: File[]; fields: Map<string, string> }> {
  const type = (c.req.header('content-type') ?? '').toLowerCase();
  if (!type.startsWith('multipart/form-data')) throw new UnsupportedMediaTypeError('This endpoint takes multipart/form-data.');
  const length = Number(c.req.header('content-length') ?? NaN);
  if (length > MAX_FORM_BYTES) throw new PayloadTooLargeError(`The upload is larger than ${MAX_FORM_BYTES / 1024 / 1024} MB.`);
  let form: FormData;
  try {
    form = await c.req.raw.formData();
  } catch {
    throw new ValidationError({ $: ['not a valid multipart/form-data body'] });
  }
  const files: File[] = [];
  const fields = new Map<string, string>();
  let total = 0;
  for (const [k, v] of form.entries()) {
    if (typeof v === 'string') fields.set(k.toLowerCase(), v);
    else {
      total += v.size;
      files.push(v);
    }
  }
  if (total > MAX_FORM_BYTES) throw new PayloadTooLargeError(`The upload is larger than ${MAX_FORM_BYTES / 1024 / 1024} MB.`);
  return { files, fields };
}

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/print-product/items/from-file/batch-create',
      summary: 'Image items from uploaded files',
      description: 'Every file part becomes an Image item at natural size, its bytes stored Embedded.',
      request: { body: multipartBody({ files: { type: 'array', items: BINARY } }, ['files']) },
      responses: { 200: json(S.ItemsDto, 'The items.'), ...problemResponses(413, 415) },
    },
    ANY,
  ),
  async (c) => {
    const { files } = await formFiles(c);
    if (!files.length) throw new ValidationError({ files: ['No file was sent.'] });
    const items = [];
    for (const [i, f] of files.entries()) items.push(await embeddedItem(c.var.tenant, new Uint8Array(await f.arrayBuffer()), { name: assets.nameFromFile(f.name) }, `files[${i}]`));
    return c.json({ items }, 200);
  },
);

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/print-product/items/apply-effects',
      summary: 'Recolour an Image item',
      description: '`effects.recolor` paints every visible pixel of the image that colour, keeping its alpha; an item that is not an Image, or an opaque image, → 409. `recolor: null` removes it.',
      request: { body: jsonBody(S.EffectsBody) },
      responses: { 200: json(S.ItemDto, 'The item.'), ...conflict, ...problemResponses(404, 422) },
    },
    READ,
  ),
  async (c) => {
    const t = c.var.tenant;
    const b = c.req.valid('json');
    const item = await validItem(t, b.item, 'item');
    return c.json(await validItem(t, await R.applyEffects(t, item, b.effects), 'item'), 200);
  },
);

/**
 * What an extract-image request names, as a file: an inline item, an item of a stored
 * print-product design, or (PSD designs) a layer by name.
 */
async function extracted(t: TenantContext, b: z.output<typeof S.ExtractBody>): Promise<{ f: R.RenderedFile; name: string }> {
  if (b.item) return { f: await R.extractImage(t, await validItem(t, b.item, 'item'), b.outputType), name: 'image' };
  if (!b.designId || !b.itemId) throw new ValidationError({ $: ['give either `item`, or `designId` and `itemId`'] });
  const d = await loadDesign(t, b.designId, b.ownerId, 'designId');
  if (!d.model) return { f: await R.extractPsdLayer(t, d.row, b.itemId, b.outputType), name: b.itemId };
  const loc = edit.findItem(d.model, b.itemId, 'itemId');
  return { f: await R.extractImage(t, loc.item, b.outputType), name: loc.item.name || 'image' };
}

for (const path of ['/designs/model/items/extract-image', '/designs/print-product/items/extract-image']) {
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'post',
        path,
        summary: 'An Image item\'s source image',
        description: 'The item (`item`, or `designId` + `itemId`) as its source picture, Jpeg (over white) or Png; for a PSD design `itemId` names a layer, answered with its own pixels.',
        request: { body: jsonBody(S.ExtractBody) },
        responses: { 200: file('The image.'), ...problemResponses(404, 422) },
      },
      READ,
    ),
    async (c) => {
      const { f, name } = await extracted(c.var.tenant, c.req.valid('json'));
      return fileResponse(c, f, name);
    },
  );
}
atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/print-product/items/extract-image/to-resource',
      summary: 'An Image item\'s source image, as a resource',
      request: { body: jsonBody(S.ExtractToResourceBody) },
      responses: { 200: json(assets.ResourceInfoDto, 'The resource.'), ...conflict, ...problemResponses(404, 422) },
    },
    FULL,
  ),
  async (c) => {
    const b = c.req.valid('json');
    const { f, name } = await extracted(c.var.tenant, b);
    return c.json(await R.toResource(c.var.tenant, f, b, name), 200);
  },
);

// Renders.

for (const proof of [false, true]) {
  const name = proof ? 'render-proof' : 'render-preview';
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'post',
        path: `/designs/${name}`,
        summary: proof ? 'A proof of a design (image or PDF)' : 'A preview of a design',
        description: proof
          ? 'No stub, print areas or mockups; 1200 px by default; `fileFormat: Pdf` writes the print PDF (a page per print area, bleed and trim boxes, `pdfTextOutputMode` Outlines or Text; a PSD design: the rendering engine\'s print PDF of the template). Required variables must have values. `X-Preflight` gives the preflight verdict of what was drawn.'
          : 'The surface fitted into width × height (800 by default); `stub` draws empty variables, `visualizePrintAreas` the print areas and their bleed, `mockupStrategy` the design\'s mockups (Auto, DesignMockups) or none. PSD designs render with the rendering engine. Server-Timing gives the phases; `X-Preflight` the preflight verdict of what was drawn (`ok` or `errors=1; warnings=2`; the problems: POST /designs/{id}/preflight).',
        request: { body: jsonBody(proof ? S.ProofBody : S.PreviewBody) },
        responses: { 200: file('The rendered file.'), ...problemResponses(404, 422) },
      },
      READ,
    ),
    async (c) => {
      const timing = new ServerTiming();
      const f = await R.renderDesign(c.var.tenant, c.req.valid('json'), proof, timing);
      return fileResponse(c, f, proof ? 'proof' : 'preview', timing);
    },
  );
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'post',
        path: `/designs/${name}/to-resource`,
        summary: `${proof ? 'A proof' : 'A preview'} of a design, stored as a resource`,
        description: '`resourceName` (default preview.jpg / proof.pdf…), `resourceNamespace`, `resourceOwnerId` (a private resource), `resourceSourceId`, `resourceType`, `anonymousAccess`; a taken name → 409 unless `overwriteExistingResource` (the resource keeps its id).',
        request: { body: jsonBody(proof ? S.ProofToResourceBody : S.PreviewToResourceBody) },
        responses: { 200: json(assets.ResourceInfoDto, 'The resource.'), ...conflict, ...problemResponses(404, 422) },
      },
      FULL,
    ),
    async (c) => {
      const b = c.req.valid('json');
      const f = await R.renderDesign(c.var.tenant, b, proof, new ServerTiming());
      return c.json(await R.toResource(c.var.tenant, f, b, proof ? 'proof' : 'preview'), 200);
    },
  );
}

type ImageRequest = z.output<typeof S.ImagePreviewBody> | z.output<typeof S.ImageUrlBody>;

/** The image a JSON image-preview request names (stored, or at a URL), rendered or placed in its mockup. */
async function imageFrom(t: TenantContext, b: ImageRequest): Promise<R.RenderedFile> {
  const cfg = b.renderingConfig ?? {};
  let image;
  if ('imageId' in b) image = await R.storedImage(t, b.imageId, b.ownerId, cfg.pageIndex ?? 0);
  else {
    const bytes = await fetchImage(t, b.url, b.headers, 'url');
    const facts = imageFacts(bytes);
    if (!facts) throw new ValidationError({ url: ['not a JPEG, PNG, GIF, WebP or SVG image'] });
    image = { bytes, ...facts };
  }
  if (b.mockupId) {
    // The image filling the mockup's first artwork layer (the engine's placement).
    return R.placeInMockup(t, b, cfg, undefined, new ServerTiming(), async (width, height) => (await R.renderImage(image, { width, height, fitMode: 'Fill', fileFormat: 'Png' })).bytes);
  }
  return R.renderImage(image, cfg, 'imageId' in b ? 'image' : 'image at url');
}

const canon = (v: unknown, allowed: string[]) => (typeof v === 'string' ? (allowed.find((a) => a.toLowerCase() === v.toLowerCase()) ?? v) : v);

/** An uploaded image's preview: the form's `file` and `renderingConfig.*` fields (and the resource fields). */
async function imageFromForm(c: C): Promise<{ f: R.RenderedFile; target: Record<string, any> }> {
  const { files, fields } = await formFiles(c);
  if (files.length !== 1) throw new ValidationError({ file: ['Send exactly one file.'] });
  const cfg: Record<string, unknown> = {};
  const field = (n: string) => fields.get(n.toLowerCase()) ?? fields.get(`renderingconfig.${n.toLowerCase()}`);
  for (const n of ['width', 'height', 'jpegQuality', 'pageIndex']) if (field(n) !== undefined) cfg[n] = Number(field(n));
  for (const n of ['fileFormat', 'fitMode']) if (field(n) !== undefined) cfg[n] = field(n);
  const parsed = S.ImageConfig.safeParse({ ...cfg, fileFormat: canon(cfg.fileFormat, ['Jpeg', 'Png']), fitMode: canon(cfg.fitMode, ['Fit', 'Fill']) });
  if (!parsed.success) throw new ValidationError(Object.fromEntries(parsed.error.issues.map((i) => [`renderingConfig.${i.path.join('.')}`, [i.message]])));
  const target = Object.fromEntries(S.ResourceFieldsDoc.map((k) => [k, field(k)]).filter(([, v]) => v !== undefined));
  for (const k of ['anonymousAccess', 'overwriteExistingResource']) if (typeof target[k] === 'string') target[k] = target[k].toLowerCase() === 'true';
  if (target.resourceOwnerId) await requireOwnerAccess(c, 'full');
  const bytes = new Uint8Array(await files[0]!.arrayBuffer());
  const facts = imageFacts(bytes);
  if (!facts) throw new ValidationError({ file: ['not a JPEG, PNG, GIF, WebP or SVG image'] });
  return { f: await R.renderImage({ bytes, ...facts }, parsed.data, 'file'), target };
}

const imageForm = (toResource: boolean) =>
  multipartBody(
    {
      file: BINARY,
      'renderingConfig.width': { type: 'integer' },
      'renderingConfig.height': { type: 'integer' },
      'renderingConfig.fileFormat': { type: 'string', enum: ['Jpeg', 'Png'] },
      'renderingConfig.fitMode': { type: 'string', enum: ['Fit', 'Fill'] },
      ...(toResource ? Object.fromEntries(S.ResourceFieldsDoc.map((k): [string, PlainSchema] => [k, { type: 'string' }])) : {}),
    },
    ['file'],
  );

const IMAGE_PREVIEW_DESCRIPTION = '`fitMode` Fit (the image\'s aspect within width × height) or Fill (the box covered, centre-cropped); `pageIndex` for PDF images.';
const imageErrors = problemResponses(404, 415, 422, 501);

// /images/render-preview (a stored image) and /from-url: JSON bodies.
for (const [suffix, source] of [['', 'storage'], ['/from-url', 'url']] as const) {
  const base = `/images/render-preview${suffix}`;
  const what = source === 'storage' ? 'a stored image' : 'an image at a URL';
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'post',
        path: base,
        summary: `Preview ${what}`,
        description: IMAGE_PREVIEW_DESCRIPTION,
        request: { body: jsonBody(source === 'storage' ? S.ImagePreviewBody : S.ImageUrlBody) },
        responses: { 200: file('The preview.'), ...imageErrors },
      },
      source === 'storage' ? READ : ANY,
    ),
    async (c) => fileResponse(c, await imageFrom(c.var.tenant, c.req.valid('json')), 'preview'),
  );
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'post',
        path: `${base}/to-resource`,
        summary: `Preview ${what}, stored as a resource`,
        request: { body: jsonBody(source === 'storage' ? S.ImagePreviewToResourceBody : S.ImageUrlToResourceBody) },
        responses: { 200: json(assets.ResourceInfoDto, 'The resource.'), ...conflict, ...imageErrors },
      },
      FULL,
    ),
    async (c) => {
      const b = c.req.valid('json');
      return c.json(await R.toResource(c.var.tenant, await imageFrom(c.var.tenant, b), b, 'preview'), 200);
    },
  );
}

// /images/render-preview/from-file: a multipart upload, read by the handler.
atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/images/render-preview/from-file',
      summary: 'Preview an uploaded image',
      description: IMAGE_PREVIEW_DESCRIPTION,
      request: { body: imageForm(false) },
      responses: { 200: file('The preview.'), ...imageErrors },
    },
    ANY,
  ),
  async (c) => fileResponse(c, (await imageFromForm(c)).f, 'preview'),
);
atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/images/render-preview/from-file/to-resource',
      summary: 'Preview an uploaded image, stored as a resource',
      request: { body: imageForm(true) },
      responses: { 200: json(assets.ResourceInfoDto, 'The resource.'), ...conflict, ...imageErrors },
    },
    FULL,
  ),
  async (c) => {
    const { f, target } = await imageFromForm(c);
    return c.json(await R.toResource(c.var.tenant, f, target, 'preview'), 200);
  },
);
// --- one design -------------------------------------------------------------------------------------

const IdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
const expected = (c: C) => ifMatch(c.req.header('if-match'));

for (const path of ['/designs/{id}/model', '/designs/{id}/print-product/model']) {
  atomsArea.openapi(
    platformRoute(
      { tags: TAGS, method: 'get', path, summary: 'The design\'s model', description: 'With its ETag (send it as If-Match to PUT). PSD designs → 422.', request: { params: IdParam, query: S.OwnerQuery }, responses: { 200: json(S.ModelJson, 'The model.'), ...problemResponses(404, 422) } },
      READ,
    ),
    async (c) => {
      const d = await loadPrintProduct(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId);
      setEtag(c, d.etag);
      return c.json(d.model, 200);
    },
  );
  atomsArea.openapi(
    platformRoute(
      {
        tags: TAGS,
        method: 'put',
        path,
        summary: 'Replace the design\'s model',
        description: 'Validated whole (400 by JSON path); written only if the design still has the version it was read at (If-Match, else the version this request read): a lost race → 409.',
        request: { params: IdParam, query: S.OwnerQuery, body: jsonBody(S.ModelJson) },
        responses: { 200: json(S.ModelJson, 'The stored model.'), ...conflict, ...problemResponses(404, 422) },
      },
      UPDATE,
    ),
    async (c) => {
      const replacement = c.req.valid('json');
      const r = await editModel(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId, (draft) => {
        for (const k of Object.keys(draft)) delete (draft as Record<string, unknown>)[k];
        Object.assign(draft, replacement);
      }, expected(c));
      setEtag(c, r.etag);
      return c.json(r.model, 200);
    },
  );
}

atomsArea.openapi(
  platformRoute(
    { tags: TAGS, method: 'get', path: '/designs/{id}/variables', summary: 'The design\'s variables', request: { params: IdParam, query: S.OwnerQuery }, responses: { 200: json(S.VariablesDto, 'Variables with values and constraints.'), ...problemResponses(404, 422) } },
    READ,
  ),
  async (c) => {
    const d = await loadPrintProduct(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId);
    return c.json({ items: listVariables(d.model) }, 200);
  },
);

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/{id}/preflight',
      summary: 'Preflight of a design',
      description:
        'What the design\'s print output would have wrong with these `variableData` (issue 21), found without rendering: text that does not fit or was shrunk, characters the font lacks, pictures below 200 ppi (error below 100) or enlarged, text and barcodes over the edge of the print area, required variables left empty. `ok` is false when there is an error. Print products: every surface; PSD designs: the rendering engine\'s preflight of the template. Malformed `variableData` → 400 as for renders.',
      request: { params: IdParam, query: S.OwnerQuery, body: jsonBody(S.PreflightBody, false) },
      responses: { 200: json(S.PreflightReportDto, 'The preflight report.'), ...problemResponses(404, 422) },
    },
    READ,
  ),
  async (c) => {
    const report = await preflightDesign(c.var.tenant, { designId: c.req.valid('param').id, ownerId: c.req.valid('query').ownerId, variableData: c.req.valid('json')?.variableData });
    return c.json(report, 200);
  },
);

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'post',
      path: '/designs/{id}/apply-items-data',
      summary: 'Set values of items that are not variables',
      description: '`itemsData` by item name: `{text, color, fillColor, source, visible}`, and a Text item\'s `fit` and `minSize`. A variable (its value comes from `variableData` at render time) or an unknown name → 400. Stored with the etag rule.',
      request: { params: IdParam, query: S.OwnerQuery, body: jsonBody(S.ItemsDataBody) },
      responses: { 200: json(S.ModelJson, 'The stored model.'), ...conflict, ...problemResponses(404, 422) },
    },
    UPDATE,
  ),
  async (c) => {
    const { itemsData } = c.req.valid('json');
    const r = await editModel(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId, (draft) => {
      const applied = applyItemsData(draft as PrintProductModel, itemsData);
      if (applied.errors) throw new ModelValidationError(applied.errors, 'The items data does not fit the design.');
      Object.assign(draft, applied.model);
    }, expected(c));
    setEtag(c, r.etag);
    return c.json(r.model, 200);
  },
);

// --- print-product CRUD -------------------------------------------------------------------------------

const KINDS = [
  { kind: 'surface', segment: 'surfaces', noun: 'surface', Dto: S.SurfaceDto, listQuery: S.OwnerQuery, createQuery: S.CreateSurfaceQuery, param: 'surfaceId', list: 'ListOfDesignSurfaceDto' },
  { kind: 'container', segment: 'containers', noun: 'container', Dto: S.ContainerDto, listQuery: S.SurfaceQuery, createQuery: S.CreateInSurfaceQuery, param: 'containerId', list: 'ListOfDesignSurfaceContainerDto' },
  { kind: 'item', segment: 'items', noun: 'item', Dto: S.ItemDto, listQuery: S.ItemsQuery, createQuery: S.CreateItemQuery, param: 'itemId', list: 'ListOfDesignSurfaceItemDto' },
  { kind: 'printArea', segment: 'print-areas', noun: 'print area', Dto: S.PrintAreaDto, listQuery: S.SurfaceQuery, createQuery: S.CreateInSurfaceQuery, param: 'printAreaId', list: 'ListOfDesignPrintAreaDto' },
] as const satisfies ReadonlyArray<{ kind: edit.EntityKind; [key: string]: unknown }>;

for (const k of KINDS) {
  const base = `/designs/{id}/print-product/${k.segment}`;
  // The entity's id under its own name (`surfaceId`, `itemId`…), beside the design's `id`.
  const Params = z.object({ id: z.string(), [k.param]: z.string() });
  const tags = PRINT_PRODUCT_TAGS;
  const List = S.ListOf(k.Dto, k.list);

  atomsArea.openapi(
    platformRoute({ tags, method: 'get', path: base, summary: `List the design's ${k.segment}`, request: { params: IdParam, query: k.listQuery }, responses: { 200: json(List, 'The list.'), ...problemResponses(404, 422) } }, READ),
    async (c) => {
      // Every list query has ownerId; the surface, container and parent filters are the kind's own.
      const query: edit.ItemFilter & { ownerId?: string } = c.req.valid('query');
      const d = await loadPrintProduct(c.var.tenant, c.req.valid('param').id, query.ownerId);
      const items = edit.listEntities(d.model, k.kind, query);
      setEtag(c, d.etag);
      return c.json({ total: items.length, items }, 200);
    },
  );
  atomsArea.openapi(
    platformRoute(
      {
        tags,
        method: 'post',
        path: `${base}/model`,
        summary: `Add a ${k.noun}`,
        description: `The ${k.noun}'s model (nested children included); \`index\` places it (0 = bottom, absent = top)${k.kind === 'item' ? '; `top`/`left` set its position' : ''}. The design is validated whole.`,
        request: { params: IdParam, query: k.createQuery, body: jsonBody(S.EntityJson) },
        responses: { 201: json(k.Dto, 'Created.'), ...conflict, ...problemResponses(404, 422) },
      },
      UPDATE,
    ),
    async (c) => {
      const query = c.req.valid('query');
      const body = c.req.valid('json');
      const r = await editModel(c.var.tenant, c.req.valid('param').id, query.ownerId, (draft) => edit.createEntity(draft, k.kind, edit.bodyObject(body), query), expected(c));
      setEtag(c, r.etag);
      return c.json(edit.entityDto(r.model, k.kind, r.result, true), 201);
    },
  );
  const paths: Array<[string, boolean]> = [[`${base}/{${k.param}}`, false], [`${base}/{${k.param}}/model`, true]];
  if (k.kind === 'container') paths.push([`/designs/{id}/print-product/container/{${k.param}}/model`, true]);
  for (const [path, nested] of paths) {
    atomsArea.openapi(
      platformRoute({ tags, method: 'get', path, summary: `A ${k.noun}${nested ? ' with its nested children' : ''}`, request: { params: Params, query: S.OwnerQuery }, responses: { 200: json(k.Dto, `The ${k.noun}.`), ...problemResponses(404, 422) } }, READ),
      async (c) => {
        const d = await loadPrintProduct(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId);
        setEtag(c, d.etag);
        return c.json(edit.entityDto(d.model, k.kind, c.req.valid('param')[k.param], nested), 200);
      },
    );
    atomsArea.openapi(
      platformRoute(
        {
          tags,
          method: 'put',
          path,
          summary: nested ? `Replace a ${k.noun} with its nested children` : `Update a ${k.noun}`,
          description: nested ? 'The body replaces the entity (its id stays).' : 'The properties given replace the stored ones; nested children and the id stay.',
          request: { params: Params, query: S.OwnerQuery, body: jsonBody(S.EntityJson) },
          responses: { 200: json(k.Dto, `The ${k.noun}.`), ...conflict, ...problemResponses(404, 422) },
        },
        UPDATE,
      ),
      async (c) => {
        const b = edit.bodyObject(c.req.valid('json'));
        const eid = c.req.valid('param')[k.param];
        const r = await editModel(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId, (draft) => (nested ? edit.replaceEntity : edit.updateEntity)(draft, k.kind, eid, b), expected(c));
        setEtag(c, r.etag);
        return c.json(edit.entityDto(r.model, k.kind, eid, nested), 200);
      },
    );
    if (!nested) {
      atomsArea.openapi(
        platformRoute({ tags, method: 'delete', path, summary: `Delete a ${k.noun}`, request: { params: Params, query: S.OwnerQuery }, responses: { 204: { description: 'Deleted.' }, ...conflict, ...problemResponses(404, 422) } }, UPDATE),
        async (c) => {
          const eid = c.req.valid('param')[k.param];
          const r = await editModel(c.var.tenant, c.req.valid('param').id, c.req.valid('query').ownerId, (draft) => edit.deleteEntity(draft, k.kind, eid), expected(c));
          setEtag(c, r.etag);
          return c.body(null, 204);
        },
      );
    }
  }
}

// --- surface mockups -------------------------------------------------------------------------------

const SurfaceParams = z.object({ id: z.string(), surfaceId: z.string() });

for (const side of ['up', 'down'] as const) {
  const path = `/designs/{id}/print-product/surfaces/{surfaceId}/mockup-${side}`;
  const tags = PRINT_PRODUCT_TAGS;
  const mockupOf = async (t: TenantContext, { id, surfaceId }: { id: string; surfaceId: string }, ownerId: string | undefined) => {
    const d = await loadPrintProduct(t, id, ownerId);
    const m = edit.findSurface(d.model, surfaceId).surface.mockup[side];
    if (!m) throw new NotFoundError(`The surface has no mockup-${side} image.`);
    return m;
  };
  atomsArea.openapi(
    platformRoute({ tags, method: 'get', path, summary: `The surface's mockup-${side} image placement`, request: { params: SurfaceParams, query: S.OwnerQuery }, responses: { 200: json(S.MockupDto, 'Source and placement.'), ...problemResponses(404, 422) } }, READ),
    async (c) => c.json(await mockupOf(c.var.tenant, c.req.valid('param'), c.req.valid('query').ownerId), 200),
  );
  atomsArea.openapi(
    platformRoute({ tags, method: 'get', path: `${path}/file`, summary: `The surface's mockup-${side} image`, request: { params: SurfaceParams, query: S.OwnerQuery }, responses: { 200: file('The image.'), ...problemResponses(404, 422) } }, READ),
    async (c) => {
      const t = c.var.tenant;
      const img = await sourceBytes(t, (await mockupOf(t, c.req.valid('param'), c.req.valid('query').ownerId)).source, `mockup.${side}.source`);
      return c.body(bodyBytes(img.bytes), 200, { 'content-type': img.mime, 'content-disposition': `inline; filename="mockup-${side}"` });
    },
  );
  atomsArea.openapi(
    platformRoute(
      {
        tags,
        method: 'patch',
        path,
        summary: `Set the surface's mockup-${side} image`,
        description: `Multipart \`sourceFile\` (stored Embedded), \`position.top\`, \`position.left\` (points, default 0) and \`dpi\` (default 72: a pixel is a point). The image is drawn ${side === 'up' ? 'over' : 'under'} the design in previews.`,
        request: {
          params: SurfaceParams,
          query: S.OwnerQuery,
          body: multipartBody({ sourceFile: BINARY, 'position.top': { type: 'number' }, 'position.left': { type: 'number' }, dpi: { type: 'number' } }, ['sourceFile']),
        },
        responses: { 200: json(S.MockupDto, 'Source and placement.'), ...conflict, ...problemResponses(404, 413, 415, 422) },
      },
      UPDATE,
    ),
    async (c) => {
      const t = c.var.tenant;
      const { files, fields } = await formFiles(c);
      if (files.length !== 1) throw new ValidationError({ sourceFile: ['Send exactly one file.'] });
      const num = (n: string, fallback: number) => {
        const v = fields.get(n);
        if (v === undefined || v === '') return fallback;
        const x = Number(v);
        if (!Number.isFinite(x)) throw new ValidationError({ [n]: ['a number'] });
        return x;
      };
      const dpi = num('dpi', 72);
      if (dpi <= 0) throw new ValidationError({ dpi: ['greater than 0'] });
      const bytes = new Uint8Array(await files[0]!.arrayBuffer());
      const facts = imageFacts(bytes);
      if (!facts || !facts.width || !facts.height) throw new ValidationError({ sourceFile: ['a JPEG, PNG, GIF, WebP or SVG image'] });
      const key = await storeEmbedded(t, bytes);
      const mockup = { source: { type: 'Embedded' as const, key }, x: num('position.left', 0), y: num('position.top', 0), width: (facts.width * 72) / dpi, height: (facts.height * 72) / dpi };
      const { id, surfaceId } = c.req.valid('param');
      const r = await editModel(t, id, c.req.valid('query').ownerId, (draft) => {
        edit.findSurface(draft, surfaceId).surface.mockup[side] = mockup;
      }, expected(c));
      setEtag(c, r.etag);
      return c.json(edit.findSurface(r.model, surfaceId).surface.mockup[side], 200);
    },
  );
}

// --- 3D mockups ----------------------------------------------------------------------------------------

atomsArea.openapi(
  platformRoute(
    {
      tags: TAGS,
      method: 'get',
      path: '/mockups-3d/{id}/geometry/file',
      summary: 'A 3D mockup\'s geometry (GLB)',
      request: { params: IdParam, query: S.OwnerQuery },
      responses: { 200: fileContent('The GLB file.', 'model/gltf-binary'), ...problemResponses(404) },
    },
    READ,
  ),
  async (c) => {
    const t = c.var.tenant;
    const { id } = c.req.valid('param');
    const ownerId = c.req.valid('query').ownerId;
    const scope = assets.scopeFor(t, assets.assetKind('mockup', !!(ownerId || t.storefrontUserId)), ownerId);
    const row = await assets.findAsset(scope, id);
    if (!row || row.mockupType !== 'Mockup3D' || !row.blobSha) throw new NotFoundError(`No 3D mockup ${id}.`);
    return assets.serveFile(c.env.FILES, { key: assets.blobKey(row.tenantId, row.blobSha), filename: `${row.name}.glb`, contentType: 'model/gltf-binary', attachment: false }, c.req.raw);
  },
);
