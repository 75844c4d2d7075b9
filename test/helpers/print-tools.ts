// Prepress tools for colour and PDF/X checks, merged into the fixture server's POST /tools/<name>
// table (test/global-setup.ts). Each entry maps the uploaded file (and query) to one program and
// its arguments (no shell); files the program writes as `page*` in `dir` come back base64.
type Tool = (file: string, q: URLSearchParams, dir: string) => [string, string[]];
export const PRINT_TOOLS: Record<string, Tool> = {};

