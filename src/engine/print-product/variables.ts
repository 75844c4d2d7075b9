/**
 * Variables and item data. A variable is an item with `isVariable` (Text: its text; Image: its
 * source). Renders take `variableData` as the original's `VariableInfo[]` (`[{name, value,
 * type?}]`, value a string: the text, or an image id or URL) and apply it to a copy of the model
 * before drawing. `apply-items-data` is the other way round: it sets values of items that are
 * NOT variables, and is stored.
 */
import { ErrorList, type ModelErrors } from './validate';
import { encodeBarcode } from '../barcode';
import { walkItems, type ConstraintsModel, type ItemModel, type PrintProductModel, type SourceModel } from './schema';

export interface VariableInfo {
  name: string;
  value: string;
  type?: string;
}

export interface VariableEntry {
  name: string;
  /** Current value: the text, or the image's asset id or URL ('' when empty). */
  value: string;
  type: 'Text' | 'Image' | 'Barcode';
  constraints: ConstraintsModel;
}

function* allItems(model: PrintProductModel): Generator<ItemModel> {
  for (const s of model.surfaces) for (const c of s.containers) yield* walkItems(c.items);
}

const sourceValue = (s: SourceModel | null | undefined) => (!s ? '' : s.type === 'Storage' ? s.id : s.type === 'Url' ? s.url : s.key);

/** `GET /designs/{id}/variables`: every variable with its value and constraints, in model order. */
export function listVariables(model: PrintProductModel): VariableEntry[] {
  const out: VariableEntry[] = [];
  for (const item of allItems(model)) {
    if (!item.isVariable || (item.type !== 'Text' && item.type !== 'Image' && item.type !== 'Barcode')) continue;
    out.push({
      name: item.name,
      value: item.type === 'Text' ? item.text : item.type === 'Barcode' ? item.value : sourceValue(item.source),
      type: item.type,
      constraints: item.constraints ?? { required: false },
    });
  }
  return out;
}

/** An image variable's value: an http(s) URL, or an asset id (24 hex or a client id); '' empties it. */
export function sourceFromValue(value: string): SourceModel | null | { error: string } {
  const v = value.trim();
  if (!v) return null;
  if (/^https?:\/\//i.test(v)) {
    try {
      new URL(v);
      return { type: 'Url', url: v };
    } catch {
      return { error: 'not a valid URL' };
    }
  }
  if (/^[A-Za-z0-9_-]{1,64}$/.test(v)) return { type: 'Storage', id: v };
  return { error: 'an image value is an asset id or an http(s) URL' };
}

export interface ApplyVariablesOptions {
  /** Required variables must end up with a value (proofs and print output). */
  enforceRequired?: boolean;
  /** Path prefix of errors (default `variableData`). */
  path?: string;
}

/**
 * A copy of `model` with `variableData` applied. Unknown names, a `type` that does not match
 * the variable, a text over `maxLength`, a malformed image value and (with `enforceRequired`)
 * a required variable left empty are errors. `allowedFolder` needs storage and is checked where
 * image sources are resolved (the `images` callback of the renderers).
 */
export function applyVariableData(
  model: PrintProductModel,
  data: unknown,
  options: ApplyVariablesOptions = {},
): { model: PrintProductModel; errors: ModelErrors | null } {
  const prefix = options.path ?? 'variableData';
  const errors = new ErrorList();
  const copy = structuredClone(model);
  const byName = new Map<string, ItemModel>();
  for (const item of allItems(copy)) if (item.isVariable) byName.set(item.name, item);
  if (data !== undefined && data !== null && !Array.isArray(data)) errors.add(prefix, 'an array of {name, value, type}');
  const entries = Array.isArray(data) ? data : [];
  entries.forEach((entry, i) => {
    const p = `${prefix}[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return errors.add(p, 'an object {name, value, type}');
    // Property names ignore case (platform contract, Conventions).
    const get = (k: string) => Object.entries(entry).find(([key]) => key.toLowerCase() === k)?.[1];
    const name = get('name');
    const value = get('value') ?? '';
    const type = get('type');
    if (typeof name !== 'string') return errors.add(`${p}.name`, 'a string');
    if (typeof value !== 'string') return errors.add(`${p}.value`, 'a string (the text, or an image id or URL)');
    const item = byName.get(name);
    if (!item) return errors.add(`${p}.name`, `no variable named "${name}"`);
    if (type !== undefined && type !== null && (typeof type !== 'string' || type.toLowerCase() !== item.type.toLowerCase())) {
      return errors.add(`${p}.type`, `variable "${name}" is ${item.type === 'Text' ? 'a Text' : item.type === 'Barcode' ? 'a Barcode' : 'an Image'} variable`);
    }
    if (item.type === 'Text') {
      const max = item.constraints?.maxLength;
      if (max !== undefined && [...value].length > max) return errors.add(`${p}.value`, `longer than the variable's maxLength (${max} characters)`);
      item.text = value;
    } else if (item.type === 'Barcode') {
      // A VDP column's value: checked by encoding it, so a bad row is an error naming it.
      try {
        encodeBarcode(item.format, value, item.errorCorrection);
      } catch (e) {
        if (value) return errors.add(`${p}.value`, (e as Error).message);
      }
      item.value = value;
    } else if (item.type === 'Image') {
      const source = sourceFromValue(value);
      if (source && 'error' in source) return errors.add(`${p}.value`, source.error);
      item.source = source;
    }
  });
  if (options.enforceRequired) {
    for (const v of listVariables(copy)) {
      if (v.constraints.required && !v.value.trim()) errors.add(prefix, `variable "${v.name}" is required`);
    }
  }
  return { model: copy, errors: errors.empty ? null : errors.errors };
}

