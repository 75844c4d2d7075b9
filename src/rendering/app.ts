import type { Context } from 'hono';
import type { createServiceApp } from '../openapi/app';
import type { AppBindings } from '../env';
import { FileStore, ResultStore } from '../storage';

export type RenderingApp = ReturnType<typeof createServiceApp>;

/** The stores of one request. */
export function storesOf(c: Context<AppBindings>) {
  return {
    files: new FileStore(c.env.FILES),
    results: new ResultStore(c.env.FILES, c.env.RESULT_TTL_HOURS),
  };
}
