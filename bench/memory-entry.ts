// Entry of bench/memory.bench.mjs: the engine's preview and print-PDF paths with an InputStore
// kept in a directory (templates, images, fonts by name; the derived-data bucket one file per
// key), so one process can compile a template and a fresh one can render it, as an upload and a
// later request do.
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { compileTemplate, ENGINE_VERSION } from '../src/engine/index';
import { readFontInfo } from '../src/engine/fonts/index';
import { UrlImages, type InputRoot, type InputStore, type StoredFont, type StoredInput } from '../src/engine/inputs';
import { writePdf } from '../src/engine/pdf/document';
import { prepareHires } from '../src/engine/pdf/prepare';
import type { ByteSink } from '../src/engine/pdf/sink';
import { preparePreview, type PreviewOptions } from '../src/engine/preview';

export { compileTemplate, ENGINE_VERSION };

// workerd's crypto.DigestStream (templateHash uses it), from node:crypto's incremental hash.
if (!('DigestStream' in crypto)) {
  class DigestStream extends WritableStream<Uint8Array> {
    readonly digest: Promise<ArrayBuffer>;
    constructor(algorithm: string) {
      const hash = createHash(algorithm.replace('-', '').toLowerCase());
      let done!: (b: ArrayBuffer) => void;
      super({ write: (chunk) => void hash.update(chunk), close: () => done(new Uint8Array(hash.digest()).buffer) });
      this.digest = new Promise((resolve) => (done = resolve));
    }
  }
  Object.assign(crypto, { DigestStream });
}

const keyFile = (key: string) => encodeURIComponent(key);

/** An R2Bucket with what the engine calls (get, put, head, list, delete), one file per key. */
function dirBucket(dir: string): R2Bucket {
  mkdirSync(dir, { recursive: true });
  // Custom metadata as R2 keeps it (a picture's renditions record its stored size and orientation:
  // without it the render reads no rendition and decodes the file). Held for the process.
  const metadata = new Map<string, Record<string, string>>();
  const object = (key: string, bytes: Uint8Array) => ({
    key,
    size: bytes.byteLength,
    etag: String(bytes.byteLength),
    httpEtag: `"${bytes.byteLength}"`,
    uploaded: new Date(),
    customMetadata: metadata.get(key) ?? {},
    httpMetadata: {},
    get body() {
      return new Blob([bytes]).stream();
    },
    arrayBuffer: async () => bytes.slice().buffer,
    text: async () => new TextDecoder().decode(bytes),
    json: async () => JSON.parse(new TextDecoder().decode(bytes)),
  });
  const read = (key: string) => {
    const file = path.join(dir, keyFile(key));
    return existsSync(file) ? new Uint8Array(readFileSync(file)) : null;
  };
  // An R2 call is I/O: the event loop turns, as it would, so that the bench's samplers run even
  // when nothing else in a request waits for the loop (bands inflated without streams).
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const bucket = {
    async get(key: string) {
      await turn();
      const bytes = read(key);
      return bytes ? object(key, bytes) : null;
    },
    async head(key: string) {
      const bytes = read(key);
      return bytes ? { ...object(key, bytes), body: undefined } : null;
    },
    async put(key: string, value: ArrayBuffer | ArrayBufferView | string | ReadableStream | Blob, options?: { customMetadata?: Record<string, string> }) {
      if (options?.customMetadata) metadata.set(key, { ...options.customMetadata });
      else metadata.delete(key);
      let bytes: Uint8Array;
      if (typeof value === 'string') bytes = new TextEncoder().encode(value);
      else if (value instanceof ArrayBuffer) bytes = new Uint8Array(value);
      else if (ArrayBuffer.isView(value)) bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      else if (value instanceof Blob) bytes = new Uint8Array(await value.arrayBuffer());
      else bytes = new Uint8Array(await new Response(value).arrayBuffer());
      writeFileSync(path.join(dir, keyFile(key)), bytes);
      return object(key, bytes);
    },
    async list(options: { prefix?: string } = {}) {
      const keys = readdirSync(dir).map(decodeURIComponent).filter((k) => k.startsWith(options.prefix ?? ''));
      return { objects: keys.map((key) => ({ key })), truncated: false, delimitedPrefixes: [] };
    },
    async delete(keys: string | string[]) {
      for (const key of Array.isArray(keys) ? keys : [keys]) rmSync(path.join(dir, keyFile(key)), { force: true });
    },
  };
  return bucket as unknown as R2Bucket; // the subset of R2Bucket the engine uses
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...h].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Inputs in `dir`/<root>/<name> with `dir`/meta.json; the bucket in `dir`/bucket. */
export function dirStore(dir: string, fontFiles: string[] = []): InputStore {
  const metaFile = path.join(dir, 'meta.json');
  const meta: Record<string, StoredInput> = existsSync(metaFile) ? JSON.parse(readFileSync(metaFile, 'utf8')) : {};
  const file = (root: InputRoot, name: string) => path.join(dir, root, encodeURIComponent(name));
  return {
    bucket: dirBucket(path.join(dir, 'bucket')),
    async head(root, name) {
      return meta[`${root}/${name}`] ?? null;
    },
    async read(root, name) {
      if (root === 'fonts') {
        const f = fontFiles.find((p) => path.basename(p) === name);
        if (!f) return null;
        const bytes = new Uint8Array(readFileSync(f));
        return { bytes, info: { name, sha256: await sha256(bytes), etag: name, meta: {} } };
      }
      const info = meta[`${root}/${name}`];
      return info ? { bytes: new Uint8Array(readFileSync(file(root, name))), info } : null;
    },
    async readStart(root, name, length) {
      // The first bytes only, as the Worker's ranged R2 read (not the whole file: 10.3 MB of the print PDF's count).
      if (root === 'fonts' || !meta[`${root}/${name}`]) return (await this.read(root, name))?.bytes.subarray(0, length) ?? null;
      const fd = openSync(file(root, name), 'r');
      try {
        const bytes = new Uint8Array(length);
        return bytes.subarray(0, readSync(fd, bytes, 0, length, 0));
      } finally {
        closeSync(fd);
      }
    },
    async put(root, name, bytes, options = {}) {
      const previous = meta[`${root}/${name}`];
      if (options.ifEtag && previous && previous.etag !== options.ifEtag) return null;
      mkdirSync(path.join(dir, root), { recursive: true });
      writeFileSync(file(root, name), bytes);
      const hash = await sha256(bytes);
      const info: StoredInput = { name, sha256: hash, etag: hash.slice(0, 16) + (options.meta?.compiled ?? ''), contentType: options.contentType, meta: options.meta ?? {} };
      meta[`${root}/${name}`] = info;
      writeFileSync(metaFile, JSON.stringify(meta));
      return info;
    },
    async fonts() {
      const out: StoredFont[] = [];
      for (const f of fontFiles) {
        const bytes = new Uint8Array(readFileSync(f));
        out.push({ ...readFontInfo(bytes), file: path.basename(f), sha256: await sha256(bytes) });
      }
      return out;
    },
  };
}

