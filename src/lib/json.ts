/**
 * `canonicalJson`: JSON with object keys sorted at every level, so values that mean the same give
 * the same text whatever their key order (request fingerprints, job-id idempotency, stored
 * pipelines). Shared by the engine and the platform; neither owns it.
 *
 * Keys sort as strings by UTF-16 code unit, integer-like ones too ("10" before "9"), which plain
 * `JSON.stringify` of a re-built object would not do (it lists integer keys first, numerically).
 * Undefined members are left out as `JSON.stringify` does; a bare undefined is "null".
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** How deep a JSON value we store may nest (SQLite's JSON functions give up at 1,000). */
export const MAX_JSON_DEPTH = 32;

/** Where a JSON value breaks a bound: its path (object keys and array indexes) and why. */
export interface JsonBoundProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * The first place `value` nests deeper than `maxDepth` (a scalar is depth 0, `{}` and `[]` are 1),
 * or its JSON text is longer than `maxBytes` (UTF-8), else undefined. Iterative, so a value nested
 * thousands deep (JSON.parse takes it) is measured without overflowing the stack: run it before
 * anything recursive sees the value.
 *
 * @example jsonBoundProblem({ a: [[1]] }, 2) // { path: ['a', 0], message: 'Nested deeper than 2 levels.' }
 */
export function jsonBoundProblem(value: unknown, maxDepth = MAX_JSON_DEPTH, maxBytes?: number): JsonBoundProblem | undefined {
  const stack: Array<{ v: unknown; depth: number; path: Array<string | number> }> = [{ v: value, depth: 0, path: [] }];
  while (stack.length) {
    const { v, depth, path } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { path, message: `Nested deeper than ${maxDepth} levels.` };
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1], depth: depth + 1, path: [...path, entries[i]![0]] });
  }
  if (maxBytes !== undefined) {
    const bytes = new TextEncoder().encode(JSON.stringify(value) ?? '').length;
    if (bytes > maxBytes) return { path: [], message: `Larger than ${maxBytes >= 1024 ? `${maxBytes / 1024} KB` : `${maxBytes} bytes`} of JSON.` };
  }
  return undefined;
}
