/**
 * Uploads stream into R2 (issue 25 §1; platform contract: "Uploads … stream into R2 … processing
 * reads from R2"): each file part of a request is written to a staging key as it arrives (small
 * ones, HOLD_BYTES in all, are held instead), hashed
 * on the way (SHA-256, kept with the stored file; a PSD's templateHasher name, so its compile
 * need not read it to name it). The kinds (./kinds.ts) check the staged object, a template is
 * compiled from it by range; ./uploads.ts then copies it to its name. The request's staging keys
 * are deleted when it ends, stored or refused (./request.ts); what a killed request left is swept
 * after a day (./expiry.ts).
 *
 * The body was read whole before (./multipart.ts until session 29): a 90 MB upload held 90 MB in
 * a 128 MB isolate before anything else (docs/memory.md).
 */
import { templateHasher } from '../engine';
import { hashWhen, streamIntoR2 } from '../lib/r2-stream';

export const STAGING_PREFIX = 'uploads/staging/';

/** A staged upload: where it is (or its bytes), how long, its hashes and first bytes. */
export interface StagedUpload {
  readonly bucket: R2Bucket;
  readonly key: string;
  readonly size: number;
  /** Hex SHA-256 of the content. */
  readonly sha256: string;
  /** The compiled form's name (engine templateHasher) when the content starts `8BPS`. */
  readonly templateHash?: string;
  /** The first 64 KB (headers, sniffing). */
  readonly head: Uint8Array;
  /** The whole content when it was small enough to hold (HOLD_BYTES): then nothing is at `key`. */
  readonly bytes?: Uint8Array;
}

/**
 * What one request's files may hold in memory in all instead of being staged: a file this small
 * costs less held than written to R2 and read back (measured in the local runtime, whose R2
 * simulator keeps what passes through it: 10,000² upload 105 MB held, 153 MB staged; the upload
 * report of session 29). Larger files, and the rest of a request past it, stream to R2.
 */
export const HOLD_BYTES = 16 * 1024 * 1024;

/**
 * A file part of an upload as the form's schema sees it: a File (so the schema and OpenAPI
 * document stay as they are) whose content is in R2 (`staged`); `size`, `stream()` and `text()`
 * see an empty Blob.
 */
export class StagedPart extends File {
  constructor(
    readonly staged: StagedUpload,
    name: string,
    type: string,
  ) {
    super([], name, { type });
  }
}

const isPsdStart = (h: Uint8Array) => h.length >= 4 && h[0] === 0x38 && h[1] === 0x42 && h[2] === 0x50 && h[3] === 0x53;
const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * Writes `stream` to a new staging key; `limit`/`tooLarge` bound it (the request's limit is
 * counted by the reader too). On an error nothing is left at the key.
 */
export async function stageUpload(bucket: R2Bucket, stream: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error, holdUpTo = 0): Promise<StagedUpload> {
  const key = `${STAGING_PREFIX}${crypto.randomUUID()}`;
  const digest = new crypto.DigestStream('SHA-256');
  const sha = digest.getWriter();
  const psd = hashWhen(isPsdStart, templateHasher);
  const { size, head, kept } = await streamIntoR2(bucket, key, stream, {
    limit,
    tooLarge,
    ownedViews: true,
    holdUpTo,
    onChunk: async (chunk) => {
      await sha.write(chunk);
      await psd.add(chunk);
    },
  });
  await sha.close();
  const templateHash = await psd.finish();
  return { bucket, key, size, sha256: hex(await digest.digest), head, ...(templateHash ? { templateHash } : {}), ...(kept ? { bytes: kept } : {}) };
}

/** The staged bytes, whole (fonts and images, whose checks parse them whole). */
export async function stagedBytes(staged: StagedUpload): Promise<Uint8Array> {
  if (staged.bytes) return staged.bytes;
  if (staged.size <= staged.head.length) return staged.head.subarray(0, staged.size);
  const obj = await staged.bucket.get(staged.key);
  if (!obj) throw new Error(`The staged upload ${staged.key} is gone.`);
  return new Uint8Array(await obj.arrayBuffer());
}

/** Deletes staging keys (a request's, when it ends); never throws. */
export async function dropStaged(bucket: R2Bucket, keys: string[]): Promise<void> {
  if (keys.length) await bucket.delete(keys).catch(() => {});
}

/** Staging objects of uploads that died mid-request (older than a day): the cron's sweep. */
export async function sweepStaging(bucket: R2Bucket, now = Date.now()): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: STAGING_PREFIX, cursor, limit: 1000 });
    const old = page.objects.filter((o) => o.uploaded.getTime() < now - 86_400_000).map((o) => o.key);
    if (old.length) await bucket.delete(old);
    n += old.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
}
