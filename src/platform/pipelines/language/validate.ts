/**
 * Pipeline validation, used when a pipeline is saved and when a job is created (contract:
 * Pipelines & rendering jobs). Reports every problem at once, keyed by JSON path
 * (`tasks[2].inputArtifacts[0]`; the root is `$`), ready for a 400 problem's `errors`.
 *
 * ```ts
 * const r = validatePipeline(body.rawContent);
 * if (!r.ok) throw validationProblem(r.errors); // 400
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
export const DEFAULT_PROCESSING_TIMEOUT = 600;
export const DEFAULT_MAX_AUTO_RETRY_COUNT = 2;

export type { ArtifactRef } from './expressions';

/** A validated task: canonical type, parsed artifact names, defaults applied. */
export interface PipelineTask {
  name: string;
  type: TaskType;
  /** As written; null when omitted (every accepted namespace means built-in). */
  namespace: string | null;
  description: string | null;
  inputs: ArtifactRef[];
  outputs: ArtifactRef[];
  /** finalize only (task-level `finalArtifacts`, or `parameters.finalArtifacts`). */
  finalArtifacts: ArtifactRef[];
  /** As written (DTOs return parameters as written; interpolation happens per unit). */
  parameters: Record<string, unknown>;
  /** Seconds; checked before each unit and bounding each awaited I/O. */
  processingTimeout: number;
  maxAutoRetryCount: number;
}

export interface Pipeline {
  tasks: PipelineTask[];
}

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

interface Produced {
  collection: boolean;
  task: number;
}

/**
 * Validates a pipeline given as JSON text (a stored `rawContent`) or as a parsed value (a job
 * body `{id?, project?, tasks}`: other root properties are ignored).
 */
