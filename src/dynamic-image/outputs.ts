/**
 * From a prepared render to a stored result: consult the result cache, render on a miss, store
 * the result with its fingerprint. Shared by the single and the multipage routes.
 */
import { writePdf, type PdfOutput, type PdfPage, type PdfSummary } from '../engine/pdf/document';
import type { PreparedPdfPage } from '../engine/pdf/prepare';
import { preflightHeader, preflightReport } from '../engine/preflight/report';
import type { PreparedRender } from '../engine/preview';
import type { ServerTiming } from '../http/server-timing';
import type { ResultStore } from './store/results';

/** The custom metadata a preview result keeps its preflight verdict in (the `X-Preflight` value). */
export const PREFLIGHT_META = 'preflight';

/** The `X-Preflight` value of a render that has run (from the problems its overrides reported). */
export const renderedPreflight = (prepared: Pick<PreparedRender, 'problems'>): string => preflightHeader(preflightReport(prepared.problems()));

type Found = Awaited<ReturnType<ResultStore['find']>>;

/**
 * Result lookups started early, by fingerprint (preparePreview's `lookahead`): `start` begins one
 * for a fingerprint the request will likely have, while its template and inputs are still being
 * looked up; `find` answers from it when the request's fingerprint is that one (a lookup issued a
 * few milliseconds sooner), else looks up as ResultStore.find does. One per preview: a started
 * lookup answers once, so a later render of the same fingerprint looks up anew (and finds it).
 */
export function earlyLookups(results: ResultStore) {
  const started = new Map<string, Promise<Found>>();
  return {
    start: (fingerprint: string): void => {
      if (started.has(fingerprint)) return;
      const found = results.find(fingerprint);
      found.catch(() => {}); // a guess that turns out wrong is never awaited
      started.set(fingerprint, found);
    },
    find: (fingerprint: string): Promise<Found> => {
      const found = started.get(fingerprint);
      started.delete(fingerprint);
      return found ?? results.find(fingerprint);
    },
  };
}

/**
 * The cached preview of what `prepare` makes (preparePreview, given `lookahead`), or a new one
 * (`created`: this call stored it), with its `X-Preflight` value: kept with the result, so a cache
 * hit answers it without rendering again. The result lookup starts with the template's head when
 * this isolate can tell the fingerprint ahead (`lookahead` feeds this preview's earlyLookups).
 * With `keep` the name is returned before the writes land (ResultStore.putLater serves it
 * meanwhile) and `keep` receives the writes (for waitUntil).
 */
export async function cachedPreview(
  results: ResultStore,
  prepare: (lookahead?: (fingerprint: string) => void) => Promise<PreparedRender>,
  disableCache: boolean,
  timing?: ServerTiming,
  keep?: (written: Promise<void>) => void,
): Promise<{ name: string; created: boolean; preflight: string }> {
  const early = disableCache ? undefined : earlyLookups(results);
  const prepared = await prepare(early?.start);
  if (early) {
    const find = () => early.find(prepared.fingerprint);
    const hit = timing ? await timing.time('lookup', find) : await find();
    // A result stored before results kept their verdict is rendered again (once: it is then replaced).
    if (hit?.meta[PREFLIGHT_META]) {
      prepared.giveUp(); // not rendered: a picture opened for the render is not read
      return { name: hit.name, created: false, preflight: hit.meta[PREFLIGHT_META] };
    }
  }
  const out = await prepared.render(timing);
  const preflight = renderedPreflight(prepared);
  const meta = { [PREFLIGHT_META]: preflight };
  if (keep) {
    const later = () => results.putLater(out.bytes, out.ext, out.contentType, prepared.fingerprint, meta);
    const { name, written } = timing ? await timing.time('store', later) : await later();
    keep(written);
    return { name, created: true, preflight };
  }
  const store = () => results.put(out.bytes, out.ext, out.contentType, prepared.fingerprint, meta);
  return { name: timing ? await timing.time('store', store) : await store(), created: true, preflight };
}

/**
 * One `X-Preflight` value for several pages (multipage previews): their errors and warnings
 * added up; `ok` when no page has a problem.
 */
export function combinedPreflight(values: readonly string[]): string {
  let errors = 0;
  let warnings = 0;
  for (const value of values) {
    errors += Number(/errors=(\d+)/.exec(value)?.[1] ?? 0);
    warnings += Number(/warnings=(\d+)/.exec(value)?.[1] ?? 0);
  }
  return errors || warnings ? `errors=${errors}; warnings=${warnings}` : 'ok';
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
