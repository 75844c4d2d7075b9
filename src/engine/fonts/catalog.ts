/**
 * The font store's lookup logic, free of storage: which stored file serves a PostScript name, and
 * an isolate-wide cache of font bytes (the same few fonts serve every render of a template).
 */
import type { FontInfo } from './font-info';

export interface CatalogEntry {
  /**
   * Where the file lives (e.g. its name under the fonts root). Cached bytes are keyed by it, so
   * make it change with the content (e.g. `name#etag`) or call FontCache.delete on replacement.
   */
  key: string;
  info: FontInfo;
}

const squash = (s: string) => s.replace(/[\s_-]/g, '').toLowerCase();

/**
 * Fonts by name. A PostScript name matches exactly first, then ignoring case, spaces, `-` and
 * `_`, then by full name the same way (templates from other tools sometimes name the full name).
 * When several files carry the same PostScript name, the one added last wins.
 *
 * @example
 *   const catalog = new FontCatalog();
 *   catalog.add('brand/Acme-Bold.otf', readFontInfo(bytes));
 *   catalog.find('Acme-Bold')?.key // 'brand/Acme-Bold.otf'
 */
export class FontCatalog {
  private readonly exact = new Map<string, CatalogEntry>();
  private readonly loose = new Map<string, CatalogEntry>();
  private readonly byFullName = new Map<string, CatalogEntry>();

  add(key: string, info: FontInfo): void {
    const entry = { key, info };
    this.exact.set(info.postscriptName, entry);
    this.loose.set(squash(info.postscriptName), entry);
    this.byFullName.set(squash(info.fullName), entry);
  }

  find(name: string): CatalogEntry | undefined {
    return this.exact.get(name) ?? this.loose.get(squash(name)) ?? this.byFullName.get(squash(name));
  }

  entries(): CatalogEntry[] {
    return [...new Set(this.exact.values())];
  }
}

/** Font bytes kept per isolate, least recently used dropped first beyond `maxBytes`. */
export class FontCache {
  private readonly items = new Map<string, Uint8Array>();
  private size = 0;

  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  async get(key: string, load: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
    const hit = this.items.get(key);
    if (hit) {
      this.items.delete(key);
      this.items.set(key, hit);
      return hit;
    }
    const bytes = await load();
    if (!bytes) return null;
    this.items.set(key, bytes);
    this.size += bytes.byteLength;
    for (const [k, v] of this.items) {
      if (this.size <= this.maxBytes || k === key) break;
      this.items.delete(k);
      this.size -= v.byteLength;
    }
    return bytes;
  }

  /** Forget a key (after a font file is replaced or deleted). */
  delete(key: string): void {
    const v = this.items.get(key);
    if (v) this.size -= v.byteLength;
    this.items.delete(key);
  }
}

/**
 * A `loadFont(postscriptName)` for personalisation from a catalog and a reader of stored files.
 *
 * @example
 *   const loadFont = fontLoader(catalog, (key) => readFromR2(`fonts/${key}`));
 */
export function fontLoader(
  catalog: FontCatalog,
  read: (key: string) => Promise<Uint8Array | null>,
  cache: FontCache = sharedCache,
): (postscriptName: string) => Promise<Uint8Array | null> {
  return async (name) => {
    const entry = catalog.find(name);
    return entry ? cache.get(entry.key, () => read(entry.key)) : null;
  };
}

const sharedCache = new FontCache();
