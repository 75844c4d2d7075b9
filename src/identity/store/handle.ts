// The database handle the store's operations take: the raw D1 binding (what handlers and scripts
// have) or a drizzle handle (what a caller already holding one passes on). A type adapter only.
import { getDb, type Database } from '../../db/client';

export type DbLike = Database | D1Database;

export const asDb = (db: DbLike): Database => ('$client' in db ? db : getDb(db));
