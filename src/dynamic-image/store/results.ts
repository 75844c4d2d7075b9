/**
 * Rendered results and the result cache.
 *
 * A result's name is `<yyyymmddhh>-<32 hex>.<ext>`: the hour (UTC) it was made plus 128 random
 * bits, never derived from the request. It is stored at `results/<yyyymmddhh>/<name>`, so whole
 * hours expire together: the sweep lists the few hour prefixes and deletes those past the
 * time-to-live, never walking the live results. An R2 lifecycle rule on `results/` and
 * `cache/results/` (age = TTL rounded up to days) is the backstop (docs/rendering.md).
 *
 * The cache index maps a request fingerprint (SHA-256, computed by the caller) to a result name:
 * `cache/results/<fingerprint>` holds the name (as its body and, since 2026-11-24, also as custom
 * metadata `name`, so a lookup needs only a `head`; older entries are read by body), and the result
 * records its fingerprint so that deleting the result removes the entry. It cannot be folded into
 * the result object (one write instead of two): a lookup knows only the fingerprint and a download
 * only the name, which is random and never derived from the request (rendering contract), so each
 * needs its own key (docs/performance.md, "One write per result?").
 *
 * A preview's URL may be answered before its writes land (`putLater`, the writes in waitUntil):
 * until they do, this isolate serves the result from memory, and `open` in any other isolate
 * waits a moment for a name of the current hour that is not there yet, so a client that follows
 * the URL at once never meets a 404.
 */
import { R2Sink, type ByteSink } from '../../engine/pdf/sink';
import { listKeys } from './files';

const RESULT_NAME = /^(\d{10})-[0-9a-f]{32}\.[a-z]{3,4}$/;
const INDEX_PREFIX = 'cache/results/';
const RESULTS_PREFIX = 'results/';
const HOUR = 3_600_000;
/** How long an index entry may name a result that is not there yet (written concurrently). */
const FRESH_INDEX_MS = 60_000;
/**
 * Fingerprint → result name this isolate wrote or found (bounded): a repeated request checks only
 * that the result still exists (one head) instead of reading the index entry first.
 */
const known = new Map<string, string>();
const MAX_KNOWN = 2000;
function remember(fingerprint: string | undefined, name: string): void {
  if (!fingerprint) return;
  known.delete(fingerprint);
  known.set(fingerprint, name);
  if (known.size > MAX_KNOWN) known.delete(known.keys().next().value!);
}

/** Results answered by name whose writes have not landed yet (putLater), by name. */
interface Landing {
  bytes: Uint8Array;
  contentType: string;
  /**
   * Its content ETag, hashed on first use: by `open` while landing, else by the writes once the
   * answer has gone out (a SHA-256 of the output, ~0.1-0.3 ms a personalised preview in workerd,
   * is no part of the answer).
   */
  etag(): Promise<string>;
  /** The custom metadata the result is written with, but its ETag (what `find` answers meanwhile: the preflight verdict). */
  meta: Record<string, string>;
  made: number;
  written: Promise<void>;
}
const landing = new Map<string, Landing>();

/** Settles once every result landing now has been written or has failed (tests: storage at rest). */
export async function resultsLanded(): Promise<void> {
  await Promise.allSettled([...landing.values()].map((l) => l.written));
}
/**
 * Waits (ms) before each further read of a recent result that is absent: another isolate may have
 * answered its URL with the writes still in flight (they normally land within milliseconds).
 */
const LANDING_WAITS = [25, 50, 100, 200, 400];
/** A name is recent (may still be landing) until this long after its hour ended. */
const LANDING_WINDOW_MS = 60_000;
/** At most this many bytes are held while landing; past it, putLater waits for its writes as put does. */
const MAX_LANDING_BYTES = 32 * 1024 * 1024;
/** How long delete waits for a result still landing (a write whose waitUntil was cut off never settles). */
const DELETE_WAIT_MS = 5_000;

/**
 * How long putLater's writes wait, so that the answer (its URL) goes out first: on a local runtime
 * the storage runs on the Worker's own cores, and writes started at once held the answer back by
 * 10–30 ms under load (docs/performance.md, issue 25 §3); a deployment loses nothing by it. Well
 * inside LANDING_WAITS: another isolate asked for the result meanwhile waits for it.
 */
const WRITE_AFTER_ANSWER_MS = 25;
const afterAnswer = () => new Promise<void>((resolve) => setTimeout(resolve, WRITE_AFTER_ANSWER_MS));

