// The admin panel, mounted at /admin: identity's sections (src/identity/admin: dashboard, External
// apps, Users, Tenant) and the back office's (./backoffice) in identity's shell. Sign-in is the
// identity login (/admin/login, served by the identity service); everything here needs an admin
// of the tenant.
//
//   GET  /admin                          dashboard
//   POST /admin/logout                   sign out (ends the session)
//   GET  /admin/apps                     Settings > External apps: list
//   GET  /admin/apps/new · POST          create (secret shown once on the app's page)
//   GET  /admin/apps/{clientId} · POST   details, edit
//   GET  /admin/apps/{clientId}/delete · POST   confirm, delete (revokes)
//   GET  /admin/users · /new · /{id}     Settings > Users; POST /{id}/password, /disable, /enable
//   GET  /admin/tenant                   Settings > Tenant: the instance's signing keys (read-only) and the platform's cards
//   POST /admin/tenant/settings · /colour-output   the platform's tenant settings (tenant-settings.tsx)
//   GET  /admin/projects · /{id} · POST  Back office > Projects (backoffice/projects.tsx)
//   GET  /admin/pipelines · /new · /{id} · POST   Back office > Pipelines (backoffice/pipelines.tsx)
//   GET  /admin/products · /{id}         Back office > Products (backoffice/products.tsx)
//   GET  /admin/statuses · /admin/secrets   Settings > Project statuses, Secrets (backoffice/settings.tsx)
//   GET  /admin/assets/{tab} · /{id} · POST   Back office > Assets (backoffice/assets.tsx; uploads take up to ADMIN_UPLOAD_MAX_BYTES)
//   GET  /admin/webhooks · /{id} · POST  Settings > Webhooks, delivery logs (backoffice/webhooks.tsx)
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../errors';
import {
  adminErrorPage,
  adminHeaders,
  adminNotFound,
  appsRoutes,
  dashboard,
  panelChrome,
  requireAdmin,
  signOut,
  tenantRoutes,
  usersRoutes,
  type AdminEnv,
  type PanelChrome,
} from '../identity/admin';
import { ADMIN_UPLOAD_MAX_BYTES } from './backoffice/asset-files';
import { assetsRoutes } from './backoffice/assets';
import { pipelinesRoutes } from './backoffice/pipelines';
import { productsRoutes } from './backoffice/products';
import { projectsRoutes } from './backoffice/projects';
import { secretsRoutes, statusesRoutes } from './backoffice/settings';
import { webhooksRoutes } from './backoffice/webhooks';
import { tenantCards, tenantSettingsRoutes } from './tenant-settings';

/** The product this is the admin panel of (README.md), in the page titles and the navigation. */
export const PRODUCT_NAME = 'Edge personalisation platform';

const CHROME: PanelChrome = {
  name: PRODUCT_NAME,
  nav: [
    { section: 'dashboard', href: '/admin', label: 'Dashboard' },
    { section: 'projects', href: '/admin/projects', label: 'Projects', group: 'Back office' },
    { section: 'products', href: '/admin/products', label: 'Products', group: 'Back office' },
    { section: 'pipelines', href: '/admin/pipelines', label: 'Pipelines', group: 'Back office' },
    { section: 'assets', href: '/admin/assets', label: 'Assets', group: 'Back office' },
    { section: 'apps', href: '/admin/apps', label: 'External apps', group: 'Settings' },
    { section: 'users', href: '/admin/users', label: 'Users', group: 'Settings' },
    { section: 'tenant', href: '/admin/tenant', label: 'Tenant', group: 'Settings' },
    { section: 'statuses', href: '/admin/statuses', label: 'Project statuses', group: 'Settings' },
    { section: 'secrets', href: '/admin/secrets', label: 'Secrets', group: 'Settings' },
    { section: 'webhooks', href: '/admin/webhooks', label: 'Webhooks', group: 'Settings' },
  ],
};

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

/**
 * The panel as a Hono app to mount at /admin, after the identity service (whose GET
 * /admin/login comes first; the panel's last route passes that path on).
 */
export const adminPanel = new Hono<AdminEnv>();

adminPanel.onError(adminErrorPage);
adminPanel.use('*', panelChrome(CHROME), adminHeaders, (c, next) => (isUpload(c.req.path) ? uploadLimit : formLimit)(c, next), requireAdmin);

adminPanel.get('/', dashboard);
adminPanel.post('/logout', signOut);
adminPanel.route('/apps', appsRoutes);
adminPanel.route('/users', usersRoutes);
adminPanel.route('/tenant', tenantRoutes(tenantCards));
adminPanel.route('/tenant', tenantSettingsRoutes);
adminPanel.route('/projects', projectsRoutes);
adminPanel.route('/pipelines', pipelinesRoutes);
adminPanel.route('/products', productsRoutes);
adminPanel.route('/assets', assetsRoutes);
adminPanel.route('/statuses', statusesRoutes);
adminPanel.route('/secrets', secretsRoutes);
adminPanel.route('/webhooks', webhooksRoutes);
adminPanel.all('*', adminNotFound);
