/**
 * Pipeline validation, used when a pipeline is saved and when a job is created (contract:
 * Pipelines & rendering jobs). Reports every problem at once, keyed by JSON path
 * (`tasks[2].inputArtifacts[0]`; the root is `$`), ready for a 400 problem's `errors`.
 *
 * ```ts
 * const r = validatePipeline(body.rawContent);
 * if (!r.ok) throw new ValidationError(r.errors, 'The pipeline is not valid.');
 * r.pipeline.tasks[0].type; // 'extract-project-design'
 * ```
 */
import {
  type ArtifactRef,
  ExpressionSyntaxError,
  TASK_NAME,
  checkProjectPath,
  hasExpression,
  jsonPath,
  parseArtifactRef,
  parseCondition,
  parseTemplate,
} from './expressions';
import {
  type Pipeline,
  type PipelineTask,
  DEFAULT_MAX_AUTO_RETRY_COUNT,
  DEFAULT_PROCESSING_TIMEOUT,
} from './pipeline';
import { SECRET_PLACES_RULE, misplacedSecrets, secretPlace, secretRefs } from './secret-places';
import {
  type TaskSpec,
  type TaskType,
  NOT_AVAILABLE_YET,
  findParameter,
  isBuiltInNamespace,
  isConditionParameter,
  reservedParameter,
  resolveTaskType,
  taskSpec,
} from './tasks';

export const MAX_PIPELINE_BYTES = 256 * 1024;
export const MAX_TASKS = 50;
/**
 * How deep a parameter value may nest objects and arrays (the stored-JSON bound). Checked
 * iteratively before any recursive walk, so no pipeline can overflow the stack here or in the
 * runner (interpolation, secret names), whatever the request edge let through.
 */
export const MAX_PARAMETER_DEPTH = 32;
/** The same bound for the whole document: root → tasks → task → parameters → value. */
const MAX_DOCUMENT_DEPTH = MAX_PARAMETER_DEPTH + 4;

/** JSON path → what is wrong there. */
export type ValidationErrors = Record<string, string[]>;
export type ValidationResult = { ok: true; pipeline: Pipeline } | { ok: false; errors: ValidationErrors };

const TASK_FIELDS = [
  'name',
  'type',
  'namespace',
  'description',
  'inputArtifacts',
  'outputArtifacts',
  'parameters',
  'finalArtifacts',
  'processingTimeout',
  'maxAutoRetryCount',
] as const;
type TaskField = (typeof TASK_FIELDS)[number];

/**
 * Validates a pipeline given as JSON text (a stored `rawContent`) or as a parsed value (a job
 * body `{id?, project?, tasks}`: other root properties are ignored).
 */
export function validatePipeline(raw: string | unknown): ValidationResult {
  const report = new Report();
  const doc = readDocument(raw, report);
  if (doc !== undefined && typeof raw === 'string') depthProblem(doc, report);
  if (report.any) return { ok: false, errors: report.errors };
  const list = doc === undefined ? undefined : readTaskList(doc, report);
  if (!list) return { ok: false, errors: report.errors };

  const flow = new ArtifactFlow(list);
  const names = new Map<string, number>();
  const tasks = list.map((t, i) => checkTask(t, i, report, flow, names));

  // finalize: present, once, last.
  const finals = tasks.flatMap((t, i) => (t.type === 'finalize' ? [i] : []));
  if (finals.length === 0) report.add('tasks', 'a finalize task is required, as the last task');
  finals.forEach((at, n) => {
    if (n > 0) report.add(`tasks[${at}].type`, `finalize appears more than once (first at tasks[${finals[0]}])`);
    else if (at !== list.length - 1) report.add(`tasks[${at}].type`, 'finalize must be the last task');
  });

  if (report.any) return { ok: false, errors: report.errors };
  return { ok: true, pipeline: { tasks: tasks.map((t) => t.task!) } };
}

class Report {
  readonly errors: ValidationErrors = {};
  add(path: string, message: string): void {
    (this.errors[path] ??= []).push(message);
  }
  get any(): boolean {
    return Object.keys(this.errors).length > 0;
  }
}

