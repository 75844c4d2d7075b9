import { drizzle } from 'drizzle-orm/d1';
import * as schema from './schema';

export type Database = ReturnType<typeof getDb>;

/** A drizzle handle over the D1 binding (cheap: create per request). */
export function getDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

export { schema };
