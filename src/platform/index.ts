/**
 * Platform APIs under /api/<area>/v1/ (docs/platform.md). Each area registers its routes on its
 * own app (src/platform/<area>/routes.ts); they are mounted here, once, with the shared core.
 */
import { buildPlatformApp } from './core';
import { atomsArea } from './atoms/routes';
import { backofficeArea } from './backoffice/routes';
import { processorArea } from './processor/routes';
import { renderingJobsArea } from './rendering/routes';
import { storageArea } from './storage/routes';
import { storefrontArea } from './storefront/routes';

const platform = buildPlatformApp([storageArea, processorArea, atomsArea, storefrontArea, backofficeArea, renderingJobsArea]);

export const platformApp = platform.app;

/** Literal path segments in their declared spelling (case-insensitive platform paths). */
export const canonicalPlatformPath = (path: string, method: string): string => platform.table().canonical(path, method);
