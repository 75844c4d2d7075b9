import lcmsWasm from 'lcms-wasm/dist/lcms.wasm';

/**
 * LittleCMS 2.16 compiled to WebAssembly: the `lcms.wasm` of the `lcms-wasm` package (MIT; lcms2
 * is MIT), compiled at deploy time (Workers cannot compile WASM bytes at run time) and
 * instantiated here on first use, synchronously, with our own small set of imports in place of
 * the package's emscripten glue. Why not the glue: it takes workerd (which has `process`) for
 * Node, whose branch awaits `import('module')`, so it can only start asynchronously; the PSD
 * decoder converts CMYK rows inside synchronous code, and one instance per isolate is all we need.
 *
 * The imports are what this build asks for: memory growth, memcpy, a clock, and stubs for a
 * file system and C++ exceptions that LittleCMS (C, no FILE I/O from memory profiles) never uses.
 */
export interface Lcms {
  readonly HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(ptr: number): void;
  _cmsOpenProfileFromMem(ptr: number, size: number): number;
  _cmsCloseProfile(profile: number): number;
  _cmsCreateTransform(input: number, inputFormat: number, output: number, outputFormat: number, intent: number, flags: number): number;
  _cmsDeleteTransform(transform: number): void;
  _cmsDoTransform(transform: number, input: number, output: number, size: number): void;
  _cmsCreateLab4Profile(whitePoint: number): number;
  _cmsGetColorSpace(profile: number): number;
}

let instance: Lcms | undefined;

/** The isolate's LittleCMS, instantiated on the first call. */
export function lcmsSync(): Lcms {
  return (instance ??= start());
}

/** The same, for callers that prefer a promise (the agreed async interface). */
export async function lcms(): Promise<Lcms> {
  return lcmsSync();
}

function start(): Lcms {
  let memory!: WebAssembly.Memory;
  let heap = new Uint8Array(0);
  const bytes = () => (heap.buffer === memory.buffer ? heap : (heap = new Uint8Array(memory.buffer)));
  let exports!: Record<string, (...args: number[]) => number>;
  let table!: WebAssembly.Table;
  const fail = (what: string) => () => {
    throw new Error(`LittleCMS: ${what}`);
  };
  // Indirect calls that emscripten routes through JS for C++ exception support: LittleCMS is
  // C and throws none, so anything thrown is an abort and goes on up (the stack restored).
  const invoke = (index: number, ...args: number[]) => {
    const sp = exports.stackSave();
    try {
      return (table.get(index) as (...a: number[]) => number)(...args);
    } catch (e) {
      exports.stackRestore(sp);
      throw e;
    }
  };
  const env = {
    __assert_fail: fail('assertion failed'),
    abort: fail('abort'),
    emscripten_memcpy_js: (dest: number, src: number, n: number) => void bytes().copyWithin(dest, src, src + n),
    emscripten_date_now: () => Date.now(),
    emscripten_resize_heap: (requested: number) => {
      const pages = Math.ceil((requested - memory.buffer.byteLength) / 65536);
      try {
        memory.grow(pages);
        return 1;
      } catch {
        return 0;
      }
    },
    __syscall_openat: () => -52, // ENOSYS: no file system
    __syscall_fcntl64: () => -52,
    __syscall_ioctl: () => -52,
    __syscall_unlinkat: () => -52,
    __syscall_rmdir: () => -52,
    _tzset_js: () => {},
    _gmtime_js: (_time: number, tm: number) => void bytes().fill(0, tm, tm + 36),
    invoke_ii: invoke,
    invoke_iii: invoke,
    invoke_v: invoke,
    invoke_vi: invoke,
    invoke_vii: invoke,
    invoke_viii: invoke,
    invoke_viiii: invoke,
    __cxa_find_matching_catch_2: fail('C++ exception'),
    __cxa_find_matching_catch_3: fail('C++ exception'),
    __cxa_begin_catch: fail('C++ exception'),
    __resumeException: fail('C++ exception'),
  };
  const wasi = {
    // Diagnostics LittleCMS might print go nowhere; report them written.
    fd_write: (_fd: number, iov: number, count: number, written: number) => {
      const view = new DataView(memory.buffer);
      let total = 0;
      for (let i = 0; i < count; i++) total += view.getUint32(iov + i * 8 + 4, true);
      view.setUint32(written, total, true);
      return 0;
    },
    fd_read: () => 52,
    fd_close: () => 52,
    fd_seek: () => 52,
  };
  const wasm = new WebAssembly.Instance(lcmsWasm, { env, wasi_snapshot_preview1: wasi });
  exports = wasm.exports as typeof exports;
  memory = wasm.exports.memory as WebAssembly.Memory;
  table = wasm.exports.__indirect_function_table as WebAssembly.Table;
  exports.emscripten_stack_init();
  exports.__wasm_call_ctors();
  const e = exports;
  return {
    get HEAPU8() {
      return bytes();
    },
    _malloc: (size) => e.malloc(size),
    _free: (ptr) => void e.free(ptr),
    _cmsOpenProfileFromMem: (ptr, size) => e.cmsOpenProfileFromMem(ptr, size),
    _cmsCloseProfile: (p) => e.cmsCloseProfile(p),
    _cmsCreateTransform: (i, fi, o, fo, intent, flags) => e.cmsCreateTransform(i, fi, o, fo, intent, flags),
    _cmsDeleteTransform: (t) => void e.cmsDeleteTransform(t),
    _cmsDoTransform: (t, i, o, n) => void e.cmsDoTransform(t, i, o, n),
    _cmsCreateLab4Profile: (wp) => e.cmsCreateLab4Profile(wp),
    _cmsGetColorSpace: (p) => e.cmsGetColorSpace(p),
  };
}
