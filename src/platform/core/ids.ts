/**
 * Ids (contract, Conventions): 24 hex for assets, folders, artifacts and jobs (assets and jobs
 * also take a client id `[A-Za-z0-9_-]{1,64}`); integers from global sequences for storefront
 * and back-office entities. Path ids are plain strings resolved in the handler: a malformed id
 * is simply not found (404), exactly like an unknown one or another tenant's.
 */
import { NotFoundError } from './errors';

const HEX_ID = /^[0-9a-f]{24}$/;
const CLIENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const INT_ID = /^[1-9][0-9]{0,14}$/;

/** A new 24-hex id (96 random bits). */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export const isHexId = (s: string): boolean => HEX_ID.test(s);
/** Client-chosen ids of assets and jobs (a generated hex id also matches). */
export const isClientId = (s: string): boolean => CLIENT_ID.test(s);

/** A path id of a 24-hex entity (folders, artifacts), or 404. */
export function hexIdOr404(s: string, what = 'item'): string {
  if (!HEX_ID.test(s)) throw new NotFoundError(`No ${what} ${s}.`);
  return s;
}

/** A path id of an asset or job (hex or client id), or 404. */
export function clientIdOr404(s: string, what = 'item'): string {
  if (!CLIENT_ID.test(s)) throw new NotFoundError(`No ${what} ${s}.`);
  return s;
}

/** A path id of an integer entity (storefronts, products, projects…), or 404. */
export function intIdOr404(s: string, what = 'item'): number {
  if (!INT_ID.test(s)) throw new NotFoundError(`No ${what} ${s}.`);
  return Number(s);
}
