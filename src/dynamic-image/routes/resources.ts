/**
 * Fonts, images and templates on the server: list, upload (API key), delete (API key).
 *
 *   GET    /api/resources/templates                 TemplateList
 *   POST   /api/resources/templates                 201 ["cards/x.psd"]
 *   DELETE /api/resources/templates[/{file}]         200
 *   GET    /api/resources/fonts                     FontList
 *   POST   /api/resources/fonts/reload              200
 *   POST   /api/resources/fonts                     201 ["Brand-Bold.ttf"]
 *   DELETE /api/resources/fonts[/{file}]             200
 *   GET    /api/resources/images                    ImageList
 *   POST   /api/resources/images[/{destination}]    201 [ImageModel]
 *   DELETE /api/resources/images[/{file}]            200
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppBindings } from '../../env';
import { errorResponses } from '../../openapi/app';
import { notFound } from '../../errors';
import { readFontIndex, rebuildFontIndex, type FileStore, type Root, type StoredFile } from '../store';
import { fileName, folderName, titleOf } from '../../engine/names';
import { storesOf, type RenderingApp } from '../context';
import { fontKind, imageKind, templateKind } from '../kinds';
import { renderingRoute } from '../request';
import { FontList, ImageList, ImageModel, ListQuery, NameList, TemplateList, TemplateUploadQuery, UploadBody, UploadQuery } from '../schemas';
import { filesOf, deleteStored, storeUploads, type UploadKind } from '../uploads';
import { imagePreviewUrl } from '../urls';
import { destinationParam, dualPaths, dualValue, fileParam } from './dual';
import { json } from './responses';

const uploadBody = {
  required: true,
  content: { 'multipart/form-data': { schema: UploadBody } },
  description: 'One or more files in the field `file`.',
};

const Deleted = z.object({ deleted: z.string() }).openapi('Deleted');

const kinds: Record<Root, (store: FileStore, query: { bleed?: string }) => UploadKind> = {
  templates: (store, query) => templateKind(store, { bleed: query.bleed }),
  fonts: fontKind,
  images: imageKind,
};

/** The validated upload: its query (where to, overwrite, a template's bleed) and its files. */
interface Upload {
  query: { overwrite: boolean; destination?: string; bleed?: string };
  form: z.infer<typeof UploadBody>;
}

async function upload(c: Context<AppBindings>, root: Root, { query, form }: Upload, destination = query.destination): Promise<StoredFile[]> {
  const { files } = storesOf(c);
  return storeUploads(files, kinds[root](files, query), filesOf(form.file), { destination, overwrite: query.overwrite });
}

function listed(c: Context<AppBindings>, root: Root, { subfolder, showSubfolders }: z.infer<typeof ListQuery>): Promise<string[]> {
  return storesOf(c).files.list(root, folderName(subfolder), showSubfolders);
}

/** DELETE /api/resources/<root>[/{file}]: the query form, the path form, and the hidden nested path form. */
function registerDelete(app: RenderingApp, root: Root, tag: string, after?: (c: Context<AppBindings>) => Promise<void>) {
  const description = `Name of the file under the ${root} root.`;
  const file = fileParam(description, true);
  const paths = dualPaths(`/api/resources/${root}`, 'file');
  const route = {
    method: 'delete' as const,
    tags: [tag],
    summary: `Delete a file from ${root}`,
    description: 'Needs the API key. Derived data (compiled templates, thumbnails, the font index) goes with it.',
    responses: { 200: json(Deleted, 'Deleted.'), ...errorResponses(400, 403, 404) },
  };
  const remove = async (c: Context<AppBindings>, given: string | undefined) => {
    const { files } = storesOf(c);
    const name = fileName(dualValue('file', given, true));
    if (!(await deleteStored(files, kinds[root](files, {}), name))) throw notFound(`There is no file "${name}" in ${root}.`);
    await after?.(c);
    return c.json({ deleted: name }, 200);
  };
  app.openapi(renderingRoute({ ...route, path: paths.query, request: { query: file.query } }, { write: true }), (c) => remove(c, c.req.valid('query').file));
  app.openapi(renderingRoute({ ...route, path: paths.path, request: { params: file.path, query: z.object({}) } }, { write: true }), (c) => remove(c, c.req.valid('param').file));
  app.openapi(
    { ...renderingRoute({ ...route, path: paths.nested, request: { params: file.path, query: z.object({}) } }, { write: true }), hide: true },
    (c) => remove(c, c.req.valid('param').file),
  );
}

const imageModel = (c: Context<AppBindings>, name: string) => ({ title: titleOf(name), name, previewUrl: imagePreviewUrl(c, name) });

