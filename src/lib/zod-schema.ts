/**
 * `unwrapSchema`: a zod (v4) schema with its optional/nullable/default/readonly/catch/lazy/pipe
 * wrappers taken off, down to the schema that decides the value's shape. The case-insensitive
 * name matchers (platform core/names, rendering/canonical, atoms model/validate) read declared
 * property names and enum values through it; each keeps its own rule for two spellings of one
 * name (their contracts differ: a 400, the exact spelling wins, or an error list entry).
 *
 * A pipe is read at its input, except a preprocess (a transform first), which is read at its output.
 */
export type AnySchema = { _zod: { def: Record<string, any> } } | undefined;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional', 'success']);

export function unwrapSchema(schema: AnySchema): AnySchema {
  let s = schema;
  for (let i = 0; s && i < 20; i++) {
    const def = s._zod?.def;
    if (!def) return undefined;
    if (WRAPPERS.has(def.type)) s = def.innerType;
    else if (def.type === 'pipe') s = def.in._zod.def.type === 'transform' ? def.out : def.in;
    else if (def.type === 'lazy') s = def.getter();
    else break;
  }
  return s;
}
