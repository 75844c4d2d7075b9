/**
 * Names of the files a render reads (rendering contract, "Names and URLs"): a name is a path
 * relative to its root (templates, fonts, images), `/`-separated and case-sensitive; `..`, `\`
 * or a leading `/` is refused (InvalidInput, a 400 at the API). The store keys files by these.
 */
import { invalidInput } from './errors';

// Control characters make keys that cannot be listed or typed back safely.
const CONTROL = /[\u0000-\u001f\u007f]/;

function reject(field: string, value: string, reason: string): never {
  throw invalidInput(`"${value}" is not a valid ${field}: ${reason}.`, [{ path: field, reason }]);
}

function checkSegments(field: string, value: string): void {
  if (value.startsWith('/')) reject(field, value, 'names are relative, a leading "/" is not allowed');
  if (value.includes('\\')) reject(field, value, 'use "/" to separate folders, "\\" is not allowed');
  if (CONTROL.test(value)) reject(field, value, 'control characters are not allowed');
  for (const segment of value.split('/')) {
    if (segment === '..' || segment === '.') reject(field, value, `"${segment}" segments are not allowed`);
    if (segment === '') reject(field, value, 'empty path segments are not allowed');
  }
}

/** A file name inside a root, e.g. `cards/x.psd`. */
export function fileName(value: string | undefined, field = 'file'): string {
  if (value === undefined || value === '') reject(field, value ?? '', 'a name is required');
  if (value.length > 512) reject(field, value.slice(0, 40) + '…', 'names are at most 512 characters');
  checkSegments(field, value);
  return value;
}

/** A folder inside a root; empty means the root itself. A trailing `/` is tolerated. */
export function folderName(value: string | undefined, field = 'subfolder'): string {
  const folder = (value ?? '').replace(/\/+$/, '');
  if (folder === '') return '';
  if (folder.length > 400) reject(field, folder.slice(0, 40) + '…', 'folder names are at most 400 characters');
  checkSegments(field, folder);
  return folder;
}

/** The last segment of an uploaded file's name (browsers may send a path); validated. */
export function uploadedBaseName(value: string, field = 'file'): string {
  const base = value.split(/[\\/]/).pop() ?? '';
  if (!base || base === '.' || base === '..') reject(field, value, 'the uploaded file has no usable name');
  if (CONTROL.test(base)) reject(field, value, 'control characters are not allowed');
  return base;
}

export const joinName = (folder: string, base: string): string => (folder ? `${folder}/${base}` : base);

/** `cards/x.psd` → ['cards/x', '.psd']; a name without an extension has ''. */
export function splitExtension(name: string): [string, string] {
  const slash = name.lastIndexOf('/');
  const dot = name.lastIndexOf('.');
  return dot > slash + 1 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
}

/** Base name without folder and extension: the ImageModel `title`. */
export function titleOf(name: string): string {
  return splitExtension(name)[0].split('/').pop() ?? name;
}
