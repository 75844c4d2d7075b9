/**
 * The font index: the names of every font under `fonts/`, kept in R2 at
 * `cache/fonts/index.json` so listing fonts and finding a font by PostScript name never parses
 * font files (lookup itself is engine/fonts/catalog.ts, fed from this index). Rebuilding is incremental: a file whose etag is unchanged keeps its entry.
 * The spec's "fonts/reload" is a rebuild; uploads and deletes rebuild too.
 */
import { readFontInfo } from '../../engine/fonts/font-info';
import type { StoredFont } from '../../engine/inputs';

const INDEX_KEY = 'cache/fonts/index.json';

/** What the index needs of the file store (files.ts's FileStore), named here so the two modules do not import each other. */
export interface FontFiles {
  readonly bucket: R2Bucket;
  read(root: 'fonts', name: string): Promise<{ bytes: Uint8Array; info: { sha256: string } } | null>;
}

export interface FontEntry extends StoredFont {
  /** `file` is root-relative under `fonts/`; the etag lets a rebuild skip unchanged files. */
  etag: string;
}

interface FontIndexFile {
  version: 1;
  fonts: FontEntry[];
}

/**
 * The index as last read or written in this isolate, by its etag: while it is unchanged a read
 * is one `head` that finds the same etag (no body, no JSON parse) and gets the same array, which
 * the engine keys its font catalog by (preview.ts; issue 25 §3). A `head`, not a `get` with
 * `etagDoesNotMatch`: the same answer for ~0.15–0.2 ms less of the local runtime's CPU a text
 * request (docs/performance.md, "Outside the engine"); a changed index then costs a second call.
 * An etag is the content's MD5, so the same etag in another bucket is the same index. Callers do
 * not modify the array.
 */
let held: { etag: string; fonts: FontEntry[] } | undefined;

/** The index as last read or written in this isolate (what readFontIndex answers while it is unchanged), without reading it. */
export const heldFontIndex = (): FontEntry[] | undefined => held?.fonts;

export async function readFontIndex(store: FontFiles): Promise<FontEntry[]> {
  const known = held;
  if (known) {
    const head = await store.bucket.head(INDEX_KEY);
    if (!head) return rebuildFontIndex(store);
    if (head.etag === known.etag) return known.fonts;
  }
  const obj = await store.bucket.get(INDEX_KEY);
  if (!obj) return rebuildFontIndex(store);
  const fonts = ((await obj.json()) as FontIndexFile).fonts;
  held = { etag: obj.etag, fonts };
  return fonts;
}

/** Rescans `fonts/`; files that are not readable fonts are left out of the index. */
export async function rebuildFontIndex(store: FontFiles): Promise<FontEntry[]> {
  const previous = new Map<string, FontEntry>();
  const old = await store.bucket.get(INDEX_KEY);
  if (old) for (const e of ((await old.json()) as FontIndexFile).fonts) previous.set(e.etag, e);

  const fonts: FontEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.bucket.list({ prefix: 'fonts/', cursor, limit: 1000 });
    for (const obj of page.objects) {
      const file = obj.key.slice('fonts/'.length);
      const known = previous.get(obj.etag);
      if (known) {
        fonts.push({ ...known, file });
        continue;
      }
      const read = await store.read('fonts', file);
      if (!read) continue;
      try {
        fonts.push({ ...readFontInfo(read.bytes), file, etag: obj.etag, sha256: read.info.sha256 });
      } catch {
        // Not a font (e.g. a licence text beside the fonts): not listed, not usable.
      }
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  fonts.sort((a, b) => a.file.localeCompare(b.file));
  const written = await store.bucket.put(INDEX_KEY, JSON.stringify({ version: 1, fonts } satisfies FontIndexFile), {
    httpMetadata: { contentType: 'application/json' },
  });
  held = written ? { etag: written.etag, fonts } : undefined;
  return fonts;
}
