/**
 * The original service matched everything after `/api/` case-insensitively, accepted a trailing
 * slash anywhere and a `model.` prefix on query names (rendering contract, "Names and URLs").
 * Rather than teaching every route, requests of the rendering area are canonicalised once:
 *
 * - the path, before routing (`canonicalRenderingPath`, used as the app's getPath): the fixed
 *   segments of known endpoints take their canonical spelling; parameters (file names, which
 *   are case-sensitive) are left alone; a trailing slash is dropped;
 * - query names and JSON property names, before validation (`canonicalQuery`,
 *   `canonicalNames`), driven by the route's own zod schemas: only names the schema declares are
 *   renamed, and record keys (layer names in `data`) never are.
 */
import { unwrapSchema as unwrap, type AnySchema } from '../lib/zod-schema';

/** Fixed segments of the rendering endpoints, longest first; `method` narrows ambiguous ones. */
const ENDPOINTS: Array<{ segments: string[]; method?: string }> = [
  { segments: ['api', 'rendering', 'multipage', 'preview'] },
  { segments: ['api', 'rendering', 'multipage', 'hires'] },
  { segments: ['api', 'rendering', 'preview', 'url'], method: 'POST' },
  { segments: ['api', 'resources', 'images', 'preview'], method: 'GET' },
  { segments: ['api', 'resources', 'fonts', 'reload'], method: 'POST' },
  { segments: ['api', 'resources', 'images'] },
  { segments: ['api', 'resources', 'templates'] },
  { segments: ['api', 'resources', 'fonts'] },
  { segments: ['api', 'information', 'template'] },
  { segments: ['api', 'rendering', 'preview'] },
  { segments: ['api', 'rendering', 'hires'] },
  { segments: ['api', 'rendering', 'preflight'], method: 'POST' },
  { segments: ['api', 'results', 'download'] },
  { segments: ['api', 'results', 'delete'] },
  { segments: ['api', 'Info'] },
];

/**
 * `/API/Resources/Images/cards/` → `/api/resources/images/cards`. Paths outside the rendering
 * area come back unchanged.
 */
export function canonicalRenderingPath(path: string, method: string): string {
  const parts = path.split('/').slice(1);
  for (const { segments, method: only } of ENDPOINTS) {
    if (only && only !== method && !(only === 'GET' && method === 'HEAD')) continue;
    if (parts.length < segments.length) continue;
    if (!segments.every((s, i) => s.toLowerCase() === parts[i].toLowerCase())) continue;
    const rest = parts.slice(segments.length);
    while (rest.length && rest[rest.length - 1] === '') rest.pop();
    return '/' + [...segments, ...rest].join('/');
  }
  return path;
}

// --- schema-driven names -------------------------------------------------------------------

/**
 * Property names of each schema, worked out once per isolate: schemas are module constants, and
 * walking them again cost ~1.3 ms of every rendering request in workerd (issue 25 §3). The maps
 * are shared: callers read them and never change them.
 */
const propertiesKnown = new WeakMap<NonNullable<AnySchema>, ReadonlyMap<string, [string, AnySchema[]]>>();

/** Property names (lower case → canonical name and the schemas that may describe its value). */
function propertiesOf(schema: AnySchema): ReadonlyMap<string, [string, AnySchema[]]> {
  if (!schema) return new Map();
  let props = propertiesKnown.get(schema);
  if (!props) propertiesKnown.set(schema, (props = propertiesFound(schema)));
  return props;
}

function propertiesFound(schema: AnySchema): Map<string, [string, AnySchema[]]> {
  const def = unwrap(schema)?._zod.def;
  if (def?.type === 'object') {
    return new Map(Object.entries(def.shape as Record<string, AnySchema>).map(([key, value]) => [key.toLowerCase(), [key, [value]]]));
  }
  if (def?.type === 'union') return mergedProperties(def.options as AnySchema[]);
  if (def?.type === 'intersection') return mergedProperties([def.left, def.right]);
  return new Map();
}

/** The declared spelling of a string literal or enum value, matched case-insensitively. */
function canonicalString(schemas: AnySchema[], value: string): string {
  const lower = value.toLowerCase();
  for (const schema of schemas) {
    const def = unwrap(schema)?._zod.def;
    const allowed: unknown[] = def?.type === 'literal' ? def.values : def?.type === 'enum' ? Object.values(def.entries) : [];
    const match = allowed.find((v) => typeof v === 'string' && v.toLowerCase() === lower);
    if (typeof match === 'string') return match;
  }
  return value;
}

/**
 * Renames object keys of `value` to the spelling `schema` declares (case-insensitively), all the
 * way down, and gives enum and literal string values their declared spelling (as the original
 * service's JSON reader did); keys the schema does not know, and keys of records, stay as sent.
 */
export function canonicalNames(schema: AnySchema | AnySchema[], value: unknown): unknown {
  const schemas = (Array.isArray(schema) ? schema : [schema]).filter(Boolean);
  if (typeof value === 'string') return canonicalString(schemas, value);
  if (value === null || typeof value !== 'object' || !schemas.length) return value;
  const defs = schemas.map((s) => unwrap(s)?._zod.def).filter(Boolean) as Array<Record<string, any>>;
  if (Array.isArray(value)) {
    const elements = defs.filter((d) => d.type === 'array').map((d) => d.element);
    return elements.length ? value.map((v) => canonicalNames(elements, v)) : value;
  }
  const record = defs.find((d) => d.type === 'record');
  if (record) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonicalNames(record.valueType, v)]));
  }
  const props = schemas.length === 1 ? propertiesOf(schemas[0]) : mergedProperties(schemas);
  if (!props.size) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const known = props.get(key.toLowerCase());
    const name = known ? known[0] : key;
    // An exact spelling wins over a case variant sent alongside it.
    if (name in out && key !== name) continue;
    out[name] = known ? canonicalNames(known[1], v) : v;
  }
  return out;
}

/** The property names of several schemas together (a value any of them may describe). */
function mergedProperties(schemas: AnySchema[]): Map<string, [string, AnySchema[]]> {
  const props = new Map<string, [string, AnySchema[]]>();
  for (const s of schemas) {
    for (const [k, [name, list]] of propertiesOf(s)) {
      const known = props.get(k);
      if (known) known[1].push(...list);
      else props.set(k, [name, [...list]]);
    }
  }
  return props;
}

/**
 * Query names: `Model.JpegQuality` → `jpegQuality` for the names the route's query schema
 * declares. Returns a new URL when something changed, else null.
 */
export function canonicalQuery(schema: AnySchema, url: URL): URL | null {
  const props = propertiesOf(schema);
  if (!props.size || !url.search) return null;
  const out = new URLSearchParams();
  let changed = false;
  for (const [key, value] of url.searchParams) {
    const bare = key.replace(/^model\./i, '');
    const name = props.get(bare.toLowerCase())?.[0] ?? key;
    if (name !== key) changed = true;
    out.append(name, value);
  }
  if (!changed) return null;
  const next = new URL(url);
  next.search = out.toString();
  return next;
}