export interface ItemData {
  text?: string;
  color?: string;
  fillColor?: string;
  source?: unknown;
  visible?: boolean;
  /** Text items: copyfitting (issue 21: item data may set it, variable data may not). */
  fit?: string;
  minSize?: number;
}

/**
 * `apply-items-data`: a copy of `model` with `itemsData` (`{"<item name>": {text, color,
 * fillColor, source, visible, fit, minSize}}`) set on the items of those names (every item of a shared name).
 * Variables and unknown names are errors; so is a field the item's type does not have. The
 * caller validates the result as a whole model (colours, sources) before storing it.
 */
export function applyItemsData(model: PrintProductModel, itemsData: unknown): { model: PrintProductModel; errors: ModelErrors | null } {
  const errors = new ErrorList();
  const copy = structuredClone(model);
  if (typeof itemsData !== 'object' || itemsData === null || Array.isArray(itemsData)) {
    errors.add('itemsData', 'an object keyed by item name');
    return { model: copy, errors: errors.errors };
  }
  const byName = new Map<string, ItemModel[]>();
  for (const item of allItems(copy)) byName.set(item.name, [...(byName.get(item.name) ?? []), item]);
  const fieldsOf: Record<ItemModel['type'], string[]> = {
    Text: ['text', 'color', 'visible', 'fit', 'minSize'],
    Rectangle: ['fillColor', 'visible'],
    Ellipse: ['fillColor', 'visible'],
    Image: ['source', 'visible'],
    Barcode: ['value', 'color', 'visible'],
    Group: ['visible'],
  };
  for (const [name, data] of Object.entries(itemsData)) {
    const p = `itemsData[${JSON.stringify(name)}]`;
    const items = byName.get(name);
    if (!items) {
      errors.add(p, `no item named "${name}"`);
      continue;
    }
    if (items.some((i) => i.isVariable)) {
      errors.add(p, `"${name}" is a variable: its value comes from variableData at render time`);
      continue;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      errors.add(p, 'an object {text, color, fillColor, source, visible}');
      continue;
    }
    for (const [rawKey, value] of Object.entries(data)) {
      const key = ['text', 'color', 'fillColor', 'source', 'visible', 'value', 'fit', 'minSize'].find((k) => k.toLowerCase() === rawKey.toLowerCase());
      if (!key) {
        errors.add(`${p}.${rawKey}`, 'unknown property');
        continue;
      }
      for (const item of items) {
        if (!fieldsOf[item.type].includes(key)) {
          errors.add(`${p}.${key}`, `a ${item.type} item has no ${key}`);
          continue;
        }
        if (key === 'visible' && typeof value !== 'boolean') errors.add(`${p}.${key}`, 'true or false');
        else if ((key === 'text' || key === 'color' || key === 'fillColor' || key === 'value' || key === 'fit') && typeof value !== 'string') errors.add(`${p}.${key}`, 'a string');
        else if (key === 'minSize' && (typeof value !== 'number' || !(value > 0))) errors.add(`${p}.${key}`, 'a size in points above 0');
        else (item as unknown as Record<string, unknown>)[key] = value;
      }
    }
  }
  return { model: copy, errors: errors.empty ? null : errors.errors };
}