export function validatePipeline(raw: string | unknown): ValidationResult {
  const errors: ValidationErrors = {};
  const add = (path: string, message: string) => (errors[path] ??= []).push(message);

  let doc: unknown = raw;
  if (typeof raw === 'string') {
    if (utf8Length(raw) > MAX_PIPELINE_BYTES) return fail('$', `is larger than ${MAX_PIPELINE_BYTES / 1024} KB`);
    try {
      doc = JSON.parse(raw);
    } catch (e) {
      return fail('$', `is not JSON (${(e as Error).message})`);
    }
  } else {
    let text: string | undefined;
    try {
      text = JSON.stringify(raw);
    } catch {
      return fail('$', 'is not JSON');
    }
    if (text === undefined) return fail('$', 'is not JSON');
    if (utf8Length(text) > MAX_PIPELINE_BYTES) return fail('$', `is larger than ${MAX_PIPELINE_BYTES / 1024} KB`);
  }
  if (!isObject(doc)) return fail('$', 'must be a JSON object {"tasks": [...]}');

  const root = readDeclared(doc, ['tasks'] as const, '$', add);
  const tasksValue = root.tasks?.value;
  if (tasksValue === undefined || tasksValue === null) return fail('tasks', 'is required', errors);
  if (!Array.isArray(tasksValue)) return fail('tasks', 'must be an array of tasks', errors);
  if (tasksValue.length < 1 || tasksValue.length > MAX_TASKS) {
    add('tasks', `must have 1 to ${MAX_TASKS} tasks (has ${tasksValue.length})`);
  }

  const tasks: (PipelineTask | null)[] = [];
  const finals: number[] = [];
  const names = new Map<string, number>();
  const produced = new Map<string, Produced>();
  /** Outputs of every task, to tell "produced later" from "not produced at all". */
  const producedAnywhere = new Map<string, number>();
  tasksValue.forEach((t, i) => {
    if (!isObject(t)) return;
    const f = readDeclared(t, TASK_FIELDS, `tasks[${i}]`, add);
    const outs = f.outputArtifacts?.value;
    if (Array.isArray(outs)) {
      for (const o of outs) {
        if (typeof o !== 'string') continue;
        const r = parseArtifactRef(o);
        if (!('error' in r) && !producedAnywhere.has(r.name)) producedAnywhere.set(r.name, i);
      }
    }
  });

  tasksValue.forEach((t, i) => {
    const tp = `tasks[${i}]`;
    if (!isObject(t)) {
      add(tp, 'must be an object');
      tasks.push(null);
      return;
    }
    const f = readDeclared(t, TASK_FIELDS, tp, () => {}); // duplicates were reported above
    const task = readTask(f, i, tp, add, names);
    tasks.push(task.task);
    if (task.type === 'finalize') finals.push(i);
    const spec = task.type ? taskSpec(task.type) : undefined;

    // Inputs: produced by an earlier task, with the same single/collection form.
    for (const [j, ref] of task.inputs) {
      const p = `${tp}.inputArtifacts[${j}]`;
      checkUse(ref, p, produced, producedAnywhere, add);
    }
    // Outputs: produced once in the whole pipeline.
    for (const [j, ref] of task.outputs) {
      const p = `${tp}.outputArtifacts[${j}]`;
      if (ref.optional) add(p, `an output cannot be optional ("${ref.raw}")`);
      const before = produced.get(ref.name);
      if (before) {
        add(p, `"${ref.name}" is already produced by ${before.task === i ? 'this task' : `tasks[${before.task}]`}`);
        continue;
      }
      const clash = memberClash(ref, produced);
      if (clash) add(p, clash);
      produced.set(ref.name, { collection: ref.collection, task: i });
    }

    if (spec && task.type) {
      const inCount = task.inputs.length;
      const outCount = task.outputs.length;
      if ((inCount < spec.inputs.min || inCount > spec.inputs.max)) {
        add(`${tp}.inputArtifacts`, `${task.type} takes ${arity(spec.inputs, 'input artifact')} (has ${inCount})`);
      }
      if ((outCount < spec.outputs.min || outCount > spec.outputs.max)) {
        add(`${tp}.outputArtifacts`, `${task.type} takes ${arity(spec.outputs, 'output artifact')} (has ${outCount})`);
      }
      if (spec.inputsOrParameter && inCount === 0 && !hasParameter(task.parameters, spec.inputsOrParameter)) {
        add(`${tp}.inputArtifacts`, `${task.type} needs input artifacts or an ${spec.inputsOrParameter} parameter`);
      }
      const collectionIn = task.inputs.find(([, r]) => r.collection)?.[1];
      for (const [j, ref] of task.outputs) {
        const p = `${tp}.outputArtifacts[${j}]`;
        if (spec.singleOutput && ref.collection) {
          add(p, `${task.type} produces one file: write "${ref.name}" without *`);
        } else if (spec.mode === 'perMember' && collectionIn && !ref.collection) {
          add(
            p,
            `must be a collection ("${ref.name}*"): input "${collectionIn.raw}" is a collection, ` +
              `so ${task.type} runs once per member`,
          );
        }
      }
      if (task.type === 'finalize') {
        for (const [j, ref] of task.finalArtifacts) {
          checkUse(ref, `${task.finalPath}[${j}]`, produced, producedAnywhere, add);
        }
      } else if (task.finalArtifacts.length > 0) {
        add(`${tp}.finalArtifacts`, 'only the finalize task takes finalArtifacts');
      }
      checkParameters(task.type, task.parameters, `${tp}.parameters`, produced, add);
    } else if (task.parameters) {
      // Unknown or reserved type: still report malformed expressions.
      for (const [k, v] of Object.entries(task.parameters)) {
        checkExpressions(v, jsonPath(`${tp}.parameters`, k), produced, add);
      }
    }
  });

  // finalize: present, once, last.
  if (finals.length === 0) add('tasks', 'a finalize task is required, as the last task');
  finals.forEach((fi, n) => {
    if (n > 0) add(`tasks[${fi}].type`, `finalize appears more than once (first at tasks[${finals[0]}])`);
    else if (fi !== tasksValue.length - 1) add(`tasks[${fi}].type`, 'finalize must be the last task');
  });

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, pipeline: { tasks: tasks as PipelineTask[] } };
}

function fail(path: string, message: string, errors: ValidationErrors = {}): ValidationResult {
  (errors[path] ??= []).push(message);
  return { ok: false, errors };
}

function arity(a: { min: number; max: number }, what: string): string {
  const plural = (n: number) => (n === 1 ? what : `${what}s`);
  if (a.min === a.max) return a.min === 0 ? `no ${what}s` : `${a.min} ${plural(a.min)}`;
  if (a.min === 0) return `at most ${a.max} ${plural(a.max)}`;
  return `${a.min} to ${a.max} ${what}s`;
}

type Add = (path: string, message: string) => void;
type Declared<K extends string> = Partial<Record<K, { written: string; value: unknown }>>;

/** Declared properties, matched ignoring ASCII case; two spellings of one name are an error. */
function readDeclared<K extends string>(obj: Record<string, unknown>, declared: readonly K[], base: string, add: Add) {
  const byLower = new Map(declared.map((d) => [d.toLowerCase(), d]));
  const out: Declared<K> = {};
  for (const [written, value] of Object.entries(obj)) {
    const name = byLower.get(written.toLowerCase());
    if (!name) continue; // unknown properties are ignored
    const prev = out[name];
    if (prev) add(jsonPath(base, written), `given twice (as ${prev.written} and ${written})`);
    else out[name] = { written, value };
  }
  return out;
}