/** The parsed root object, or undefined (reported) when the input is not a JSON object ≤ 256 KB. */
function readDocument(raw: unknown, report: Report): Record<string, unknown> | undefined {
  if (typeof raw !== 'string') {
    // Before JSON.stringify, which recurses.
    if (depthProblem(raw, report)) return undefined;
  }
  let text: string | undefined;
  try {
    text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  } catch {
    text = undefined;
  }
  if (text === undefined) return void report.add('$', 'is not JSON');
  if (new TextEncoder().encode(text).length > MAX_PIPELINE_BYTES) {
    return void report.add('$', `is larger than ${MAX_PIPELINE_BYTES / 1024} KB`);
  }
  let doc = raw;
  if (typeof raw === 'string') {
    try {
      doc = JSON.parse(raw);
    } catch (e) {
      if (e instanceof RangeError) return void report.add('$', 'nests too deep to read');
      return void report.add('$', `is not JSON (${(e as Error).message})`);
    }
  }
  if (!isObject(doc)) return void report.add('$', 'must be a JSON object {"tasks": [...]}');
  return doc;
}

/**
 * Reports the first container nested too deep (a parameter value past MAX_PARAMETER_DEPTH, any
 * other part of the document past MAX_DOCUMENT_DEPTH), walking with an explicit stack.
 */
function depthProblem(doc: unknown, report: Report): boolean {
  // `param`: containers from the parameters object down (0 = the parameters object), or -1.
  const stack: Array<{ v: unknown; path: string; depth: number; param: number }> = [{ v: doc, path: '$', depth: 1, param: -1 }];
  while (stack.length) {
    const { v, path, depth, param } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (param > MAX_PARAMETER_DEPTH) return report.add(path, `nests deeper than ${MAX_PARAMETER_DEPTH} levels`), true;
    if (depth > MAX_DOCUMENT_DEPTH) return report.add(path, `nests deeper than ${MAX_DOCUMENT_DEPTH} levels`), true;
    // A task is an element of the root's `tasks`: its `parameters` starts the parameter count.
    const isTask = depth === 3 && /^tasks\[\d+\]$/i.test(path);
    const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i]!;
      const childParam = param >= 0 ? param + 1 : isTask && typeof k === 'string' && k.toLowerCase() === 'parameters' ? 0 : -1;
      stack.push({ v: child, path: jsonPath(path, k), depth: depth + 1, param: childParam });
    }
  }
  return false;
}

function readTaskList(doc: Record<string, unknown>, report: Report): unknown[] | undefined {
  const tasks = readDeclared(doc, ['tasks'] as const, '$', report).tasks?.value;
  if (tasks === undefined || tasks === null) return void report.add('tasks', 'is required');
  if (!Array.isArray(tasks)) return void report.add('tasks', 'must be an array of tasks');
  if (tasks.length < 1 || tasks.length > MAX_TASKS) {
    report.add('tasks', `must have 1 to ${MAX_TASKS} tasks (has ${tasks.length})`);
  }
  return tasks;
}

type Declared<K extends string> = Partial<Record<K, { written: string; value: unknown }>>;

/** Declared properties, matched ignoring ASCII case; two spellings of one name are an error. */
function readDeclared<K extends string>(
  obj: Record<string, unknown>,
  declared: readonly K[],
  base: string,
  report: Report,
): Declared<K> {
  const byLower = new Map(declared.map((d) => [d.toLowerCase(), d]));
  const out: Declared<K> = {};
  for (const [written, value] of Object.entries(obj)) {
    const name = byLower.get(written.toLowerCase());
    if (!name) continue; // unknown properties are ignored
    const prev = out[name];
    if (prev) report.add(jsonPath(base, written), `given twice (as ${prev.written} and ${written})`);
    else out[name] = { written, value };
  }
  return out;
}

/**
 * Which artifacts exist before each task: inputs must be produced earlier, in the same
 * single/collection form; every name is produced once.
 */
