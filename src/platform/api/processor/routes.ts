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
import { z, type RouteConfig } from '@hono/zod-openapi';
import type { Context } from 'hono';
import * as assets from '../../assets';
import { assetKind, DesignDto, DTO_OF, ImageDto, MockupDto, type AssetKind, type AssetType } from '../../assets';
import { ConflictDto, createPlatformArea, problemResponses, ValidationError, type Access, type PlatformBindings, type ScopeLevel } from '../../core';
import { addRoute } from '../storage/routes';
import { createFromReceived, importFromUrl } from '../storage/handlers';
import { FromUrlBody } from '../storage/schemas';
import * as S from './schemas';
import * as ops from './service';
import { placeInMockup } from '../../designs/outputs';
import { ServerTiming } from '../../../http/server-timing';

export const processorArea = createPlatformArea('processor');

type C = Context<PlatformBindings>;
type Handler = (c: C) => Promise<Response>;
const json = (schema: z.ZodTypeAny, description: string) => ({ description, content: { 'application/json': { schema } } });
const jsonBody = (schema: z.ZodTypeAny, required = true) => ({ required, content: { 'application/json': { schema } } });
const conflict = { 409: json(ConflictDto, 'A name or id clash.') };
const q = (c: C) => c.req.valid('query' as never) as Record<string, any>;
const body = (c: C) => c.req.valid('json' as never) as Record<string, any>;
const scope = (c: C, kind: AssetKind, ownerId = q(c).ownerId as string | undefined, required = false) => assets.scopeFor(c.var.tenant, kind, ownerId, required);
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

const importUpload = (kind: AssetKind): Handler => async (c) => {
  const r = await assets.receiveUpload(c.var.tenant, c.req.raw, ['sourceFile', 'file'], assets.uploadLimit(kind.type));
  return createFromReceived(c, kind, r, paramField(r.fields));
};

const updateContent = (kind: AssetKind): Handler => async (c) => {
  const s = scope(c, kind);
  const r = await assets.receiveUpload(c.var.tenant, c.req.raw, ['file', 'sourceFile'], assets.uploadLimit(kind.type));
  if (!r.staged) throw new ValidationError({ file: ['No file was sent.'] });
  const row = await assets.replaceContent(s, c.req.param('id')!, r.staged, r.contentType);
  return c.json(await dto(s, row), 200);
};

function uploadForm(kind: AssetKind) {
  const props: Record<string, object> = {
    sourceFile: { type: 'string', format: 'binary' },
    name: { type: 'string', description: 'Or `designParams.name` (mockups: `mockupParams.name`…).' },
    path: { type: 'string' },
    customFields: { type: 'string', description: 'A JSON object.' },
    id: { type: 'string' },
    'previewSettings.*': { type: 'string', description: 'Accepted and ignored (previews are made on demand).' },
  };
  if (kind.private) props.ownerId = { type: 'string' };
  return { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties: props, required: ['sourceFile'] } as never } } };
}

