// Tenants in D1.
import { count, eq } from 'drizzle-orm';
import { apps, tenants, users } from '../../db/schema';
import { asDb, type DbLike } from './handle';

/** Creates the tenant (no-op when the id exists) and returns its id. */
export async function create(db: DbLike, tenant: { id?: number; name: string }): Promise<number> {
  const row = await asDb(db).insert(tenants).values(tenant).onConflictDoNothing().returning({ id: tenants.id }).get();
  return row?.id ?? tenant.id!;
}

export async function name(db: DbLike, tenantId: number): Promise<string | undefined> {
  return (await asDb(db).select({ name: tenants.name }).from(tenants).where(eq(tenants.id, tenantId)).get())?.name;
}

/** Every tenant's id (the platform's hourly sweeps go tenant by tenant). */
export async function ids(db: DbLike): Promise<number[]> {
  return (await asDb(db).select({ id: tenants.id }).from(tenants).all()).map((r) => r.id);
}

/** How many apps and users the tenant has (the admin dashboard). */
export async function counts(db: DbLike, tenantId: number): Promise<{ apps: number; users: number }> {
  const d = asDb(db);
  const [a, u] = await Promise.all([
    d.select({ n: count() }).from(apps).where(eq(apps.tenantId, tenantId)).get(),
    d.select({ n: count() }).from(users).where(eq(users.tenantId, tenantId)).get(),
  ]);
  return { apps: a?.n ?? 0, users: u?.n ?? 0 };
}
