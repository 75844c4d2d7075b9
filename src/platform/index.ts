/**
 * Platform APIs under /api/<area>/v1/ (docs/platform.md). Each area registers its routes on its
 * own app (src/platform/<area>/routes.ts); they are mounted here, once, with the shared core.
 */
import { buildPlatformApp } from './core';
import { atomsArea } from './api/atoms/routes';
import { backofficeArea } from './api/backoffice/routes';
import { processorArea } from './api/processor/routes';
import { renderingJobsArea } from './api/rendering-jobs/routes';
import { storageArea } from './api/storage/routes';
import { storefrontArea } from './api/storefront/routes';

const platform = buildPlatformApp([storageArea, processorArea, atomsArea, storefrontArea, backofficeArea, renderingJobsArea]);

export const platformApp = platform.app;

/** Literal path segments in their declared spelling (case-insensitive platform paths). */
export const canonicalPlatformPath = (path: string, method: string): string => platform.table().canonical(path, method);
