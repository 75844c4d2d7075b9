/**
 * Asset processor: /api/processor/v1 (contract, "Asset processor"). Every route also exists
 * under `private-*` with `ownerId`.
 *
 *   POST /{t}/import (multipart sourceFile), /{t}/import/from-url, /{t}/{id}/update (file)   201; 201; 200
 *   POST /designs/{id}/check                                         {hasProblems, missingFonts}
 *   POST /designs/{id}/calculate-count-per-sheet                     {count, columns, rows, rotated, itemWidth, itemHeight}
 *   POST /designs/{id}/embed-all-linked-data                         DesignDto
 *   POST /designs/from-mockup, /private-designs/from-mockup          201 DesignDto
 *   POST /private-designs/from-design, /private-designs/from-resource 201 DesignDto
 *   GET  /mockups/{id}/artwork-layers, /mockups/{id}/groups
 *   POST /mockups/{id}/create-mockup-link, /mockups/{id}/batch-create-mockup-links      201 MockupDto(s)
 *   POST /images/{id}/pages/{pageIndex}/extract                      201 ImageDto
 *   GET  /images/{id}/pages/{pageIndex}/preview                     image (the page PNG drawn at import, resampled)
 *   POST /images/{id}/pages/{pageIndex}/preview-with-mockup          image (the page PNG in the mockup's artwork layer)
 */
import { z } from '@hono/zod-openapi';
import * as assets from '../../assets';
import { assetKind, DesignDto, DTO_OF, ImageDto, MockupDto, type AssetKind, type AssetType } from '../../assets';
import { ConflictDto, createPlatformArea, platformRoute, problemResponses, ValidationError, type Access, type ScopeLevel } from '../../core';
import { bodyBytes } from '../../core/body';
import { fileContent, jsonBody, jsonContent as json, multipartBody, BINARY, type PlainSchema } from '../../core/route';
import { createFromReceived, importFromUrl } from '../storage/handlers';
import { FromUrlBody, ownerIdOf } from '../storage/schemas';
import * as S from './schemas';
import * as ops from './service';
import { placeInMockup } from '../../designs/outputs';
import { ServerTiming } from '../../../http/server-timing';

export const processorArea = createPlatformArea('processor');

const conflict = { 409: json(ConflictDto, 'A name or id clash.') };
/**
 * An asset DTO answer: assets.dtoWithUrl builds it as a record, so the schema documents it but
 * does not type it (a typed DTO there would let the compiler check these answers too).
 */
const assetJson = (schema: z.ZodType, description: string) => json(schema, description);
const dto = (s: assets.AssetScope, row: assets.AssetRow) => assets.dtoWithUrl({ ...s, owner: row.ownerId }, row);
const accessOf = (kind: AssetKind, level: ScopeLevel): Access => ({ type: kind.private ? 'Private_assets' : 'Assets', level });

const TYPES: AssetType[] = ['design', 'image', 'mockup', 'font', 'resource'];
const KINDS = [...TYPES.map((t) => assetKind(t, false)), ...(['design', 'image', 'mockup', 'resource'] as const).map((t) => assetKind(t, true))];

/** `designParams.name`, `mockupParams.name` … or plain `name`. */
const paramField = (fields: Map<string, string>) => (n: string) => {
  const key = n.toLowerCase();
  if (fields.has(key)) return fields.get(key);
  for (const [k, v] of fields) if (k.endsWith(`params.${key}`)) return v;
  return undefined;
};

function uploadForm(kind: AssetKind) {
  const props: Record<string, PlainSchema> = {
    sourceFile: BINARY,
    name: { type: 'string', description: 'Or `designParams.name` (mockups: `mockupParams.name`…).' },
    path: { type: 'string' },
    customFields: { type: 'string', description: 'A JSON object.' },
    id: { type: 'string' },
    'previewSettings.*': { type: 'string', description: 'Accepted and ignored (previews are made on demand).' },
  };
  if (kind.private) props.ownerId = { type: 'string' };
  return multipartBody(props, ['sourceFile']);
}

