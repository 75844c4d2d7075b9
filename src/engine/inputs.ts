/**
 * What the engine needs from outside to render a request, as interfaces the caller fills in:
 *
 * - `InputStore`: the stored templates, images and fonts by name, and the bucket the engine keeps
 *   its content-addressed derived data in (compiled templates, PDF strips). src/dynamic-image/store's
 *   FileStore is one; the engine never imports storage.
 * - `FetchImageBytes`: how an image named by URL is downloaded (the caller's outbound policy,
 *   src/http/outbound.ts in the Worker). `UrlImages` puts the per-request limits around it.
 */
import { InputsTooLarge, invalidInput, unprocessable, EngineError } from './errors';
import type { FontInfo } from './fonts/font-info';
import type { PsdSource } from './psd/source';

export type InputRoot = 'templates' | 'fonts' | 'images';

export interface StoredInput {
  /** Root-relative name. */
  name: string;
  /** Hex SHA-256 of the content. */
  sha256: string;
  /** Bytes, where the store knows them without reading the file. */
  size?: number;
  etag: string;
  contentType?: string;
  /** Custom metadata recorded with the file (e.g. the compiled template hash). */
  meta: Record<string, string>;
}

/** A stored file opened by InputStore.open: its metadata now, its bytes when asked. */
export interface OpenedInput {
  info: StoredInput;
  /** The file's bytes; call it at most once. */
  bytes(): Promise<Uint8Array>;
  /** Gives up the unread bytes (nothing when they were asked for already). */
  cancel(): void;
}

/** One font of the store: its names, its file, its content hash. */
export interface StoredFont extends FontInfo {
  file: string;
  sha256: string;
}

export interface InputStore {
  /** Derived data lives here, keyed by content hashes (compiled templates, strips, ICC profiles). */
  readonly bucket: R2Bucket;
  head(root: InputRoot, name: string): Promise<StoredInput | null>;
  read(root: InputRoot, name: string): Promise<{ bytes: Uint8Array; info: StoredInput } | null>;
  /**
   * A file's metadata with its bytes not yet read, or null: one storage round trip answers both
   * (`bytes()` reads the rest of that answer, once), where head then read take two. `cancel()`
   * when the bytes will not be asked for. Optional: without it the engine asks head, then read.
   */
  open?(root: InputRoot, name: string): Promise<OpenedInput | null>;
  /** The first `length` bytes of a file (fewer when it is shorter; a header), or null. */
  readStart(root: InputRoot, name: string, length: number): Promise<Uint8Array | null>;
  /** With `ifEtag`, only when the stored file is still that version (null otherwise). */
  put(
    root: InputRoot,
    name: string,
    bytes: Uint8Array,
    options?: { contentType?: string; meta?: Record<string, string>; ifEtag?: string },
  ): Promise<StoredInput | null>;
  /**
   * A stored file read by range (a template compiled without holding it whole: ./psd/source.ts),
   * given its head; null where the store cannot. Optional: without it the engine reads the file whole.
   */
  source?(root: InputRoot, file: StoredInput): Promise<PsdSource | null>;
  /**
   * Replaces a file's custom metadata (its hash kept) without reading it whole, only while it is
   * still version `ifEtag` (null otherwise). Optional: without it the engine puts the bytes again.
   */
  putMeta?(root: InputRoot, name: string, meta: Record<string, string>, ifEtag: string): Promise<StoredInput | null>;
  /** Every readable font of the store. */
  fonts(): Promise<StoredFont[]>;
  /**
   * The fonts as this isolate last read them, without reading (the same array fonts() then
   * answers while they are unchanged), or undefined: a guess, which fonts() confirms.
   */
  heldFonts?(): StoredFont[] | undefined;
}

/**
 * Downloads `url`, reading at most `maxBytes` and letting `sniff` look at the first bytes (a
 * returned reason aborts). Rejects with InvalidInput when the URL is not acceptable, with
 * Unprocessable (or InputsTooLarge beyond `maxBytes`) when the remote does not deliver; `reason`
 * in the error's details says why.
 */
export type FetchImageBytes = (
  url: string,
  options: {
    maxBytes: number;
    sniff: (head: Uint8Array) => string | undefined;
    /** Called with each chunk's length as it arrives; what it throws aborts the download and is rethrown. */
    onBytes: (bytes: number) => void;
  },
) => Promise<Uint8Array>;

/** One image named by URL (rendering contract). */
export const MAX_URL_IMAGE_BYTES = 25 * 1024 * 1024;
/** All images named by URL in one request, together (a multipage request included). */
export const MAX_REQUEST_URL_BYTES = 32 * 1024 * 1024;

/** Refuses, from its first bytes, anything that is not a JPEG or PNG. */
export function sniffJpegOrPng(head: Uint8Array): string | undefined {
  const jpeg = head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => head[i] === b);
  return jpeg || png ? undefined : 'it is not a JPEG or PNG image.';
}

/**
 * The images named by URL in one request: each distinct URL fetched once (its bytes kept for the
 * request, whichever page or layer names it again), and at most MAX_REQUEST_URL_BYTES fetched in
 * all, counted as the bytes arrive, so concurrent downloads (preloadImages) share the budget too.
 * Create one per request.
 */
export class UrlImages {
  private readonly fetched = new Map<string, Promise<Uint8Array>>();
  private spent = 0;

  constructor(
    private readonly fetchBytes: FetchImageBytes,
    private readonly budget = MAX_REQUEST_URL_BYTES,
  ) {}

  /** Bytes fetched so far. */
  get bytes(): number {
    return this.spent;
  }

  /** The image at `url`; errors name `path` (e.g. `data.Photo.image`). */
  get(url: string, path: string): Promise<Uint8Array> {
    let bytes = this.fetched.get(url);
    if (!bytes) {
      bytes = this.fetch(url, path);
      this.fetched.set(url, bytes);
    }
    return bytes;
  }

  private async fetch(url: string, path: string): Promise<Uint8Array> {
    const limit = `${this.budget / 1024 / 1024} MB`;
    const overBudget = new InputsTooLarge(
      `The images named by URL in this request come to more than ${limit} (the limit per request); ${path} goes beyond it.`,
      [{ path, reason: `the images named by URL exceed ${limit} in total` }],
    );
    const left = this.budget - this.spent;
    if (left <= 0) throw overBudget;
    // A declared length beyond what is left is refused before reading; the count while streaming
    // is what holds (it covers downloads running at the same time).
    const cap = Math.min(MAX_URL_IMAGE_BYTES, left);
    const onBytes = (n: number) => {
      this.spent += n;
      if (this.spent > this.budget) throw overBudget;
    };
    try {
      return await this.fetchBytes(url, { maxBytes: cap, sniff: sniffJpegOrPng, onBytes });
    } catch (e) {
      if (e === overBudget || (e instanceof InputsTooLarge && cap < MAX_URL_IMAGE_BYTES)) throw overBudget;
      const reason = e instanceof EngineError ? (e.details?.[0]?.reason ?? e.message) : 'the request failed.';
      if (e instanceof EngineError && e.code === 'ERR_INVALID_INPUT') {
        throw invalidInput(`The image URL at ${path} is not acceptable: ${reason}`, [{ path, reason }]);
      }
      throw unprocessable(`The image at ${path} could not be fetched: ${reason}`, [{ path, reason }]);
    }
  }
}
