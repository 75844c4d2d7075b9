// Deletes rows nothing can use any more. Run opportunistically after a sign-in (rare, already
// slow by design), so no cron is needed. Used codes are kept a day so a replay still finds and
// revokes its grant.
import { lt } from 'drizzle-orm';
import { authorizationCodes, grants, revokedJtis, sessions } from '../db/schema';
import { nowSeconds } from './crypto';
import { asDb, type DbLike } from './store/handle';
import { ACCOUNT_THROTTLE } from './login-throttle';
import * as throttle from './store/throttle';

const DAY = 86_400;

export async function sweepExpired(db: DbLike): Promise<void> {
  const d = asDb(db);
  const now = nowSeconds();
  await d.batch([
    d.delete(sessions).where(lt(sessions.expiresAt, now)),
    d.delete(authorizationCodes).where(lt(authorizationCodes.expiresAt, now - DAY)),
    d.delete(revokedJtis).where(lt(revokedJtis.expiresAt, now - 60)),
    // Refresh tokens go with their grant (ON DELETE CASCADE).
    d.delete(grants).where(lt(grants.expiresAt, now - DAY)),
    throttle.sweepQuery(d, ACCOUNT_THROTTLE, now),
  ]);
}
