import type { SQL } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';

const dialect = new SQLiteSyncDialect();

/** A drizzle SQL fragment as a D1 statement (the core's filter helpers speak drizzle). */
export const stmt = (db: D1Database, q: SQL): D1PreparedStatement => {
  const { sql: text, params } = dialect.sqlToQuery(q);
  return db.prepare(text).bind(...params);
};
