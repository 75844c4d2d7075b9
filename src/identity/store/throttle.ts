// Sign-in attempts per account (tenant + e-mail) in D1. An attempt is reserved in ONE statement
// before the password is hashed, so parallel guesses cannot all read "no failures yet" and then
// all be evaluated: the upsert counts the attempt and refuses it in the same write.
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

const key = (tenantId: number, email: string) => and(eq(loginThrottle.tenantId, tenantId), eq(loginThrottle.email, email));

/**
 * Counts one attempt for the account if its wait is over, in one `INSERT … ON CONFLICT DO UPDATE
 * … WHERE … RETURNING`: the update happens only when allowed, so no row back means refused.
 * Returns 0 when the attempt may go ahead, else the seconds still to wait.
 */
export async function reserve(db: DbLike, policy: ThrottlePolicy, tenantId: number, email: string, now: number): Promise<number> {
  const d = asDb(db);
  const expired = sql`${now} - ${loginThrottle.lastFailureAt} > ${policy.windowSeconds}`;
  const reserved = await d
    .insert(loginThrottle)
    .values({ tenantId, email, failures: 1, lastFailureAt: now })
    .onConflictDoUpdate({
      target: [loginThrottle.tenantId, loginThrottle.email],
      set: { failures: sql`CASE WHEN ${expired} THEN 1 ELSE ${loginThrottle.failures} + 1 END`, lastFailureAt: now },
      setWhere: sql`${expired} OR ${now} >= ${loginThrottle.lastFailureAt} + ${waitSql(policy)}`,
    })
    .returning({ attempts: loginThrottle.failures })
    .get();
  if (reserved) return 0;
  const row = await d.select().from(loginThrottle).where(key(tenantId, email)).get();
  return row ? Math.max(1, row.lastFailureAt + waitAfter(policy, row.failures) - now) : 1;
}

/** After a successful sign-in: the account starts afresh. */
export async function clear(db: DbLike, tenantId: number, email: string): Promise<void> {
  await asDb(db).delete(loginThrottle).where(key(tenantId, email));
}

/** Rows whose last attempt is older than the window count for nothing any more. */
export const sweepQuery = (db: DbLike, policy: ThrottlePolicy, now: number) =>
  asDb(db).delete(loginThrottle).where(lt(loginThrottle.lastFailureAt, now - policy.windowSeconds));
