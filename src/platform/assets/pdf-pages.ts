/**
 * Rasterised pages of PDF images (contract, "PDF pages"): each page drawn once by PDFium
 * (src/engine/pdf-raster) to `p/<t>/assets/images/<id>/pages/<n>.png`, long side 2,048 px. Page
 * previews, previews with a mockup and PDF page items in raster previews resample these PNGs;
 * print PDFs keep the pages vector and never read them.
 *
 * Import draws them (`storePdfPages`) before the row is committed; an asset whose pages are
 * missing (a copy — copies write D1 rows only — or one imported before PDFium) gets them drawn on
 * first use (`pdfPagePng`).
 */
import { rasterisePdfPagesPng } from '../../engine/pdf-raster';
import { NotFoundError, tenantKey } from '../core';
import { engineError } from './content';
import { readAssetBytes } from './engine-store';
import type { AssetRow } from './model';

export const PDF_PAGE_LONG_SIDE = 2048;

/** `p/<t>/assets/images/<id>/pages/<n>.png` (n 0-based, as `pageIndex`). */
export const pdfPageKey = (tenantId: number, assetId: string, n: number): string => tenantKey(tenantId, 'assets', 'images', assetId, 'pages', `${n}.png`);

/** Draws every page of `bytes` and stores it under the asset's page keys, one page at a time; returns the page count. */
export async function storePdfPages(bucket: R2Bucket, tenantId: number, assetId: string, bytes: Uint8Array): Promise<number> {
  try {
    const { pageCount } = await rasterisePdfPagesPng(bytes, {
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
  const bytes = await readAssetBytes(bucket, row);
  if (!bytes) throw new NotFoundError(`The image ${row.id} has no content.`);
  await storePdfPages(bucket, row.tenantId, row.id, bytes);
  const drawn = await bucket.get(key);
  if (!drawn) throw new NotFoundError(`The image ${row.id} has no page index ${n}.`);
  return new Uint8Array(await drawn.arrayBuffer());
}
