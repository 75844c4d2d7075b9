/**
 * The one validator of `PrintProduct` models: every problem at once, each under its JSON path
 * (`surfaces[0].containers[1].items[3].font.postscriptName`; the root is `$`), structural ones
 * from the zod schema and the semantic rules below, which the schema alone cannot express.
 *
 * Property names and enum values match ignoring ASCII case (platform contract, Conventions);
 * two spellings of one property in one object is an error.
 */
import { InvalidInput, type ErrorDetail } from '../errors';
import { MODEL_LIMITS, PrintProduct, type PrintProductModel } from './schema';
import { unwrapSchema, type AnySchema } from '../../lib/zod-schema';

export type ModelErrors = Record<string, string[]>;

export interface ValidateOptions {
  /** True when the font store (tenant's or instance's) has this PostScript name. Absent: fonts are not checked. */
  fontExists?: (postscriptName: string) => boolean | Promise<boolean>;
}

export type ValidationResult = { ok: true; model: PrintProductModel } | { ok: false; errors: ModelErrors };

/** Invalid input naming every problem by JSON path: `errors`, and the same as the engine's `details` (a 400 wherever it is mapped). */
export class ModelValidationError extends InvalidInput {
  constructor(
    readonly errors: ModelErrors,
    message = 'The design model is invalid.',
  ) {
    super(`${message.replace(/\.$/, '')}: ${summary(errors)}`, detailsOf(errors));
  }
}

/** Errors by path → the engine's details, one per reason, in order. */
export const detailsOf = (errors: ModelErrors): ErrorDetail[] => Object.entries(errors).flatMap(([path, reasons]) => reasons.map((reason) => ({ path, reason })));

/** The first few problems as one sentence (the full list is in `errors`). */
function summary(errors: ModelErrors): string {
  const all = Object.entries(errors).flatMap(([path, reasons]) => reasons.map((r) => `${path}: ${r}`));
  return all.slice(0, 3).join('; ') + (all.length > 3 ? `; and ${all.length - 3} more.` : '.');
}

/** JSON path of a zod-style path: `surfaces[0].containers[1].items[3].font.postscriptName`, root `$`. */
export function jsonPath(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  let out = prefix;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(String(key))) out += out ? `.${String(key)}` : String(key);
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '$';
}

export class ErrorList {
  readonly errors: ModelErrors = {};
  add(path: string, message: string): void {
    (this.errors[path || '$'] ??= []).includes(message) || this.errors[path || '$'].push(message);
  }
  get empty(): boolean {
    return Object.keys(this.errors).length === 0;
  }
}

/** Validates a model (any JSON value) and returns it with defaults and ids filled in, or every error. */
export async function validateModel(input: unknown, options: ValidateOptions = {}): Promise<ValidationResult> {
  const errors = new ErrorList();
  const canonical = canonicalize(PrintProduct, input, [], errors);
  const parsed = PrintProduct.safeParse(canonical);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      // Strict objects report unknown keys once for the object; name each key instead.
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) errors.add(jsonPath([...issue.path, key]), 'unknown property');
      } else {
        errors.add(jsonPath(issue.path), issue.message);
      }
    }
  }
  await semanticChecks(canonical, errors, options);
  return errors.empty && parsed.success ? { ok: true, model: parsed.data } : { ok: false, errors: errors.errors };
}

/** validateModel that throws ModelValidationError (400) on failure. */
export async function parseModel(input: unknown, options: ValidateOptions = {}): Promise<PrintProductModel> {
  const result = await validateModel(input, options);
  if (!result.ok) throw new ModelValidationError(result.errors);
  return result.model;
}

// ---------------------------------------------------------------------------------------------
// Case-insensitive property names and enum values, driven by the schema.

// zod v4 internals: every schema has `_zod.def` with a `type` and its children.
type AnyDef = Record<string, any> & { type: string };
const defOf = (s: unknown): AnyDef | undefined => (s as { _zod?: { def: AnyDef } } | undefined)?._zod?.def;

/** The def under optional/nullable/default/lazy/pipe wrappers (the one unwrapping all name matchers share). */
const unwrap = (schema: unknown): AnyDef | undefined => defOf(unwrapSchema(schema as AnySchema));

