// Registered clients ("External apps") in D1. The secret is stored only as its SHA-256.
import { and, desc, eq, sql } from 'drizzle-orm';
import { apps } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export type ClientRow = typeof apps.$inferSelect;
export type NewClientRow = typeof apps.$inferInsert;

/** Any tenant's client with this id (the OAuth endpoints learn the tenant from it). */
export const find = (db: DbLike, clientId: string): Promise<ClientRow | undefined> => asDb(db).select().from(apps).where(eq(apps.clientId, clientId)).get();

/** The client with this id if it belongs to the tenant (another tenant's is "not found"). */
export const findInTenant = (db: DbLike, tenantId: number, clientId: string): Promise<ClientRow | undefined> =>
  asDb(db).select().from(apps).where(and(eq(apps.tenantId, tenantId), eq(apps.clientId, clientId))).get();

export const listForTenant = (db: DbLike, tenantId: number): Promise<ClientRow[]> =>
  asDb(db).select().from(apps).where(eq(apps.tenantId, tenantId)).orderBy(desc(apps.createdAt), apps.name).all();

/** Inserts a client; with `ifAbsent`, a client id that exists is left alone (the seed). */
export async function insert(db: DbLike, row: NewClientRow, options: { ifAbsent?: boolean } = {}): Promise<void> {
  const q = asDb(db).insert(apps).values(row);
  await (options.ifAbsent ? q.onConflictDoNothing() : q);
}

export async function update(db: DbLike, tenantId: number, clientId: string, set: Partial<NewClientRow>): Promise<void> {
  await asDb(db).update(apps).set(set).where(and(eq(apps.tenantId, tenantId), eq(apps.clientId, clientId)));
}

/** The delete statement (for a batch with the grant revocation: see grants.deleteClient). */
export const deleteQuery = (db: DbLike, clientId: string) => asDb(db).delete(apps).where(eq(apps.clientId, clientId));

/** Is this Origin one of the allowed CORS origins of any client on this instance? */
export async function anyAllowsCorsOrigin(db: DbLike, origin: string): Promise<boolean> {
  const row = await asDb(db)
    .select({ one: sql<number>`1` })
    .from(apps)
    .where(sql`exists (select 1 from json_each(${apps.corsOrigins}) where lower(json_each.value) = lower(${origin}))`)
    .limit(1)
    .get();
  return row !== undefined;
}