interface ReadTask {
  task: PipelineTask | null;
  type: TaskType | undefined;
  inputs: [number, ArtifactRef][];
  outputs: [number, ArtifactRef][];
  finalArtifacts: [number, ArtifactRef][];
  finalPath: string;
  parameters: Record<string, unknown> | undefined;
}

function readTask(
  f: Declared<TaskField>,
  i: number,
  tp: string,
  add: Add,
  names: Map<string, number>,
): ReadTask {
  let ok = true;
  const bad = (path: string, message: string) => {
    ok = false;
    add(path, message);
  };

  const name = f.name?.value;
  if (name === undefined || name === null) bad(`${tp}.name`, 'is required');
  else if (typeof name !== 'string' || !TASK_NAME.test(name)) bad(`${tp}.name`, 'must match [A-Za-z0-9_-]{1,100}');
  else {
    const seen = names.get(name.toLowerCase());
    if (seen !== undefined) bad(`${tp}.name`, `"${name}" is already the name of tasks[${seen}]`);
    else names.set(name.toLowerCase(), i);
  }

  const namespace = f.namespace?.value;
  let builtIn = true;
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') {
    bad(`${tp}.namespace`, 'must be a string');
    builtIn = false;
  } else if (!isBuiltInNamespace(namespace)) {
    bad(`${tp}.namespace`, `unknown namespace "${namespace}" (omit it, or use "default" or "customers-canvas")`);
    builtIn = false;
  }

  const typeValue = f.type?.value;
  let type: TaskType | undefined;
  if (typeValue === undefined || typeValue === null) bad(`${tp}.type`, 'is required');
  else if (typeof typeValue !== 'string') bad(`${tp}.type`, 'must be a string');
  else if (builtIn) {
    const r = resolveTaskType(typeValue);
    if (r.kind === 'builtIn') type = r.type;
    else if (r.kind === 'reserved') bad(`${tp}.type`, `${typeValue} is ${NOT_AVAILABLE_YET}`);
    else bad(`${tp}.type`, `unknown task type "${typeValue}"`);
  }

  const description = f.description?.value;
  if (description !== undefined && description !== null && typeof description !== 'string') {
    bad(`${tp}.description`, 'must be a string');
  }

  const list = (field: 'inputArtifacts' | 'outputArtifacts' | 'finalArtifacts', value: unknown, path: string) => {
    const refs: [number, ArtifactRef][] = [];
    if (value === undefined || value === null) return refs;
    if (!Array.isArray(value)) {
      bad(path, `${field} must be an array of artifact names`);
      return refs;
    }
    value.forEach((v, j) => {
      if (typeof v !== 'string') return bad(`${path}[${j}]`, 'must be a string');
      const r = parseArtifactRef(v);
      if ('error' in r) return bad(`${path}[${j}]`, r.error);
      refs.push([j, r]);
    });
    return refs;
  };
  const inputs = list('inputArtifacts', f.inputArtifacts?.value, `${tp}.inputArtifacts`);
  const outputs = list('outputArtifacts', f.outputArtifacts?.value, `${tp}.outputArtifacts`);

  let parameters: Record<string, unknown> | undefined = {};
  const pv = f.parameters?.value;
  if (pv !== undefined && pv !== null) {
    if (!isObject(pv)) {
      bad(`${tp}.parameters`, 'must be an object');
      parameters = undefined;
    } else parameters = pv;
  }

  // finalArtifacts: a task property (as in the original), or a finalize parameter.
  let finalValue = f.finalArtifacts?.value;
  let finalPath = `${tp}.finalArtifacts`;
  const paramFinal = parameters
    ? Object.entries(parameters).find(([k]) => k.toLowerCase() === 'finalartifacts')
    : undefined;
  if (paramFinal && type === 'finalize') {
    if (finalValue !== undefined && finalValue !== null) {
      bad(jsonPath(`${tp}.parameters`, paramFinal[0]), 'finalArtifacts is given twice (task and parameters)');
    } else {
      finalValue = paramFinal[1];
      finalPath = jsonPath(`${tp}.parameters`, paramFinal[0]);
    }
  }
  const finalArtifacts = list('finalArtifacts', finalValue, finalPath);

  const number = (field: 'processingTimeout' | 'maxAutoRetryCount', min: number, max: number, def: number) => {
    const v = f[field]?.value;
    if (v === undefined || v === null) return def;
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      bad(`${tp}.${field}`, `must be an integer from ${min} to ${max}`);
      return def;
    }
    return n;
  };
  const processingTimeout = number('processingTimeout', 1, 86_400, DEFAULT_PROCESSING_TIMEOUT);
  const maxAutoRetryCount = number('maxAutoRetryCount', 0, 10, DEFAULT_MAX_AUTO_RETRY_COUNT);

  const task: PipelineTask | null =
    ok && type
      ? {
          name: name as string,
          type,
          namespace: typeof namespace === 'string' ? namespace : null,
          description: typeof description === 'string' ? description : null,
          inputs: inputs.map(([, r]) => r),
          outputs: outputs.map(([, r]) => r),
          finalArtifacts: finalArtifacts.map(([, r]) => r),
          parameters: parameters ?? {},
          processingTimeout,
          maxAutoRetryCount,
        }
      : null;
  return {
    task,
    type,
    inputs,
    outputs,
    finalArtifacts,
    finalPath,
    parameters,
  };
}

