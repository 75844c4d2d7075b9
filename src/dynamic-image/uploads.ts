/**
 * Uploads of templates, fonts and images (rendering contract, "Names and URLs"): each file is
 * stored as `<destination>/<uploaded file name>`; with overwrite=false a clash becomes
 * `name_1.ext`, `name_2.ext`, … Every file is checked (and templates compiled) before any is
 * stored, so a refused request leaves nothing behind.
 */
import { badRequest } from '../errors';
import { bytesOf } from './multipart';
import type { FileStore, Root, StoredFile } from './store/files';
import { fileName, folderName, joinName, uploadedBaseName } from '../engine/names';

export interface Accepted {
  contentType: string;
  meta?: Record<string, string>;
  /** Undoes what checking created (e.g. compiled data) when the request is refused. */
  undo?: () => Promise<void>;
}

export interface UploadKind {
  root: Root;
  /** Checks one file; throws a 4xx (usually 422) naming the problem. */
  accept(bytes: Uint8Array, name: string): Promise<Accepted>;
  /** Drops data derived from a file that is being replaced or deleted. */
  forget?(old: StoredFile, replacement?: Accepted): Promise<void>;
}

export function filesOf(value: File | File[] | undefined): File[] {
  const files = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (!files.length) throw badRequest('No file was uploaded; send one or more in the field "file".', [{ path: 'file', reason: 'required' }]);
  return files;
}

export async function storeUploads(
  store: FileStore,
  kind: UploadKind,
  files: File[],
  options: { destination?: string; overwrite: boolean },
): Promise<StoredFile[]> {
  const folder = folderName(options.destination, 'destination');
  const checked: Array<{ name: string; bytes: Uint8Array; accepted: Accepted }> = [];
  try {
    for (const [i, file] of files.entries()) {
      const name = fileName(joinName(folder, uploadedBaseName(file.name, `file[${i}]`)), `file[${i}]`);
      const bytes = await bytesOf(file);
      checked.push({ name, bytes, accepted: await kind.accept(bytes, name) });
    }
  } catch (e) {
    await Promise.allSettled(checked.map((f) => f.accepted.undo?.()));
    throw e;
  }

  const stored: StoredFile[] = [];
  const taken = new Set<string>();
  for (const { name, bytes, accepted } of checked) {
    const target = options.overwrite ? name : await store.freeName(kind.root, name, taken);
    taken.add(target);
    const old = options.overwrite ? await store.head(kind.root, target) : null;
    const file = await store.put(kind.root, target, bytes, { contentType: accepted.contentType, meta: accepted.meta });
    if (old) await kind.forget?.(old, accepted);
    stored.push(file!);
  }
  return stored;
}

/** Deletes one stored file and what was derived from it; 404 when absent. */
export async function deleteStored(store: FileStore, kind: UploadKind, name: string): Promise<StoredFile | null> {
  const old = await store.head(kind.root, name);
  if (!old) return null;
  await store.delete(kind.root, name);
  await kind.forget?.(old);
  return old;
}
