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
