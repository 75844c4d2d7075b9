// App (client) secrets: 32 random bytes, base64url, shown once, stored as SHA-256 and compared in
// constant time. PBKDF2 is for user passwords only: secrets already carry 256 bits of entropy.
import { randomToken, sha256Base64url, timingSafeEqual } from './crypto';

/** A new secret and the hash to store; show `secret` once and forget it. */
export async function generateClientSecret(): Promise<{ secret: string; secretHash: string }> {
  const secret = randomToken(32);
  return { secret, secretHash: await hashClientSecret(secret) };
}

export const hashClientSecret = (secret: string): Promise<string> => sha256Base64url(secret);

export async function verifyClientSecret(secret: string, secretHash: string): Promise<boolean> {
  return timingSafeEqual(await hashClientSecret(secret), secretHash);
}

/** A new generated client id (the seed's apps use their names instead). */
export const generateClientId = (): string => crypto.randomUUID();
