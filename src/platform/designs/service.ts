/**
 * Print-product model editing, free of HTTP: finding surfaces, containers, items and print areas
 * by id, their DTOs (an entity without its nested children, plus where it sits), and the changes
 * the `/designs/{id}/print-product/…` routes make. Every change is applied to a draft of the
 * model that store.editModel then validates whole and saves with its etag.
 *
 * PUT of an entity: the properties given replace the stored ones (names matched ignoring case),
 * the id stays the path's and nested children are kept; PUT of `/model` replaces the entity with
 * its nested children.
 */
import { NotFoundError, ValidationError } from '../core';
import type { ContainerModel, ItemModel, PrintAreaModel, PrintProductModel, SurfaceModel } from '../../engine/print-product';

type Json = Record<string, unknown>;

/**
 * A request body placed into the model as an entity. Its shape is not checked here: editModel
 * validates the whole edited model (validateForTenant) before anything is stored, and answers
 * 400 naming the field, so the one unchecked step is this one.
 */
const unchecked = <T>(body: Json): T => body as unknown as T;
type GroupItem = Extract<ItemModel, { type: 'Group' }>;

export type EntityKind = 'surface' | 'container' | 'item' | 'printArea';

/** Child arrays an entity's plain DTO leaves out. */
const NESTED: Record<EntityKind, string | null> = { surface: null, container: 'items', item: 'items', printArea: null };
const SURFACE_NESTED = ['printAreas', 'containers'];

export interface ItemLocation {
  surface: SurfaceModel;
  container: ContainerModel;
  parent: GroupItem | null;
  list: ItemModel[];
  index: number;
  item: ItemModel;
}

const notFound = (what: string, id: string, path?: string) => new NotFoundError(`No ${what} ${id} in this design.`, path ? { [path]: [`no ${what} ${id}`] } : undefined);

export function findSurface(model: PrintProductModel, id: string, path?: string): { surface: SurfaceModel; index: number } {
  const index = model.surfaces.findIndex((s) => s.id === id);
  if (index < 0) throw notFound('surface', id, path);
  return { surface: model.surfaces[index]!, index };
}

export function findContainer(model: PrintProductModel, id: string, path?: string): { surface: SurfaceModel; container: ContainerModel; index: number } {
  for (const surface of model.surfaces) {
    const index = surface.containers.findIndex((c) => c.id === id);
    if (index >= 0) return { surface, container: surface.containers[index]!, index };
  }
  throw notFound('container', id, path);
}

export function findPrintArea(model: PrintProductModel, id: string, path?: string): { surface: SurfaceModel; area: PrintAreaModel; index: number } {
  for (const surface of model.surfaces) {
    const index = surface.printAreas.findIndex((a) => a.id === id);
    if (index >= 0) return { surface, area: surface.printAreas[index]!, index };
  }
  throw notFound('print area', id, path);
}

function* locations(model: PrintProductModel): Generator<ItemLocation> {
  function* walk(surface: SurfaceModel, container: ContainerModel, parent: GroupItem | null, list: ItemModel[]): Generator<ItemLocation> {
    for (let index = 0; index < list.length; index++) {
      const item = list[index]!;
      yield { surface, container, parent, list, index, item };
      if (item.type === 'Group') yield* walk(surface, container, item, item.items);
    }
  }
  for (const surface of model.surfaces) for (const container of surface.containers) yield* walk(surface, container, null, container.items);
}

export function findItem(model: PrintProductModel, id: string, path?: string): ItemLocation {
  for (const loc of locations(model)) if (loc.item.id === id) return loc;
  throw notFound('item', id, path);
}

// --- DTOs ------------------------------------------------------------------------------------------

const without = (o: object, keys: Array<string | null>) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

export const surfaceDto = (s: SurfaceModel) => without(s, SURFACE_NESTED);
export const surfaceModelDto = (s: SurfaceModel) => s;
export const containerDto = (c: ContainerModel, surface: SurfaceModel) => ({ ...without(c, ['items']), surfaceId: surface.id });
export const containerModelDto = (c: ContainerModel, surface: SurfaceModel) => ({ ...c, surfaceId: surface.id });
export const itemDto = (loc: ItemLocation, nested = false) => ({
  ...(nested ? loc.item : without(loc.item, ['items'])),
  surfaceId: loc.surface.id,
  containerId: loc.container.id,
  parentItemId: loc.parent?.id ?? null,
});
export const printAreaDto = (a: PrintAreaModel, surface: SurfaceModel) => ({ ...a, surfaceId: surface.id });

