/**
 * Rasterised pages of PDF images (contract, "PDF pages"): each page drawn once by PDFium
 * (src/engine/pdf-raster) to `p/<t>/assets/images/<id>/pages/<n>.png`, long side 2,048 px. Page
 * previews, previews with a mockup and PDF page items in raster previews resample these PNGs;
 * print PDFs keep the pages vector and never read them.
 *
 * Import draws them (`storePdfPages`) before the row is committed; an asset whose pages are
 * missing (a copy — copies write D1 rows only — or one imported before PDFium) gets them drawn on
 * first use (`pdfPagePng`).
 *
 * Memory: PDFium needs the whole file in its heap, so the pages are drawn from a stream of the
 * stored object (its chunks go straight into that heap), never from a JS copy that would make
 * a big PDF cost twice its size (128 MB isolate). The import has the file in memory (pdf-lib read
 * it whole): it writes the blob first and lets go of that copy before drawing (drawImportedPdfPages).
 *
 * Decompression bombs: PDFium checks every file before drawing (engine/pdf-raster/bounds.ts), and
 * `loadUserPdf` / `checkUserPdf` do the same for pdf-lib's loads of PDFs from outside (422).
 */
import { PDFDocument, type LoadOptions } from 'pdf-lib';
import { checkPdfDecodedSizes, PDF_LIB_DECODE_LIMITS, rasterisePdfPagesPng, type PdfSource } from '../../engine/pdf-raster';
import { NotFoundError, tenantKey } from '../core';
import { blobKey, dropEarlyBlob, startBlobWrite, type Staged } from './blobs';
import { engineError } from './engine-error';
import type { AssetRow } from './model';

export const PDF_PAGE_LONG_SIDE = 2048;

/** `p/<t>/assets/images/<id>/pages/<n>.png` (n 0-based, as `pageIndex`). */
export const pdfPageKey = (tenantId: number, assetId: string, n: number): string => tenantKey(tenantId, 'assets', 'images', assetId, 'pages', `${n}.png`);

/** Draws every page of `source` (bytes, or an R2 object body) and stores it under the asset's page keys, one page at a time; returns the page count. */
export async function storePdfPages(bucket: R2Bucket, tenantId: number, assetId: string, source: PdfSource): Promise<number> {
  try {
    const { pageCount } = await rasterisePdfPagesPng(source, {
      maxLongSide: PDF_PAGE_LONG_SIDE,
      onPage: async (n, png) => {
        await bucket.put(pdfPageKey(tenantId, assetId, n), png, { httpMetadata: { contentType: 'image/png' } });
      },
    });
    return pageCount;
  } catch (e) {
    await deletePdfPages(bucket, tenantId, assetId).catch(() => {});
    throw engineError(e);
  }
}

/**
 * The import's pages (createAsset, replaceContent). The file is in memory (`staged.bytes`, the
 * same array as `info.bytes`): it is written to its blob now (the commit then finds it there,
 * as a PSD's early write), both references are dropped, and the pages are drawn streaming from
 * the blob, so PDFium's heap holds the only full copy. A file staged in R2 is drawn from its
 * staging object. Should the blob write fail, the pages are drawn from memory (the commit writes
 * the blob then). A failed drawing removes a blob this call created. Returns the page count and
 * the blob write, for `commitStaged(…, early)` / `dropEarlyBlob`.
 */
export async function drawImportedPdfPages(
  env: { DB: D1Database; FILES: R2Bucket },
  staged: Staged,
  info: { bytes?: Uint8Array },
  assetId: string,
): Promise<{ pageCount: number; early?: Promise<boolean> }> {
  const bucket = env.FILES;
  let early: Promise<boolean> | undefined;
  let source: PdfSource | null = null;
  if (staged.bytes) {
    early = startBlobWrite(bucket, staged as Staged & { bytes: Uint8Array }, 'application/pdf');
    if (!(await early.then(() => true, () => false))) early = undefined;
    else source = await bucket.get(blobKey(staged.tenantId, staged.sha256));
  } else {
    source = await bucket.get(staged.key);
  }
  if (source) {
    // Callers read neither after this: commitStaged finds the blob (or the staging object).
    delete staged.bytes;
    delete info.bytes;
    staged.head = staged.head.slice(); // stageBytes' head is a view of the whole file
  } else source = info.bytes ?? null;
  if (!source) throw new NotFoundError(`The PDF ${assetId} has no content.`);
  try {
    return { pageCount: await storePdfPages(bucket, staged.tenantId, assetId, source), early };
  } catch (e) {
    if (early) await dropEarlyBlob(env.DB, bucket, staged, early);
    throw e;
  }
}

/** Removes the stored pages of an asset (from `from` on: pages a shorter replacement no longer has). */
export async function deletePdfPages(bucket: R2Bucket, tenantId: number, assetId: string, from = 0): Promise<void> {
  const prefix = tenantKey(tenantId, 'assets', 'images', assetId, 'pages') + '/';
  let cursor: string | undefined;
  do {
    const list = await bucket.list({ prefix, cursor });
    const keys = list.objects.map((o) => o.key).filter((k) => Number(k.slice(prefix.length).replace(/\.png$/, '')) >= from);
    if (keys.length) await bucket.delete(keys);
    cursor = list.truncated ? list.cursor : undefined;
  } while (cursor);
}

/** The stored PNG of page `n` of a PDF image, drawn (all pages) first when it is missing. */
export async function pdfPagePng(bucket: R2Bucket, row: AssetRow, n: number): Promise<Uint8Array> {
  const key = pdfPageKey(row.tenantId, row.id, n);
  const stored = await bucket.get(key);
  if (stored) return new Uint8Array(await stored.arrayBuffer());
  // Streamed from R2 into PDFium's heap: the file is never held in JS as well.
  const file = row.blobSha ? await bucket.get(blobKey(row.tenantId, row.blobSha)) : null;
  if (!file) throw new NotFoundError(`The image ${row.id} has no content.`);
  await storePdfPages(bucket, row.tenantId, row.id, file);
  const drawn = await bucket.get(key);
  if (!drawn) throw new NotFoundError(`The image ${row.id} has no page index ${n}.`);
  return new Uint8Array(await drawn.arrayBuffer());
}

/**
 * Refuses (422, naming the limit) a PDF from outside whose streams decode past the bounds of
 * src/engine/pdf-raster/bounds.ts. Every pdf-lib load of such a PDF goes through this first:
 * pdf-lib decodes object streams on load and page contents when it embeds a page; it copies
 * images without drawing them, so their declared pixel size is left to PDFium's check.
 */
export function checkUserPdf(bytes: Uint8Array): void {
  try {
    checkPdfDecodedSizes(bytes, PDF_LIB_DECODE_LIMITS);
  } catch (e) {
    throw engineError(e);
  }
}

/** `PDFDocument.load` for a PDF from outside (an upload, a URL image, a pipeline input), after checkUserPdf. */
export async function loadUserPdf(bytes: Uint8Array, options?: LoadOptions): Promise<PDFDocument> {
  checkUserPdf(bytes);
  return PDFDocument.load(bytes, options);
}
