// Sign-in attempts in D1, per account (tenant + e-mail) and client: a row per client that tried
// the account (`client`, its IP key) and one counting every client (`client` ''). An attempt is
// reserved in ONE statement before the password is hashed, so parallel guesses cannot all read
// "no failures yet" and then all be evaluated: the upsert counts the attempt and refuses it in the
// same write. The account-wide row is only counted (`count`): it slows attempts, never refuses.
import { and, eq, lt, sql } from 'drizzle-orm';
import { loginThrottle } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export interface ThrottlePolicy {
  /** Attempts allowed before any wait. */
  freeAttempts: number;
  maxWaitSeconds: number;
  /** Attempts older than this are forgotten. */
  windowSeconds: number;
}

/** Seconds to wait after `attempts` counted attempts: 0 while free, then 2, 4, 8 … up to the max. */
export const waitAfter = (p: ThrottlePolicy, attempts: number): number =>
  attempts < p.freeAttempts ? 0 : Math.min(2 ** Math.min(attempts - p.freeAttempts + 1, 30), p.maxWaitSeconds);

/** The same rule in SQL, over the stored row (for the upsert's guard). */
const waitSql = (p: ThrottlePolicy) =>
  sql`CASE WHEN ${loginThrottle.failures} < ${p.freeAttempts} THEN 0
      WHEN ${loginThrottle.failures} - ${p.freeAttempts} + 1 >= 30 THEN ${p.maxWaitSeconds}
      ELSE min(${p.maxWaitSeconds}, 1 << (${loginThrottle.failures} - ${p.freeAttempts} + 1)) END`;

/** The account-wide row's `client`. */
export const ANY_CLIENT = '';

const key = (tenantId: number, email: string, client: string) =>
  and(eq(loginThrottle.tenantId, tenantId), eq(loginThrottle.email, email), eq(loginThrottle.client, client));
const expiredSql = (p: ThrottlePolicy, now: number) => sql`${now} - ${loginThrottle.lastFailureAt} > ${p.windowSeconds}`;
const counted = (p: ThrottlePolicy, now: number) => sql`CASE WHEN ${expiredSql(p, now)} THEN 1 ELSE ${loginThrottle.failures} + 1 END`;
const target = [loginThrottle.tenantId, loginThrottle.email, loginThrottle.client];

/**
 * Counts one attempt of `client` on the account if its wait is over, in one `INSERT … ON CONFLICT
 * DO UPDATE … WHERE … RETURNING`: the update happens only when allowed, so no row back means
 * refused. Returns 0 when the attempt may go ahead, else the seconds still to wait.
 */
export async function reserve(db: DbLike, policy: ThrottlePolicy, tenantId: number, email: string, client: string, now: number): Promise<number> {
  const d = asDb(db);
  const reserved = await d
    .insert(loginThrottle)
    .values({ tenantId, email, client, failures: 1, lastFailureAt: now })
    .onConflictDoUpdate({
      target,
      set: { failures: counted(policy, now), lastFailureAt: now },
      setWhere: sql`${expiredSql(policy, now)} OR ${now} >= ${loginThrottle.lastFailureAt} + ${waitSql(policy)}`,
    })
    .returning({ attempts: loginThrottle.failures })
    .get();
  if (reserved) return 0;
  const row = await d.select().from(loginThrottle).where(key(tenantId, email, client)).get();
  return row ? Math.max(1, row.lastFailureAt + waitAfter(policy, row.failures) - now) : 1;
}

/** Counts one attempt on the account from any client, unconditionally; returns the attempts in the window, this one included. */
export async function count(db: DbLike, policy: ThrottlePolicy, tenantId: number, email: string, now: number): Promise<number> {
  const row = await asDb(db)
    .insert(loginThrottle)
    .values({ tenantId, email, client: ANY_CLIENT, failures: 1, lastFailureAt: now })
    .onConflictDoUpdate({ target, set: { failures: counted(policy, now), lastFailureAt: now } })
    .returning({ attempts: loginThrottle.failures })
    .get();
  return row?.attempts ?? 1;
}

/**
 * After a successful sign-in: the client starts afresh, and the account-wide count forgets this
 * attempt only (others' failures keep slowing an attack in progress; the window forgets them).
 */
export async function clear(db: DbLike, tenantId: number, email: string, client: string): Promise<void> {
  const d = asDb(db);
  await d.batch([
    d.delete(loginThrottle).where(key(tenantId, email, client)),
    d
      .update(loginThrottle)
      .set({ failures: sql`max(0, ${loginThrottle.failures} - 1)` })
      .where(key(tenantId, email, ANY_CLIENT)),
  ]);
}

/** Rows whose last attempt is older than the window count for nothing any more. */
export const sweepQuery = (db: DbLike, policy: ThrottlePolicy, now: number) =>
  asDb(db).delete(loginThrottle).where(lt(loginThrottle.lastFailureAt, now - policy.windowSeconds));
