/**
 * What an upload of each kind must pass, and what deleting it drops.
 * - templates: a PSD/PSB the engine can compile (by content: `8BPS`, version 1 or 2); the
 *   compiled form is made now, so a file that cannot be rendered is refused with 422;
 * - fonts: a TrueType/OpenType font with readable names;
 * - images: a JPEG or PNG.
 */
import { compileTemplate, deleteCompiledTemplate, ENGINE_VERSION, templateHash } from '../engine/compiled/compile';
import { loadCompiledTemplate } from '../engine/compiled/store';
import { readFontInfo } from '../engine/fonts/font-info';
import { readHeader } from '../engine/psd/parse';
import { unprocessable } from '../errors';
import type { FileStore } from '../storage/files';
import { deleteThumbnails } from '../storage/thumbnails';
import type { UploadKind } from './uploads';

export function templateKind(store: FileStore): UploadKind {
  return {
    root: 'templates',
    async accept(bytes) {
      readHeader(bytes);
      const existed = (await loadCompiledTemplate(store.bucket, await templateHash(bytes))) !== null;
      const compiled = await compileTemplate(store.bucket, bytes);
      return {
        contentType: 'image/vnd.adobe.photoshop',
        meta: { compiled: compiled.hash, engine: ENGINE_VERSION },
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
    async accept(bytes) {
      readFontInfo(bytes);
      const tag = new TextDecoder().decode(bytes.subarray(0, 4));
      return { contentType: tag === 'OTTO' ? 'font/otf' : tag === 'ttcf' ? 'font/collection' : 'font/ttf' };
    },
  };
}

/** Content type of a JPEG or PNG by its signature; null for anything else. */
export function imageType(bytes: Uint8Array): 'image/jpeg' | 'image/png' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.every((b, i) => bytes[i] === b)) return 'image/png';
  return null;
}

export function imageKind(store: FileStore): UploadKind {
  return {
    root: 'images',
    async accept(bytes, name) {
      const contentType = imageType(bytes);
      if (!contentType) {
        throw unprocessable(`${name} is not a JPEG or PNG image.`, [{ path: 'file', reason: 'unsupported image format' }]);
      }
      return { contentType };
    },
    async forget(old) {
      await deleteThumbnails(store.bucket, old.sha256);
    },
  };
}