// --- lists -----------------------------------------------------------------------------------------

export interface ItemFilter {
  surfaceId?: string;
  containerId?: string;
  parentItemId?: string;
}

/** Items of a group (parentItemId), a container, a surface's containers or the whole design (direct children only). */
export function listItems(model: PrintProductModel, f: ItemFilter): ItemLocation[] {
  if (f.surfaceId) findSurface(model, f.surfaceId, 'surfaceId');
  if (f.containerId) findContainer(model, f.containerId, 'containerId');
  if (f.parentItemId) {
    const parent = findItem(model, f.parentItemId, 'parentItemId');
    if (parent.item.type !== 'Group') throw new ValidationError({ parentItemId: ['not a Group item'] });
  }
  return [...locations(model)].filter(
    (l) =>
      (!f.surfaceId || l.surface.id === f.surfaceId) &&
      (!f.containerId || l.container.id === f.containerId) &&
      (f.parentItemId ? l.parent?.id === f.parentItemId : l.parent === null),
  );
}

export const listContainers = (model: PrintProductModel, surfaceId?: string) =>
  (surfaceId ? [findSurface(model, surfaceId, 'surfaceId').surface] : model.surfaces).flatMap((s) => s.containers.map((c) => containerDto(c, s)));

export const listPrintAreas = (model: PrintProductModel, surfaceId?: string) =>
  (surfaceId ? [findSurface(model, surfaceId, 'surfaceId').surface] : model.surfaces).flatMap((s) => s.printAreas.map((a) => printAreaDto(a, s)));

// --- changes (on a draft) ---------------------------------------------------------------------------

/** An object from a request body (400 otherwise). */
export function bodyObject(v: unknown, path = '$'): Json {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ValidationError({ [path]: ['a JSON object'] });
  return v as Json;
}

/** `body`'s properties over `target`'s, spelled as `target` spells them (so `Name` replaces `name`). */
function mergeInto(target: Json, body: Json, keep: string[]): void {
  const spelled = new Map(Object.keys(target).map((k) => [k.toLowerCase(), k]));
  for (const [k, v] of Object.entries(body)) {
    const key = spelled.get(k.toLowerCase()) ?? k;
    if (keep.some((x) => x.toLowerCase() === key.toLowerCase())) continue;
    target[key] = v;
  }
}

/** A new entity's id: the body's, else generated (so the caller can find it after validation). */
function withId(body: Json): Json {
  const idKey = Object.keys(body).find((k) => k.toLowerCase() === 'id');
  if (idKey && typeof body[idKey] === 'string' && body[idKey]) return body;
  return { ...body, id: crypto.randomUUID() };
}
export const idOf = (o: Json) => String(o[Object.keys(o).find((k) => k.toLowerCase() === 'id')!]);

function insertAt<T>(list: T[], value: T, index: number | undefined): void {
  if (index === undefined || index >= list.length) list.push(value);
  else list.splice(Math.max(0, index), 0, value);
}

export interface Placement {
  index?: number;
  top?: number;
  left?: number;
}

/** Replaces an entity's own properties (not its id or nested children). */
export function updateEntity(model: PrintProductModel, kind: EntityKind, id: string, body: Json): void {
  const target = entityOf(model, kind, id) as unknown as Json;
  mergeInto(target, body, ['id', ...(kind === 'surface' ? SURFACE_NESTED : [NESTED[kind]].filter((x): x is string => !!x))]);
}

/** Replaces an entity with its nested children (`/model` PUT); the id stays. */
export function replaceEntity(model: PrintProductModel, kind: EntityKind, id: string, body: Json): void {
  const replacement = { ...body };
  for (const k of Object.keys(replacement)) if (k.toLowerCase() === 'id') delete replacement[k];
  const value: Json = { ...replacement, id };
  switch (kind) {
    case 'surface': {
      const { index } = findSurface(model, id);
      model.surfaces[index] = unchecked(value);
      return;
    }
    case 'container': {
      const { surface, index } = findContainer(model, id);
      surface.containers[index] = unchecked(value);
      return;
    }
    case 'item': {
      const loc = findItem(model, id);
      loc.list[loc.index] = unchecked(value);
      return;
    }
    case 'printArea': {
      const { surface, index } = findPrintArea(model, id);
      surface.printAreas[index] = unchecked(value);
    }
  }
}

