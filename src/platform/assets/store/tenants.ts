/**
 * The ids of every tenant, for the hourly sweeps that go tenant by tenant. `tenants` belongs to
 * identity; its store has no list of ids yet, so this one read lives here until it has
 * (src/identity/store/tenants.ts).
 */
export async function allTenantIds(db: D1Database): Promise<number[]> {
  const { results } = await db.prepare(`SELECT id FROM tenants`).all<{ id: number }>();
  return results.map((r) => r.id);
}