/** An input (or final) artifact must be produced earlier, in the same single/collection form. */
function checkUse(
  ref: ArtifactRef,
  path: string,
  produced: Map<string, Produced>,
  anywhere: Map<string, number>,
  add: Add,
) {
  const p = produced.get(ref.name);
  if (!p) {
    const later = anywhere.get(ref.name);
    add(
      path,
      later === undefined
        ? `"${ref.name}" is not produced by an earlier task`
        : `"${ref.name}" is produced only later (tasks[${later}])`,
    );
    return;
  }
  if (p.collection && !ref.collection) {
    add(path, `"${ref.name}" is a collection (tasks[${p.task}]): write "${ref.name}*"`);
  } else if (!p.collection && ref.collection) {
    add(path, `"${ref.name}" is a single artifact (tasks[${p.task}]): write "${ref.name}" without *`);
  }
}

/** A single `page3` next to a collection `page*` would share a member's name. */
function memberClash(ref: ArtifactRef, produced: Map<string, Produced>): string | undefined {
  for (const [name, p] of produced) {
    if (ref.collection && !p.collection && isMemberName(name, ref.name)) {
      return `collection "${ref.name}*" would name a member like "${name}" (tasks[${p.task}])`;
    }
    if (!ref.collection && p.collection && isMemberName(ref.name, name)) {
      return `"${ref.name}" is the name of a member of "${name}*" (tasks[${p.task}])`;
    }
  }
  return undefined;
}

function isMemberName(candidate: string, collection: string): boolean {
  return candidate.startsWith(collection) && /^\d+$/.test(candidate.slice(collection.length));
}

function checkParameters(
  type: TaskType,
  parameters: Record<string, unknown> | undefined,
  base: string,
  produced: Map<string, Produced>,
  add: Add,
) {
  if (!parameters) return;
  const spec = taskSpec(type);
  const given = new Map<string, string>();
  for (const [written, value] of Object.entries(parameters)) {
    const path = jsonPath(base, written);
    const reserved = reservedParameter(type, written, value);
    if (reserved) {
      add(path, reserved);
      continue;
    }
    const condition = isConditionParameter(written);
    if (condition) {
      checkCondition(condition, value, path, produced, add);
      continue;
    }
    if (type === 'finalize' && written.toLowerCase() === 'finalartifacts') continue; // read with the task
    checkExpressions(value, path, produced, add);
    const found = findParameter(type, written);
    if (!found) continue; // unknown parameters are ignored
    const prev = given.get(found.name);
    if (prev !== undefined) {
      add(path, `given twice (as ${prev} and ${written})`);
      continue;
    }
    given.set(found.name, written);
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' && hasExpression(value)) continue; // typed after interpolation
    if (value === '' && found.spec.kind !== 'string') continue; // empty = default
    const r = found.spec.parse(value);
    if (!r.ok) add(path, r.error);
  }
  for (const [name, p] of Object.entries(spec.parameters)) {
    if (p.required && p.defaultValue === undefined && !given.has(name)) add(jsonPath(base, name), 'is required');
  }
  if (spec.requiresOneOf) {
    const present = (n: string) => given.has(n);
    if (!spec.requiresOneOf.some((g) => g.every(present))) {
      add(base, `${type} needs ${spec.requiresOneOf.map((g) => g.join(' + ')).join(' or ')}`);
    }
  }
}

