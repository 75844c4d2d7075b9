// Sign-in throttling, checked before any password is hashed:
// - per client IP, with the Workers rate-limiting binding LOGIN_IP_LIMITER (wrangler.toml), so one
//   password cannot be sprayed over many accounts;
// - per account AND client (tenant + e-mail + client IP key, whether or not the account exists,
//   so it reveals nothing): the first 5 attempts are free, then each further one must wait twice
//   as long as the last, up to 15 minutes. Keyed by client too, so five wrong passwords from
//   anywhere cannot lock the owner out (issue 18, item 9). The attempt is reserved atomically in
//   D1 (store/throttle.ts), so parallel guesses get no more evaluations than sequential ones;
// - per account over all clients: every evaluated attempt is counted, and past the free attempts
//   each one is slowed (ACCOUNT_SLOWDOWN: 250 ms, doubling, at most 4 s) but never refused, so
//   guessing from many addresses costs time while the owner's right password still gets in.
// A successful sign-in clears its client's count and takes its own attempt off the account count.
import type { Env } from '../env';
import { nowSeconds } from './crypto';
import * as throttle from './store/throttle';

export const ACCOUNT_THROTTLE: throttle.ThrottlePolicy = { freeAttempts: 5, maxWaitSeconds: 15 * 60, windowSeconds: 60 * 60 };
/** The account-wide slowdown: attempts past `freeAttempts` wait `firstMs`, doubling, up to `maxMs`. */
export const ACCOUNT_SLOWDOWN = { freeAttempts: ACCOUNT_THROTTLE.freeAttempts, firstMs: 250, maxMs: 4000 };
/** Client key of requests that did not come through the edge (no CF-Connecting-IP): all one client. */
const UNKNOWN_CLIENT = 'unknown';
/** wrangler.toml [[ratelimits]] LOGIN_IP_LIMITER: attempts per client IP per period. */
export const IP_LIMIT = { limit: 20, periodSeconds: 60 };

/**
 * The rate-limit key of a client: its address as Cloudflare's edge reports it (a client cannot
 * set CF-Connecting-IP), an IPv6 address as its /64 (one host usually owns the whole prefix).
 * Undefined when the request did not come through the edge (tests calling the Worker directly).
 */
export function clientIpKey(request: Request): string | undefined {
  const ip = request.headers.get('cf-connecting-ip')?.trim();
  if (!ip) return undefined;
  if (!ip.includes(':')) return `ip4:${ip}`;
  const full = expandIpv6(ip);
  return full ? `ip6:${full.slice(0, 4).join(':')}::/64` : `ip6:${ip}`;
}

function expandIpv6(ip: string): string[] | undefined {
  const [head, tail, ...rest] = ip.split('::');
  if (rest.length) return undefined;
  const a = head ? head.split(':') : [];
  const b = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const fill = tail !== undefined ? 8 - a.length - b.length : 0;
  if (fill < 0) return undefined;
  return [...a, ...Array(fill).fill('0'), ...b].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

/** The delay before evaluating the `attempts`-th attempt (this one included) on an account in the window. */
export function slowdownMs(attempts: number): number {
  const past = attempts - ACCOUNT_SLOWDOWN.freeAttempts;
  return past < 1 ? 0 : Math.min(ACCOUNT_SLOWDOWN.firstMs * 2 ** Math.min(past - 1, 20), ACCOUNT_SLOWDOWN.maxMs);
}

/**
 * Why this attempt may not be evaluated now (for the form), or undefined to go ahead, after the
 * account-wide slowdown has been waited out.
 */
export async function reserveSignInAttempt(env: Env, request: Request, tenantId: number, email: string): Promise<string | undefined> {
  const ip = clientIpKey(request);
  if (ip && !(await env.LOGIN_IP_LIMITER.limit({ key: ip })).success) {
    return 'Too many sign-in attempts from your network. Try again in a minute.';
  }
  const now = nowSeconds();
  const wait = await throttle.reserve(env.DB, ACCOUNT_THROTTLE, tenantId, email, ip ?? UNKNOWN_CLIENT, now);
  if (wait > 0) return `Too many failed sign-in attempts. Try again in ${wait} seconds.`;
  const delay = slowdownMs(await throttle.count(env.DB, ACCOUNT_THROTTLE, tenantId, email, now));
  if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
  return undefined;
}

export const clearSignInAttempts = (env: Env, request: Request, tenantId: number, email: string): Promise<void> =>
  throttle.clear(env.DB, tenantId, email, clientIpKey(request) ?? UNKNOWN_CLIENT);
