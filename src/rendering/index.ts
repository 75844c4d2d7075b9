import { createServiceApp } from '../openapi/app';

/** The Dynamic Image API: resources, template information, rendering and results. */
export const renderingApp = createServiceApp();
