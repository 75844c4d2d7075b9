// RFC 7009 revocations of Client Credentials access tokens: a jti deny-list kept until `exp`.
import { revokedJtis } from '../../db/schema';
import { asDb, type DbLike } from './handle';

export async function deny(db: DbLike, jti: string, expiresAt: number): Promise<void> {
  await asDb(db).insert(revokedJtis).values({ jti, expiresAt }).onConflictDoNothing();
}
