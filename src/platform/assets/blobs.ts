/**
 * Content-addressed blobs: `p/<t>/blobs/<sha256>` holds the bytes of assets, resources and
 * uploaded artifacts; D1 `blobs` counts the rows naming each one. An upload streams into a
 * staging key, hashed on the way, and is then moved to its blob (or dropped when the tenant
 * already has that content). The refcount changes in the same D1 batch as the rows; the hourly
 * sweep deletes blobs nobody names any more.
 */
import { PayloadTooLargeError, tenantKey } from '../core';
import { blobKnown, deleteUnreferencedBlobRows } from './store/blobs';
import { tenants } from '../../identity/store';
import { templateHasher } from '../../engine';
import { hashWhen, HEAD_BYTES, streamIntoR2 } from '../../lib/r2-stream';

// The refcount statements callers add to their batches.
export { addBlobRef, dropBlobRef, shiftBlobRefs } from './store/blobs';

/** How many first bytes are kept for sniffing the content. */
export { HEAD_BYTES };
/** A blob at refcount 0 is deleted only after this long (an upload in flight may still name it). */
export const UNREFERENCED_GRACE_MS = 60 * 60 * 1000;

export interface Staged {
  tenantId: number;
  /** The staging object; never written when the content is kept in memory (`bytes`), which goes to its blob from there. */
  key: string;
  sha256: string;
  size: number;
  /** The first HEAD_BYTES bytes (for sniffing). */
  head: Uint8Array;
  /** The whole content, when the caller asked to keep it (files the service parses whole anyway). */
  bytes?: Uint8Array;
  /** A PSD/PSB's compiled-form name (engine templateHasher), taken as it streamed in. */
  psdHash?: string;
}

export const blobKey = (tenantId: number, sha: string) => tenantKey(tenantId, 'blobs', sha);
const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');
const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;
const isPsdStart = (h: Uint8Array) => h.length >= 4 && h[0] === 0x38 && h[1] === 0x42 && h[2] === 0x50 && h[3] === 0x53;

/**
 * Streams `stream` into a staging key of the tenant, hashing it (SHA-256, and a PSD's
 * templateHasher name so its compile need not read it again to name it), and refusing with 413
 * beyond `limit` bytes (`what` names the limit). Small files are one put, larger ones an R2
 * multipart upload (lib/r2-stream.ts). Content `keep` asks for (files the service parses whole
 * anyway, bounded by `limit`) is held in memory instead and never staged in R2: its one write is
 * the blob itself (commitStaged). PSDs are staged in R2 and compiled from there by range.
 */
export async function stageStream(
  bucket: R2Bucket,
  tenantId: number,
  stream: ReadableStream<Uint8Array>,
  limit: number,
  what: string,
  /** Keep the whole content in memory too (decided from the first bytes), saving a read back. */
  keep?: (head: Uint8Array) => boolean,
): Promise<Staged> {
  const key = tenantKey(tenantId, 'cache', 'staging', crypto.randomUUID());
  const digest = new crypto.DigestStream('SHA-256');
  const hashWriter = digest.getWriter();
  const psd = hashWhen(isPsdStart, templateHasher);
  const streamed = await streamIntoR2(bucket, key, stream, {
    limit,
    tooLarge: () => new PayloadTooLargeError(`${what} is larger than the limit of ${mb(limit)}.`),
    keep,
    onChunk: async (chunk) => {
      await hashWriter.write(chunk);
      await psd.add(chunk);
    },
  });
  await hashWriter.close();
  const sha256 = hex(await digest.digest);
  const psdHash = await psd.finish();
  return { tenantId, key, sha256, size: streamed.size, head: streamed.head, ...(streamed.kept ? { bytes: streamed.kept } : {}), ...(psdHash ? { psdHash } : {}) };
}

/** Bytes already in memory (derived files) as staged content: nothing is written until the commit. */
export async function stageBytes(_bucket: R2Bucket, tenantId: number, bytes: Uint8Array): Promise<Staged> {
  const key = tenantKey(tenantId, 'cache', 'staging', crypto.randomUUID());
  const sha256 = hex(await crypto.subtle.digest('SHA-256', bytes));
  return { tenantId, key, sha256, size: bytes.byteLength, head: bytes.subarray(0, HEAD_BYTES), bytes };
}