function checkCondition(
  which: string,
  value: unknown,
  path: string,
  produced: Map<string, Produced>,
  add: Add,
) {
  const single = which === 'skipIf' || which === 'skipIfNot';
  const one = (text: unknown, p: string) => {
    if (typeof text !== 'string') return add(p, 'must be a string condition ("A", "A = B" or "A != B")');
    try {
      const c = parseCondition(text);
      for (const side of [c.left, c.right]) {
        if (!side) continue;
        if (side.kind === 'exists') {
          if (!produced.has(side.name)) add(p, `"${side.name}?": "${side.name}" is not produced by an earlier task`);
        } else checkExpressions(side.template, p, produced, add);
      }
    } catch (e) {
      if (!(e instanceof ExpressionSyntaxError)) throw e;
      add(p, e.message);
    }
  };
  if (value === null || value === undefined) return;
  if (single || typeof value === 'string') {
    if (single && typeof value !== 'string') return add(path, `${which} must be a string`);
    return one(value, path);
  }
  if (!Array.isArray(value)) return add(path, `${which} must be an array of conditions`);
  value.forEach((v, k) => one(v, `${path}[${k}]`));
}

/** Every string inside `value` must hold well-formed references to known roots. */
function checkExpressions(value: unknown, path: string, produced: Map<string, Produced>, add: Add) {
  if (typeof value === 'string') {
    if (!hasExpression(value)) return;
    try {
      for (const seg of parseTemplate(value)) {
        if (seg.kind !== 'ref') continue;
        const ref = seg.ref;
        if (ref.root === 'project') {
          const problem = checkProjectPath(ref.path);
          if (problem) add(path, `${seg.raw}: ${problem}`);
        } else if (ref.root === 'artifact' && !produced.has(ref.name)) {
          add(path, `${seg.raw}: "${ref.name}" is not produced by an earlier task`);
        }
      }
    } catch (e) {
      if (!(e instanceof ExpressionSyntaxError)) throw e;
      add(path, e.message);
    }
    return;
  }
  if (Array.isArray(value)) value.forEach((v, k) => checkExpressions(v, `${path}[${k}]`, produced, add));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) checkExpressions(v, jsonPath(path, k), produced, add);
}

function hasParameter(parameters: Record<string, unknown> | undefined, name: string): boolean {
  const lower = name.toLowerCase();
  return Object.entries(parameters ?? {}).some(([k, v]) => k.toLowerCase() === lower && v !== null && v !== undefined);
}

/**
 * The collection input a per-member task iterates (its first `name*` input), or undefined when
 * the task runs as one unit. The runner makes one unit per member of it.
 */
export function perMemberInput(task: PipelineTask): ArtifactRef | undefined {
  if (taskSpec(task.type).mode !== 'perMember') return undefined;
  return task.inputs.find((r) => r.collection);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** Secret names a pipeline references (`{{secrets.x}}`), lower-cased, for the 403 check. */
export function secretNames(pipeline: Pipeline): string[] {
  const names = new Set<string>();
  const visit = (v: unknown) => {
    if (typeof v === 'string') {
      if (!hasExpression(v)) return;
      for (const seg of safeSegments(v)) if (seg.kind === 'ref' && seg.ref.root === 'secret') names.add(seg.ref.name.toLowerCase());
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) Object.values(v).forEach(visit);
  };
  for (const t of pipeline.tasks) visit(t.parameters);
  return [...names];
}

function safeSegments(v: string) {
  try {
    return parseTemplate(v);
  } catch {
    return [];
  }
}

/**
 * The stored/returned form of a validated pipeline: declared names, built-in namespace omitted,
 * defaults applied, parameters as written. Two bodies that mean the same give the same
 * `canonicalJson(pipelineDefinition(…))` (job-id idempotency).
 */
export function pipelineDefinition(pipeline: Pipeline) {
  return {
    tasks: pipeline.tasks.map((t) => ({
      name: t.name,
      type: t.type,
      ...(t.namespace !== null && !isBuiltInNamespace(t.namespace) ? { namespace: t.namespace } : {}),
      ...(t.description !== null ? { description: t.description } : {}),
      inputArtifacts: t.inputs.map((r) => r.raw),
      outputArtifacts: t.outputs.map((r) => r.raw),
      parameters: t.parameters,
      finalArtifacts: t.finalArtifacts.map((r) => r.raw),
      processingTimeout: t.processingTimeout,
      maxAutoRetryCount: t.maxAutoRetryCount,
    })),
  };
}

/** JSON with object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}
