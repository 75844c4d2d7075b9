/**
 * The syntax of pipeline expressions, shared by the validator (at save), interpolation and
 * conditions (at run time): `{{…}}` references inside parameter strings, artifact names
 * (`name`, `name*`, `name?`) and conditions (`A`, `A = B`, `A != B`).
 */

/** Task names (contract); artifact names follow the same rule, so `{{a.b}}` is never an artifact. */
export const TASK_NAME = /^[A-Za-z0-9_-]{1,100}$/;
export const ARTIFACT_NAME = /^[A-Za-z0-9_-]{1,100}$/;
export const SECRET_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Reference roots that are not artifacts, so no artifact may be named after them. */
export const RESERVED_ARTIFACT_NAMES = ['projectid', 'project', 'secrets'];

/** An artifact as written in `inputArtifacts`, `outputArtifacts` or `finalArtifacts`. */
export interface ArtifactRef {
  /** The base name, without `*` or `?`. */
  name: string;
  /** `name*`: a collection (members `name1`, `name2`…). */
  collection: boolean;
  /** `name?`: an optional input (absent when its producer was skipped). */
  optional: boolean;
  /** As written. */
  raw: string;
}

export function parseArtifactRef(raw: string): ArtifactRef | { error: string } {
  let s = raw.trim();
  const optional = s.endsWith('?');
  if (optional) s = s.slice(0, -1);
  const collection = s.endsWith('*');
  if (collection) s = s.slice(0, -1);
  if (!ARTIFACT_NAME.test(s)) {
    return { error: `"${raw}" is not an artifact name ([A-Za-z0-9_-]{1,100}, then * or ?)` };
  }
  if (RESERVED_ARTIFACT_NAMES.includes(s.toLowerCase())) {
    return { error: `"${s}" is reserved for {{${s}…}} references` };
  }
  return { name: s, collection, optional, raw };
}

/** One step of a `project.…` path. */
export type PathStep =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  /** `@`: the current member's or job's item. */
  | { kind: 'current' }
  /** `fields.<k>` / `hidden.<k>`: a record key, kept verbatim (it may hold spaces or dots). */
  | { kind: 'record'; record: string; key: string };

export type Reference =
  | { root: 'projectId'; optional: boolean; text: string }
  | { root: 'project'; path: PathStep[]; optional: boolean; text: string }
  | { root: 'secret'; name: string; optional: boolean; text: string }
  | {
      root: 'artifact';
      name: string;
      /** `name@`: the current collection member. */
      member: boolean;
      /** `name:name`: the original asset name rather than the URL. */
      property: 'url' | 'name';
      optional: boolean;
      text: string;
    };

export type Segment = { kind: 'text'; text: string } | { kind: 'ref'; ref: Reference; raw: string };

export class ExpressionSyntaxError extends Error {
  constructor(
    message: string,
    readonly reference?: string,
  ) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

export function hasExpression(value: string): boolean {
  return value.includes('{{');
}

/**
 * Splits a parameter string into text and `{{…}}` references; throws ExpressionSyntaxError when
 * a `{{` is not closed. A `}}` outside a reference is text (a JSON body written as a string ends
 * objects with `}}`).
 */
export function parseTemplate(value: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < value.length) {
    const open = value.indexOf('{{', i);
    if (open === -1) {
      segments.push({ kind: 'text', text: value.slice(i) });
      break;
    }
    if (open > i) segments.push({ kind: 'text', text: value.slice(i, open) });
    const close = value.indexOf('}}', open + 2);
    if (close === -1) throw new ExpressionSyntaxError(`unbalanced "{{" at ${open}`);
    const inner = value.slice(open + 2, close);
    if (inner.includes('{{')) throw new ExpressionSyntaxError(`unbalanced "{{" at ${open}`);
    segments.push({ kind: 'ref', ref: parseReference(inner), raw: value.slice(open, close + 2) });
    i = close + 2;
  }
  return segments;
}

/** The single reference when `value` is exactly one `{{…}}` (surrounding blanks allowed). */
export function soleReference(value: string): Reference | undefined {
  const trimmed = value.trim();
  if (!trimmed.startsWith('{{') || !trimmed.endsWith('}}')) return undefined;
  const segments = parseTemplate(trimmed);
  return segments.length === 1 && segments[0]!.kind === 'ref' ? segments[0]!.ref : undefined;
}

const ARTIFACT_REF = /^([A-Za-z0-9_-]{1,100})(@)?(?::(name|url))?$/i;

/** Parses the text between `{{` and `}}`. */
export function parseReference(inner: string): Reference {
  const text = inner.trim();
  let body = text;
  const optional = body.endsWith('?');
  if (optional) body = body.slice(0, -1).trimEnd();
  if (body === '') throw new ExpressionSyntaxError('empty reference {{}}', text);
  const lower = body.toLowerCase();
  if (lower === 'projectid') return { root: 'projectId', optional, text };
  if (lower === 'project' || lower.startsWith('project.')) {
    return { root: 'project', path: parseProjectPath(body.slice('project'.length + 1), text), optional, text };
  }
  if (lower === 'secrets' || lower.startsWith('secrets.')) {
    const name = body.slice('secrets.'.length);
    if (!SECRET_NAME.test(name)) {
      throw new ExpressionSyntaxError(`{{${text}}}: a secret name is [A-Za-z0-9_-]{1,64}`, text);
    }
    return { root: 'secret', name, optional, text };
  }
  const m = ARTIFACT_REF.exec(body);
  if (!m) {
    throw new ExpressionSyntaxError(
      `{{${text}}}: unknown reference (expected projectId, project.…, secrets.…, an artifact, ` +
        'artifact:name or collection@:name)',
      text,
    );
  }
  return {
    root: 'artifact',
    name: m[1]!,
    member: m[2] === '@',
    property: m[3]?.toLowerCase() === 'name' ? 'name' : 'url',
    optional,
    text,
  };
}

