// `*.icc` imports are Data modules (wrangler.toml [[rules]]): the file's bytes.
declare module '*.icc' {
  const bytes: ArrayBuffer;
  export default bytes;
}
