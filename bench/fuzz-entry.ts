// Entry of bench/fuzz-psd.mjs: what the Worker runs on a template upload (readHeader, compile),
// on GET information (templateInfoWithSettings), on a preview, a preflight and a print PDF, with
// bench/memory-entry.ts's directory store. `run` answers how each step ended: ok, an engine error
// (a 4xx over HTTP), or anything else (a 500 over HTTP).
import { EngineError } from '../src/engine/errors';
import { ApiError } from '../src/errors';
import { compileTemplate, readHeader } from '../src/engine/index';
import { templateInfoWithSettings } from '../src/engine/preflight/layer-settings';
import { preflightPreview } from '../src/engine/preview';
import { clearEngineCaches } from '../src/engine/cache';
import { UrlImages, type InputStore } from '../src/engine/inputs';
import { dirStore, preview, printPdf } from './memory-entry';
import type { FrameLayer } from '../src/engine/types';

/** A text for the first text layer, a colour for the first shape, the first other layer toggled. */
function dataFor(layers: FrameLayer[]): Record<string, unknown> {
  const all: FrameLayer[] = [];
  const walk = (ls: FrameLayer[]) => ls.forEach((l) => (all.push(l), walk(l.layers ?? [])));
  walk(layers);
  const data: Record<string, unknown> = {};
  const text = all.find((l) => l.type === 'Text');
  if (text) data[text.name] = { type: 'text', text: 'Fuzz ünï 123 — a longer line' };
  const shape = all.find((l) => l.type === 'Shape' && !(l.name in data));
  if (shape) data[shape.name] = { type: 'shape', color: '#ff0000' };
  const other = all.find((l) => !(l.name in data) && l.type !== 'Group');
  if (other) data[other.name] = { type: 'visibility', visible: !other.visible };
  return data;
}

export { dirStore };

const deps = { urlImages: new UrlImages(async () => { throw new Error('no URL images in the fuzz'); }) };

export type Outcome = { step: string; kind: 'ok' | '4xx' | '500'; message?: string; stack?: string; ms: number };

/** A 4xx over HTTP: an engine error (src/dynamic-image/errors.ts) or an ApiError below 500. */
const isClientError = (e: unknown) => e instanceof EngineError || (e instanceof ApiError && e.status < 500);

async function step(out: Outcome[], name: string, f: () => Promise<unknown>): Promise<boolean> {
  const t = performance.now();
  try {
    await f();
    out.push({ step: name, kind: 'ok', ms: performance.now() - t });
    return true;
  } catch (e) {
    const err = e as Error;
    out.push({ step: name, kind: isClientError(e) ? '4xx' : '500', message: `${err?.name}: ${err?.message}`.slice(0, 400), stack: isClientError(e) ? undefined : err?.stack?.split('\n').slice(0, 8).join('\n'), ms: performance.now() - t });
    return false;
  }
}

/** Upload, information, previews (and a print PDF when `pdf`) of `bytes` as template `name`. */
export async function run(store: InputStore, name: string, bytes: Uint8Array, options: { sizes: number[]; pdf: boolean; personalise: boolean }): Promise<Outcome[]> {
  const out: Outcome[] = [];
  clearEngineCaches();
  let compiled: Awaited<ReturnType<typeof compileTemplate>> | undefined;
  const uploaded = await step(out, 'upload', async () => {
    readHeader(bytes);
    compiled = await compileTemplate(store.bucket, bytes.slice());
  });
  if (!uploaded || !compiled) return out;
  await store.put('templates', name, bytes, { meta: { compiled: compiled.hash } });
  let layers: FrameLayer[] = [];
  await step(out, 'info', async () => void JSON.stringify((layers = templateInfoWithSettings(compiled!, true).layers)));
  const data = options.personalise ? dataFor(layers) : undefined;
  for (const size of options.sizes) {
    await step(out, `preview ${size}`, () => preview(store, { template: name, size: { width: size, height: size }, format: size % 2 ? 'png' : 'jpg', unsharpMask: size % 3 ? null : { amount: 1, radius: 0.5, threshold: 0 }, data: data as never }));
  }
  if (data) {
    await step(out, 'preflight', () => preflightPreview(store, { template: name, size: { width: 300, height: 300 }, format: 'jpg', jpegQuality: 80, unsharpMask: null, data: data as never }, deps));
  }
  if (options.pdf) await step(out, 'pdf', () => printPdf(store, { template: name, data: data as never }));
  return out;
}
