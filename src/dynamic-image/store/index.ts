/** R2 access for the rendering area: routes go through these, never through raw keys. */
export { FileStore, sha256Hex, type Root, type StoredFile } from './files';
export { contentEtag, ResultStore } from './results';
export { readFontIndex, rebuildFontIndex, type FontEntry } from './font-index';
export { ThumbnailStore, deleteThumbnails } from './thumbnails';
