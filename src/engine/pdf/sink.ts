/**
 * Where a PDF's bytes go while it is written. The writer never holds the whole file: it hands
 * bytes to a sink, which forwards them in bounded pieces (an R2 multipart upload) or, in tests
 * and for small files, collects them.
 */

import { concat } from '../raster/icc';

export interface ByteSink {
  /** Takes `bytes` in: they may be freed or overwritten once the promise resolves (a sink copies what it keeps). */
  write(bytes: Uint8Array): Promise<void>;
  /** Finishes the file; after this the bytes are stored. */
  close(): Promise<void>;
  /** Discards whatever was written; nothing stays behind. Safe to call more than once. */
  abort(): Promise<void>;
}

/** Collects everything in memory (tests, and callers that need the bytes). */
export class MemorySink implements ByteSink {
  private chunks: Uint8Array[] = [];
  write(bytes: Uint8Array): Promise<void> {
    this.chunks.push(bytes.slice());
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  abort(): Promise<void> {
    this.chunks = [];
    return Promise.resolve();
  }
  bytes(): Uint8Array {
    return concat(this.chunks);
  }
}

/** R2 wants every part but the last to have the same size, at least 5 MiB. */
export const R2_PART_SIZE = 5 * 1024 * 1024;

/**
 * Streams into an R2 object: bytes gather in one part-sized buffer; each full buffer becomes a
 * part of a multipart upload. A file smaller than one part is stored with a single `put`, so
 * small PDFs cost no multipart round trips. Peak memory: one part.
 */
export class R2Sink implements ByteSink {
  private buffer: Uint8Array;
  private filled = 0;
  private upload?: R2MultipartUpload;
  private parts: R2UploadedPart[] = [];
  private done = false;

  constructor(
    private readonly bucket: R2Bucket,
    readonly key: string,
    private readonly options: R2PutOptions & R2MultipartOptions = {},
    private readonly partSize = R2_PART_SIZE,
  ) {
    this.buffer = new Uint8Array(partSize);
  }

  async write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length) {
      const n = Math.min(bytes.length - at, this.partSize - this.filled);
      this.buffer.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.partSize) await this.flushPart();
    }
  }

  private async flushPart(): Promise<void> {
    this.upload ??= await this.bucket.createMultipartUpload(this.key, this.options);
    // uploadPart may keep a reference to the body until it resolves; we wait, then reuse.
    this.parts.push(await this.upload.uploadPart(this.parts.length + 1, this.buffer.subarray(0, this.filled)));
    this.filled = 0;
  }

  async close(): Promise<void> {
    if (this.done) return;
    if (!this.upload) {
      await this.bucket.put(this.key, this.buffer.subarray(0, this.filled), this.options);
    } else {
      if (this.filled > 0) await this.flushPart();
      await this.upload.complete(this.parts);
    }
    this.done = true;
    this.buffer = new Uint8Array(0);
  }

  async abort(): Promise<void> {
    this.buffer = new Uint8Array(0);
    if (this.done) {
      await this.bucket.delete(this.key);
      return;
    }
    this.done = true;
    if (this.upload) await this.upload.abort().catch(() => undefined);
  }
}
