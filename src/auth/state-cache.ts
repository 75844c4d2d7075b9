// Isolate-local cache of the revocable state behind a token (app exists, grant live, user enabled,
// jti not denied). The contract allows at most 30 s of staleness across isolates; revocations made
// in this isolate clear it at once.

export const TOKEN_STATE_TTL_MS = 30_000;
const MAX_ENTRIES = 5000;

const entries = new Map<string, { value: unknown; at: number }>();

export function getCachedState<T>(key: string): T | undefined {
  const hit = entries.get(key);
  if (!hit) return undefined;
  if (Date.now() - hit.at > TOKEN_STATE_TTL_MS) {
    entries.delete(key);
    return undefined;
  }
  return hit.value as T;
}

export function setCachedState(key: string, value: unknown): void {
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, { value, at: Date.now() });
}

/** Called after every revocation in this isolate (grant, user, app, jti). */
export function forgetTokenState(): void {
  entries.clear();
}
