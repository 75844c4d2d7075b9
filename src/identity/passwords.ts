// User passwords: PBKDF2-SHA256, 100,000 iterations (the Workers maximum), 16-byte per-user salt,
// 32-byte hash, both base64url. scripts/seed/10-identity.mjs hashes with the same parameters.
import { base64url, fromBase64url, timingSafeEqual } from './crypto';

export const PASSWORD_ITERATIONS = 100_000;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export interface PasswordHash {
  passwordHash: string;
  passwordSalt: string;
  passwordIterations: number;
}

let evaluations = 0;

/** How many sign-in password checks (real or burnt) this isolate ran: the throttle tests count them. */
export const passwordEvaluations = (): number => evaluations;

async function pbkdf2(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, ['deriveBits']);
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt, iterations }, key, 256);
  return base64url(bits);
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return {
    passwordHash: await pbkdf2(password, salt, PASSWORD_ITERATIONS),
    passwordSalt: base64url(salt),
    passwordIterations: PASSWORD_ITERATIONS,
  };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  evaluations++;
  const actual = await pbkdf2(password, fromBase64url(stored.passwordSalt), stored.passwordIterations);
  return timingSafeEqual(actual, stored.passwordHash);
}

/** Spends the same time as a real check, so an unknown e-mail is not told apart by timing. */
export async function burnPasswordCheck(password: string): Promise<void> {
  evaluations++;
  await pbkdf2(password, new Uint8Array(16), PASSWORD_ITERATIONS);
}

/** Why a new password is not acceptable, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must have at least ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `must have at most ${PASSWORD_MAX_LENGTH} characters`;
  return undefined;
}
