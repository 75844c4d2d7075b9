// `*.wasm` imports are CompiledWasm modules (wrangler.toml [[rules]]): a WebAssembly.Module.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