class ArtifactFlow {
  private readonly produced = new Map<string, { collection: boolean; task: number }>();
  /** First producer of each name anywhere, to tell "produced later" from "not produced". */
  private readonly anywhere = new Map<string, number>();

  constructor(tasks: unknown[]) {
    tasks.forEach((t, i) => {
      if (!isObject(t)) return;
      const outs = Object.entries(t).find(([k]) => k.toLowerCase() === 'outputartifacts')?.[1];
      if (!Array.isArray(outs)) return;
      for (const o of outs) {
        const r = typeof o === 'string' ? parseArtifactRef(o) : undefined;
        if (r && !('error' in r) && !this.anywhere.has(r.name)) this.anywhere.set(r.name, i);
      }
    });
  }

  has(name: string): boolean {
    return this.produced.has(name);
  }

  /** An input or final artifact. */
  use(ref: ArtifactRef, path: string, report: Report): void {
    const p = this.produced.get(ref.name);
    if (!p) {
      const later = this.anywhere.get(ref.name);
      report.add(
        path,
        later === undefined
          ? `"${ref.name}" is not produced by an earlier task`
          : `"${ref.name}" is produced only later (tasks[${later}])`,
      );
    } else if (p.collection && !ref.collection) {
      report.add(path, `"${ref.name}" is a collection (tasks[${p.task}]): write "${ref.name}*"`);
    } else if (!p.collection && ref.collection) {
      report.add(path, `"${ref.name}" is a single artifact (tasks[${p.task}]): write "${ref.name}" without *`);
    }
  }

  produce(ref: ArtifactRef, task: number, path: string, report: Report): void {
    if (ref.optional) report.add(path, `an output cannot be optional ("${ref.raw}")`);
    const before = this.produced.get(ref.name);
    if (before) {
      const where = before.task === task ? 'this task' : `tasks[${before.task}]`;
      return report.add(path, `"${ref.name}" is already produced by ${where}`);
    }
    // A single `page3` next to a collection `page*` would share a member's name.
    for (const [name, p] of this.produced) {
      if (ref.collection && !p.collection && isMemberName(name, ref.name)) {
        report.add(path, `collection "${ref.name}*" would name a member like "${name}" (tasks[${p.task}])`);
      } else if (!ref.collection && p.collection && isMemberName(ref.name, name)) {
        report.add(path, `"${ref.name}" is the name of a member of "${name}*" (tasks[${p.task}])`);
      }
    }
    this.produced.set(ref.name, { collection: ref.collection, task });
  }
}

function isMemberName(candidate: string, collection: string): boolean {
  return candidate.startsWith(collection) && /^\d+$/.test(candidate.slice(collection.length));
}

type Numbered = [index: number, ref: ArtifactRef][];

