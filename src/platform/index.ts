import { createServiceApp } from '../openapi/app';

/** Platform APIs under /api/<area>/v1/. */
export const platformApp = createServiceApp();
