/**
 * Typed task parameters: one small spec per known parameter, built fluently
 * (`int({ min: 1, max: 2400 }).default(300)`), so that the catalogue in `tasks.ts` is both the
 * validator's schema and the source of the runner's TypeScript types.
 *
 * Parameter values arrive from JSON written by people: numbers and booleans are also accepted as
 * strings (`"300"`, `"true"`), enum values ignore ASCII case and may have aliases (`Jpg` = `Jpeg`).
 */

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** A parsed print-area filter such as `1,3,7`, `2-9` or `2-N` (`to: null` = to the last). */
export interface PageRange {
  from: number;
  to: number | null;
}

/** One `orderData` entry of export-to-ecommerce. */
export interface OrderDataEntry {
  key: string;
  value: string;
  type: 'PlainText' | 'CommaSeparatedList' | 'SerializedJson';
}

export interface ParamSpec<T = unknown, Present extends boolean = boolean> {
  readonly kind: string;
  /** Other accepted names (matched ignoring ASCII case, like the name itself). */
  readonly aliases: readonly string[];
  readonly defaultValue: T | undefined;
  readonly required: boolean;
  /** Human description of what is accepted, used in messages and docs. */
  readonly expects: string;
  /** Converts a value (already interpolated) to its typed form. */
  parse(raw: unknown): ParseResult<T>;
  /** Present is a type-level mark only: true when the normalised value is never undefined. */
  readonly __present?: Present;
}

export type ParamValue<P> =
  P extends ParamSpec<infer T, infer Present> ? (Present extends true ? T : T | undefined) : never;

/** Builder around a spec; `default()` and `required()` make the typed value non-optional. */
export class Param<T, Present extends boolean = false> implements ParamSpec<T, Present> {
  declare readonly __present?: Present;
  constructor(
    readonly kind: string,
    readonly expects: string,
    private readonly parser: (raw: unknown) => ParseResult<T>,
    readonly aliases: readonly string[] = [],
    readonly defaultValue: T | undefined = undefined,
    readonly required = false,
  ) {}

  parse(raw: unknown): ParseResult<T> {
    return this.parser(raw);
  }

  default(value: T): Param<T, true> {
    return new Param<T, true>(this.kind, this.expects, this.parser, this.aliases, value, this.required);
  }

  /** Must be given (a validation error otherwise). */
  must(): Param<T, true> {
    return new Param<T, true>(this.kind, this.expects, this.parser, this.aliases, this.defaultValue, true);
  }

  /** Never absent after normalising, though it has no fixed default: the task spec's `complete` fills it. */
  completed(): Param<T, true> {
    return new Param<T, true>(this.kind, this.expects, this.parser, this.aliases, this.defaultValue, this.required);
  }

  alias(...names: string[]): Param<T, Present> {
    return new Param<T, Present>(
      this.kind,
      this.expects,
      this.parser,
      [...this.aliases, ...names],
      this.defaultValue,
      this.required,
    );
  }
}

const ok = <T>(value: T): ParseResult<T> => ({ ok: true, value });
const fail = (error: string): ParseResult<never> => ({ ok: false, error });

const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function toNumber(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw === 'string' && NUMBER_TEXT.test(raw.trim())) return Number(raw.trim());
  return undefined;
}

/** A string; numbers and booleans are turned into their text. */
export function str(opts: { nonEmpty?: boolean; maxLength?: number } = {}) {
  const max = opts.maxLength ?? 4096;
  return new Param<string>('string', 'a string', (raw) => {
    const value = typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : raw;
    if (typeof value !== 'string') return fail('must be a string');
    if (opts.nonEmpty && value.trim() === '') return fail('must not be empty');
    if (value.length > max) return fail(`must be at most ${max} characters`);
    return ok(value);
  });
}

export function num(opts: { min?: number; max?: number; integer?: boolean } = {}) {
  const { min, max, integer } = opts;
  const what = integer ? 'an integer' : 'a number';
  const range =
    min !== undefined && max !== undefined
      ? ` from ${min} to ${max}`
      : min !== undefined
        ? ` ≥ ${min}`
        : max !== undefined
          ? ` ≤ ${max}`
          : '';
  return new Param<number>(integer ? 'integer' : 'number', `${what}${range}`, (raw) => {
    const n = toNumber(raw);
    if (n === undefined || (integer && !Number.isInteger(n))) return fail(`must be ${what}${range}`);
    if ((min !== undefined && n < min) || (max !== undefined && n > max)) {
      return fail(`must be ${what}${range}`);
    }
    return ok(n);
  });
}

export const int = (opts: { min?: number; max?: number } = {}) => num({ ...opts, integer: true });

export function bool() {
  return new Param<boolean>('boolean', 'true or false', (raw) => {
    if (typeof raw === 'boolean') return ok(raw);
    if (typeof raw === 'string') {
      const t = raw.trim().toLowerCase();
      if (t === 'true') return ok(true);
      if (t === 'false') return ok(false);
    }
    return fail('must be true or false');
  });
}

/**
 * One of `values`, matched ignoring ASCII case; `aliases` maps other spellings to a value
 * (`{ Jpg: 'Jpeg' }`). The typed value is always the canonical spelling.
 */
