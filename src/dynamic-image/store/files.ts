/**
 * The rendering store in R2. Uploaded files live under one root each (`templates/`, `fonts/`,
 * `images/`; the spec's TemplatePath, FontPath, ImagePath); routes name files relative to a
 * root and never build keys themselves. Every stored file carries the SHA-256 of its bytes in
 * its custom metadata so caches can key on content without reading it again.
 */
import { sha256Hex } from '../../engine/hash';
import type { InputStore, OpenedInput, StoredFont } from '../../engine/inputs';
import type { PsdSource } from '../../engine/psd/source';
import { notFound } from '../../engine/errors';
import { ApiError } from '../../errors';
import { heldFontIndex, readFontIndex } from './font-index';
import { joinName, splitExtension } from '../../engine/names';

export type Root = 'templates' | 'fonts' | 'images';

export interface StoredFile {
  /** Root-relative name. */
  name: string;
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
  uploaded: Date;
  etag: string;
  contentType?: string;
  /** Custom metadata recorded with the file (e.g. the compiled template hash). */
  meta: Record<string, string>;
}


/** Lists every key under `prefix`, following R2's pagination. */
export async function listKeys(bucket: R2Bucket, prefix: string, delimiter?: string): Promise<{ keys: string[]; folders: string[] }> {
  const keys: string[] = [];
  const folders: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, delimiter, cursor, limit: 1000 });
    for (const o of page.objects) keys.push(o.key);
    folders.push(...page.delimitedPrefixes);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return { keys, folders };
}

export class FileStore implements InputStore {
  constructor(readonly bucket: R2Bucket) {}

  /** The fonts of the store, from the font index (rebuilt when missing). */
  fonts(): Promise<StoredFont[]> {
    return readFontIndex(this);
  }

  heldFonts(): StoredFont[] | undefined {
    return heldFontIndex();
  }

  private key(root: Root, name: string): string {
    return `${root}/${name}`;
  }

  private info(root: Root, obj: R2Object, sha256: string): StoredFile {
    return {
      name: obj.key.slice(root.length + 1),
      size: obj.size,
      sha256,
      uploaded: obj.uploaded,
      etag: obj.etag,
      contentType: obj.httpMetadata?.contentType,
      meta: obj.customMetadata ?? {},
    };
  }

  /**
   * Metadata of a file, or null. Files put into R2 by other means (the seed script) have no
   * recorded hash: it is computed once from the content and recorded.
   */
  async head(root: Root, name: string): Promise<StoredFile | null> {
    const obj = await this.bucket.head(this.key(root, name));
    if (!obj) return null;
    const sha = obj.customMetadata?.sha256;
    if (sha) return this.info(root, obj, sha);
    const file = await this.read(root, name);
    return file?.info ?? null;
  }

  /** The whole file and its metadata, or null. */
  async read(root: Root, name: string): Promise<{ bytes: Uint8Array; info: StoredFile } | null> {
    const obj = await this.bucket.get(this.key(root, name));
    return obj && this.readBody(root, obj);
  }

  /**
   * The file's metadata with its bytes left in the answer until asked for (InputStore.open): one
   * round trip for both. A file without a recorded hash is read whole now, as head does.
   */
  async open(root: Root, name: string): Promise<OpenedInput | null> {
    const obj = await this.bucket.get(this.key(root, name));
    if (!obj) return null;
    const sha = obj.customMetadata?.sha256;
    if (!sha) {
      const { bytes, info } = await this.readBody(root, obj);
      return { info, bytes: async () => bytes, cancel: () => {} };
    }
    let asked = false;
    return {
      info: this.info(root, obj, sha),
      bytes: async () => {
        asked = true;
        return new Uint8Array(await obj.arrayBuffer());
      },
      cancel: () => {
        if (asked) return;
        asked = true;
        obj.body.cancel().catch(() => {});
      },
    };
  }

