/**
 * What an upload of each kind must pass (checked on its staged object, ./staging.ts), and what
 * deleting it drops.
 * - templates: a PSD/PSB the engine can compile (by content: `8BPS`, version 1 or 2); the
 *   compiled form is made now, so a file that cannot be rendered is refused with 422;
 * - fonts: a TrueType/OpenType font with readable names;
 * - images: a JPEG or PNG with a readable header; a baseline JPEG's renditions (its DCT-scaled
 *   decodes, src/engine/raster/renditions.ts) are made now, so a render reads those instead.
 */
import { compileTemplate, deleteCompiledTemplate, ENGINE_VERSION, loadCompiledTemplate, r2Source, readHeader, templateHash } from '../engine';
import { checkBleed, parseBleed } from '../engine/pdf/bleed';
import { readFontInfo } from '../engine/fonts/font-info';
import { orientedSize, sniffImage } from '../engine/raster';
import { deleteRenditions, makeRenditions, renditionsMeta } from '../engine/raster/renditions';
import { unprocessable } from '../errors';
import { stagedBytes } from './staging';
import type { FileStore } from './store/files';
import { deleteThumbnails } from './store/thumbnails';
import type { UploadKind } from './uploads';

/** `bleed`: the upload's declared bleed (docs/pdf.md, "Bleed"), kept with each template file. */
export function templateKind(store: FileStore, options: { bleed?: string } = {}): UploadKind {
  const bleed = options.bleed === undefined || options.bleed.trim() === '' ? undefined : parseBleed(options.bleed);
  return {
    root: 'templates',
    async accept(staged) {
      readHeader(staged.head);
      // Compiled from the staged object by range (or the bytes held), named by the hash taken as it streamed in.
      const source = staged.bytes ?? r2Source(staged.bucket, staged.key, staged.size);
      const hash = staged.templateHash ?? (await templateHash(source));
      const existed = (await loadCompiledTemplate(store.bucket, hash)) !== null;
      const compiled = await compileTemplate(store.bucket, source, { hash });
      if (bleed) {
        try {
          checkBleed(bleed, compiled);
        } catch (e) {
          if (!existed) await deleteCompiledTemplate(store.bucket, compiled.hash);
          throw e;
        }
      }
      return {
        contentType: 'image/vnd.adobe.photoshop',
        meta: { compiled: compiled.hash, engine: ENGINE_VERSION, ...(bleed ? { bleed } : {}) },
        undo: existed ? undefined : () => deleteCompiledTemplate(store.bucket, compiled.hash),
      };
    },
    async forget(old, replacement) {
      const hash = old.meta.compiled;
      if (hash && hash !== replacement?.meta?.compiled) await deleteCompiledTemplate(store.bucket, hash);
    },
  };
}

export function fontKind(): UploadKind {
  return {
    root: 'fonts',
    async accept(staged) {
      // A font's tables are read whole (the upload limit bounds it).
      readFontInfo(await stagedBytes(staged));
      const tag = new TextDecoder().decode(staged.head.subarray(0, 4));
      return { contentType: tag === 'OTTO' ? 'font/otf' : tag === 'ttcf' ? 'font/collection' : 'font/ttf' };
    },
  };
}

export function imageKind(store: FileStore): UploadKind {
  return {
    root: 'images',
    async accept(staged, name) {
      // Read whole: the renditions decode it (and a JPEG's header may lie past the first 64 KB).
      const bytes = await stagedBytes(staged);
      // The header must be readable: the same check decoding makes before it allocates pixels.
      const sniffed = sniffImage(bytes);
      const format = sniffed?.format;
      if (!sniffed || (format !== 'jpeg' && format !== 'png')) {
        throw unprocessable(`${name} is not a JPEG or PNG image.`, [{ path: 'file', reason: 'unsupported image format' }]);
      }
      // Displayed size (EXIF orientation applied): thumbnails pick their size bucket from it.
      const { width, height } = orientedSize(sniffed);
      // The content hash (taken as it streamed in) is what FileStore records too; kept here so
      // that forget can tell a replacement by the same content (whose renditions and thumbnails still hold).
      const sha256 = staged.sha256;
      const renditions = await makeRenditions(store.bucket, sha256, bytes, sniffed);
      return {
        contentType: `image/${format}`,
        meta: { width: String(width), height: String(height), sha256, ...(renditions.scales.length ? { renditions: renditionsMeta(renditions.scales) } : {}) },
        undo: renditions.made ? () => deleteRenditions(store.bucket, sha256) : undefined,
      };
    },
    async forget(old, replacement) {
      if (replacement?.meta?.sha256 === old.sha256) return;
      await deleteThumbnails(store.bucket, old.sha256);
      await deleteRenditions(store.bucket, old.sha256);
    },
  };
}
