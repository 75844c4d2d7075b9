/**
 * Platform uploads with ONE file part: the shared streaming reader (src/http/multipart.ts) with the
 * platform's errors. Text fields are collected, the file part's bytes go to `onFile` as a stream
 * while the request is still arriving, so a 100 MB upload never sits in memory whole.
 */
import { MultipartError, readMultipart as readParts, type MultipartFile } from '../../http/multipart';
import { UnsupportedMediaTypeError, ValidationError } from '../core';

export type { MultipartFile };

export interface MultipartResult<T> {
  fields: Record<string, string>;
  file?: { field: string; filename: string; contentType?: string; result: T };
}

/** The boundary of a multipart/form-data request, or 415. */
export function multipartBoundary(contentType: string | null | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    throw new UnsupportedMediaTypeError(`This endpoint takes multipart/form-data${type ? `, not ${type}` : ''}.`);
  }
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType!);
  const boundary = m?.[1] ?? m?.[2];
  if (!boundary || boundary.length > 200) throw new ValidationError({ $: ['The multipart body has no valid boundary.'] });
  return boundary;
}

/**
 * Reads `body`; text fields come back in `fields` (names as sent), the one file part whose field
 * is in `fileFields` (ignoring case) goes to `onFile`, whose result is returned. A second file
 * part, or a file in another field, is a 400. `onFile` must consume its stream.
 */
export async function readMultipart<T>(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  fileFields: string[],
  onFile: (file: MultipartFile) => Promise<T>,
): Promise<MultipartResult<T>> {
  const wanted = new Set(fileFields.map((f) => f.toLowerCase()));
  try {
    const { fields, files } = await readParts(body, boundary, {
      isFile(field, filename) {
        if (wanted.has(field.toLowerCase())) return true;
        if (filename !== undefined) throw new MultipartError(`Unexpected file field; the file goes in "${fileFields[0]}".`, field);
        return false;
      },
      onFile,
      maxFiles: 1,
    });
    return { fields: Object.fromEntries(fields), file: files[0] };
  } catch (e) {
    if (!(e instanceof MultipartError)) throw e;
    if (e.field !== undefined) throw new ValidationError({ [e.field]: [e.message] });
    throw new ValidationError({ $: [e.message === 'The multipart body is empty.' ? e.message : `The multipart body is malformed: ${e.message}`] });
  }
}
