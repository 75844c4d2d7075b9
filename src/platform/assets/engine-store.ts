/**
 * The rendering engine's view of one tenant's files (engine `InputStore`): templates are design
 * or mockup asset ids, images are image asset ids, both read from `p/<t>/blobs/<sha>`; fonts are
 * the tenant's fonts and then the instance's (FileStore `fonts/`), the tenant's winning a name
 * both have (the engine's FontCatalog keeps the one added last). Derived data (compiled PSDs)
 * stays in the shared content-addressed `compiled/<sha>/`.
 */
import type { InputRoot, InputStore, StoredFont, StoredInput } from '../../engine/inputs';
import { r2Source, type PsdSource } from '../../engine/psd/source';
import { FileStore } from '../../dynamic-image/store';
import { blobKey } from './blobs';
import { assetFileOfTypes } from './store/assets';
import { FontLookup } from './fonts';
import type { AssetRow } from './model';

/** The bytes of an asset's content, or null when it has none. */
export async function readAssetBytes(bucket: R2Bucket, row: Pick<AssetRow, 'tenantId' | 'blobSha'>): Promise<Uint8Array | null> {
  if (!row.blobSha) return null;
  const obj = await bucket.get(blobKey(row.tenantId, row.blobSha));
  return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
}

const TENANT_FONT = 'tenant/';
const INSTANCE_FONT = 'instance/';

export class TenantInputStore implements InputStore {
  readonly bucket: R2Bucket;
  private readonly instance: FileStore;

  constructor(
    private readonly env: { DB: D1Database; FILES: R2Bucket },
    private readonly tenantId: number,
  ) {
    this.bucket = env.FILES;
    this.instance = new FileStore(env.FILES);
  }

  private async asset(root: InputRoot, name: string): Promise<{ id: string; sha: string; mime: string | null; meta: string } | null> {
    const types = root === 'templates' ? ['design', 'mockup'] : root === 'images' ? ['image'] : ['font'];
    return assetFileOfTypes(this.env.DB, this.tenantId, name, types);
  }

  async head(root: InputRoot, name: string): Promise<StoredInput | null> {
    if (root === 'fonts') return this.fontHead(name);
    const a = await this.asset(root, name);
    if (!a) return null;
    const m = JSON.parse(a.meta) as Record<string, unknown>;
    return { name, sha256: a.sha, etag: a.sha, contentType: a.mime ?? undefined, meta: { ...(m._compiled ? { compiled: String(m._compiled) } : {}), ...(typeof m._bleed === 'string' ? { bleed: m._bleed } : {}) } };
  }

  private async fontHead(name: string): Promise<StoredInput | null> {
    if (name.startsWith(INSTANCE_FONT)) {
      const f = await this.instance.head('fonts', name.slice(INSTANCE_FONT.length));
      return f ? { ...f, name } : null;
    }
    const a = name.startsWith(TENANT_FONT) ? await this.asset('fonts', name.slice(TENANT_FONT.length)) : null;
    return a ? { name, sha256: a.sha, etag: a.sha, contentType: a.mime ?? undefined, meta: {} } : null;
  }

  async read(root: InputRoot, name: string): Promise<{ bytes: Uint8Array; info: StoredInput } | null> {
    if (root === 'fonts' && name.startsWith(INSTANCE_FONT)) {
      const f = await this.instance.read('fonts', name.slice(INSTANCE_FONT.length));
      return f ? { bytes: f.bytes, info: { ...f.info, name } } : null;
    }
    const info = await this.head(root, name);
    if (!info) return null;
    const obj = await this.bucket.get(blobKey(this.tenantId, info.sha256));
    return obj ? { bytes: new Uint8Array(await obj.arrayBuffer()), info } : null;
  }

  async readStart(root: InputRoot, name: string, length: number): Promise<Uint8Array | null> {
    if (root === 'fonts' && name.startsWith(INSTANCE_FONT)) return this.instance.readStart('fonts', name.slice(INSTANCE_FONT.length), length);
    const info = await this.head(root, name);
    if (!info) return null;
    const obj = await this.bucket.get(blobKey(this.tenantId, info.sha256), { range: { offset: 0, length } });
    return obj ? new Uint8Array(await obj.arrayBuffer()) : null;
  }

  /** A design's or mockup's blob read by range (a template compiled without holding it whole). */
  async source(root: InputRoot, file: StoredInput): Promise<PsdSource | null> {
    if (root !== 'templates') return null;
    const key = blobKey(this.tenantId, file.sha256);
    const size = file.size ?? (await this.bucket.head(key))?.size;
    return size === undefined ? null : r2Source(this.bucket, key, size);
  }

  /** Assets are written through the asset service, never by the engine: metadata puts are ignored. */
  async put(): Promise<StoredInput | null> {
    return null;
  }

  async putMeta(): Promise<StoredInput | null> {
    return null;
  }

  async fonts(): Promise<StoredFont[]> {
    const lookup = await FontLookup.load(this.env, this.tenantId);
    return lookup.fonts().map((f) => ({ ...f.info, file: (f.source === 'tenant' ? TENANT_FONT : INSTANCE_FONT) + f.key, sha256: f.sha256 }));
  }
}

/** An image held in memory for one render, under its own name among the store's images. */
export interface HeldImage {
  bytes: Uint8Array;
  sha: string;
  contentType: string;
}

/** A store plus images held in memory (a surface placed into a mockup, a job's images), which win over stored ones of the same name. */
export class WithImages implements InputStore {
  constructor(
    private readonly inner: InputStore,
    private readonly images: ReadonlyMap<string, HeldImage>,
  ) {}
  get bucket() {
    return this.inner.bucket;
  }
  async head(root: InputRoot, name: string): Promise<StoredInput | null> {
    const img = root === 'images' ? this.images.get(name) : undefined;
    if (img) return { name, sha256: img.sha, etag: img.sha, contentType: img.contentType, meta: {} };
    return this.inner.head(root, name);
  }
  async read(root: InputRoot, name: string) {
    const img = root === 'images' ? this.images.get(name) : undefined;
    if (img) return { bytes: img.bytes, info: (await this.head(root, name))! };
    return this.inner.read(root, name);
  }
  async readStart(root: InputRoot, name: string, length: number) {
    const img = root === 'images' ? this.images.get(name) : undefined;
    return img ? img.bytes.subarray(0, length) : this.inner.readStart(root, name, length);
  }
  put(...args: Parameters<InputStore['put']>) {
    return this.inner.put(...args);
  }
  async source(root: InputRoot, file: StoredInput) {
    return this.inner.source ? this.inner.source(root, file) : null;
  }
  async putMeta(...args: Parameters<NonNullable<InputStore['putMeta']>>) {
    return this.inner.putMeta ? this.inner.putMeta(...args) : null;
  }
  fonts() {
    return this.inner.fonts();
  }
}
