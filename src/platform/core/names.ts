/**
 * Case-insensitive names on input (contract, Conventions): declared property names, query names
 * and enum values are matched ignoring ASCII case and given their declared spelling BEFORE zod
 * validates, driven by the route's own schemas. Record keys (`customFields`, `fields`, `hidden`,
 * `itemsData`, `requestHeaders`…) are kept verbatim; two spellings of one declared name in the
 * same object are a 400 (which one was meant is not ours to guess).
 */
import type { ErrorsByPath } from './errors';
import { jsonPath } from './problem';
import { unwrapSchema as unwrap, type AnySchema } from '../../lib/zod-schema';

type Props = Map<string, { name: string; schemas: AnySchema[] }>;

/** Declared property names (lower case → declared spelling and the schemas of its value). */
function propertiesOf(schema: AnySchema, into: Props = new Map()): Props {
  const s = unwrap(schema);
  if (!s) return into;
  const def = s._zod.def;
  if (def.type === 'object') {
    for (const [key, value] of Object.entries(def.shape as Record<string, AnySchema>)) {
      const k = key.toLowerCase();
      const known = into.get(k);
      if (known) known.schemas.push(value);
      else into.set(k, { name: key, schemas: [value] });
    }
  } else if (def.type === 'union') {
    for (const option of def.options as AnySchema[]) propertiesOf(option, into);
  } else if (def.type === 'intersection') {
    propertiesOf(def.left, into);
    propertiesOf(def.right, into);
  }
  return into;
}

/** The declared spelling of an enum or literal value, matched ignoring case; else the value. */
function canonicalString(schemas: AnySchema[], value: string): string {
  const lower = value.toLowerCase();
  for (const schema of schemas) {
    const s = unwrap(schema);
    const def = s?._zod.def;
    if (!def) continue;
    const allowed: unknown[] =
      def.type === 'literal' ? def.values : def.type === 'enum' ? Object.values(def.entries) : def.type === 'union' ? [] : [];
    if (def.type === 'union') {
      const inner = canonicalString(def.options, value);
      if (inner !== value) return inner;
    }
    if (allowed.includes(value)) return value;
    const match = allowed.find((v) => typeof v === 'string' && v.toLowerCase() === lower);
    if (typeof match === 'string') return match;
  }
  return value;
}

function walk(schemas: AnySchema[], value: unknown, path: PropertyKey[], errors: ErrorsByPath): unknown {
  if (typeof value === 'string') return canonicalString(schemas, value);
  if (value === null || typeof value !== 'object' || !schemas.length) return value;
  const defs = schemas.map((s) => unwrap(s)?._zod.def).filter(Boolean) as Array<Record<string, any>>;
  if (Array.isArray(value)) {
    const elements: AnySchema[] = [];
    for (const d of defs) {
      if (d.type === 'array') elements.push(d.element);
      if (d.type === 'union') for (const o of d.options as AnySchema[]) if (unwrap(o)?._zod.def.type === 'array') elements.push(unwrap(o)!._zod.def.element);
    }
    return elements.length ? value.map((v, i) => walk(elements, v, [...path, i], errors)) : value;
  }
  const record = defs.find((d) => d.type === 'record');
  if (record) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk([record.valueType], v, [...path, k], errors)]));
  }
  const props: Props = new Map();
  for (const s of schemas) propertiesOf(s, props);
  if (!props.size) return value;
  const out: Record<string, unknown> = {};
  const spelledAs = new Map<string, string>();
  for (const [key, v] of Object.entries(value)) {
    const known = props.get(key.toLowerCase());
    if (!known) {
      out[key] = v;
      continue;
    }
    const earlier = spelledAs.get(known.name);
    if (earlier !== undefined) {
      (errors[jsonPath([...path, known.name])] ??= []).push(`"${earlier}" and "${key}" are two spellings of one property; send it once.`);
      continue;
    }
    spelledAs.set(known.name, key);
    out[known.name] = walk(known.schemas, v, [...path, known.name], errors);
  }
  return out;
}

/**
 * `value` with declared names and enum values in their declared spelling; problems (two
 * spellings of one name) are added to `errors` by JSON path.
 */
export function canonicalJson(schema: unknown, value: unknown, errors: ErrorsByPath): unknown {
  return walk([schema as AnySchema], value, [], errors);
}

/**
 * Query names in their declared spelling (`SKIP=1` → `skip=1`), enum values too. Repeating one
 * spelling is an array (`tags=a&tags=b`); two spellings of one declared name are a 400.
 * Returns the new search string, or null when nothing changed.
 */
export function canonicalQuery(schema: unknown, search: URLSearchParams, errors: ErrorsByPath): URLSearchParams | null {
  const props = propertiesOf(schema as AnySchema);
  if (!props.size || !search.size) return null;
  const out = new URLSearchParams();
  const spelledAs = new Map<string, string>();
  let changed = false;
  for (const [key, value] of search) {
    const known = props.get(key.toLowerCase());
    const name = known?.name ?? key;
    if (known) {
      const earlier = spelledAs.get(name);
      if (earlier !== undefined && earlier !== key) {
        errors[name] = [`"${earlier}" and "${key}" are two spellings of one query parameter; send it once.`];
        continue;
      }
      spelledAs.set(name, key);
    }
    const canonicalValue = known ? canonicalQueryValue(known.schemas, value) : value;
    if (name !== key || canonicalValue !== value) changed = true;
    out.append(name, canonicalValue);
  }
  return changed ? out : null;
}

function canonicalQueryValue(schemas: AnySchema[], value: string): string {
  // An array parameter's elements are enum values too.
  const elements = schemas.flatMap((s) => {
    const def = unwrap(s)?._zod.def;
    return def?.type === 'array' ? [def.element as AnySchema] : [];
  });
  return canonicalString([...schemas, ...elements], value);
}
