import { instantiate } from 'lcms-wasm';
import lcmsWasm from 'lcms-wasm/dist/lcms.wasm';

/**
 * LittleCMS 2.16 compiled to WebAssembly by the `lcms-wasm` package (MIT; lcms2 is MIT). Loaded
 * on first use, once per isolate: the module is compiled at deploy time (Workers cannot compile
 * WASM bytes at run time) and instantiated through emscripten's `instantiateWasm` hook.
 */
export type Lcms = Awaited<ReturnType<typeof instantiate>>;

let loading: Promise<Lcms> | undefined;

export function lcms(): Promise<Lcms> {
  loading ??= load().catch((e) => {
    loading = undefined; // a failed start is retried by the next caller
    throw e;
  });
  return loading;
}

function load(): Promise<Lcms> {
  let failed!: (e: unknown) => void;
  const failure = new Promise<never>((_, reject) => (failed = reject));
  const ready = instantiate({
    instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      WebAssembly.instantiate(lcmsWasm, imports).then((instance) => receive(instance, lcmsWasm), failed);
      return {};
    },
    print: () => {},
    printErr: () => {},
  } as Parameters<typeof instantiate>[0]);
  return Promise.race([ready, failure]);
}