/** A strong ETag from the content: the first 128 bits of its SHA-256, quoted. */
export async function contentEtag(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `"${[...d.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('')}"`;
}

/** A result to answer with: its bytes (still landing) or its R2 body. */
export interface OpenResult {
  body: ReadableStream | Uint8Array;
  size: number;
  contentType: string;
  etag: string;
  /** Seconds until the result expires. */
  remainingSeconds: number;
}

export interface ResultFile {
  body: R2ObjectBody;
  contentType: string;
  /** Seconds until the result expires. */
  remainingSeconds: number;
}

/** `2026-11-22T03:15Z` → `2026112203`. */
export function hourStamp(date: Date): string {
  return date.toISOString().slice(0, 13).replace(/[-T]/g, '');
}

function hourStart(stamp: string): number {
  return Date.UTC(+stamp.slice(0, 4), +stamp.slice(4, 6) - 1, +stamp.slice(6, 8), +stamp.slice(8, 10));
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** RESULT_TTL_HOURS as milliseconds: a positive number of hours, else 24. */
function ttlMsOf(ttlHours: string | number | undefined): number {
  const hours = Number(ttlHours);
  return (Number.isFinite(hours) && hours > 0 ? hours : 24) * HOUR;
}

/** Objects that live RESULT_TTL_HOURS in a bucket (results, and thumbnails: ./thumbnails.ts). */
export class ExpiringStore {
  readonly ttlMs: number;

  constructor(
    readonly bucket: R2Bucket,
    ttlHours: string | number | undefined,
  ) {
    this.ttlMs = ttlMsOf(ttlHours);
  }

  protected expired(obj: { uploaded: Date }, now: number): boolean {
    return obj.uploaded.getTime() + this.ttlMs <= now;
  }
}

export class ResultStore extends ExpiringStore {
  /** The R2 key of a result name; null for names we never issue (they cannot exist). */
  private keyOf(name: string): string | null {
    const m = RESULT_NAME.exec(name);
    return m ? `${RESULTS_PREFIX}${m[1]}/${name}` : null;
  }

  /** A fresh result name and the R2 key it is stored at. */
  private fresh(ext: string): { name: string; key: string } {
    const name = `${hourStamp(new Date())}-${randomHex(16)}.${ext}`;
    return { name, key: this.keyOf(name)! };
  }

  private options(contentType: string, fingerprint?: string, meta?: Record<string, string>): R2PutOptions {
    const custom = { ...meta, ...(fingerprint ? { fingerprint } : {}) };
    return { httpMetadata: { contentType }, customMetadata: Object.keys(custom).length ? custom : undefined };
  }

  private async index(fingerprint: string | undefined, name: string): Promise<void> {
    if (fingerprint) await this.bucket.put(INDEX_PREFIX + fingerprint, name, { customMetadata: { name } });
  }

  /**
   * The index entry of `fingerprint`: the name it holds and when it was written. One `head` (the
   * name is in its metadata); an entry written before that carried it is read by its body.
   */
  private async indexed(fingerprint: string): Promise<{ name: string; uploaded: Date } | null> {
    const head = await this.bucket.head(INDEX_PREFIX + fingerprint);
    if (!head) return null;
    const name = head.customMetadata?.name ?? (await (await this.bucket.get(INDEX_PREFIX + fingerprint))?.text());
    return name === undefined ? null : { name, uploaded: head.uploaded };
  }

  /** Removes the cache index entry of `fingerprint` if it names `name`. */
  private async unindex(fingerprint: string | undefined, name: string): Promise<void> {
    if (!fingerprint) return;
    const entry = await this.indexed(fingerprint);
    if (entry?.name === name) await this.bucket.delete(INDEX_PREFIX + fingerprint);
  }

  /**
   * Stores a new result under a fresh random name and returns the name. The result and its index
   * entry are written at once (a lookup that finds the entry first sees no result: a miss); if
   * either write fails, both are undone. `meta`: more custom metadata (e.g. the ETag).
   */
  async put(bytes: Uint8Array, ext: string, contentType: string, fingerprint?: string, meta?: Record<string, string>): Promise<string> {
    const { name, key } = this.fresh(ext);
    await this.write(name, key, bytes, contentType, fingerprint, meta);
    remember(fingerprint, name);
    return name;
  }

  /** The result and its index entry at once; if either fails, both are undone. */
  private async write(name: string, key: string, bytes: Uint8Array, contentType: string, fingerprint?: string, meta?: Record<string, string>): Promise<void> {
    const writes = await Promise.allSettled([
      this.bucket.put(key, bytes, this.options(contentType, fingerprint, meta)),
      this.index(fingerprint, name),
    ]);
    const failed = writes.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed) {
      await Promise.allSettled([this.bucket.delete(key), this.unindex(fingerprint, name)]);
      throw failed.reason;
    }
  }

  /**
   * Like put, but the name is known before the writes land: `written` settles when they have
   * (hand it to waitUntil). Meanwhile this isolate serves the result from memory (open, lookup)
   * and other isolates wait for it (open). A failed write is tried once more, then undone as in
   * put. The result carries its content ETag (metadata `etag`), the same from memory and R2.
   */
  async putLater(bytes: Uint8Array, ext: string, contentType: string, fingerprint?: string, meta?: Record<string, string>): Promise<{ name: string; written: Promise<void> }> {
    const { name, key } = this.fresh(ext);
    let hashed: Promise<string> | undefined;
    const etag = () => (hashed ??= meta?.etag !== undefined ? Promise.resolve(meta.etag) : contentEtag(bytes));
    const withEtag = async () => ({ ...meta, etag: await etag() });
    const entry: Landing = { bytes, contentType, etag, meta: { ...meta }, made: Date.now(), written: Promise.resolve() };
    // A write that never settled (its waitUntil was cut off) must not hold its bytes for good.
    let heldBytes = bytes.byteLength;
    for (const [held, { made, bytes: b }] of landing) {
      if (made + LANDING_WINDOW_MS < entry.made) landing.delete(held);
      else heldBytes += b.byteLength;
    }
    if (heldBytes > MAX_LANDING_BYTES) {
      // Memory is the limit here, not latency: store first, as put does.
      await this.write(name, key, bytes, contentType, fingerprint, await withEtag());
      remember(fingerprint, name);
      return { name, written: Promise.resolve() };
    }
    landing.set(name, entry);
    remember(fingerprint, name);
    // Started once the answer has gone out (WRITE_AFTER_ANSWER_MS).
    entry.written = afterAnswer()
      .then(withEtag)
      .then((all) => this.write(name, key, bytes, contentType, fingerprint, all).catch(() => this.write(name, key, bytes, contentType, fingerprint, all)))
      .catch((err) => {
        if (fingerprint && known.get(fingerprint) === name) known.delete(fingerprint);
        throw err;
      })
      .finally(() => landing.delete(name));
    return { name, written: entry.written };
  }

  /**
   * Stores a new result that is written while it is made (a PDF): `write` gets a sink that
   * streams into an R2 multipart upload under a fresh name and must close it. The cache index
   * entry is written only once the result is complete; if `write` fails, the sink is aborted and
   * nothing stays behind.
   */
  async putStream<T>(
    ext: string,
    contentType: string,
    fingerprint: string | undefined,
    write: (sink: ByteSink) => Promise<T>,
  ): Promise<{ name: string; value: T }> {
    const { name, key } = this.fresh(ext);
    const sink = new R2Sink(this.bucket, key, this.options(contentType, fingerprint));
    let value: T;
    try {
      value = await write(sink);
    } catch (err) {
      await sink.abort();
      throw err;
    }
    await this.index(fingerprint, name);
    remember(fingerprint, name);
    return { name, value };
  }

  /** A live result, or null when unknown or expired. */
  async get(name: string, now = Date.now()): Promise<ResultFile | null> {
    const key = this.keyOf(name);
    const obj = key ? await this.bucket.get(key) : null;
    if (!obj) return null;
    if (this.expired(obj, now)) {
      await obj.body.cancel();
      return null;
    }
    return {
      body: obj,
      contentType: obj.httpMetadata?.contentType ?? 'application/octet-stream',
      remainingSeconds: Math.max(0, Math.floor((obj.uploaded.getTime() + this.ttlMs - now) / 1000)),
    };
  }

  /**
   * A live result to answer with: from memory while its writes are landing (putLater), else from
   * R2. A name of the current hour that R2 does not hold yet is read again a few times over
   * ~0.8 s (its URL may have been answered by another isolate just before the write landed);
   * older names are absent at once.
   */
  async open(name: string, now = Date.now()): Promise<OpenResult | null> {
    for (let attempt = 0; ; attempt++) {
      const held = landing.get(name);
      if (held) {
        const remaining = Math.floor((held.made + this.ttlMs - now) / 1000);
        return { body: held.bytes, size: held.bytes.byteLength, contentType: held.contentType, etag: await held.etag(), remainingSeconds: Math.max(0, remaining) };
      }
      const file = await this.get(name, now);
      if (file) {
        const etag = file.body.customMetadata?.etag ?? file.body.httpEtag;
        return { body: file.body.body, size: file.body.size, contentType: file.contentType, etag, remainingSeconds: file.remainingSeconds };
      }
      if (attempt >= LANDING_WAITS.length || !this.mayBeLanding(name, Date.now())) return null;
      await new Promise((r) => setTimeout(r, LANDING_WAITS[attempt]));
    }
  }

  /** Whether `name` is one we could have issued within the last minute or so (its hour is current). */
  private mayBeLanding(name: string, now: number): boolean {
    const m = RESULT_NAME.exec(name);
    return m !== null && hourStart(m[1]) + HOUR + LANDING_WINDOW_MS > now && hourStart(m[1]) - LANDING_WINDOW_MS <= now;
  }

  private async head(name: string, now = Date.now()): Promise<R2Object | null> {
    const key = this.keyOf(name);
    const obj = key ? await this.bucket.head(key) : null;
    return obj && !this.expired(obj, now) ? obj : null;
  }

  /** Deletes a result and its cache index entry; false when there was no such result. */
  async delete(name: string): Promise<boolean> {
    const held = landing.get(name);
    if (held) {
      // Deleted once it has landed; a write that never settles is waited for only so long.
      let timer = 0;
      const timeout = new Promise<void>((r) => (timer = setTimeout(r, DELETE_WAIT_MS) as unknown as number));
      await Promise.race([held.written.catch(() => undefined), timeout]);
      clearTimeout(timer);
    }
    const key = this.keyOf(name);
    const obj = key ? await this.bucket.head(key) : null;
    if (!key || !obj) return false;
    const fingerprint = obj.customMetadata?.fingerprint;
    if (fingerprint && known.get(fingerprint) === name) known.delete(fingerprint);
    await this.unindex(fingerprint, name);
    await this.bucket.delete(key);
    return true;
  }

  /**
   * The cached result name for a fingerprint, if that result still exists. An entry whose result
   * is gone is removed, unless it is younger than a minute: its result may still be being
   * written (put writes both at once).
   */
  async lookup(fingerprint: string, now = Date.now()): Promise<string | null> {
    return (await this.find(fingerprint, now))?.name ?? null;
  }

  /**
   * lookup, with the custom metadata the result was stored with (e.g. `preflight`, the verdict
   * of the render that made it): read from the same `head` that checks the result exists.
   */
  async find(fingerprint: string, now = Date.now()): Promise<{ name: string; meta: Record<string, string> } | null> {
    const held = known.get(fingerprint);
    if (held) {
      const landed = landing.get(held);
      const head = landed ? null : await this.head(held, now);
      if (landed || head) return { name: held, meta: landed?.meta ?? head?.customMetadata ?? {} };
    }
    known.delete(fingerprint);
    const entry = await this.indexed(fingerprint);
    if (!entry) return null;
    const { name } = entry;
    const result = await this.head(name, now);
    if (result) {
      remember(fingerprint, name);
      return { name, meta: result.customMetadata ?? {} };
    }
    if (entry.uploaded.getTime() + FRESH_INDEX_MS <= now) await this.bucket.delete(INDEX_PREFIX + fingerprint);
    return null;
  }

  /**
   * Deletes every hour of results that has wholly expired (the scheduled handler). Lists only
   * the hour prefixes, then the objects of expired hours.
   */
  async sweep(now = Date.now()): Promise<number> {
    const { folders } = await listKeys(this.bucket, RESULTS_PREFIX, '/');
    let deleted = 0;
    for (const folder of folders) {
      const stamp = folder.slice(RESULTS_PREFIX.length, -1);
      if (!/^\d{10}$/.test(stamp) || hourStart(stamp) + HOUR + this.ttlMs > now) continue;
      const { keys } = await listKeys(this.bucket, folder);
      for (let i = 0; i < keys.length; i += 1000) {
        await this.bucket.delete(keys.slice(i, i + 1000));
      }
      deleted += keys.length;
    }
    return deleted;
  }
}