export function oneOf<const V extends string>(values: readonly V[], aliases: Record<string, V> = {}) {
  const lookup = new Map<string, V>();
  for (const v of values) lookup.set(v.toLowerCase(), v);
  for (const [a, v] of Object.entries(aliases)) lookup.set(a.toLowerCase(), v);
  const expects = `one of ${values.join(', ')}`;
  return Object.assign(
    new Param<V>('enum', expects, (raw) => {
      const v = typeof raw === 'string' ? lookup.get(raw.trim().toLowerCase()) : undefined;
      return v === undefined ? fail(`must be ${expects}`) : ok(v);
    }),
    { values, enumAliases: aliases },
  );
}

const RANGE = /^(\d+)(?:\s*-\s*(\d+|n))?$/i;

/** Print-area filter: `1,3,7`, `2-9`, `2-N` (1-based; N = the last). */
export function pageRanges() {
  const expects = 'a print-area filter such as "1,3,7", "2-9" or "2-N"';
  return new Param<PageRange[]>('printAreaFilter', expects, (raw) => {
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string') return fail(`must be ${expects}`);
    const ranges: PageRange[] = [];
    for (const part of text.split(',')) {
      const m = RANGE.exec(part.trim());
      if (!m) return fail(`must be ${expects}`);
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : /^n$/i.test(m[2]) ? null : Number(m[2]);
      if (from < 1 || (to !== null && to < from)) return fail(`must be ${expects}`);
      ranges.push({ from, to });
    }
    return ok(ranges);
  });
}

/** An http(s) URL. */
export function url() {
  return new Param<string>('url', 'an http or https URL', (raw) => {
    if (typeof raw !== 'string') return fail('must be an http or https URL');
    let parsed: URL;
    try {
      parsed = new URL(raw.trim());
    } catch {
      return fail('must be an http or https URL');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      return fail('must be an http or https URL');
    }
    return ok(raw.trim());
  });
}

/** An array of strings (numbers accepted as text); a lone string counts as a one-element list. */
export function strings(opts: { nonEmpty?: boolean; max?: number } = {}) {
  const max = opts.max ?? 500;
  return new Param<string[]>('stringArray', 'an array of strings', (raw) => {
    const list = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(list)) return fail('must be an array of strings');
    const out: string[] = [];
    for (const [i, v] of list.entries()) {
      if (typeof v === 'number') out.push(String(v));
      else if (typeof v === 'string') out.push(v);
      else return fail(`[${i}] must be a string`);
    }
    if (opts.nonEmpty && out.length === 0) return fail('must not be empty');
    if (out.length > max) return fail(`must have at most ${max} entries`);
    return ok(out);
  });
}

/** A JSON object of string values (`queryHeaders`); numbers and booleans become text. */
export function stringRecord() {
  return new Param<Record<string, string>>('record', 'an object of string values', (raw) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      return fail('must be an object of string values');
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw)) {
      if (typeof v === 'string') out[k] = v;
      else if (typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
      else return fail(`${JSON.stringify(k)} must be a string`);
    }
    return ok(out);
  });
}

/** An array of JSON objects (`vdpData` rows, `mockups` given as objects). */
export function objects() {
  return new Param<Record<string, unknown>[]>('objectArray', 'an array of objects', (raw) => {
    if (!Array.isArray(raw)) return fail('must be an array of objects');
    for (const [i, v] of raw.entries()) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(`[${i}] must be an object`);
    }
    return ok(raw as Record<string, unknown>[]);
  });
}

/** Any JSON value (an HTTP body). */
export function json() {
  return new Param<unknown>('json', 'any JSON value', (raw) => ok(raw));
}

const ORDER_DATA_TYPE = oneOf(['PlainText', 'CommaSeparatedList', 'SerializedJson']);

/** export-to-ecommerce `orderData`: `[{key, value, type}]`, at most 200 keys. */
export function orderData() {
  const expects = 'an array of {key, value, type}';
  return new Param<OrderDataEntry[]>('orderData', expects, (raw) => {
    if (!Array.isArray(raw)) return fail(`must be ${expects}`);
    if (raw.length > 200) return fail('must have at most 200 entries');
    const out: OrderDataEntry[] = [];
    for (const [i, entry] of raw.entries()) {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        return fail(`[${i}] must be an object {key, value, type}`);
      }
      const props = lowerKeys(entry as Record<string, unknown>);
      const key = props.get('key');
      if (typeof key !== 'string' || key === '') return fail(`[${i}].key must be a non-empty string`);
      const rawValue = props.get('value');
      const value =
        typeof rawValue === 'string'
          ? rawValue
          : rawValue === undefined || rawValue === null
            ? ''
            : JSON.stringify(rawValue);
      const t = props.has('type') ? ORDER_DATA_TYPE.parse(props.get('type')) : ok('PlainText' as const);
      if (!t.ok) return fail(`[${i}].type ${t.error}`);
      out.push({ key, value, type: t.value });
    }
    return ok(out);
  });
}

function lowerKeys(obj: Record<string, unknown>): Map<string, unknown> {
  const m = new Map<string, unknown>();
  for (const [k, v] of Object.entries(obj)) m.set(k.toLowerCase(), v);
  return m;
}
