/**
 * A project item's `fields` (the storefront's personalisation data) applied to the item's design
 * by the render tasks, so the ordered file is the shopper's, not the template's.
 *
 * The contract names no mapping; this is the obvious one (docs/pipelines.md, "Personalisation"):
 * a field whose name is a layer's (PSD) or a variable's (PrintProduct) fills it, the name matched
 * exactly first, then ignoring case. Fields that name nothing are left alone: they also carry
 * order data (paper, finish) that no template shows.
 *
 * - PSD: each matched field becomes a command of the rendering API's `data` (the engine's
 *   personalisation, src/engine/personalise), chosen by the layer's type: a text layer takes the
 *   value as its text; an image layer or smart object an image URL or stored image id; a shape
 *   layer a colour; a group the name of the child to show (`switch`); a JSON `true`/`false` shows
 *   or hides any layer (the text `"true"`/`"false"` any but a text layer); an object is passed through as a command (`{type: 'text', text,
 *   color}`, `{visible: false}`…), exactly as the rendering API takes it.
 * - PrintProduct: each matched field becomes a `variableData` entry `{name, value}` of the design
 *   atoms (the text, or an image id or URL), with the variables' own rules (maxLength, allowed
 *   folder, required in print output).
 *
 * A value the layer or variable cannot take fails the task, naming the field.
 */
import { walkLayers } from '../../../engine/compiled/info';
import { EngineError } from '../../../engine/errors';
import { nameWithoutMarkers, validateData, type PersonalisationData } from '../../../engine/personalise';
import { resolveTemplate } from '../../../engine/preview';
import type { LayerNode } from '../../../engine/types';
import { applyVariableData, listVariables, type PrintProductModel, type VariableInfo } from '../../../engine/print-product';
import { TenantInputStore } from '../../assets';
import { TaskFailure } from './errors';
import { numericItemId, snapshotItems } from './project';
import type { ArtifactRecord, UnitContext } from './types';

type Fields = Record<string, unknown>;

/**
 * The fields of the project item a design artifact belongs to: the artifact's item, else the
 * job's item, else the only item of the project; none when the item cannot be told.
 */
export function itemFields(ctx: Pick<UnitContext, 'project' | 'itemId'>, artifact: Pick<ArtifactRecord, 'itemId'>): Fields {
  const items = snapshotItems(ctx);
  const wanted = artifact.itemId ?? ctx.itemId;
  const item = wanted != null ? items.find((i) => numericItemId(i.id) === wanted || String(i.id) === String(wanted)) : items.length === 1 ? items[0] : undefined;
  const fields = item?.fields;
  return fields && typeof fields === 'object' && !Array.isArray(fields) ? fields : {};
}

/** `name` → the names in `names` it selects: itself when present, else those equal ignoring case. */
function matching(name: string, names: Iterable<string>): string[] {
  const all = [...names];
  if (all.includes(name)) return [name];
  const lower = name.toLowerCase();
  return all.filter((n) => n.toLowerCase() === lower);
}

/**
 * Pairs each target name with the field that fills it: an exact field name wins over one that
 * differs only in case; among several such, the first written.
 */
