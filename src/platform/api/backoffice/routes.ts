/**
 * Back office: /api/backoffice/v1 (docs/platform.md, contract). A thin table: each sub-route file
 * registers its own routes on the area, in the order below (literal paths before parameters).
 *
 *   GET|HEAD /info                                InfoDto (no token)
 *   catalogue-edit-routes.ts  products, versions, references, links, specifications, bundles,
 *                             personalization workflows, processing pipelines, storefronts,
 *                             tenant settings and secrets (the product reads come from
 *                             ../storefront/catalogue-read-routes.ts)
 *   status-routes.ts          project statuses and transitions
 *   webhook-routes.ts         webhooks, their secrets and delivery logs
 */
import { createPlatformArea } from '../../core';
import { registerCatalogueRoutes } from './catalogue-edit-routes';
import { registerStatusRoutes } from './status-routes';
import { registerWebhookRoutes } from './webhook-routes';

export const backofficeArea = createPlatformArea('backoffice');

registerCatalogueRoutes(backofficeArea);
registerStatusRoutes(backofficeArea);
registerWebhookRoutes(backofficeArea);