function options(def: AnyDef): AnyDef[] {
  if (def.type === 'union') return (def.options as unknown[]).flatMap((o) => {
    const d = unwrap(o);
    return d ? options(d) : [];
  });
  return [def];
}

function canonicalize(schema: unknown, value: unknown, path: PropertyKey[], errors: ErrorList): unknown {
  const def = unwrap(schema);
  if (!def) return value;
  const defs = options(def);
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    for (const d of defs) {
      const allowed: unknown[] = d.type === 'literal' ? d.values : d.type === 'enum' ? Object.values(d.entries) : [];
      const match = allowed.find((v) => typeof v === 'string' && v.toLowerCase() === lower);
      if (typeof match === 'string') return match;
    }
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const array = defs.find((d) => d.type === 'array');
    return array ? value.map((v, i) => canonicalize(array.element, v, [...path, i], errors)) : value;
  }
  const record = defs.find((d) => d.type === 'record');
  if (record) return value; // record keys (e.g. request headers) stay verbatim
  const objects = defs.filter((d) => d.type === 'object');
  if (!objects.length) return value;
  // A discriminated union: the option named by `type` (any case) declares the properties.
  let chosen = objects;
  if (objects.length > 1) {
    const typeKey = Object.keys(value).find((k) => k.toLowerCase() === 'type');
    const t = typeKey && String((value as Record<string, unknown>)[typeKey]).toLowerCase();
    const match = objects.filter((o) => {
      const lit = unwrap(o.shape.type);
      return lit?.type === 'literal' && lit.values.some((v: unknown) => String(v).toLowerCase() === t);
    });
    if (match.length) chosen = match;
  }
  const props = new Map<string, [string, unknown]>();
  for (const o of chosen) for (const [k, s] of Object.entries(o.shape as Record<string, unknown>)) props.set(k.toLowerCase(), [k, s]);
  const out: Record<string, unknown> = {};
  const spelledAs = new Map<string, string>();
  for (const [key, v] of Object.entries(value)) {
    const known = props.get(key.toLowerCase());
    if (!known) {
      out[key] = v;
      continue;
    }
    const [name, s] = known;
    const earlier = spelledAs.get(name);
    if (earlier !== undefined) {
      errors.add(jsonPath([...path, key]), `"${key}" and "${earlier}" are two spellings of one property`);
      continue;
    }
    spelledAs.set(name, key);
    out[name] = canonicalize(s, v, [...path, name], errors);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Semantic rules (on the canonical input, tolerant of anything malformed: the schema reports that).

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

async function semanticChecks(model: unknown, errors: ErrorList, options: ValidateOptions): Promise<void> {
  if (!isObject(model)) return;
  const ids = new Map<string, string>();
  const variables = new Map<string, string>();
  const fonts = new Map<string, string[]>();
  let itemCount = 0;

  const claimId = (obj: Json, path: string) => {
    if (typeof obj.id !== 'string') return;
    const first = ids.get(obj.id);
    if (first !== undefined) errors.add(`${path}.id`, `id "${obj.id}" is already used by ${first}`);
    else ids.set(obj.id, path);
  };

  const checkItem = (item: unknown, path: string) => {
    itemCount++;
    if (!isObject(item)) return;
    claimId(item, path);
    const type = item.type;
    const variable = item.isVariable === true;
    if (variable) {
      if (type !== 'Text' && type !== 'Image' && type !== 'Barcode') errors.add(`${path}.isVariable`, 'only Text and Image items (and Barcodes) can be variables');
      const name = typeof item.name === 'string' ? item.name : '';
      if (!name.trim()) errors.add(`${path}.name`, 'a variable needs a name (variableData refers to it)');
      else if (variables.has(name)) errors.add(`${path}.name`, `variable name "${name}" is already used by ${variables.get(name)}`);
      else variables.set(name, path);
    }
    if (isObject(item.constraints)) {
      const c = item.constraints;
      if (!variable) errors.add(`${path}.constraints`, 'constraints apply to variables only (isVariable: true)');
      if (c.maxLength !== undefined && type !== 'Text') errors.add(`${path}.constraints.maxLength`, 'maxLength applies to Text items only');
      if (c.allowedFolder !== undefined && type !== 'Image') errors.add(`${path}.constraints.allowedFolder`, 'allowedFolder applies to Image items only');
      const max = num(c.maxLength);
      if (type === 'Text' && max !== undefined && typeof item.text === 'string' && [...item.text].length > max) {
        errors.add(`${path}.text`, `longer than the variable's maxLength (${max} characters)`);
      }
    }
    if (type === 'Image' && !variable && (item.source === undefined || item.source === null)) {
      errors.add(`${path}.source`, 'an Image needs a source unless it is a variable');
    }
    if (type === 'Text' && isObject(item.font) && typeof item.font.postscriptName === 'string' && item.font.postscriptName) {
      const paths = fonts.get(item.font.postscriptName) ?? [];
      paths.push(`${path}.font.postscriptName`);
      fonts.set(item.font.postscriptName, paths);
    }
    if (type === 'Rectangle') {
      const r = num(item.cornerRadius);
      const w = num(item.width);
      const h = num(item.height);
      if (r !== undefined && w !== undefined && h !== undefined && r > Math.min(w, h) / 2 + 1e-9) {
        errors.add(`${path}.cornerRadius`, `at most half the shorter side (${Math.min(w, h) / 2})`);
      }
    }
    if (type === 'Group') list(item.items).forEach((child, i) => checkItem(child, `${path}.items[${i}]`));
  };

  list(model.surfaces).forEach((surface, s) => {
    const sp = `surfaces[${s}]`;
    if (!isObject(surface)) return;
    claimId(surface, sp);
    const W = num(surface.width);
    const H = num(surface.height);
    list(surface.printAreas).forEach((area, a) => {
      const ap = `${sp}.printAreas[${a}]`;
      if (!isObject(area)) return;
      claimId(area, ap);
      const b = isObject(area.bounds) ? area.bounds : undefined;
      const bleed = isObject(area.bleed) ? area.bleed : {};
      const [x, y, w, h] = [num(b?.x) ?? 0, num(b?.y) ?? 0, num(b?.width), num(b?.height)];
      if (w === undefined || h === undefined) return;
      if (W !== undefined && H !== undefined && (x < -1e-9 || y < -1e-9 || x + w > W + 1e-9 || y + h > H + 1e-9)) {
        errors.add(`${ap}.bounds`, `must lie within the surface (0, 0, ${W}, ${H})`);
      }
      const pageW = w + (num(bleed.left) ?? 0) + (num(bleed.right) ?? 0);
      const pageH = h + (num(bleed.top) ?? 0) + (num(bleed.bottom) ?? 0);
      if (pageW > MODEL_LIMITS.pagePoints || pageH > MODEL_LIMITS.pagePoints) {
        errors.add(`${ap}.bleed`, `the page (bounds plus bleed, ${pageW} × ${pageH} pt) exceeds ${MODEL_LIMITS.pagePoints} pt`);
      }
      const r = num(area.cornerRadius);
      if (area.shape === 'RoundedRectangle' && r !== undefined && r > Math.min(w, h) / 2 + 1e-9) {
        errors.add(`${ap}.cornerRadius`, `at most half the shorter side (${Math.min(w, h) / 2})`);
      }
      list(area.safetyLines).forEach((line, l) => {
        const m = isObject(line) && isObject(line.margin) ? line.margin : {};
        const [left, top, right, bottom] = [num(m.left) ?? 0, num(m.top) ?? 0, num(m.right) ?? 0, num(m.bottom) ?? 0];
        if (left + right >= w || top + bottom >= h) errors.add(`${ap}.safetyLines[${l}].margin`, `leaves no safe area inside the bounds (${w} × ${h})`);
      });
    });
    list(surface.containers).forEach((container, c) => {
      const cp = `${sp}.containers[${c}]`;
      if (!isObject(container)) return;
      claimId(container, cp);
      list(container.items).forEach((item, i) => checkItem(item, `${cp}.items[${i}]`));
    });
  });

  if (itemCount > MODEL_LIMITS.items) errors.add('surfaces', `at most ${MODEL_LIMITS.items} items in a model (group children count), got ${itemCount}`);

  if (options.fontExists && fonts.size) {
    const known = await Promise.all([...fonts.keys()].map(async (name) => [name, await options.fontExists!(name)] as const));
    for (const [name, ok] of known) {
      if (!ok) for (const p of fonts.get(name)!) errors.add(p, `unknown font "${name}"; upload it to the font store first`);
    }
  }
}