/** Checks one task; `task` is set only when the task has no problem of its own. */
function checkTask(
  raw: unknown,
  i: number,
  report: Report,
  flow: ArtifactFlow,
  names: Map<string, number>,
): { task: PipelineTask | null; type: TaskType | undefined } {
  const tp = `tasks[${i}]`;
  if (!isObject(raw)) {
    report.add(tp, 'must be an object');
    return { task: null, type: undefined };
  }
  const before = Object.keys(report.errors).length;
  const f = readDeclared(raw, TASK_FIELDS, tp, report);
  const name = checkName(f.name?.value, i, tp, report, names);
  const { type, namespace } = checkType(f, tp, report);
  const description = f.description?.value;
  if (description !== undefined && description !== null && typeof description !== 'string') {
    report.add(`${tp}.description`, 'must be a string');
  }
  const parameters = readParameters(f.parameters?.value, tp, report);
  const inputs = readRefs(f.inputArtifacts?.value, `${tp}.inputArtifacts`, report);
  const outputs = readRefs(f.outputArtifacts?.value, `${tp}.outputArtifacts`, report);
  const finals = readFinalArtifacts(f, type, parameters, tp, report);
  const processingTimeout = readInteger(f, 'processingTimeout', 1, 86_400, DEFAULT_PROCESSING_TIMEOUT, tp, report);
  const maxAutoRetryCount = readInteger(f, 'maxAutoRetryCount', 0, 10, DEFAULT_MAX_AUTO_RETRY_COUNT, tp, report);

  for (const [j, ref] of inputs) flow.use(ref, `${tp}.inputArtifacts[${j}]`, report);
  for (const [j, ref] of outputs) flow.produce(ref, i, `${tp}.outputArtifacts[${j}]`, report);

  if (type) {
    checkArity(taskSpec(type), type, inputs, outputs, parameters, tp, report);
    if (type === 'finalize') for (const [j, ref] of finals.refs) flow.use(ref, `${finals.path}[${j}]`, report);
    else if (finals.refs.length > 0) report.add(`${tp}.finalArtifacts`, 'only the finalize task takes finalArtifacts');
    checkParameters(type, parameters, `${tp}.parameters`, flow, report);
  } else {
    // Unknown or reserved type: still report malformed expressions.
    for (const [k, v] of Object.entries(parameters ?? {})) checkExpressions(v, jsonPath(`${tp}.parameters`, k), flow, report);
  }

  const clean = Object.keys(report.errors).length === before;
  const task: PipelineTask | null =
    clean && type && name
      ? {
          name,
          type,
          namespace,
          description: typeof description === 'string' ? description : null,
          inputs: inputs.map(([, r]) => r),
          outputs: outputs.map(([, r]) => r),
          finalArtifacts: finals.refs.map(([, r]) => r),
          parameters: parameters ?? {},
          processingTimeout,
          maxAutoRetryCount,
        }
      : null;
  return { task, type };
}

function checkName(name: unknown, i: number, tp: string, report: Report, names: Map<string, number>) {
  if (name === undefined || name === null) return void report.add(`${tp}.name`, 'is required');
  if (typeof name !== 'string' || !TASK_NAME.test(name)) {
    return void report.add(`${tp}.name`, 'must match [A-Za-z0-9_-]{1,100}');
  }
  const seen = names.get(name.toLowerCase());
  if (seen !== undefined) return void report.add(`${tp}.name`, `"${name}" is already the name of tasks[${seen}]`);
  names.set(name.toLowerCase(), i);
  return name;
}

function checkType(f: Declared<TaskField>, tp: string, report: Report) {
  const namespace = f.namespace?.value;
  let type: TaskType | undefined;
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') {
    report.add(`${tp}.namespace`, 'must be a string');
  } else if (!isBuiltInNamespace(namespace)) {
    report.add(`${tp}.namespace`, `unknown namespace "${namespace}" (omit it, or use "default" or "customers-canvas")`);
  }
  const written = f.type?.value;
  if (written === undefined || written === null) report.add(`${tp}.type`, 'is required');
  else if (typeof written !== 'string') report.add(`${tp}.type`, 'must be a string');
  else if (isBuiltInNamespace(namespace)) {
    const r = resolveTaskType(written);
    if (r.kind === 'builtIn') type = r.type;
    else if (r.kind === 'reserved') report.add(`${tp}.type`, `${written} is ${NOT_AVAILABLE_YET}`);
    else report.add(`${tp}.type`, `unknown task type "${written}"`);
  }
  return { type, namespace: typeof namespace === 'string' ? namespace : null };
}

function readParameters(value: unknown, tp: string, report: Report): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return {};
  if (isObject(value)) return value;
  report.add(`${tp}.parameters`, 'must be an object');
  return undefined;
}

function readRefs(value: unknown, path: string, report: Report): Numbered {
  const refs: Numbered = [];
  if (value === undefined || value === null) return refs;
  if (!Array.isArray(value)) {
    report.add(path, 'must be an array of artifact names');
    return refs;
  }
  value.forEach((v, j) => {
    if (typeof v !== 'string') return report.add(`${path}[${j}]`, 'must be a string');
    const r = parseArtifactRef(v);
    if ('error' in r) return report.add(`${path}[${j}]`, r.error);
    refs.push([j, r]);
  });
  return refs;
}

