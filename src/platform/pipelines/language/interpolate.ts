/**
 * Interpolation of `{{…}}` references in task parameters (contract: Pipelines & rendering jobs).
 *
 * References: `projectId`, `project.<ProjectDto field>`, `project.items.@.<field>` (`@` = the
 * current member's or job's item; an index works; `fields.<k>`, `hidden.<k>`), `<artifact>`
 * (its anonymous URL), `<artifact>:name`, `<collection>@` / `<collection>@:name` (the current
 * member), `secrets.<name>`. A missing value fails (InterpolationError) unless the reference
 * ends in `?`, which gives an empty string. A string that is exactly one `{{…}}` keeps the
 * value's JSON type; inside longer text, values are written as text (objects as JSON).
 *
 * Pure: project data, artifacts and secrets come from the caller through `PipelineContext`.
 *
 * ```ts
 * await interpolate({ dpi: '{{project.items.@.fields.dpi}}', url: 'https://x/{{projectId}}' }, {
 *   projectId: 42,
 *   project: { items: [{ fields: { dpi: 150 } }] },
 * }); // { dpi: 150, url: 'https://x/42' }
 * ```
 */
import {
  type PathStep,
  type Reference,
  type Segment,
  ExpressionSyntaxError,
  hasExpression,
  parseTemplate,
} from './expressions';
import { isConditionParameter } from './tasks';

/** What the runner knows about one artifact (or collection member). */
export interface ArtifactInfo {
  /** The original asset name, for `{{a:name}}` / `{{c@:name}}`. */
  name: string;
  /** Its anonymous URL; a function so that only artifacts actually referenced get one. */
  url: string | (() => string | Promise<string>);
}

/** A single artifact, a collection's members in order, or undefined when it does not exist. */
export type ArtifactLookup = ArtifactInfo | readonly ArtifactInfo[] | null | undefined;

export interface PipelineContext {
  /** `{{projectId}}`; defaults to `project.id`. */
  projectId?: string | number | null;
  /** A ProjectDto (project jobs) or ProjectInfo (stand-alone jobs), for `{{project.…}}`. */
  project?: Record<string, unknown> | null;
  /**
   * The item `@` means: the current member's item or the job's item, by index in
   * `project.items` or by id (`id` or `itemId`). Without it, a project with one item uses that.
   */
  item?: { index: number } | { id: string | number } | null;
  /** 0-based index of the collection member the current unit processes (`{{c@}}`). */
  memberIndex?: number | null;
  /** Looks an artifact up by base name (no `*`/`?`). */
  artifact?(name: string): ArtifactLookup | Promise<ArtifactLookup>;
  /** Resolves a tenant secret (names are case-insensitive); undefined when there is none. */
  secret?(name: string): string | null | undefined | Promise<string | null | undefined>;
  /** Collects every resolved secret value, so that logs and statusDescription can mask them. */
  secretMask?: SecretMask;
}

export type InterpolationErrorCode =
  /** The value is absent (and the reference has no `?`). */
  | 'missing_value'
  /** `@` used where there is no current item (several items, none chosen). */
  | 'no_current_item'
  /** `{{c@}}` used outside a per-member unit of a collection with several members. */
  | 'no_current_member'
  /** Malformed `{{…}}` (normally caught when the pipeline is saved). */
  | 'bad_expression';

/** Why a reference could not be resolved; `reference` is its text without braces. */
export class InterpolationError extends Error {
  constructor(
    readonly code: InterpolationErrorCode,
    readonly reference: string,
    message: string,
  ) {
    super(message);
    this.name = 'InterpolationError';
  }
}

/**
 * Remembers resolved secret values and replaces them by `***` in text meant for logs,
 * `statusDescription` or error messages: in every case form (a host comes back lower-cased),
 * URL-encoded (`%xx` either case, `+` for a space), JSON-escaped and inside base64 (basic auth encodes
 * `user:password`, so the secret sits at any of three alignments).
 */
export class SecretMask {
  private readonly values = new Set<string>();
  /** Case-insensitive forms, and base64 fragments (case matters there). */
  private folded: RegExp | null = null;
  private exact: RegExp | null = null;

  add(value: string): void {
    if (value === '' || this.values.has(value)) return;
    this.values.add(value);
    this.folded = this.exact = null;
  }

  get size(): number {
    return this.values.size;
  }

  mask(text: string): string {
    if (!this.values.size) return text;
    if (!this.folded) this.build();
    let out = text.replace(this.folded!, '***');
    if (this.exact) out = out.replace(this.exact, '***');
    return out;
  }

