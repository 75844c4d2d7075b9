// The admin panel of the identity host, mounted at /admin. Sign-in is the identity login
// (/admin/login, served by the identity service); everything here needs an admin of the tenant.
//
//   GET  /admin                          dashboard
//   POST /admin/logout                   sign out (ends the session)
//   GET  /admin/apps                     Settings > External apps: list
//   GET  /admin/apps/new · POST          create (secret shown once on the app's page)
//   GET  /admin/apps/{clientId} · POST   details, edit
//   GET  /admin/apps/{clientId}/delete · POST   confirm, delete (revokes)
//   GET  /admin/users · /new · /{id}     Settings > Users; POST /{id}/password, /disable, /enable
//   GET  /admin/tenant                   Settings > Tenant, the instance's signing keys (read-only)
//   GET  /admin/projects · /{id} · POST  Back office > Projects (backoffice/projects.tsx)
//   GET  /admin/pipelines · /new · /{id} · POST   Back office > Pipelines (backoffice/pipelines.tsx)
//   GET  /admin/products · /{id}         Back office > Products, read-only (backoffice/products.tsx)
//   GET  /admin/statuses · /admin/secrets   Settings > Project statuses, Secrets (backoffice/settings.tsx)
//   GET  /admin/assets/{tab} · /{id} · POST   Back office > Assets (backoffice/assets.tsx; uploads take up to ADMIN_UPLOAD_MAX_BYTES)
//   GET  /admin/webhooks · /{id} · POST  Settings > Webhooks, delivery logs (backoffice/webhooks.tsx)
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError, notFound } from '../../errors';
import { destroySession } from '../session';
import { appsRoutes } from './apps/routes';
import { projectsRoutes } from '../../admin/backoffice/projects';
import { assetsRoutes } from '../../admin/backoffice/assets';
import { ADMIN_UPLOAD_MAX_BYTES } from '../../admin/backoffice/asset-files';
import { secretsRoutes, statusesRoutes } from '../../admin/backoffice/settings';
import { pipelinesRoutes } from '../../admin/backoffice/pipelines';
import { productsRoutes } from '../../admin/backoffice/products';
import { webhooksRoutes } from '../../admin/backoffice/webhooks';
import { ADMIN_LOGIN_PATH } from '../paths';
import { adminErrorPage, adminHeaders, requireAdmin, type AdminEnv } from './guard';
import { dashboard, tenantRoutes } from './tenant';
import { usersRoutes } from './users/routes';

export const adminApp = new Hono<AdminEnv>();

adminApp.onError(adminErrorPage);
/** Admin forms are small; a bigger body is refused before it is read (Content-Length) or once it passes the cap. */
export const ADMIN_FORM_MAX_BYTES = 256 * 1024;
const formLimit = bodyLimit({
  maxSize: ADMIN_FORM_MAX_BYTES,
  onError: () => {
    throw new ApiError(413, 'payload_too_large', `The form is larger than ${ADMIN_FORM_MAX_BYTES / 1024} KB, so nothing was changed.`);
  },
});
// The Assets page's upload and the product image post a file: their own cap (the largest asset type's), checked the same way.
const uploadLimit = bodyLimit({
  maxSize: ADMIN_UPLOAD_MAX_BYTES,
  onError: () => {
    throw new ApiError(413, 'payload_too_large', `The file is larger than ${Math.floor(ADMIN_UPLOAD_MAX_BYTES / 1024 / 1024)} MB, so nothing was uploaded.`);
  },
});
// The product image is a file too (a photo is easily a few MB).
const isUpload = (path: string) => /^\/admin\/(assets\/[a-z]+\/upload|products\/[^/]+\/image)$/.test(path);
adminApp.use('*', adminHeaders, (c, next) => (isUpload(c.req.path) ? uploadLimit : formLimit)(c, next), requireAdmin);

adminApp.get('/', dashboard);
adminApp.post('/logout', async (c) => {
  await destroySession(c);
  return c.redirect(ADMIN_LOGIN_PATH, 303);
});
adminApp.route('/apps', appsRoutes);
adminApp.route('/users', usersRoutes);
adminApp.route('/tenant', tenantRoutes);
adminApp.route('/projects', projectsRoutes);
adminApp.route('/pipelines', pipelinesRoutes);
adminApp.route('/products', productsRoutes);
adminApp.route('/assets', assetsRoutes);
adminApp.route('/statuses', statusesRoutes);
adminApp.route('/secrets', secretsRoutes);
adminApp.route('/webhooks', webhooksRoutes);
adminApp.all('*', (c) => {
  if (c.req.path === ADMIN_LOGIN_PATH) return c.notFound();
  // /admin/apps/ is /admin/apps.
  if (c.req.method === 'GET' && c.req.path.endsWith('/')) return c.redirect(c.req.path.replace(/\/+$/, '') || '/admin', 301);
  throw notFound('There is no such page in the admin panel.');
});