for (const kind of KINDS) {
  const p = `/${kind.segment}`;
  const tags = [kind.private ? 'Private assets' : `${kind.type[0]!.toUpperCase()}${kind.type.slice(1)}s`];
  const Dto = DTO_OF[kind.type];
  // `ownerId` is a parameter of the private collections only.
  const owner = S.ownerQueryOf(kind);
  const access = (level: ScopeLevel) => accessOf(kind, level);

  // The two imports answer through the storage area's handlers (one upload path for both areas).
  processorArea.openapi(
    platformRoute({ tags, method: 'post', path: `${p}/import`, summary: `Import a ${kind.noun}`, request: { query: owner, body: uploadForm(kind) }, responses: { 201: assetJson(Dto, 'Created.'), ...conflict, ...problemResponses(413, 415, 422) } }, access('full')),
    async (c) => {
      const r = await assets.receiveUpload(c.var.tenant, c.req.raw, ['sourceFile', 'file'], assets.uploadLimit(kind.type));
      return c.json(await createFromReceived(c, kind, r, paramField(r.fields), ownerIdOf(c.req.valid('query'))), 201);
    },
  );
  processorArea.openapi(
    platformRoute({ tags, method: 'post', path: `${p}/import/from-url`, summary: `Import a ${kind.noun} from a URL`, request: { body: jsonBody(FromUrlBody) }, responses: { 201: assetJson(Dto, 'Created.'), ...conflict, ...problemResponses(413, 422) } }, access('full')),
    async (c) => c.json(await importFromUrl(c, kind, c.req.valid('json')), 201),
  );

  if (kind.type === 'design') {
    const dk = kind;
    processorArea.openapi(
      platformRoute({ tags, method: 'post', path: `${p}/from-mockup`, summary: 'A print-product design from a mockup', request: { body: jsonBody(S.FromMockupBody) }, responses: { 201: assetJson(DesignDto, 'Created.'), ...conflict, ...problemResponses(404, 422) } }, access('full')),
      async (c) => {
        const b = c.req.valid('json');
        const t = c.var.tenant;
        const designs = assets.scopeFor(t, dk, b.designParams?.ownerId ?? b.ownerId, dk.private);
        const mockups = b.mockupOwnerId ? assets.scopeFor(t, assetKind('mockup', true), b.mockupOwnerId) : assets.scopeFor(t, assetKind('mockup', false), undefined);
        return c.json(await dto(designs, await ops.designFromMockup(designs, mockups, b.mockupId, b.designParams ?? {})), 201);
      },
    );
    if (kind.private) {
      processorArea.openapi(
        platformRoute({ tags, method: 'post', path: `${p}/from-design`, summary: 'A private copy of a public design', request: { query: S.FromDesignQuery }, responses: { 201: assetJson(DesignDto, 'Created.'), ...conflict, ...problemResponses(404) } }, access('full')),
        async (c) => {
          const query = c.req.valid('query');
          const target = assets.scopeFor(c.var.tenant, dk, query.ownerId, true);
          const row = await ops.privateDesignFrom(target, assets.scopeFor(c.var.tenant, assetKind('design', false), undefined), query.designId, query);
          return c.json(await dto(target, row), 201);
        },
      );
      processorArea.openapi(
        platformRoute(
          { tags, method: 'post', path: `${p}/from-resource`, summary: 'A private design from a resource (PSD or print-product JSON)', request: { query: S.FromResourceQuery }, responses: { 201: assetJson(DesignDto, 'Created.'), ...conflict, ...problemResponses(404, 422) } },
          access('full'),
        ),
        async (c) => {
          const query = c.req.valid('query');
          const t = c.var.tenant;
          const target = assets.scopeFor(t, dk, query.ownerId, true);
          const source = query.resourceOwnerId ? assets.scopeFor(t, assetKind('resource', true), query.resourceOwnerId) : assets.scopeFor(t, assetKind('resource', false), undefined);
          return c.json(await dto(target, await ops.privateDesignFrom(target, source, query.resourceId, query)), 201);
        },
      );
    }
    processorArea.openapi(
      platformRoute({ tags, method: 'post', path: `${p}/{id}/check`, summary: 'Missing fonts', request: { params: S.IdParam, query: owner }, responses: { 200: json(S.CheckDto, 'The check.'), ...problemResponses(404) } }, access('read')),
      async (c) => c.json(await ops.checkDesign(assets.scopeFor(c.var.tenant, dk, c.req.valid('query').ownerId), c.req.valid('param').id), 200),
    );
    processorArea.openapi(
      platformRoute(
        { tags, method: 'post', path: `${p}/{id}/calculate-count-per-sheet`, summary: 'How many copies fit a sheet', request: { params: S.IdParam, query: owner, body: jsonBody(S.CountBody) }, responses: { 200: json(S.CountDto, 'The layout.'), ...problemResponses(404) } },
        access('read'),
      ),
      async (c) => c.json(await ops.designCountPerSheet(assets.scopeFor(c.var.tenant, dk, c.req.valid('query').ownerId), c.req.valid('param').id, c.req.valid('json')), 200),
    );
    processorArea.openapi(
      platformRoute({ tags, method: 'post', path: `${p}/{id}/embed-all-linked-data`, summary: 'Embed linked images', request: { params: S.IdParam, query: owner }, responses: { 200: assetJson(DesignDto, 'The design.'), ...problemResponses(404, 422) } }, access('update')),
      async (c) => {
        const s = assets.scopeFor(c.var.tenant, dk, c.req.valid('query').ownerId);
        return c.json(await dto(s, await ops.embedAllLinkedData(s, c.req.valid('param').id)), 200);
      },
    );
  }

  if (kind.type === 'mockup') {
    const mk = kind;
    processorArea.openapi(
      platformRoute({ tags, method: 'get', path: `${p}/{id}/artwork-layers`, summary: 'Artwork layers (smart objects)', request: { params: S.IdParam, query: owner }, responses: { 200: json(z.array(S.ArtworkLayerDto), 'Layers.'), ...problemResponses(404, 422) } }, access('read')),
      async (c) => c.json(await ops.artworkLayers(assets.scopeFor(c.var.tenant, mk, c.req.valid('query').ownerId), c.req.valid('param').id), 200),
    );
    processorArea.openapi(
      platformRoute({ tags, method: 'get', path: `${p}/{id}/groups`, summary: 'Groups of artwork layers', request: { params: S.IdParam, query: owner }, responses: { 200: json(z.array(S.MockupGroupDto), 'Groups.'), ...problemResponses(404, 422) } }, access('read')),
      async (c) => c.json(await ops.mockupGroups(assets.scopeFor(c.var.tenant, mk, c.req.valid('query').ownerId), c.req.valid('param').id), 200),
    );
    processorArea.openapi(
      platformRoute(
        { tags, method: 'post', path: `${p}/{id}/create-mockup-link`, summary: 'A MockupLink to one artwork layer', request: { params: S.IdParam, query: owner, body: jsonBody(S.MockupLinkBody) }, responses: { 201: assetJson(MockupDto, 'Created.'), ...conflict, ...problemResponses(404) } },
        access('full'),
      ),
      async (c) => {
        const s = assets.scopeFor(c.var.tenant, mk, c.req.valid('query').ownerId);
        const [row] = await ops.createMockupLinks(s, c.req.valid('param').id, [c.req.valid('json')]);
        return c.json(await dto(s, row!), 201);
      },
    );
    processorArea.openapi(
      platformRoute(
        { tags, method: 'post', path: `${p}/{id}/batch-create-mockup-links`, summary: 'Several MockupLinks', request: { params: S.IdParam, query: owner, body: jsonBody(S.BatchMockupLinksBody) }, responses: { 201: assetJson(z.array(MockupDto), 'Created.'), ...conflict, ...problemResponses(404) } },
        access('full'),
      ),
      async (c) => {
        const s = assets.scopeFor(c.var.tenant, mk, c.req.valid('query').ownerId);
        const b = c.req.valid('json');
        const rows = await ops.createMockupLinks(s, c.req.valid('param').id, Array.isArray(b) ? b : b.links);
        return c.json(await Promise.all(rows.map((row) => dto(s, row))), 201);
      },
    );
  }

  if (kind.type === 'image') {
    const ik = kind;
    const pages = `${p}/{id}/pages/{pageIndex}`;
    processorArea.openapi(
      platformRoute({ tags, method: 'post', path: `${pages}/extract`, summary: 'A page as a new one-page PDF image', request: { params: S.PageParams, query: owner }, responses: { 201: assetJson(ImageDto, 'Created.'), ...conflict, ...problemResponses(404, 422) } }, access('full')),
      async (c) => {
        const s = assets.scopeFor(c.var.tenant, ik, c.req.valid('query').ownerId);
        const { id, pageIndex } = c.req.valid('param');
        return c.json(await dto(s, await ops.extractPage(s, id, pageIndex)), 201);
      },
    );
    processorArea.openapi(
      platformRoute(
        {
          tags,
          method: 'get',
          path: `${pages}/preview`,
          summary: 'A page preview (the page drawn at import, fitted inside width × height; png or jpeg)',
          request: { params: S.PageParams, query: S.PreviewQuery },
          responses: { 200: fileContent('The preview.', 'image/png', 'image/jpeg'), ...problemResponses(400, 404, 422) },
        },
        access('read'),
      ),
      async (c) => {
        const query = c.req.valid('query');
        const { id, pageIndex } = c.req.valid('param');
        const { bytes, contentType } = await ops.pagePreview(assets.scopeFor(c.var.tenant, ik, query.ownerId), id, pageIndex, query);
        return c.body(bodyBytes(bytes), 200, { 'Content-Type': contentType, 'Cache-Control': 'private, max-age=300' });
      },
    );
    processorArea.openapi(
      platformRoute(
        {
          tags,
          method: 'post',
          path: `${pages}/preview-with-mockup`,
          summary: "A page placed into a 2D mockup's artwork layer (800 × 800 PNG)",
          request: { params: S.PageParams, query: owner, body: jsonBody(S.PreviewWithMockupBody) },
          responses: { 200: fileContent('The preview.', 'image/png'), ...problemResponses(400, 404, 422) },
        },
        access('read'),
      ),
      async (c) => {
        const { id, pageIndex } = c.req.valid('param');
        const png = await ops.pagePng(assets.scopeFor(c.var.tenant, ik, c.req.valid('query').ownerId), id, pageIndex);
        const { mockupId, mockupOwnerId } = c.req.valid('json');
        const out = await placeInMockup(c.var.tenant, { mockupId, mockupOwnerId: mockupOwnerId ?? undefined }, { fileFormat: 'Png' }, undefined, new ServerTiming(), async () => png);
        return c.body(bodyBytes(out.bytes), 200, { 'Content-Type': out.mime, 'Cache-Control': 'private, max-age=300' });
      },
    );
  }

  processorArea.openapi(
    platformRoute(
      { tags, method: 'post', path: `${p}/{id}/update`, summary: `Replace a ${kind.noun}'s file`, request: { params: S.IdParam, query: owner, body: multipartBody({ file: BINARY }, ['file']) }, responses: { 200: assetJson(Dto, 'Updated.'), ...conflict, ...problemResponses(404, 413, 415, 422) } },
      access('update'),
    ),
    async (c) => {
      const s = assets.scopeFor(c.var.tenant, kind, c.req.valid('query').ownerId);
      const r = await assets.receiveUpload(c.var.tenant, c.req.raw, ['file', 'sourceFile'], assets.uploadLimit(kind.type));
      if (!r.staged) throw new ValidationError({ file: ['No file was sent.'] });
      return c.json(await dto(s, await assets.replaceContent(s, c.req.valid('param').id, r.staged, r.contentType)), 200);
    },
  );
}