/** MEMORY_BENCH_HASH=1: the SHA-256 of the last request's output (an A/B of two trees compares them). */
let digest: string | undefined;
export const outputDigest = () => digest;

const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images in the bench'); }) };

/** A preview's encoded bytes (the compiled template is read from the store's bucket). */
export async function preview(store: InputStore, options: Partial<PreviewOptions> & Pick<PreviewOptions, 'template' | 'size'>) {
  const prepared = await preparePreview(store, { format: 'jpg', jpegQuality: 90, unsharpMask: null, ...options }, deps);
  const bytes = (await prepared.render()).bytes;
  if (process.env.MEMORY_BENCH_HASH) digest = createHash('sha256').update(bytes).digest('hex');
  return bytes.byteLength;
}

/** A print PDF written into a sink that counts its bytes and keeps none. */
export async function printPdf(store: InputStore, options: { template: string; data?: PreviewOptions['data'] }) {
  const page = await prepareHires(store, options, deps);
  let bytes = 0;
  const hash = process.env.MEMORY_BENCH_HASH ? createHash('sha256') : null;
  const sink: ByteSink = {
    write: async (b) => void ((bytes += b.byteLength), hash?.update(b)),
    close: async () => {},
    abort: async () => {},
  };
  await writePdf(sink, [page.load], { output: page.output });
  if (hash) digest = hash.digest('hex');
  return bytes;
}

// For probing where a peak comes from (not used by the bench's cases).
export { renderTemplate } from '../src/engine/composite/compositor';
export { encodeJpeg } from '../src/engine/raster';
export { resolveTemplate } from '../src/engine/preview';
