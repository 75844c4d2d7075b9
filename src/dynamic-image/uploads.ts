/**
 * Uploads of templates, fonts and images (rendering contract, "Names and URLs"): each file is
 * stored as `<destination>/<uploaded file name>`; with overwrite=false a clash becomes
 * `name_1.ext`, `name_2.ext`, … The files arrive staged in R2 (./staging.ts: the body streamed
 * there as it came); every file is checked from its staged object (templates compiled from it by
 * range) before any is stored, then each is copied to its name, so a refused request leaves
 * nothing behind (its staging objects are deleted by ./request.ts when it ends).
 */
import { ApiError, badRequest } from '../errors';
import { MAX_UPLOAD_BYTES } from './request';
import { dropStaged, StagedPart, stageUpload, type StagedUpload } from './staging';
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
  /** Checks one staged file; throws a 4xx (usually 422) naming the problem. */
  accept(staged: StagedUpload, name: string): Promise<Accepted>;
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
  const checked: Array<{ name: string; staged: StagedUpload; accepted: Accepted }> = [];
  // Files that did not come through the route's form (callers, tests) are staged here, and dropped here.
  const ours: string[] = [];
  try {
    try {
      for (const [i, file] of files.entries()) {
        const name = fileName(joinName(folder, uploadedBaseName(file.name, `file[${i}]`)), `file[${i}]`);
        const staged = await stagedOf(store.bucket, file, ours);
        checked.push({ name, staged, accepted: await kind.accept(staged, name) });
      }
    } catch (e) {
      await Promise.allSettled(checked.map((f) => f.accepted.undo?.()));
      throw e;
    }

    const stored: StoredFile[] = [];
    const taken = new Set<string>();
    for (const { name, staged, accepted } of checked) {
      const target = options.overwrite ? name : await store.freeName(kind.root, name, taken);
      taken.add(target);
      const old = options.overwrite ? await store.head(kind.root, target) : null;
      const file = await store.putStaged(kind.root, target, staged, { contentType: accepted.contentType, meta: accepted.meta });
      if (old) await kind.forget?.(old, accepted);
      stored.push(file);
    }
    return stored;
  } finally {
    await dropStaged(store.bucket, ours);
  }
}

async function stagedOf(bucket: R2Bucket, file: File, ours: string[]): Promise<StagedUpload> {
  if (file instanceof StagedPart) return file.staged;
  const staged = await stageUpload(bucket, file.stream(), MAX_UPLOAD_BYTES, () => new ApiError(413, 'payload_too_large', `The upload is larger than the limit of ${MAX_UPLOAD_BYTES / 1024 / 1024} MB.`));
  ours.push(staged.key);
  return staged;
}

/** Deletes one stored file and what was derived from it; 404 when absent. */
export async function deleteStored(store: FileStore, kind: UploadKind, name: string): Promise<StoredFile | null> {
  const old = await store.head(kind.root, name);
  if (!old) return null;
  await store.delete(kind.root, name);
  await kind.forget?.(old);
  return old;
}
