// Slows repeated failed sign-ins per account (tenant + e-mail, whether or not the account exists,
// so the throttle reveals nothing): the first few failures are free, then each further attempt
// must wait twice as long as the last, up to 15 minutes.
import { and, eq, sql } from 'drizzle-orm';
import { loginThrottle } from '../db/schema';
import { nowSeconds } from './crypto';
import { asDb, type DbLike } from './db';

export const FREE_FAILURES = 5;
const MAX_WAIT_SECONDS = 15 * 60;
/** Failures older than this are forgotten. */
const FAILURE_WINDOW_SECONDS = 60 * 60;

const waitAfter = (failures: number): number =>
  failures < FREE_FAILURES ? 0 : Math.min(2 ** (failures - FREE_FAILURES + 1), MAX_WAIT_SECONDS);

const key = (tenantId: number, email: string) => and(eq(loginThrottle.tenantId, tenantId), eq(loginThrottle.email, email));

/** Seconds this account must still wait before another attempt (0 = go ahead). */
export async function secondsUntilNextAttempt(db: DbLike, tenantId: number, email: string): Promise<number> {
  const row = await asDb(db).select().from(loginThrottle).where(key(tenantId, email)).get();
  if (!row) return 0;
  const now = nowSeconds();
  if (now - row.lastFailureAt > FAILURE_WINDOW_SECONDS) return 0;
  return Math.max(0, row.lastFailureAt + waitAfter(row.failures) - now);
}

export async function recordFailedLogin(db: DbLike, tenantId: number, email: string): Promise<void> {
  const now = nowSeconds();
  await asDb(db)
    .insert(loginThrottle)
    .values({ tenantId, email, failures: 1, lastFailureAt: now })
    .onConflictDoUpdate({
      target: [loginThrottle.tenantId, loginThrottle.email],
      set: {
        failures: sql`CASE WHEN ${now} - ${loginThrottle.lastFailureAt} > ${FAILURE_WINDOW_SECONDS} THEN 1 ELSE ${loginThrottle.failures} + 1 END`,
        lastFailureAt: now,
      },
    });
}

export async function clearFailedLogins(db: DbLike, tenantId: number, email: string): Promise<void> {
  await asDb(db).delete(loginThrottle).where(key(tenantId, email));
}