export function assign(fields: Fields, targets: Iterable<string>): Map<string, { field: string; value: unknown }> {
  const names = [...targets];
  const out = new Map<string, { field: string; value: unknown; exact: boolean }>();
  for (const [field, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    for (const target of matching(field, names)) {
      const exact = target === field;
      const held = out.get(target);
      if (!held || (exact && !held.exact)) out.set(target, { field, value, exact });
    }
  }
  return out;
}

const BOOL: Record<string, boolean> = { true: true, false: false };

/** The engine command a field's value gives on layers of this type (undefined: leave the layer). */
function commandFor(nodes: LayerNode[], field: string, value: unknown): unknown {
  if (typeof value === 'object') return value; // a rendering API command, checked by the engine
  if (typeof value === 'boolean') return { visible: value };
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
  if (text === undefined) throw new TaskFailure(`fields.${field}: a text, number, true/false or a command object`);
  const type = nodes[0]!.type;
  if (nodes.some((n) => n.type !== type)) throw new TaskFailure(`fields.${field}: the layers named "${nodes[0]!.name}" are of different types (${[...new Set(nodes.map((n) => n.type))].join(', ')})`);
  if (type === 'Text') return { type: 'text', text };
  const toggle = BOOL[text.trim().toLowerCase()];
  if (toggle !== undefined) return { visible: toggle };
  if (type === 'Image' || type === 'SmartObject') return text.trim() ? { type: 'image', image: text.trim(), resizeMode: 'fill' } : undefined;
  if (type === 'Shape') return text.trim() ? { type: 'shape', color: text.trim() } : undefined;
  if (type === 'Group') {
    const child = text.trim() && nodes[0]!.children?.find((c) => c.name === text.trim() || c.name.toLowerCase() === text.trim().toLowerCase());
    if (!text.trim()) return undefined;
    if (!child) throw new TaskFailure(`fields.${field}: the group "${nodes[0]!.name}" has no layer named "${text.trim()}"`);
    return { type: 'switch', select: child.name };
  }
  throw new TaskFailure(`fields.${field}: the ${type} layer "${nodes[0]!.name}" takes only true or false`);
}

/** A PSD design's `data` from the item's fields (undefined when no field names a layer). */
export async function psdFieldData(ctx: Pick<UnitContext, 'env' | 'tenantId'>, designId: string, fields: Fields): Promise<PersonalisationData | undefined> {
  if (!Object.keys(fields).length) return undefined;
  const { compiled } = await resolveTemplate(new TenantInputStore(ctx.env, ctx.tenantId), designId);
  return fieldData(compiled.layers, fields);
}

/** `fields` → the engine's `data` for a template's layer tree (undefined when no field names a layer). */
export function fieldData(layers: LayerNode[], fields: Fields): PersonalisationData | undefined {
  const byName = new Map<string, LayerNode[]>();
  for (const node of walkLayers(layers)) for (const name of new Set([node.name, nameWithoutMarkers(node.name)])) byName.set(name, [...(byName.get(name) ?? []), node]);
  const data: Record<string, unknown> = {};
  const fieldOf = new Map<string, string>();
  for (const [layer, { field, value }] of assign(fields, byName.keys())) {
    const command = commandFor(byName.get(layer)!, field, value);
    if (command === undefined) continue;
    data[layer] = command;
    fieldOf.set(layer, field);
  }
  if (!Object.keys(data).length) return undefined;
  // The engine's own check (colours, command shapes), its problems named by field, not by layer.
  try {
    validateData(layers, data);
  } catch (e) {
    if (!(e instanceof EngineError)) throw e;
    const problems = (e.details ?? []).map((d) => {
      const layer = [...fieldOf.keys()].find((l) => d.path === `data.${l}` || d.path.startsWith(`data.${l}.`));
      return layer === undefined ? `${d.path}: ${d.reason}` : `fields.${fieldOf.get(layer)}${d.path.slice(`data.${layer}`.length)}: ${d.reason}`;
    });
    throw new TaskFailure(problems.length ? problems.join('; ') : e.message);
  }
  return data as PersonalisationData;
}

/**
 * A PrintProduct design's `variableData` from `values` (an item's fields, or a VDP row). With
 * `strict` (VDP rows), a name that is no variable fails the task; fields ignore such names.
 * The values are checked against the variables now, so a bad one fails naming its field.
 */
export function printProductVariables(model: PrintProductModel, values: Fields, what = 'fields', strict = false): VariableInfo[] | undefined {
  const variables = listVariables(model);
  const types = new Map(variables.map((v) => [v.name, v.type]));
  if (strict) {
    const unknown = Object.keys(values).filter((k) => !matching(k, types.keys()).length);
    if (unknown.length) throw new TaskFailure(`${what}: the design has no variable named ${unknown.map((k) => `"${k}"`).join(', ')}`);
  }
  const out: Array<VariableInfo & { field: string }> = [];
  for (const [name, { field, value }] of assign(values, types.keys())) {
    if (typeof value === 'object') throw new TaskFailure(`${what}.${field}: a text (or, for an image variable, an image id or URL)`);
    out.push({ name, value: String(value), type: types.get(name), field });
  }
  if (!out.length) return undefined;
  const { errors } = applyVariableData(model, out.map(({ field: _f, ...v }) => v));
  if (errors) {
    const messages = Object.entries(errors).map(([path, list]) => {
      const i = /^variableData\[(\d+)\]/.exec(path)?.[1];
      return `${i !== undefined ? `${what}.${out[Number(i)]!.field}` : what}: ${list.join('; ')}`;
    });
    throw new TaskFailure(messages.join('; '));
  }
  return out.map(({ field: _f, ...v }) => v);
}
