/**
 * A least-recently-used map bounded by the bytes its values hold, for per-isolate caches of
 * immutable, content-addressed data (keys must carry the content hash, so entries never go
 * stale and tenants never see each other's data under a shared key). Values must not be
 * mutated by whoever reads them.
 */
/** One clock for every ByteLru: when an entry was last set or read, comparable across caches (oldestUse). */
let clock = 0;

/**
 * How long a `hold` lasts at most: longer than any one request may run (a Worker's CPU limit is at
 * most 5 minutes, and a print page's strips are written well within it).
 */
export const HOLD_LAPSE_MS = 10 * 60_000;

export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number; used: number }>();
  private held = 0;
  hits = 0;
  misses = 0;
  /**
   * Called with each value the map lets go of (evicted, replaced, cleared, dropped by prefix): an
   * owner that lends its values' arrays (personalise/overrides.ts, placementCache) takes back
   * those nobody reads any more.
   */
  onEvict?: (value: V) => void;

  /** `maxEntryBytes`: larger values are not kept (one big frame must not flush everything). */
  constructor(
    readonly budget: number,
    readonly maxEntryBytes = budget,
  ) {}

  /** Limits set by `hold` and not yet lifted, each with the time it lapses. */
  private readonly holds = new Set<{ bytes: number; until: number }>();

  /** What the map may hold now: its budget, or the least hold while any is set. */
  get room(): number {
    let room = this.budget;
    const now = Date.now();
    for (const h of this.holds) {
      if (h.until <= now) this.holds.delete(h);
      else room = Math.min(room, h.bytes);
    }
    return room;
  }

  /**
   * Holds at most `bytes` (the least recently used entries go now) until the call returned lifts
   * it; the budget then applies again, and what went stays gone. For a request that would fill
   * the map with its own data as it runs, beside its own peak (a print page's bands and strips,
   * issue 25 §1). Holds of requests at once: the least applies. A hold lapses by itself after
   * `lapseMs`: a request cancelled mid-way may never reach the code that lifts it, and a hold kept
   * for the isolate's life would cost every later request the cache.
   */
  hold(bytes: number, lapseMs = HOLD_LAPSE_MS): () => void {
    const h = { bytes: Math.max(0, bytes), until: Date.now() + lapseMs };
    this.holds.add(h);
    this.trim(this.room);
    return () => void this.holds.delete(h);
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
    this.entries.delete(key);
    e.used = ++clock;
    this.entries.set(key, e);
    return e.value;
  }

  set(key: string, value: V, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.bytes;
      if (old.value !== value) this.onEvict?.(old.value);
    }
    const room = this.room;
    if (bytes > this.maxEntryBytes || bytes > room) return;
    this.entries.set(key, { value, bytes, used: ++clock });
    this.held += bytes;
    this.trim(room);
  }

  /** The value held under `key`, if any, without counting a use (neither its recency nor hits). */
  peek(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Evicts least recently used entries until at most `bytes` are held. */
  trim(bytes: number): void {
    for (const [k, e] of this.entries) {
      if (this.held <= bytes) break;
      this.entries.delete(k);
      this.held -= e.bytes;
      this.onEvict?.(e.value);
    }
  }

  /** When the least recently used entry was last used (the shared clock), or Infinity when empty. */
  oldestUse(): number {
    for (const e of this.entries.values()) return e.used;
    return Infinity;
  }

  /** Evicts the least recently used entry. */
  evictOldest(): void {
    for (const [k, e] of this.entries) {
      this.entries.delete(k);
      this.held -= e.bytes;
      this.onEvict?.(e.value);
      return;
    }
  }

  /** Drops every entry whose key starts with `prefix`. */
  evictPrefix(prefix: string): void {
    for (const [k, e] of this.entries) {
      if (!k.startsWith(prefix)) continue;
      this.entries.delete(k);
      this.held -= e.bytes;
      this.onEvict?.(e.value);
    }
  }

  /** Bytes currently held. */
  get size(): number {
    return this.held;
  }

  get count(): number {
    return this.entries.size;
  }

  clear(): void {
    const values = this.onEvict ? [...this.entries.values()].map((e) => e.value) : [];
    this.entries.clear();
    this.held = 0;
    this.hits = 0;
    this.misses = 0;
    for (const value of values) this.onEvict?.(value);
  }
}

/** MB → bytes. */
export const MB = 1024 * 1024;
