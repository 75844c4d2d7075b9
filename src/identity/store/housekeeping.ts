// Deletes rows nothing can use any more, in one batch. Used codes are kept a day so a replay still
// finds and revokes its grant; refresh tokens go with their grant (ON DELETE CASCADE).
import { lt } from 'drizzle-orm';
import { authorizationCodes, grants, revokedJtis, sessions } from '../../db/schema';
import { asDb, type DbLike } from './handle';
import * as throttle from './throttle';

const DAY = 86_400;

export async function sweep(db: DbLike, now: number, throttlePolicy: throttle.ThrottlePolicy): Promise<void> {
  const d = asDb(db);
  await d.batch([
    d.delete(sessions).where(lt(sessions.expiresAt, now)),
    d.delete(authorizationCodes).where(lt(authorizationCodes.expiresAt, now - DAY)),
    d.delete(revokedJtis).where(lt(revokedJtis.expiresAt, now - 60)),
    d.delete(grants).where(lt(grants.expiresAt, now - DAY)),
    throttle.sweepQuery(d, throttlePolicy, now),
  ]);
}
