/**
 * From a prepared render to a stored result: consult the result cache, render on a miss, store
 * the result with its fingerprint. Shared by the single and the multipage routes.
 */
import { writePdf, type PdfOutput, type PdfPage, type PdfSummary } from '../engine/pdf/document';
import type { PreparedPdfPage } from '../engine/pdf/prepare';
import type { PreparedRender } from '../engine/preview';
import type { ServerTiming } from '../http/server-timing';
import type { ResultStore } from './store/results';

/**
 * The cached preview for `prepared`, or a new one (`created`: this call stored it). With `keep`
 * the name is returned before the writes land (ResultStore.putLater serves it meanwhile) and
 * `keep` receives the writes (for waitUntil).
 */
export async function cachedPreview(
  results: ResultStore,
  prepared: PreparedRender,
  disableCache: boolean,
  timing?: ServerTiming,
  keep?: (written: Promise<void>) => void,
): Promise<{ name: string; created: boolean }> {
  if (!disableCache) {
    const hit = timing ? await timing.time('lookup', () => results.lookup(prepared.fingerprint)) : await results.lookup(prepared.fingerprint);
    if (hit) return { name: hit, created: false };
  }
  const out = await prepared.render(timing);
  if (keep) {
    const later = () => results.putLater(out.bytes, out.ext, out.contentType, prepared.fingerprint);
    const { name, written } = timing ? await timing.time('store', later) : await later();
    keep(written);
    return { name, created: true };
  }
  const store = () => results.put(out.bytes, out.ext, out.contentType, prepared.fingerprint);
  return { name: timing ? await timing.time('store', store) : await store(), created: true };
}

/** The cached PDF for `fingerprint`, or a new one made of `pages` (with how it went). */
export async function cachedPdf(
  results: ResultStore,
  fingerprint: string,
  pages: Array<Pick<PreparedPdfPage, 'load' | 'template' | 'output'>>,
  disableCache: boolean,
): Promise<{ name: string; summary?: PdfSummary }> {
  const hit = disableCache ? null : await results.lookup(fingerprint);
  if (hit) return { name: hit };
  // One document has one output condition: its first page's (multipage requests check they agree).
  return storePdf(results, fingerprint, pages.map((p) => p.load), pages[0]?.template.name, pages[0]?.output);
}

/** `Server-Timing` (W3C) for a fresh PDF: where the time went. */
export function pdfServerTiming(s: PdfSummary): string {
  const t = s.timing;
  const strips = `strips jpeg ${s.strips.jpeg} flate ${s.strips.flate} empty ${s.strips.empty} reused ${s.strips.reused}`;
  return `load;dur=${t.loadMs}, render;dur=${t.renderMs}, encode;dur=${t.encodeMs}, reuse;dur=${t.reuseMs}, pdf;dur=${t.totalMs};desc="${s.pages} page(s), ${s.bytes} bytes, ${strips}"`;
}

/** Streams a PDF into a new result (ResultStore.putStream) and records it in the cache index. */
async function storePdf(
  results: ResultStore,
  fingerprint: string,
  pages: Array<() => Promise<PdfPage>>,
  title?: string,
  output?: PdfOutput,
): Promise<{ name: string; summary: PdfSummary }> {
  const { name, value } = await results.putStream('pdf', 'application/pdf', fingerprint, (sink) => writePdf(sink, pages, { title, output }));
  return { name, summary: value };
}