  private async readBody(root: Root, obj: R2ObjectBody): Promise<{ bytes: Uint8Array; info: StoredFile }> {
    const bytes = new Uint8Array(await obj.arrayBuffer());
    const sha = obj.customMetadata?.sha256;
    if (sha) return { bytes, info: this.info(root, obj, sha) };
    const computed = await sha256Hex(bytes);
    // Record it for next time, unless the file changed meanwhile. The answer describes the version
    // now stored: its etag is the put's (an object stored by an R2 multipart upload gets a new one
    // from this single put), so a later read or write pinned to it (source, putMeta) finds it unchanged.
    const recorded = await this.bucket.put(obj.key, bytes, {
      httpMetadata: obj.httpMetadata,
      customMetadata: { ...obj.customMetadata, sha256: computed },
      onlyIf: { etagMatches: obj.etag },
    });
    return { bytes, info: this.info(root, recorded ?? obj, computed) };
  }

  /** The first `length` bytes of a file (enough for an image header), or null. */
  async readStart(root: Root, name: string, length = 64 * 1024): Promise<Uint8Array | null> {
    const obj = await this.bucket.get(this.key(root, name), { range: { offset: 0, length } });
    return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
  }

  /** The file as a stream (downloads), or null. */
  async stream(root: Root, name: string): Promise<R2ObjectBody | null> {
    return this.bucket.get(this.key(root, name));
  }

  /**
   * Stores a file with its hash and `meta`. With `ifEtag`, only when the stored file is still
   * that version (null otherwise): used to add metadata to a file without racing an upload.
   */
  async put(
    root: Root,
    name: string,
    bytes: Uint8Array,
    options: { contentType?: string; meta?: Record<string, string>; ifEtag?: string } = {},
  ): Promise<StoredFile | null> {
    const sha = await sha256Hex(bytes);
    const obj = await this.bucket.put(this.key(root, name), inPieces(bytes), {
      httpMetadata: options.contentType ? { contentType: options.contentType } : undefined,
      customMetadata: { ...options.meta, sha256: sha },
      onlyIf: options.ifEtag ? { etagMatches: options.ifEtag } : undefined,
    });
    return obj ? this.info(root, obj, sha) : null;
  }

  /**
   * A stored file read by range (InputStore.source): a template compiled without holding it whole.
   * Every read is of the version `file` describes (its etag): the compile hashes the file in one
   * pass of reads and parses it in another, and a file replaced in between would otherwise give a
   * compiled form named by one version and made of the other (content-addressed, then served for
   * the first version for good). A replaced file is a 409, a deleted one a 404.
   */
  async source(root: Root, file: { name: string; size?: number; etag: string }): Promise<PsdSource | null> {
    if (file.size === undefined) return null;
    const { bucket } = this;
    const key = this.key(root, file.name);
    const { size, etag } = file;
    return {
      size,
      async read(offset, length) {
        if (length <= 0 || offset >= size) return new Uint8Array(0);
        const obj = await bucket.get(key, { range: { offset, length: Math.min(length, size - offset) }, onlyIf: { etagMatches: etag } });
        if (!obj) throw notFound(`There is no ${root.slice(0, -1)} "${file.name}" any more.`);
        if (!('body' in obj)) throw new ApiError(409, 'conflict', `The ${root.slice(0, -1)} "${file.name}" was replaced while it was being read; send the request again.`);
        return new Uint8Array(await obj.arrayBuffer());
      },
    };
  }

  /**
   * Stores an upload staged in R2 (../staging.ts) under its name with its hash and `meta`: R2 has
   * no rename, so the staged object streams from its get into the put, never whole in memory (a
   * small upload held in memory is put from there).
   */
  async putStaged(
    root: Root,
    name: string,
    staged: { key: string; size: number; sha256: string; bytes?: Uint8Array },
    options: { contentType?: string; meta?: Record<string, string> } = {},
  ): Promise<StoredFile> {
    let body: Uint8Array | ReadableStream<Uint8Array>;
    if (staged.bytes) body = inPieces(staged.bytes);
    else {
      const from = await this.bucket.get(staged.key);
      if (!from) throw new Error(`The staged upload ${staged.key} is gone.`);
      body = sized(from.body, staged.size);
    }
    const obj = await this.bucket.put(this.key(root, name), body, {
      httpMetadata: options.contentType ? { contentType: options.contentType } : undefined,
      customMetadata: { ...options.meta, sha256: staged.sha256 },
    });
    return this.info(root, obj!, staged.sha256);
  }