function parseProjectPath(rest: string, text: string): PathStep[] {
  const steps: PathStep[] = [];
  if (rest === '') return steps;
  const parts = rest.split('.');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.trim();
    if (part === '') throw new ExpressionSyntaxError(`{{${text}}}: empty path step`, text);
    const lower = part.toLowerCase();
    if ((lower === 'fields' || lower === 'hidden') && i < parts.length - 1) {
      const key = parts.slice(i + 1).join('.');
      if (key.trim() === '') throw new ExpressionSyntaxError(`{{${text}}}: empty ${lower} key`, text);
      steps.push({ kind: 'record', record: lower, key });
      return steps;
    }
    if (part === '@') steps.push({ kind: 'current' });
    else if (/^\d+$/.test(part)) steps.push({ kind: 'index', index: Number(part) });
    else steps.push({ kind: 'key', key: part });
  }
  return steps;
}

/** ProjectDto fields and ProjectInfo fields (stand-alone jobs), lower-cased. */
export const PROJECT_FIELDS = new Set(
  [
    'id',
    'storefrontId',
    'tenantId',
    'productReference',
    'ownerId',
    'name',
    'description',
    'orderId',
    'orderUrl',
    'orderNumber',
    'orderName',
    'orderLineItemId',
    'orderLineItemIndex',
    'customerId',
    'customerName',
    'status',
    'processingStatus',
    'preflight',
    'created',
    'lastModified',
    'items',
  ].map((f) => f.toLowerCase()),
);

/** ProjectItemDto fields and ProjectInfo item fields, lower-cased. */
export const ITEM_FIELDS = new Set(
  [
    'id',
    'itemId',
    'jobId',
    'name',
    'groupId',
    'quantity',
    'orderLineItemId',
    'orderLineItemIndex',
    'productReference',
    'fields',
    'hidden',
    'designIds',
    'sku',
    'resources',
    'preflight',
  ].map((f) => f.toLowerCase()),
);

/** Checks a `project.…` path against the DTO fields; returns a problem or undefined. */
export function checkProjectPath(path: PathStep[]): string | undefined {
  const [first, second, third] = path;
  if (!first) return undefined;
  if (first.kind !== 'key' || !PROJECT_FIELDS.has(first.key.toLowerCase())) {
    return `project.${describeStep(first)} is not a project field`;
  }
  if (first.key.toLowerCase() !== 'items' || !second) return undefined;
  if (second.kind !== 'current' && second.kind !== 'index') {
    return 'project.items is followed by @ (the current item) or an index';
  }
  if (!third) return undefined;
  const field = third.kind === 'record' ? third.record : third.kind === 'key' ? third.key : undefined;
  if (field === undefined || !ITEM_FIELDS.has(field.toLowerCase())) {
    return `project.items.${second.kind === 'current' ? '@' : second.index}.${describeStep(third)} is not an item field`;
  }
  return undefined;
}

function describeStep(step: PathStep): string {
  switch (step.kind) {
    case 'key':
      return step.key;
    case 'index':
      return String(step.index);
    case 'current':
      return '@';
    case 'record':
      return `${step.record}.${step.key}`;
  }
}

/** A parsed condition: `A`, `A = B` or `A != B`. */
export interface Condition {
  left: Operand;
  operator: '=' | '!=' | null;
  right: Operand | null;
  text: string;
}

/** An operand: `name?` tests existence; anything else is a template to interpolate. */
export type Operand = { kind: 'exists'; name: string; collection: boolean } | { kind: 'template'; template: string };

const EXISTS_OPERAND = /^([A-Za-z0-9_-]{1,100})(\*)?\?$/;

/**
 * Splits a condition on its one operator outside `{{…}}`, so that interpolated values that
 * contain `=` cannot change the comparison. Throws ExpressionSyntaxError when malformed.
 */
export function parseCondition(text: string): Condition {
  const ops: { at: number; op: '=' | '!=' }[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.startsWith('{{', i)) {
      depth++;
      i++;
    } else if (depth > 0 && text.startsWith('}}', i)) {
      depth--;
      i++;
    } else if (depth === 0 && text.startsWith('!=', i)) {
      ops.push({ at: i, op: '!=' });
      i++;
    } else if (depth === 0 && text[i] === '=') {
      ops.push({ at: i, op: '=' });
    }
  }
  // Also catches unbalanced braces and bad references in either operand.
  parseTemplate(text);
  if (ops.length > 1) {
    throw new ExpressionSyntaxError(`"${text}": a condition has at most one operator (= or !=)`);
  }
  const op = ops[0];
  if (!op) return { left: operand(text), operator: null, right: null, text };
  return {
    left: operand(text.slice(0, op.at)),
    operator: op.op,
    right: operand(text.slice(op.at + op.op.length)),
    text,
  };
}

function operand(raw: string): Operand {
  const t = raw.trim();
  const m = EXISTS_OPERAND.exec(t);
  if (m) return { kind: 'exists', name: m[1]!, collection: m[2] === '*' };
  return { kind: 'template', template: t };
}

/** JSON path of a property (`tasks[2].parameters.url`, `x["odd key"]`). */
export function jsonPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const prop = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  return base === '$' ? (prop.startsWith('.') ? prop.slice(1) : `$${prop}`) : `${base}${prop}`;
}
