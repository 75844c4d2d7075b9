import { getDb, type Database } from '../db/client';

/** Functions exported to other areas accept either the raw D1 binding or a drizzle handle. */
export type DbLike = Database | D1Database;

export const asDb = (db: DbLike): Database => ('$client' in db ? db : getDb(db));