/** The staged bytes, whole (content the engine must parse). */
export async function readStaged(bucket: R2Bucket, staged: Staged): Promise<Uint8Array> {
  if (staged.bytes) return staged.bytes;
  const obj = await bucket.get(staged.key);
  if (!obj) throw new Error(`staging object ${staged.key} vanished`);
  return new Uint8Array(await obj.arrayBuffer());
}

/**
 * Moves the staged content to its blob key (unless the tenant already has it) and removes the
 * staging key. `bytes`, when the caller already read them, saves a read.
 */
export async function commitStaged(bucket: R2Bucket, staged: Staged, contentType?: string, bytes?: Uint8Array, early?: Promise<unknown>): Promise<string> {
  const target = blobKey(staged.tenantId, staged.sha256);
  if (early) await early;
  else if (!(await bucket.head(target))) {
    const body = bytes ?? staged.bytes ?? (await bucket.get(staged.key))?.body;
    if (!body) throw new Error(`staging object ${staged.key} vanished`);
    await bucket.put(target, body, { httpMetadata: contentType ? { contentType } : undefined, customMetadata: { sha256: staged.sha256 } });
  }
  if (!staged.bytes) await bucket.delete(staged.key);
  return target;
}

/**
 * Starts writing content held in memory to its blob while the caller still analyses it (a PSD
 * compiles for seconds; the 20 MB write then overlaps it instead of following it). Resolves to
 * whether this call created the blob; commitStaged(…, early) waits for it, and a failed upload
 * undoes it with dropEarlyBlob.
 */
export function startBlobWrite(bucket: R2Bucket, staged: Staged & { bytes: Uint8Array }, contentType: string): Promise<boolean> {
  const target = blobKey(staged.tenantId, staged.sha256);
  const write = (async () => {
    if (await bucket.head(target)) return false;
    await bucket.put(target, staged.bytes, { httpMetadata: { contentType }, customMetadata: { sha256: staged.sha256 } });
    return true;
  })();
  write.catch(() => {}); // awaited by the commit or by dropEarlyBlob
  return write;
}

/** Removes a blob startBlobWrite created for an upload that then failed, unless a row names it by now. */
export async function dropEarlyBlob(db: D1Database, bucket: R2Bucket, staged: Staged, early: Promise<boolean>): Promise<void> {
  if (!(await early.catch(() => false))) return;
  if (!(await blobKnown(db, staged.tenantId, staged.sha256))) await bucket.delete(blobKey(staged.tenantId, staged.sha256)).catch(() => {});
}

export const dropStaged = (bucket: R2Bucket, staged: Staged | undefined) => (staged && !staged.bytes ? bucket.delete(staged.key).catch(() => {}) : Promise.resolve());

/** Deletes blobs at refcount 0 older than the grace period (hourly cron), tenant by tenant; returns how many. */
export async function sweepUnreferencedBlobs(db: D1Database, bucket: R2Bucket, now = Date.now(), max = 1000): Promise<number> {
  let n = 0;
  for (const tenantId of await tenants.ids(db)) {
    const deleted = await deleteUnreferencedBlobRows(db, tenantId, now - UNREFERENCED_GRACE_MS, max);
    for (const sha of deleted) await bucket.delete(blobKey(tenantId, sha));
    n += deleted.length;
  }
  return n;
}

/** Staging objects of uploads that died mid-request (a day old), tenant by tenant. */
export async function sweepStaging(db: D1Database, bucket: R2Bucket, now = Date.now()): Promise<number> {
  let n = 0;
  for (const id of await tenants.ids(db)) {
    const page = await bucket.list({ prefix: tenantKey(id, 'cache', 'staging', ''), limit: 1000 });
    const old = page.objects.filter((o) => o.uploaded.getTime() < now - 86_400_000).map((o) => o.key);
    if (old.length) await bucket.delete(old);
    n += old.length;
  }
  return n;
}