/** finalArtifacts: a task property (as in the original), or a parameter of finalize. */
function readFinalArtifacts(
  f: Declared<TaskField>,
  type: TaskType | undefined,
  parameters: Record<string, unknown> | undefined,
  tp: string,
  report: Report,
): { refs: Numbered; path: string } {
  const asTask = f.finalArtifacts?.value;
  const asParam =
    type === 'finalize' && parameters
      ? Object.entries(parameters).find(([k]) => k.toLowerCase() === 'finalartifacts')
      : undefined;
  if (!asParam) return { refs: readRefs(asTask, `${tp}.finalArtifacts`, report), path: `${tp}.finalArtifacts` };
  const path = jsonPath(`${tp}.parameters`, asParam[0]);
  if (asTask !== undefined && asTask !== null) {
    report.add(path, 'finalArtifacts is given twice (task and parameters)');
  }
  return { refs: readRefs(asParam[1], path, report), path };
}

function readInteger(
  f: Declared<TaskField>,
  field: 'processingTimeout' | 'maxAutoRetryCount',
  min: number,
  max: number,
  fallback: number,
  tp: string,
  report: Report,
): number {
  const v = f[field]?.value;
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max) return n;
  report.add(`${tp}.${field}`, `must be an integer from ${min} to ${max}`);
  return fallback;
}

/** How many inputs and outputs the type takes, and which may be collections. */
function checkArity(
  spec: TaskSpec,
  type: TaskType,
  inputs: Numbered,
  outputs: Numbered,
  parameters: Record<string, unknown> | undefined,
  tp: string,
  report: Report,
) {
  if (inputs.length < spec.inputs.min || inputs.length > spec.inputs.max) {
    report.add(`${tp}.inputArtifacts`, `${type} takes ${arity(spec.inputs, 'input artifact')} (has ${inputs.length})`);
  }
  if (outputs.length < spec.outputs.min || outputs.length > spec.outputs.max) {
    report.add(`${tp}.outputArtifacts`, `${type} takes ${arity(spec.outputs, 'output artifact')} (has ${outputs.length})`);
  }
  const source = spec.inputsOrParameter;
  if (source && inputs.length === 0 && !hasParameter(parameters, source)) {
    report.add(`${tp}.inputArtifacts`, `${type} needs input artifacts or an ${source} parameter`);
  }
  const collectionIn = inputs.find(([, r]) => r.collection)?.[1];
  for (const [j, ref] of outputs) {
    const path = `${tp}.outputArtifacts[${j}]`;
    if (spec.singleOutput && ref.collection) {
      report.add(path, `${type} produces one file: write "${ref.name}" without *`);
    } else if (spec.mode === 'perMember' && collectionIn && !ref.collection) {
      report.add(
        path,
        `must be a collection ("${ref.name}*"): input "${collectionIn.raw}" is a collection, ` +
          `so ${type} runs once per member`,
      );
    }
  }
}

function arity(a: { min: number; max: number }, what: string): string {
  const plural = (n: number) => (n === 1 ? what : `${what}s`);
  if (a.min === a.max) return a.min === 0 ? `no ${what}s` : `${a.min} ${plural(a.min)}`;
  if (a.min === 0) return `at most ${a.max} ${plural(a.max)}`;
  return `${a.min} to ${a.max} ${what}s`;
}

function hasParameter(parameters: Record<string, unknown> | undefined, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.entries(parameters ?? {}).some(([k, v]) => k.toLowerCase() === lower && v !== null && v !== undefined);
}

/**
 * Known parameters typed (unless interpolated), required ones present, reserved ones refused,
 * conditions well-formed, expressions everywhere well-formed; unknown parameters ignored.
 */
