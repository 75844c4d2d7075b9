/**
 * The rest of the catalogue (back-office CRUD, storefront reads): product links, product
 * specifications, product bundles, personalization workflows and processing pipelines.
 * Deleting one that something references answers 409.
 */
import { unavailableTasks } from '../pipelines/tasks/registry';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError, type ErrorsByPath, type TenantContext } from '../core';
import { iso, parseJson } from '../core/stored-json';
import { secretNames, validatePipeline } from '../pipelines/language';
import { checkAttached } from './products';
import * as store from './store/entities';
import { productHasVersion } from './store/products';
import type { EntityFilter, EntityKind, EntityRows } from './store/entities';
import type { PipelineInput, ProductBundleInput, ProductLinkInput, ProductSpecificationInput, WorkflowInput } from './schemas';

export type { EntityFilter, EntityKind };

interface KindSpec<K extends EntityKind> {
  noun: string;
  dto: (r: EntityRows[K]) => Record<string, unknown>;
}

const stamps = (r: { created: number; lastModified: number }) => ({ created: iso(r.created), lastModified: iso(r.lastModified) });
const attached = (r: { personalizationWorkflowId: number | null; processingPipelineId: number | null }) => ({
  personalizationWorkflowId: r.personalizationWorkflowId ?? null,
  processingPipelineId: r.processingPipelineId ?? null,
});

const KINDS: { [K in EntityKind]: KindSpec<K> } = {
  link: {
    noun: 'product link',
    dto: (r) => ({ id: r.id, name: r.name, description: r.description ?? null, productId: r.productId, productVersionId: r.productVersionId ?? null, ...attached(r), ...stamps(r) }),
  },
  specification: {
    noun: 'product specification',
    dto: (r) => ({
      id: r.id,
      name: r.name,
      description: r.description ?? null,
      productAttributes: parseJson<Array<{ name: string; type?: string | null; value: unknown }>>(r.productAttributes, []).map((a) => ({ name: a.name, type: a.type ?? null, value: a.value ?? null })),
      ...attached(r),
      ...stamps(r),
    }),
  },
  bundle: {
    noun: 'product bundle',
    dto: (r) => ({
      id: r.id,
      name: r.name,
      description: r.description ?? null,
      items: parseJson<Array<{ productId?: number | null; productLinkId?: number | null }>>(r.items, []).map((i) => ({ productId: i.productId ?? null, productLinkId: i.productLinkId ?? null })),
      ...attached(r),
      ...stamps(r),
    }),
  },
  workflow: {
    noun: 'personalization workflow',
    dto: (r) => ({ id: r.id, name: r.name ?? '', content: r.content ?? '', workflowType: r.workflowType, ...stamps(r) }),
  },
  pipeline: {
    noun: 'processing pipeline',
    dto: (r) => ({ id: r.id, name: r.name, rawContent: r.rawContent, ...stamps(r) }),
  },
};

export async function listEntities<K extends EntityKind>(t: TenantContext, kind: K, f: EntityFilter) {
  const { total, rows } = await store.listEntityRows(t.env.DB, t.tenantId, kind, f);
  const k: KindSpec<K> = KINDS[kind];
  return { total, items: rows.map(k.dto) };
}

export async function findEntity<K extends EntityKind>(db: D1Database, tenantId: number, kind: K, id: number): Promise<Record<string, unknown> | null> {
  const row = await store.findEntityRow(db, tenantId, kind, id);
  const k: KindSpec<K> = KINDS[kind];
  return row ? k.dto(row) : null;
}

export async function getEntity(t: TenantContext, kind: EntityKind, id: number): Promise<Record<string, unknown>> {
  const dto = await findEntity(t.env.DB, t.tenantId, kind, id);
  if (!dto) throw new NotFoundError(`No ${KINDS[kind].noun} ${id}.`);
  return dto;
}

export async function deleteEntity(t: TenantContext, kind: EntityKind, id: number): Promise<void> {
  await getEntity(t, kind, id);
  const inUse = () => new ConflictError('GeneralConflict', `The ${KINDS[kind].noun} ${id} is in use (products, links, references, bundles or projects name it); remove those first.`, { id });
  if (await store.entityInUse(t.env.DB, t.tenantId, kind, id)) throw inUse();
  if (!(await store.deleteEntityRow(t.env.DB, t.tenantId, kind, id))) throw inUse();
}

// --- writes, per kind -----------------------------------------------------------------------------------