  /**
   * Replaces a file's custom metadata (its hash kept), only while the stored file is still version
   * `ifEtag` (null otherwise). R2 cannot change metadata alone: the object streams from its get
   * into a put of itself, never whole in memory (a recompiled template's new hash, resolveTemplate).
   */
  async putMeta(root: Root, name: string, meta: Record<string, string>, ifEtag: string): Promise<StoredFile | null> {
    const from = await this.bucket.get(this.key(root, name), { onlyIf: { etagMatches: ifEtag } });
    if (!from || !('body' in from)) return null;
    const sha = from.customMetadata?.sha256 ?? meta.sha256;
    const obj = await this.bucket.put(this.key(root, name), sized(from.body, from.size), {
      httpMetadata: from.httpMetadata,
      customMetadata: { ...meta, ...(sha ? { sha256: sha } : {}) },
      onlyIf: { etagMatches: ifEtag },
    });
    return obj ? this.info(root, obj, obj.customMetadata?.sha256 ?? '') : null;
  }

  async delete(root: Root, name: string): Promise<void> {
    await this.bucket.delete(this.key(root, name));
  }

  async exists(root: Root, name: string): Promise<boolean> {
    return (await this.bucket.head(this.key(root, name))) !== null;
  }

  /** Root-relative names in `folder` (recursively when asked), sorted. */
  async list(root: Root, folder: string, recursive: boolean): Promise<string[]> {
    const prefix = `${root}/${folder ? `${folder}/` : ''}`;
    const { keys } = await listKeys(this.bucket, prefix, recursive ? undefined : '/');
    return keys
      .filter((k) => !k.endsWith('/'))
      .map((k) => k.slice(root.length + 1))
      .sort();
  }

  /**
   * `name` when free, else the first free `stem_1.ext`, `stem_2.ext`, … (uploads with
   * overwrite=false). `taken` holds names already claimed by the same request.
   */
  async freeName(root: Root, name: string, taken: Set<string> = new Set()): Promise<string> {
    const [stem, ext] = splitExtension(name);
    // One listing of the names starting with the stem instead of a lookup per candidate.
    const { keys } = await listKeys(this.bucket, this.key(root, stem), '/');
    const used = new Set([...taken, ...keys.map((k) => k.slice(root.length + 1))]);
    for (let i = 0; ; i++) {
      const candidate = i === 0 ? name : `${stem}_${i}${ext}`;
      if (!used.has(candidate)) return candidate;
    }
  }
}

export { joinName, sha256Hex };

/** Bodies above this go to R2 as a stream of views of it (inPieces). */
const PIECE = 1 << 20;

/**
 * A large body as a stream of 1 MB views of it, for R2: handed over whole, workerd copied all of
 * it into its own memory before the write (10.8 MB at the peak of the first 10,000² upload, the
 * upload's last step; issue 25 §1, docs/memory.md). Small ones go as they are.
 */
function inPieces(bytes: Uint8Array): Uint8Array | ReadableStream<Uint8Array> {
  if (bytes.length <= PIECE) return bytes;
  const { readable, writable } = new FixedLengthStream(bytes.length);
  const writer = writable.getWriter();
  // Errors reach the reader (R2's put fails with them); this promise is not awaited.
  void (async () => {
    for (let at = 0; at < bytes.length; at += PIECE) await writer.write(bytes.subarray(at, at + PIECE));
    await writer.close();
  })().catch(() => {});
  return readable;
}

/**
 * An R2 body handed to a put with its length declared (a FixedLengthStream), as R2 wants: bytes
 * pass through, never gathered.
 */
function sized(body: ReadableStream<Uint8Array>, size: number): ReadableStream<Uint8Array> | Uint8Array {
  if (size === 0) {
    body.cancel().catch(() => {});
    return new Uint8Array(0);
  }
  const { readable, writable } = new FixedLengthStream(size);
  // Errors reach the reader (R2's put fails with them); this promise is not awaited.
  body.pipeTo(writable).catch(() => {});
  return readable;
}
