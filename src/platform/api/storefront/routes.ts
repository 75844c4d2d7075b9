/**
 * Storefront: /api/storefront/v1 (docs/platform.md, contract). A thin table: each sub-route file
 * registers its own routes on the area, in the order below (literal paths before parameters).
 *
 *   GET|HEAD /info          InfoDto (no token)
 *   user-routes.ts            storefronts, tenant info, storefront users and their token
 *   project-routes.ts         projects, their statuses and transitions, order data, previews
 *   catalogue-read-routes.ts  products, references, links, specifications, bundles, pipelines
 */
import { createPlatformArea } from '../../core';
import { registerCatalogueRoutes } from './catalogue-read-routes';
import { registerProjectRoutes } from './project-routes';
import { registerUserRoutes } from './user-routes';

export const storefrontArea = createPlatformArea('storefront');

registerUserRoutes(storefrontArea);
registerProjectRoutes(storefrontArea);
registerCatalogueRoutes(storefrontArea);