  private build(): void {
    const folded = new Set<string>();
    const exact = new Set<string>();
    for (const v of this.values) {
      folded.add(v);
      folded.add(encodeURIComponent(v));
      folded.add(encodeURI(v));
      folded.add(new URLSearchParams({ v }).toString().slice(2));
      folded.add(JSON.stringify(v).slice(1, -1)); // inside JSON text (a body, an error echoing it)
      for (const f of base64Fragments(v)) exact.add(f);
    }
    // Longest first, so that a secret containing another is masked whole.
    const pattern = (set: Set<string>) => [...set].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|');
    this.folded = new RegExp(pattern(folded), 'gi');
    this.exact = exact.size ? new RegExp(pattern(exact), 'g') : null;
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The base64 characters that depend only on the secret's bytes, for each of the three byte
 * offsets it can start at inside a longer encoded text (fragments under 4 characters skipped).
 */
function base64Fragments(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const padded = new Uint8Array(k + bytes.length);
    padded.set(bytes, k);
    let binary = '';
    for (const b of padded) binary += String.fromCharCode(b);
    const encoded = btoa(binary);
    const from = Math.ceil((8 * k) / 6);
    const to = Math.floor((8 * (k + bytes.length)) / 6);
    if (to - from >= 4) out.push(encoded.slice(from, to));
  }
  return out;
}

/** Interpolates every string in `value` (arrays and objects deeply; keys stay verbatim). */
export async function interpolate(value: unknown, ctx: PipelineContext): Promise<unknown> {
  return walk(value, ctx, false);
}

/**
 * Interpolates a task's parameters, leaving the skip conditions as written (conditions.ts
 * evaluates them operand by operand).
 */
export async function interpolateParameters(
  parameters: Record<string, unknown> | null | undefined,
  ctx: PipelineContext,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(parameters ?? {})) {
    out[k] = isConditionParameter(k) ? v : await walk(v, ctx, false);
  }
  return out;
}

/**
 * The value as it would be interpolated, for logs and `statusDescription`: secrets appear as
 * `***` (they are never resolved here) and references that cannot be resolved stay as written.
 * Never throws.
 */
export async function describe(value: unknown, ctx: PipelineContext): Promise<string> {
  const shown = await walk(value, { ...ctx, secret: () => '***', secretMask: undefined }, true);
  return typeof shown === 'string' ? shown : JSON.stringify(shown);
}

/** Interpolates one string: a lone `{{…}}` keeps its JSON type, otherwise text. */
export async function interpolateString(value: string, ctx: PipelineContext): Promise<unknown> {
  return walkString(value, ctx, false);
}

/**
 * Deeper than the validator ever lets through (MAX_PARAMETER_DEPTH): a value that did not come
 * through it fails here instead of overflowing the stack.
 */
const MAX_WALK_DEPTH = 64;

async function walk(value: unknown, ctx: PipelineContext, tolerant: boolean, depth = 0): Promise<unknown> {
  if (typeof value === 'string') return walkString(value, ctx, tolerant);
  if (value !== null && typeof value === 'object' && depth >= MAX_WALK_DEPTH) {
    throw new InterpolationError('bad_expression', '', `the value nests deeper than ${MAX_WALK_DEPTH} levels`);
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) out.push(await walk(v, ctx, tolerant, depth + 1));
    return out;
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await walk(v, ctx, tolerant, depth + 1);
    return out;
  }
  return value;
}

async function walkString(value: string, ctx: PipelineContext, tolerant: boolean): Promise<unknown> {
  if (!hasExpression(value)) return value;
  let segments: Segment[];
  try {
    segments = parseTemplate(value);
  } catch (e) {
    if (tolerant) return value;
    const ref = e instanceof ExpressionSyntaxError ? (e.reference ?? value) : value;
    throw new InterpolationError('bad_expression', ref, (e as Error).message);
  }
  // Exactly one reference (blanks around it allowed): the value keeps its JSON type.
  const refs = segments.filter((s) => s.kind === 'ref');
  if (refs.length === 1 && segments.every((s) => s.kind === 'ref' || s.text.trim() === '')) {
    return resolveSegment(refs[0]!, ctx, tolerant);
  }
  let text = '';
  for (const seg of segments) {
    text += seg.kind === 'text' ? seg.text : toText(await resolveSegment(seg, ctx, tolerant));
  }
  return text;
}

async function resolveSegment(seg: Segment & { kind: 'ref' }, ctx: PipelineContext, tolerant: boolean) {
  try {
    return await resolveReference(seg.ref, ctx);
  } catch (e) {
    if (tolerant && e instanceof InterpolationError) return seg.raw;
    throw e;
  }
}

/** Text form of a value inside a longer string. */
export function toText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/**
 * Resolves one reference. Missing values give '' for optional references and throw
 * InterpolationError otherwise.
 */
