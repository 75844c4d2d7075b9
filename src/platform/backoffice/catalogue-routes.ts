/**
 * Back-office catalogue routes (registered by routes.ts on the back-office area).
 */
import type { PlatformArea } from '../core';

export function registerCatalogueRoutes(area: PlatformArea): void {
  void area;
}