/** Runs an INSERT (id null) or UPDATE of one row and answers its DTO. */
async function save(t: TenantContext, id: number | null, values: store.EntityValues): Promise<Record<string, unknown>> {
  if (id !== null) await getEntity(t, values.kind, id);
  // The ids the body names were checked; the guard sees them still there when the row is written.
  const saved = await store.saveEntity(t.env.DB, t.tenantId, id, values);
  if (saved === null) throw new NotFoundError('Something the body names was deleted meanwhile; nothing was changed.');
  return getEntity(t, values.kind, saved);
}

const attachedOf = (v: { personalizationWorkflowId?: number | null; processingPipelineId?: number | null }) => ({
  personalizationWorkflowId: v.personalizationWorkflowId ?? null,
  processingPipelineId: v.processingPipelineId ?? null,
});

export async function saveLink(t: TenantContext, id: number | null, v: ProductLinkInput) {
  const db = t.env.DB;
  const errors: ErrorsByPath = {};
  if (!(await store.productExists(db, t.tenantId, v.productId))) errors.productId = [`No product ${v.productId}.`];
  else if (v.productVersionId != null && !(await productHasVersion(db, t.tenantId, v.productId, v.productVersionId))) {
    errors.productVersionId = [`Product ${v.productId} has no version ${v.productVersionId}.`];
  }
  if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
  await checkAttached(db, t.tenantId, v);
  return save(t, id, { kind: 'link', name: v.name, description: v.description ?? null, productId: v.productId, productVersionId: v.productVersionId ?? null, ...attachedOf(v) });
}

export async function saveSpecification(t: TenantContext, id: number | null, v: ProductSpecificationInput) {
  await checkAttached(t.env.DB, t.tenantId, v);
  return save(t, id, {
    kind: 'specification',
    name: v.name,
    description: v.description ?? null,
    productAttributes: (v.productAttributes ?? []).map((a) => ({ name: a.name, type: a.type ?? null, value: a.value ?? null })),
    ...attachedOf(v),
  });
}

export async function saveBundle(t: TenantContext, id: number | null, v: ProductBundleInput) {
  const db = t.env.DB;
  const items = v.items ?? [];
  const products = await store.existingIds(db, t.tenantId, 'product', items.map((i) => i.productId).filter((x): x is number => x != null));
  const links = await store.existingIds(db, t.tenantId, 'link', items.map((i) => i.productLinkId).filter((x): x is number => x != null));
  const errors: ErrorsByPath = {};
  items.forEach((i, n) => {
    if (i.productId != null && !products.has(i.productId)) errors[`items[${n}].productId`] = [`No product ${i.productId}.`];
    if (i.productLinkId != null && !links.has(i.productLinkId)) errors[`items[${n}].productLinkId`] = [`No product link ${i.productLinkId}.`];
  });
  if (Object.keys(errors).length) throw new NotFoundError('Some of the ids name nothing here; nothing was changed.', errors);
  await checkAttached(db, t.tenantId, v);
  return save(t, id, {
    kind: 'bundle',
    name: v.name,
    description: v.description ?? null,
    items: items.map((i) => ({ productId: i.productId ?? null, productLinkId: i.productLinkId ?? null })),
    ...attachedOf(v),
  });
}

export const saveWorkflow = (t: TenantContext, id: number | null, v: WorkflowInput) =>
  save(t, id, { kind: 'workflow', name: v.name ?? '', content: v.content, workflowType: v.workflowType });

/** Pipelines are validated on save; the errors are the validator's, by path in the pipeline. */
export async function savePipeline(t: TenantContext, id: number | null, v: PipelineInput) {
  const r = validatePipeline(v.rawContent);
  if (!r.ok) throw new ValidationError(r.errors, 'The pipeline is not valid.');
  // Secrets are write-only: putting {{secrets.…}} into a pipeline (POST or PUT) needs _full, as a job does.
  if (secretNames(r.pipeline).length && !t.auth.scopes.includes('ProcessingPipelines_full')) {
    throw new ForbiddenError('Pipelines that use {{secrets.…}} need the ProcessingPipelines_full scope.');
  }
  // Task types the runner cannot run yet are refused on save, not when a project runs them.
  const unavailable = unavailableTasks(r.pipeline);
  if (Object.keys(unavailable).length) throw new ValidationError(unavailable, 'The pipeline uses tasks that are not available yet.');
  return save(t, id, { kind: 'pipeline', name: v.name, rawContent: v.rawContent });
}