export async function resolveReference(ref: Reference, ctx: PipelineContext): Promise<unknown> {
  const missing = (code: InterpolationErrorCode, why: string) => {
    if (ref.optional) return '';
    throw new InterpolationError(code, ref.text, `{{${ref.text}}}: ${why}`);
  };
  switch (ref.root) {
    case 'projectId': {
      const id = ctx.projectId ?? (ctx.project ? getProp(ctx.project, 'id') : undefined);
      return isAbsent(id) ? missing('missing_value', 'there is no project') : id;
    }
    case 'project': {
      if (!ctx.project) return missing('missing_value', 'there is no project');
      const r = walkPath(ctx.project, ref.path, ctx);
      if ('problem' in r) return missing(r.problem, r.why);
      return isAbsent(r.value) ? missing('missing_value', 'has no value') : r.value;
    }
    case 'secret': {
      const v = ctx.secret ? await ctx.secret(ref.name) : undefined;
      if (isAbsent(v)) return missing('missing_value', `there is no secret "${ref.name}"`);
      ctx.secretMask?.add(v);
      return v;
    }
    case 'artifact': {
      const found = ctx.artifact ? await ctx.artifact(ref.name) : undefined;
      if (isAbsent(found) || (Array.isArray(found) && found.length === 0)) {
        return missing('missing_value', `there is no artifact "${ref.name}"`);
      }
      let target: ArtifactInfo | readonly ArtifactInfo[] = found as ArtifactInfo | readonly ArtifactInfo[];
      if (ref.member && isList(target)) {
        const list: readonly ArtifactInfo[] = target;
        const index = ctx.memberIndex ?? (list.length === 1 ? 0 : undefined);
        if (index === undefined || index === null) {
          return missing('no_current_member', `"${ref.name}" has ${list.length} members and none is current`);
        }
        const member = list[index];
        if (!member) return missing('missing_value', `"${ref.name}" has no member ${index + 1}`);
        target = member;
      }
      if (isList(target)) {
        const out: string[] = [];
        for (const a of target) out.push(ref.property === 'name' ? a.name : await urlOf(a));
        return out;
      }
      return ref.property === 'name' ? target.name : urlOf(target);
    }
  }
}

function isList(v: ArtifactInfo | readonly ArtifactInfo[]): v is readonly ArtifactInfo[] {
  return Array.isArray(v);
}

async function urlOf(a: ArtifactInfo): Promise<string> {
  return typeof a.url === 'function' ? a.url() : a.url;
}

function isAbsent(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

type WalkResult = { value: unknown } | { problem: InterpolationErrorCode; why: string };

function walkPath(project: Record<string, unknown>, path: PathStep[], ctx: PipelineContext): WalkResult {
  let cur: unknown = project;
  for (const step of path) {
    if (isAbsent(cur)) return { value: undefined };
    switch (step.kind) {
      case 'key':
        if (Array.isArray(cur) && /^\d+$/.test(step.key)) cur = cur[Number(step.key)];
        else cur = typeof cur === 'object' ? getProp(cur as Record<string, unknown>, step.key) : undefined;
        break;
      case 'index':
        cur = Array.isArray(cur) ? cur[step.index] : undefined;
        break;
      case 'current': {
        if (!Array.isArray(cur)) return { value: undefined };
        const item = currentItem(cur, ctx);
        if (item === undefined) {
          return { problem: 'no_current_item', why: 'there is no current item (@) here' };
        }
        cur = item;
        break;
      }
      case 'record': {
        const record = typeof cur === 'object' ? getProp(cur as Record<string, unknown>, step.record) : undefined;
        cur = record && typeof record === 'object' ? lookupField(record as Record<string, unknown>, step.key) : undefined;
        break;
      }
    }
  }
  return { value: cur };
}

function currentItem(items: unknown[], ctx: PipelineContext): unknown {
  const sel = ctx.item;
  if (sel && 'index' in sel) return items[sel.index];
  if (sel && 'id' in sel) {
    const want = String(sel.id);
    return items.find((it) => {
      if (!it || typeof it !== 'object') return false;
      const o = it as Record<string, unknown>;
      return (o.id !== undefined && String(o.id) === want) || (o.itemId !== undefined && String(o.itemId) === want);
    });
  }
  return items.length === 1 ? items[0] : undefined;
}

/** A declared property, exact spelling first, then ignoring ASCII case. */
function getProp(obj: Record<string, unknown>, key: string): unknown {
  if (Object.hasOwn(obj, key)) return obj[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

const squash = (s: string) => s.replace(/[\s_-]+/g, '').toLowerCase();

/**
 * A custom-field value by key: the exact key; then with `_` read as a space (a reference cannot
 * contain spaces comfortably); then ignoring case, spaces, `_` and `-`.
 */
export function lookupField(record: Record<string, unknown>, key: string): unknown {
  if (Object.hasOwn(record, key)) return record[key];
  const spaced = key.replace(/_/g, ' ');
  if (Object.hasOwn(record, spaced)) return record[spaced];
  const want = squash(key);
  for (const k of Object.keys(record)) if (squash(k) === want) return record[k];
  return undefined;
}