for (const kind of KINDS) {
  const p = `/${kind.segment}`;
  const tags = [kind.private ? 'Private assets' : `${kind.type[0]!.toUpperCase()}${kind.type.slice(1)}s`];
  const Dto = DTO_OF[kind.type];
  const owner = kind.private ? { query: S.OwnerQuery } : {};
  const r = (spec: Omit<RouteConfig, 'tags'>, level: ScopeLevel, handler: Handler) => addRoute(processorArea, { ...spec, tags } as RouteConfig, accessOf(kind, level), handler);

  r({ method: 'post', path: `${p}/import`, summary: `Import a ${kind.noun}`, request: { ...owner, body: uploadForm(kind) }, responses: { 201: json(Dto, 'Created.'), ...conflict, ...problemResponses(413, 415, 422) } }, 'full', importUpload(kind));
  r({ method: 'post', path: `${p}/import/from-url`, summary: `Import a ${kind.noun} from a URL`, request: { body: jsonBody(FromUrlBody) }, responses: { 201: json(Dto, 'Created.'), ...conflict, ...problemResponses(413, 422) } }, 'full', importFromUrl(kind));

  if (kind.type === 'design') {
    const dk = kind;
    r(
      { method: 'post', path: `${p}/from-mockup`, summary: 'A print-product design from a mockup', request: { body: jsonBody(S.FromMockupBody) }, responses: { 201: json(DesignDto, 'Created.'), ...conflict, ...problemResponses(404, 422) } },
      'full',
      async (c) => {
        const b = body(c);
        const designs = scope(c, dk, b.designParams?.ownerId ?? b.ownerId, dk.private);
        const mockups = b.mockupOwnerId ? scope(c, assetKind('mockup', true), b.mockupOwnerId) : scope(c, assetKind('mockup', false));
        return c.json(await dto(designs, await ops.designFromMockup(designs, mockups, b.mockupId, b.designParams ?? {})), 201);
      },
    );
    if (kind.private) {
      r(
        { method: 'post', path: `${p}/from-design`, summary: 'A private copy of a public design', request: { query: S.FromDesignQuery }, responses: { 201: json(DesignDto, 'Created.'), ...conflict, ...problemResponses(404) } },
        'full',
        async (c) => {
          const query = q(c);
          const target = scope(c, dk, query.ownerId, true);
          const row = await ops.privateDesignFrom(target, scope(c, assetKind('design', false)), query.designId, query);
          return c.json(await dto(target, row), 201);
        },
      );
      r(
        { method: 'post', path: `${p}/from-resource`, summary: 'A private design from a resource (PSD or print-product JSON)', request: { query: S.FromResourceQuery }, responses: { 201: json(DesignDto, 'Created.'), ...conflict, ...problemResponses(404, 422) } },
        'full',
        async (c) => {
          const query = q(c);
          const target = scope(c, dk, query.ownerId, true);
          const source = query.resourceOwnerId ? scope(c, assetKind('resource', true), query.resourceOwnerId) : scope(c, assetKind('resource', false));
          return c.json(await dto(target, await ops.privateDesignFrom(target, source, query.resourceId, query)), 201);
        },
      );
    }
    r({ method: 'post', path: `${p}/{id}/check`, summary: 'Missing fonts', request: { params: S.IdParam, ...owner }, responses: { 200: json(S.CheckDto, 'The check.'), ...problemResponses(404) } }, 'read', async (c) =>
      c.json(await ops.checkDesign(scope(c, dk), c.req.param('id')!), 200),
    );
    r(
      { method: 'post', path: `${p}/{id}/calculate-count-per-sheet`, summary: 'How many copies fit a sheet', request: { params: S.IdParam, ...owner, body: jsonBody(S.CountBody) }, responses: { 200: json(S.CountDto, 'The layout.'), ...problemResponses(404) } },
      'read',
      async (c) => c.json(await ops.designCountPerSheet(scope(c, dk), c.req.param('id')!, body(c) as never), 200),
    );
    r(
      { method: 'post', path: `${p}/{id}/embed-all-linked-data`, summary: 'Embed linked images', request: { params: S.IdParam, ...owner }, responses: { 200: json(DesignDto, 'The design.'), ...problemResponses(404, 422) } },
      'update',
      async (c) => {
        const s = scope(c, dk);
        return c.json(await dto(s, await ops.embedAllLinkedData(s, c.req.param('id')!)), 200);
      },
    );
  }

  if (kind.type === 'mockup') {
    const mk = kind;
    r({ method: 'get', path: `${p}/{id}/artwork-layers`, summary: 'Artwork layers (smart objects)', request: { params: S.IdParam, ...owner }, responses: { 200: json(z.array(S.ArtworkLayerDto), 'Layers.'), ...problemResponses(404, 422) } }, 'read', async (c) =>
      c.json(await ops.artworkLayers(scope(c, mk), c.req.param('id')!), 200),
    );
    r({ method: 'get', path: `${p}/{id}/groups`, summary: 'Groups of artwork layers', request: { params: S.IdParam, ...owner }, responses: { 200: json(z.array(S.MockupGroupDto), 'Groups.'), ...problemResponses(404, 422) } }, 'read', async (c) =>
      c.json(await ops.mockupGroups(scope(c, mk), c.req.param('id')!), 200),
    );
    r(
      { method: 'post', path: `${p}/{id}/create-mockup-link`, summary: 'A MockupLink to one artwork layer', request: { params: S.IdParam, ...owner, body: jsonBody(S.MockupLinkBody) }, responses: { 201: json(MockupDto, 'Created.'), ...conflict, ...problemResponses(404) } },
      'full',
      async (c) => {
        const s = scope(c, mk);
        const [row] = await ops.createMockupLinks(s, c.req.param('id')!, [body(c) as ops.LinkSpec]);
        return c.json(await dto(s, row!), 201);
      },
    );
    r(
      { method: 'post', path: `${p}/{id}/batch-create-mockup-links`, summary: 'Several MockupLinks', request: { params: S.IdParam, ...owner, body: jsonBody(S.BatchMockupLinksBody) }, responses: { 201: json(z.array(MockupDto), 'Created.'), ...conflict, ...problemResponses(404) } },
      'full',
      async (c) => {
        const s = scope(c, mk);
        const b = body(c) as unknown;
        const links = (Array.isArray(b) ? b : (b as { links: ops.LinkSpec[] }).links) as ops.LinkSpec[];
        const rows = await ops.createMockupLinks(s, c.req.param('id')!, links);
        return c.json(await Promise.all(rows.map((row) => dto(s, row))), 201);
      },
    );
  }

  if (kind.type === 'image') {
    const ik = kind;
    const pages = `${p}/{id}/pages/{pageIndex}`;
    r(
      { method: 'post', path: `${pages}/extract`, summary: 'A page as a new one-page PDF image', request: { params: S.PageParams, ...owner }, responses: { 201: json(ImageDto, 'Created.'), ...conflict, ...problemResponses(404, 422) } },
      'full',
      async (c) => {
        const s = scope(c, ik);
        return c.json(await dto(s, await ops.extractPage(s, c.req.param('id')!, c.req.param('pageIndex')!)), 201);
      },
    );
    r(
      { method: 'get', path: `${pages}/preview`, summary: 'A page preview (the page drawn at import, fitted inside width × height; png or jpeg)', request: { params: S.PageParams, query: S.PreviewQuery }, responses: { 200: { description: 'The preview.', content: { 'image/png': { schema: { type: 'string', format: 'binary' } as never }, 'image/jpeg': { schema: { type: 'string', format: 'binary' } as never } } }, ...problemResponses(400, 404, 422) } },
      'read',
      async (c) => {
        const { bytes, contentType } = await ops.pagePreview(scope(c, ik), c.req.param('id')!, c.req.param('pageIndex')!, q(c));
        return c.body(bytes as never, 200, { 'Content-Type': contentType, 'Cache-Control': 'private, max-age=300' });
      },
    );
    r(
      { method: 'post', path: `${pages}/preview-with-mockup`, summary: "A page placed into a 2D mockup's artwork layer (800 × 800 PNG)", request: { params: S.PageParams, ...owner, body: jsonBody(S.PreviewWithMockupBody) }, responses: { 200: { description: 'The preview.', content: { 'image/png': { schema: { type: 'string', format: 'binary' } as never } } }, ...problemResponses(400, 404, 422) } },
      'read',
      async (c) => {
        const png = await ops.pagePng(scope(c, ik), c.req.param('id')!, c.req.param('pageIndex')!);
        const { mockupId, mockupOwnerId } = body(c);
        const out = await placeInMockup(c.var.tenant, { mockupId, mockupOwnerId: mockupOwnerId ?? undefined }, { fileFormat: 'Png' }, undefined, new ServerTiming(), async () => png);
        return c.body(out.bytes as never, 200, { 'Content-Type': out.mime, 'Cache-Control': 'private, max-age=300' });
      },
    );
  }

  r(
    { method: 'post', path: `${p}/{id}/update`, summary: `Replace a ${kind.noun}'s file`, request: { params: S.IdParam, ...owner, body: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } }, required: ['file'] } as never } } } }, responses: { 200: json(Dto, 'Updated.'), ...conflict, ...problemResponses(404, 413, 415, 422) } },
    'update',
    updateContent(kind),
  );
}