export function registerResourceRoutes(app: RenderingApp): void {
  // --- templates
  app.openapi(
    renderingRoute({
      method: 'get',
      path: '/api/resources/templates',
      tags: ['Templates'],
      summary: 'List templates',
      request: { query: ListQuery },
      responses: { 200: json(TemplateList, 'Template names, root-relative.'), ...errorResponses(400) },
    }),
    async (c) => {
      const items = await listed(c, 'templates', c.req.valid('query'));
      return c.json({ total: items.length, items }, 200);
    },
  );
  app.openapi(
    renderingRoute(
      {
        method: 'post',
        path: '/api/resources/templates',
        tags: ['Templates'],
        summary: 'Upload templates (PSD/PSB)',
        description:
          'Needs the API key. Each file is checked and compiled; a file that cannot be rendered is refused with 422 and nothing is stored. `bleed` declares the bleed the templates carry (print PDFs: TrimBox inside it).',
        request: { query: TemplateUploadQuery, body: uploadBody },
        responses: { 201: json(NameList, 'Stored names, as to be used in requests.'), ...errorResponses(400, 403, 413, 422) },
      },
      { write: true },
    ),
    async (c) => c.json((await upload(c, 'templates', { query: c.req.valid('query'), form: c.req.valid('form') })).map((f) => f.name), 201),
  );
  registerDelete(app, 'templates', 'Templates');

  // --- fonts
  app.openapi(
    renderingRoute({
      method: 'get',
      path: '/api/resources/fonts',
      tags: ['Fonts'],
      summary: 'List fonts',
      responses: { 200: json(FontList, 'Fonts in the font store.') },
    }),
    async (c) => {
      const fonts = await readFontIndex(storesOf(c).files);
      const items = fonts.map(({ fullName, style, family, postscriptName }) => ({ fullName, style, family, postscriptName }));
      return c.json({ total: items.length, items }, 200);
    },
  );
  app.openapi(
    renderingRoute(
      {
        method: 'post',
        path: '/api/resources/fonts/reload',
        tags: ['Fonts'],
        summary: 'Rescan the font store',
        description: 'Needs the API key. Rebuilds the font index from the files under fonts/.',
        responses: { 200: { description: 'Rescanned.' }, ...errorResponses(403) },
      },
      { write: true },
    ),
    async (c) => {
      await rebuildFontIndex(storesOf(c).files);
      return c.body(null, 200);
    },
  );
  app.openapi(
    renderingRoute(
      {
        method: 'post',
        path: '/api/resources/fonts',
        tags: ['Fonts'],
        summary: 'Upload fonts (TTF/OTF)',
        description: 'Needs the API key. A file that is not a readable font is refused with 422.',
        request: { query: UploadQuery, body: uploadBody },
        responses: { 201: json(NameList, 'Stored names.'), ...errorResponses(400, 403, 413, 422) },
      },
      { write: true },
    ),
    async (c) => {
      const stored = await upload(c, 'fonts', { query: c.req.valid('query'), form: c.req.valid('form') });
      await rebuildFontIndex(storesOf(c).files);
      return c.json(stored.map((f) => f.name), 201);
    },
  );
  registerDelete(app, 'fonts', 'Fonts', async (c) => {
    await rebuildFontIndex(storesOf(c).files);
  });

  // --- images
  app.openapi(
    renderingRoute({
      method: 'get',
      path: '/api/resources/images',
      tags: ['Images'],
      summary: 'List images',
      request: { query: ListQuery },
      responses: { 200: json(ImageList, 'Images with thumbnail URLs.'), ...errorResponses(400) },
    }),
    async (c) => {
      const items = (await listed(c, 'images', c.req.valid('query'))).map((name) => imageModel(c, name));
      return c.json({ total: items.length, items }, 200);
    },
  );
  // POST /api/resources/images[/{destination}]: the query form, the path form, and the hidden nested path form.
  const destination = destinationParam('Folder to store the files in (created as needed); empty = the root.', false);
  const imagePaths = dualPaths('/api/resources/images', 'destination');
  const overwrite = UploadQuery.pick({ overwrite: true });
  const imageUpload = {
    method: 'post' as const,
    tags: ['Images'],
    summary: 'Upload images (JPEG/PNG)',
    description: 'Needs the API key.',
    responses: { 201: json(z.array(ImageModel), 'Stored images.'), ...errorResponses(400, 403, 413, 422) },
  };
  const storeImages = async (c: Context<AppBindings>, given: Upload, to: string | undefined) =>
    c.json((await upload(c, 'images', given, dualValue('destination', to, false))).map((f) => imageModel(c, f.name)), 201);
  app.openapi(
    renderingRoute({ ...imageUpload, path: imagePaths.query, request: { query: overwrite.extend(destination.query.shape), body: uploadBody } }, { write: true }),
    (c) => storeImages(c, { query: c.req.valid('query'), form: c.req.valid('form') }, c.req.valid('query').destination),
  );
  app.openapi(
    renderingRoute({ ...imageUpload, path: imagePaths.path, request: { params: destination.path, query: overwrite, body: uploadBody } }, { write: true }),
    (c) => storeImages(c, { query: c.req.valid('query'), form: c.req.valid('form') }, c.req.valid('param').destination),
  );
  app.openapi(
    { ...renderingRoute({ ...imageUpload, path: imagePaths.nested, request: { params: destination.path, query: overwrite, body: uploadBody } }, { write: true }), hide: true },
    (c) => storeImages(c, { query: c.req.valid('query'), form: c.req.valid('form') }, c.req.valid('param').destination),
  );
  registerDelete(app, 'images', 'Images');
}