function checkParameters(
  type: TaskType,
  parameters: Record<string, unknown> | undefined,
  base: string,
  flow: ArtifactFlow,
  report: Report,
) {
  if (!parameters) return;
  const spec = taskSpec(type);
  const given = new Map<string, string>();
  for (const [written, value] of Object.entries(parameters)) {
    const path = jsonPath(base, written);
    const reserved = reservedParameter(type, written, value);
    if (reserved) {
      report.add(path, reserved);
      continue;
    }
    const condition = isConditionParameter(written);
    if (condition) {
      checkCondition(condition, value, path, flow, report);
      continue;
    }
    if (type === 'finalize' && written.toLowerCase() === 'finalartifacts') continue; // read with the task
    checkExpressions(value, path, flow, report);
    for (const [at, message] of misplacedSecrets(value, secretPlace(type, written), path)) report.add(at, message);
    const found = findParameter(type, written);
    if (!found) continue;
    const prev = given.get(found.name);
    if (prev !== undefined) {
      report.add(path, `given twice (as ${prev} and ${written})`);
      continue;
    }
    given.set(found.name, written);
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' && hasExpression(value)) continue; // typed after interpolation
    if (value === '' && found.spec.kind !== 'string') continue; // empty = the default
    const r = found.spec.parse(value);
    if (!r.ok) report.add(path, r.error);
  }
  for (const [name, p] of Object.entries(spec.parameters)) {
    if (p.required && p.defaultValue === undefined && !given.has(name)) report.add(jsonPath(base, name), 'is required');
  }
  if (spec.requiresOneOf && !spec.requiresOneOf.some((g) => g.every((n) => given.has(n)))) {
    report.add(base, `${type} needs ${spec.requiresOneOf.map((g) => g.join(' + ')).join(' or ')}`);
  }
}

function checkCondition(which: string, value: unknown, path: string, flow: ArtifactFlow, report: Report) {
  if (value === null || value === undefined) return;
  const single = which === 'skipIf' || which === 'skipIfNot';
  if (single && typeof value !== 'string') return report.add(path, `${which} must be a string`);
  if (typeof value === 'string') return checkOneCondition(value, path, flow, report);
  if (!Array.isArray(value)) return report.add(path, `${which} must be an array of conditions`);
  value.forEach((v, k) => checkOneCondition(v, `${path}[${k}]`, flow, report));
}

function checkOneCondition(text: unknown, path: string, flow: ArtifactFlow, report: Report) {
  if (typeof text !== 'string') return report.add(path, 'must be a string condition ("A", "A = B" or "A != B")');
  try {
    const c = parseCondition(text);
    for (const side of [c.left, c.right]) {
      if (!side) continue;
      if (side.kind === 'template') {
        checkExpressions(side.template, path, flow, report);
        // A condition on a secret tells through Skipped whether a guess is right.
        for (const raw of secretRefs(side.template)) report.add(path, `${raw}: ${SECRET_PLACES_RULE}, never in a condition`);
      }
      else if (!flow.has(side.name)) report.add(path, `"${side.name}?": "${side.name}" is not produced by an earlier task`);
    }
  } catch (e) {
    if (!(e instanceof ExpressionSyntaxError)) throw e;
    report.add(path, e.message);
  }
}

/** Every string inside `value` must hold well-formed references to known roots. */
function checkExpressions(value: unknown, path: string, flow: ArtifactFlow, report: Report) {
  if (Array.isArray(value)) return value.forEach((v, k) => checkExpressions(v, `${path}[${k}]`, flow, report));
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) checkExpressions(v, jsonPath(path, k), flow, report);
    return;
  }
  if (typeof value !== 'string' || !hasExpression(value)) return;
  try {
    for (const seg of parseTemplate(value)) {
      if (seg.kind !== 'ref') continue;
      const ref = seg.ref;
      if (ref.root === 'project') {
        const problem = checkProjectPath(ref.path);
        if (problem) report.add(path, `${seg.raw}: ${problem}`);
      } else if (ref.root === 'artifact' && !flow.has(ref.name)) {
        report.add(path, `${seg.raw}: "${ref.name}" is not produced by an earlier task`);
      }
    }
  } catch (e) {
    if (!(e instanceof ExpressionSyntaxError)) throw e;
    report.add(path, e.message);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