function entityOf(model: PrintProductModel, kind: EntityKind, id: string): object {
  switch (kind) {
    case 'surface':
      return findSurface(model, id).surface;
    case 'container':
      return findContainer(model, id).container;
    case 'item':
      return findItem(model, id).item;
    case 'printArea':
      return findPrintArea(model, id).area;
  }
}

export function deleteEntity(model: PrintProductModel, kind: EntityKind, id: string): void {
  switch (kind) {
    case 'surface': {
      const { index } = findSurface(model, id);
      if (model.surfaces.length === 1) throw new ValidationError({ $: ['a design keeps at least one surface'] });
      model.surfaces.splice(index, 1);
      return;
    }
    case 'container': {
      const { surface, index } = findContainer(model, id);
      surface.containers.splice(index, 1);
      return;
    }
    case 'item': {
      const loc = findItem(model, id);
      loc.list.splice(loc.index, 1);
      return;
    }
    case 'printArea': {
      const { surface, index } = findPrintArea(model, id);
      surface.printAreas.splice(index, 1);
    }
  }
}

export interface CreateTarget extends Placement {
  surfaceId?: string;
  containerId?: string;
  parentItemId?: string;
}

/** Adds an entity (with its nested children) where the query says; returns its id. */
export function createEntity(model: PrintProductModel, kind: EntityKind, rawBody: Json, at: CreateTarget): string {
  const body = withId(rawBody);
  const surfaceOf = () => (at.surfaceId ? findSurface(model, at.surfaceId, 'surfaceId').surface : model.surfaces[0]!);
  switch (kind) {
    case 'surface':
      insertAt(model.surfaces, unchecked(body), at.index);
      break;
    case 'printArea':
      insertAt(surfaceOf().printAreas, unchecked(body), at.index);
      break;
    case 'container':
      insertAt(surfaceOf().containers, unchecked(body), at.index);
      break;
    case 'item': {
      if (at.left !== undefined) body[Object.keys(body).find((k) => k.toLowerCase() === 'x') ?? 'x'] = at.left;
      if (at.top !== undefined) body[Object.keys(body).find((k) => k.toLowerCase() === 'y') ?? 'y'] = at.top;
      let list: ItemModel[];
      if (at.parentItemId) {
        const parent = findItem(model, at.parentItemId, 'parentItemId');
        if (parent.item.type !== 'Group') throw new ValidationError({ parentItemId: ['not a Group item'] });
        list = parent.item.items;
      } else if (at.containerId) {
        list = findContainer(model, at.containerId, 'containerId').container.items;
      } else {
        const surface = surfaceOf();
        if (!surface.containers.length) throw new ValidationError({ containerId: [`surface ${surface.id} has no container; create one first`] });
        list = surface.containers[surface.containers.length - 1]!.items;
      }
      insertAt(list, unchecked(body), at.index);
    }
  }
  return idOf(body);
}

/** The DTO of an entity of the (validated) model, nested children included or not. */
export function entityDto(model: PrintProductModel, kind: EntityKind, id: string, nested: boolean): unknown {
  switch (kind) {
    case 'surface': {
      const s = findSurface(model, id).surface;
      return nested ? surfaceModelDto(s) : surfaceDto(s);
    }
    case 'container': {
      const { surface, container } = findContainer(model, id);
      return nested ? containerModelDto(container, surface) : containerDto(container, surface);
    }
    case 'item':
      return itemDto(findItem(model, id), nested);
    case 'printArea': {
      const { surface, area } = findPrintArea(model, id);
      return printAreaDto(area, surface);
    }
  }
}

export function listEntities(model: PrintProductModel, kind: EntityKind, f: ItemFilter): unknown[] {
  switch (kind) {
    case 'surface':
      return model.surfaces.map(surfaceDto);
    case 'container':
      return listContainers(model, f.surfaceId);
    case 'item':
      return listItems(model, f).map((l) => itemDto(l));
    case 'printArea':
      return listPrintAreas(model, f.surfaceId);
  }
}

/** A new empty print product: each surface with a print area covering it and one container. */
export function emptyProduct(surfaces: Array<{ width: number; height: number; name?: string }>): Json {
  return {
    version: 1,
    surfaces: surfaces.map((s, i) => ({
      name: s.name ?? `Surface ${i + 1}`,
      width: s.width,
      height: s.height,
      printAreas: [{ name: 'Print area', bounds: { x: 0, y: 0, width: s.width, height: s.height } }],
      containers: [{ name: 'Main', items: [] }],
    })),
  };
}
