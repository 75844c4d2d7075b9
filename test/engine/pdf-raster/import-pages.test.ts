// The import's PDF pages (src/platform/assets/pdf-pages.ts drawImportedPdfPages): the file held in
// memory is written to its blob and let go of before PDFium draws from a stream of that blob, so
// only PDFium's heap holds it while pages are drawn; a file PDFium refuses leaves no blob behind.
import { env } from 'cloudflare:workers';
import { PDFDocument, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { blobKey, stageBytes } from '../../../src/platform/assets/blobs';
import { drawImportedPdfPages, pdfPageKey } from '../../../src/platform/assets/pdf-pages';
import { UnprocessableError } from '../../../src/platform/core/errors';

const TENANT = 9_412; // no other test writes under this tenant's keys

async function pdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 100]).drawRectangle({ x: 0, y: 0, width: 100, height: 100, color: rgb(1, 0, 0) });
  doc.addPage([100, 100]);
  return doc.save();
}

describe('import of a PDF image: pages drawn from the blob, not from memory', () => {
  it('writes the blob, drops the in-memory copy, draws every page from R2', async () => {
    const bytes = await pdf();
    const staged = await stageBytes(env.FILES, TENANT, bytes);
    const info: { bytes?: Uint8Array } = { bytes: staged.bytes };
    const id = `import-${crypto.randomUUID()}`;
    const { pageCount, early } = await drawImportedPdfPages(env, staged, info, id);
    expect(pageCount).toBe(2);
    expect(await early).toBe(true); // this call created the blob; the commit waits for it
    expect(staged.bytes).toBeUndefined();
    expect(info.bytes).toBeUndefined();
    expect(staged.head.buffer).not.toBe(bytes.buffer);
    const blob = await env.FILES.get(blobKey(TENANT, staged.sha256));
    expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(bytes);
    for (const n of [0, 1]) expect((await env.FILES.head(pdfPageKey(TENANT, id, n)))?.httpMetadata?.contentType).toBe('image/png');
    await env.FILES.delete([blobKey(TENANT, staged.sha256), pdfPageKey(TENANT, id, 0), pdfPageKey(TENANT, id, 1)]);
  });

  it('a file PDFium refuses → 422, and the blob this call wrote is removed again', async () => {
    const bytes = new TextEncoder().encode(`%PDF-1.7 not really a PDF ${crypto.randomUUID()}`);
    const staged = await stageBytes(env.FILES, TENANT, bytes);
    const err = await drawImportedPdfPages(env, staged, { bytes: staged.bytes }, `bad-${crypto.randomUUID()}`).catch((e) => e);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.status).toBe(422);
    expect(await env.FILES.head(blobKey(TENANT, staged.sha256))).toBeNull();
  });
});
