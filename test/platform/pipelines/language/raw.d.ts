/** Vite `?raw` imports: a file's text (docs-examples.test.ts reads docs/pipelines.md). */
declare module '*?raw' {
  const text: string;
  export default text;
}
