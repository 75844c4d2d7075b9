/**
 * Projects: the four creates, list, get, delete, order data (contract, "Storefront"). Logic only:
 * takes the tenant context and plain values, throws the core's errors.
 */
import { z } from '@hono/zod-openapi';
import { checkStoredJson, ConflictError, effectiveOwner, likePattern, newId, NotFoundError, ValidationError, type ErrorsByPath, type SortKey, type TenantContext } from '../core';
import { initialProcessingStatus, startProjectProcessing, stopProjectProcessing, type ProcessingJob, type RenderHiresScenario } from './processing';
import { checkHopDepth, hopOfContext } from '../jobs/hops';
import { emit as emitWebhook } from '../webhooks/events';
import { resolveItemProduct, type ProductSpecifier } from './resolve';
import {
  CreateMultipleItemsProjectDto,
  CreateProjectByRenderHiResScenarioDto,
  CreateProjectBySpecificPipelineScenarioDto,
  CreateSingleItemProjectDto,
  LIMITS,
  type CreateProjectItem,
} from './schemas';
import * as store from './store';
import type { NewItem, NewProject, PreflightVerdict, ProjectDtoValue } from './store';
import { preflightVerdict } from '../jobs/preflight';
import { itemsPreflight } from './preflight';

type SingleInput = z.infer<typeof CreateSingleItemProjectDto>;
type MultipleInput = z.infer<typeof CreateMultipleItemsProjectDto>;
type SpecificInput = z.infer<typeof CreateProjectBySpecificPipelineScenarioDto>;
type RenderHiresInput = z.infer<typeof CreateProjectByRenderHiResScenarioDto>;

/**
 * How processing runs, fixed at creation (`projects.processing`): the scenario and its jobs, item
 * jobs naming items by position (`itemIndex`) until the items have ids.
 */
type PlannedJob =
  | { kind: 'project'; pipelineId: number }
  | { kind: 'item'; itemIndex: number; pipelineId: number }
  | { kind: 'post-processing'; pipelineId: number }
  | { kind: 'render-hires'; scenario: RenderHiresScenario };

interface Plan {
  project: NewProject;
  items: NewItem[];
  jobs: PlannedJob[];
}

// --- creates --------------------------------------------------------------------------------------

export async function createSingleItemProject(t: TenantContext, storefrontId: number, body: SingleInput): Promise<ProjectDtoValue> {
  const given = [body.item ? [body.item] : null, body.items ?? null].filter((x): x is CreateProjectItem[] => x !== null);
  if (given.length !== 1) throw new ValidationError({ item: ['Give the item as `item` or as a one-element `items`, not both and not neither.'] });
  const list = given[0]!;
  if (list.length !== 1) throw new ValidationError({ items: ['with-single-item takes exactly one item.'] });
  const path = body.item ? 'item' : 'items[0]';
  const owner = ownerOf(t, body.ownerId);
  const items = await planItems(t, storefrontId, owner, body.productReference ?? null, list, () => path);
  const pipelineId = items[0]!.processingPipelineId;
  return create(t, storefrontId, {
    project: newProject(storefrontId, owner, body, body, items, { scenario: 'SingleItem' }),
    items,
    jobs: pipelineId ? [{ kind: 'project', pipelineId }] : [],
  });
}

export async function createMultipleItemsProject(t: TenantContext, storefrontId: number, body: MultipleInput): Promise<ProjectDtoValue> {
  const owner = ownerOf(t, body.ownerId);
  const items = await planItems(t, storefrontId, owner, body.productReference ?? null, body.items, (i) => `items[${i}]`);
  const jobs: PlannedJob[] = items.flatMap((item, i) => (item.processingPipelineId ? [{ kind: 'item' as const, itemIndex: i, pipelineId: item.processingPipelineId }] : []));
  return create(t, storefrontId, { project: newProject(storefrontId, owner, body, body, items, { scenario: 'MultipleItems' }), items, jobs });
}

export async function createSpecificPipelineProject(t: TenantContext, storefrontId: number, body: SpecificInput): Promise<ProjectDtoValue> {
  const owner = ownerOf(t, body.ownerId);
  const items = await planItems(t, storefrontId, owner, body.productReference ?? null, body.items ?? [], (i) => `items[${i}]`);
  const s = body.scenario;
  const errors: ErrorsByPath = {};
  const itemJobs: PlannedJob[] = [];
  (s.itemPipelines ?? []).forEach((ip, i) => {
    const matching = items.map((item, index) => ({ item, index })).filter((x) => x.item.name === ip.itemName);
    if (!matching.length) errors[`scenario.itemPipelines[${i}].itemName`] = [`No item named "${ip.itemName}".`];
    for (const m of matching) itemJobs.push({ kind: 'item', itemIndex: m.index, pipelineId: ip.pipelineId });
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const named = [
    ...(s.pipelineId ? [{ id: s.pipelineId, path: 'scenario.pipelineId' }] : []),
    ...(s.itemPipelines ?? []).map((ip, i) => ({ id: ip.pipelineId, path: `scenario.itemPipelines[${i}].pipelineId` })),
    ...(s.postProcessingPipelineId ? [{ id: s.postProcessingPipelineId, path: 'scenario.postProcessingPipelineId' }] : []),
  ];
  const found = await store.pipelinesExist(t.env.DB, t.tenantId, named.map((n) => n.id));
  for (const n of named) if (!found.has(n.id)) errors[n.path] = [`No processing pipeline ${n.id}.`];
  if (Object.keys(errors).length) throw new NotFoundError('Some pipelines name nothing here.', errors);
  const jobs: PlannedJob[] = [
    ...(s.pipelineId ? [{ kind: 'project' as const, pipelineId: s.pipelineId }] : []),
    ...itemJobs,
    ...(s.postProcessingPipelineId ? [{ kind: 'post-processing' as const, pipelineId: s.postProcessingPipelineId }] : []),
  ];
  const order = body.orderDetails ?? {};
  return create(t, storefrontId, { project: newProject(storefrontId, owner, body, order, items, { scenario: 'SpecificPipeline', ...s }), items, jobs });
}

export async function createRenderHiresProject(t: TenantContext, storefrontId: number, body: RenderHiresInput): Promise<ProjectDtoValue> {
  const owner = ownerOf(t, body.ownerId);
  const s = body.scenario;
  const order = body.orderDetails ?? {};
  const item: CreateProjectItem = { name: 'result', designIds: [s.designId], orderLineItemId: order.orderLineItemId, orderLineItemIndex: order.orderLineItemIndex };
  const items = await planItems(t, storefrontId, owner, body.productReference ?? null, [item], () => 'scenario', 'scenario.designId');
  const scenario: RenderHiresScenario = {
    designId: s.designId,
    format: s.format,
    dpi: s.dpi ?? 300,
    colorSpace: s.colorSpace ?? null,
    flipMode: s.flipMode ?? null,
    rotateMode: s.rotateMode ?? null,
    anonymousAccess: s.anonymousAccess ?? false,
  };
  return create(t, storefrontId, {
    project: newProject(storefrontId, owner, body, order, items, { scenario: 'RenderHires', ...scenario }),
    items,
    jobs: [{ kind: 'render-hires', scenario }],
  });
}

const ownerOf = (t: TenantContext, ownerId: string): string => effectiveOwner(t, ownerId) ?? ownerId;

function newProject(
  storefrontId: number,
  ownerId: string,
  p: { productReference?: string | null; name?: string | null; description?: string | null },
  o: {
    orderId?: string | null;
    orderUrl?: string | null;
    orderNumber?: number | null;
    orderName?: string | null;
    orderLineItemId?: string | null;
    orderLineItemIndex?: number | null;
    customerId?: string | null;
    customerName?: string | null;
  },
  items: NewItem[],
  processing: Record<string, unknown>,
): NewProject {
  // Multi-item creates match their order line on the first item's line (contract).
  const first = items[0];
  return {
    storefrontId,
    productReference: p.productReference ?? first?.productReference ?? null,
    ownerId,
    name: p.name ?? null,
    description: p.description ?? null,
    orderId: o.orderId ?? null,
    orderUrl: o.orderUrl ?? null,
    orderNumber: o.orderNumber ?? null,
    orderName: o.orderName ?? null,
    orderLineItemId: o.orderLineItemId ?? first?.orderLineItemId ?? null,
    orderLineItemIndex: o.orderLineItemIndex ?? first?.orderLineItemIndex ?? null,
    customerId: o.customerId ?? null,
    customerName: o.customerName ?? null,
    processing,
    preflight: preflightVerdict(items.map((i) => i.preflight)),
  };
}

/**
 * Items as stored: products resolved, designs and resources checked against the owner (public
 * or the owner's private ones; others → 404 with `errors` by path).
 */
async function planItems(
  t: TenantContext,
  storefrontId: number,
  owner: string,
  projectReference: string | null,
  input: CreateProjectItem[],
  pathOf: (i: number) => string,
  designPath?: string,
): Promise<NewItem[]> {
  // Lookups below are per storefront: an unknown storefront answers first (the create batch checks
  // it again, so a create without lookups needs no extra round trip).
  const lookups = Boolean(projectReference) || input.some((i) => i.productReference || i.productSpecifier || i.designIds?.length || i.resources?.length);
  if (lookups && !(await store.storefrontExists(t.env.DB, t.tenantId, storefrontId))) throw noStorefront(storefrontId);
  if (input.length > LIMITS.itemsPerProject) throw new ValidationError({ items: [`At most ${LIMITS.itemsPerProject} items.`] });
  const db = t.env.DB;
  const designIds = [...new Set(input.flatMap((i) => i.designIds ?? []))];
  const resourceIds = [...new Set(input.flatMap((i) => (i.resources ?? []).flatMap((r) => (r.resourceId ? [r.resourceId] : []))))];
  const [designs, resources] = await Promise.all([
    store.usableAssets(db, t.tenantId, 'design', designIds, owner),
    store.usableAssets(db, t.tenantId, 'resource', resourceIds, owner),
  ]);
  const errors: ErrorsByPath = {};
  input.forEach((item, i) => {
    (item.designIds ?? []).forEach((id, j) => {
      if (!designs.has(id)) errors[designPath ?? `${pathOf(i)}.designIds[${j}]`] = [`No design ${id} for this owner.`];
    });
    (item.resources ?? []).forEach((r, j) => {
      if (r.resourceId && !resources.has(r.resourceId)) errors[`${pathOf(i)}.resources[${j}].resourceId`] = [`No resource ${r.resourceId} for this owner.`];
    });
  });
  const resolved = await Promise.all(
    input.map((item, i) =>
      resolveItemProduct(
        db,
        t.tenantId,
        storefrontId,
        { reference: item.productReference ?? projectReference, specifier: (item.productSpecifier as ProductSpecifier | null | undefined) ?? null, sku: item.sku ?? null },
        { reference: item.productReference ? `${pathOf(i)}.productReference` : 'productReference', specifier: `${pathOf(i)}.productSpecifier` },
      ).catch((err: unknown) => {
        if (err instanceof NotFoundError && err.errors) Object.assign(errors, err.errors);
        else throw err;
        return null;
      }),
    ),
  );
  if (Object.keys(errors).length) throw new NotFoundError('Some ids name nothing this owner can use.', errors);
  const items = input.map((item, i) => {
    const r = resolved[i]!;
    return {
      name: item.name ?? null,
      groupId: item.groupId ?? null,
      quantity: item.quantity ?? 1,
      orderLineItemId: item.orderLineItemId ?? null,
      orderLineItemIndex: item.orderLineItemIndex ?? null,
      productReference: item.productReference ?? projectReference,
      productSpecifier: (item.productSpecifier as Record<string, unknown> | null | undefined) ?? null,
      productId: r.productId,
      productVersionId: r.productVersionId,
      productVariantId: r.productVariantId,
      productLinkId: r.productLinkId,
      productSpecificationId: r.productSpecificationId,
      fields: item.fields ?? {},
      hidden: item.hidden ?? {},
      designIds: item.designIds ?? [],
      sku: r.sku,
      resources: (item.resources ?? []).map((res) => ({
        resourceId: res.resourceId ?? null,
        name: res.name ?? null,
        type: res.type,
        ...(res.url ? { url: res.url } : {}),
      })),
      processingPipelineId: r.processingPipelineId,
    };
  });
  // Each item's designs checked with its fields (issue 21): recorded, never a reason to refuse the create.
  const preflights = await itemsPreflight(t, items);
  return items.map((item, i) => ({ ...item, preflight: preflights[i] ?? null }));
}

const noStorefront = (id: number) => new NotFoundError(`No storefront ${id}.`, { storefrontId: [`No storefront ${id}.`] });

/**
 * The create (contract, "One project per order line"): one batch that writes the user, the
 * project (or nothing when the order line exists), its items and the retention change; the
 * losing call answers with the winner. Only the inserting call starts processing.
 */
async function create(t: TenantContext, storefrontId: number, plan: Plan): Promise<ProjectDtoValue> {
  const db = t.env.DB;
  // A pipeline calling the platform: refused past the hop depth; its jobs' calls send hop + 1 (jobs/hops.ts).
  const hop = hopOfContext(t);
  checkHopDepth(hop);
  plan.project.processing = { ...plan.project.processing, jobs: plan.jobs, ...(hop ? { hop } : {}) };
  const nonce = newId();
  const { project, items } = await store.insertProject(db, t.tenantId, nonce, plan.project, plan.items, initialProcessingStatus(plan.jobs), privateAssetIds(plan));
  if (!project) {
    const p = plan.project;
    const winner = p.orderId ? await store.projectOfOrderLine(db, t.tenantId, storefrontId, p.orderId, p.orderLineItemId, p.orderLineItemIndex) : null;
    if (!winner) throw new ConflictError('GeneralConflict', 'The project could not be created; retry.');
    return getProject(t, winner.id);
  }
  if (project.processing_triggered_at !== null) await startProjectProcessing(t.env, t.tenantId, project.id, jobsOf(plan.jobs, items));
  const dto = store.projectDto(project, items);
  await emitWebhook(t.env, t.tenantId, 'project.created', { projectId: project.id, project: dto }, String(project.id));
  return dto;
}

/** Private assets (designs and resources of the owner) the items name: they become `Never`. */
function privateAssetIds(plan: Plan): string[] {
  const ids = plan.items.flatMap((i) => [...i.designIds, ...i.resources.flatMap((r) => (r.resourceId ? [r.resourceId] : []))]);
  return [...new Set(ids)];
}

/** Planned jobs with item ids now that the items exist. */
export function jobsOf(planned: ReadonlyArray<PlannedJob>, items: ReadonlyArray<{ id: number; sort_index: number }>): ProcessingJob[] {
  const bySort = new Map(items.map((i) => [i.sort_index, i.id]));
  return planned.map((j) => (j.kind === 'item' ? { kind: 'item', itemId: bySort.get(j.itemIndex)!, pipelineId: j.pipelineId } : j));
}

/** The planned jobs of a stored project (for a trigger on status). */
export function plannedJobs(processing: string): PlannedJob[] {
  try {
    const p = JSON.parse(processing) as { jobs?: PlannedJob[] };
    return Array.isArray(p.jobs) ? p.jobs : [];
  } catch {
    return [];
  }
}

// --- reads and deletes ----------------------------------------------------------------------------

/** A project visible to the caller (a storefront-user token sees only its own). */
export async function projectOr404(t: TenantContext, id: string) {
  const n = /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : 0;
  const row = n ? await store.loadProject(t.env.DB, t.tenantId, n) : null;
  if (!row || (t.storefrontUserId && row.project.owner_id !== t.storefrontUserId)) throw new NotFoundError(`No project ${id}.`);
  return row;
}

export async function getProject(t: TenantContext, id: number | string): Promise<ProjectDtoValue> {
  const { project, items } = await projectOr404(t, String(id));
  return store.projectDto(project, items);
}

const SORT_COLUMNS: Record<string, string> = {
  created: 'created',
  lastModified: 'last_modified',
  id: 'id',
  name: 'name',
  status: 'status',
  processingStatus: 'processing_status',
  orderId: 'order_id',
};

const DAY = 86_400_000;
/** The start of a date period (rolling windows ending now; Today = since 00:00 UTC). */
export function periodStart(period: string, now = Date.now()): number {
  switch (period) {
    case 'Today':
      return now - (now % DAY);
    case 'LastDay':
      return now - DAY;
    case 'LastWeek':
      return now - 7 * DAY;
    case 'LastMonth':
      return now - 30 * DAY;
    default:
      return now - 365 * DAY;
  }
}

export interface ListProjectsInput {
  skip: number;
  take: number;
  sorting: SortKey[];
  search?: string;
  ownerId?: string;
  productReference?: string;
  status?: string[];
  datePeriod?: string;
  orderId?: string;
  processingStatus?: string[];
  preflight?: PreflightVerdict[];
  storefrontId?: string;
}

export async function listProjects(t: TenantContext, q: ListProjectsInput) {
  const owner = effectiveOwner(t, q.ownerId);
  const orderBy = q.sorting.length
    ? [...q.sorting.map((s) => `${SORT_COLUMNS[s.field]} ${s.direction}`), 'id DESC'].join(', ')
    : 'created DESC, id DESC';
  const { total, rows, items } = await store.listProjects(t.env.DB, t.tenantId, {
    ownerId: owner,
    productReference: q.productReference,
    statuses: q.status?.map(Number),
    since: q.datePeriod ? periodStart(q.datePeriod) : undefined,
    orderId: q.orderId,
    processingStatuses: q.processingStatus,
    preflight: q.preflight,
    storefrontId: q.storefrontId ? Number(q.storefrontId) : undefined,
    search: q.search ? likePattern(q.search) : undefined,
    skip: q.skip,
    take: q.take,
    orderBy,
  });
  return { total, items: rows.map((r) => store.projectDto(r, items.get(r.id) ?? [])) };
}

export async function deleteProject(t: TenantContext, id: string): Promise<void> {
  const { project } = await projectOr404(t, id);
  await store.deleteProjects(t.env.DB, t.tenantId, [project.id]);
  await stopProjectProcessing(t.env, t.tenantId, project.id);
}

/** Deletes the caller's projects among `ids`; ids naming nothing here are skipped. */
export async function batchDeleteProjects(t: TenantContext, ids: number[]): Promise<{ total: number; items: never[] }> {
  let visible = ids;
  if (t.storefrontUserId) {
    const { rows } = await store.listProjects(t.env.DB, t.tenantId, { ownerId: t.storefrontUserId, skip: 0, take: 1000, orderBy: 'id' });
    const own = new Set(rows.map((r) => r.id));
    visible = ids.filter((id) => own.has(id));
  }
  const deleted = await store.deleteProjects(t.env.DB, t.tenantId, [...new Set(visible)]);
  await Promise.all(deleted.map((id) => stopProjectProcessing(t.env, t.tenantId, id)));
  return { total: deleted.length, items: [] };
}

// --- order data -----------------------------------------------------------------------------------

export async function putOrderData(t: TenantContext, id: string, itemId: string | undefined, data: Array<{ key: string; value: string; type: string }>): Promise<void> {
  const { project, items } = await projectOr404(t, id);
  let item = 0;
  if (itemId !== undefined) {
    item = Number(itemId);
    if (!items.some((i) => i.id === item)) throw new NotFoundError(`No item ${itemId} in project ${id}.`, { itemId: [`No item ${itemId} in this project.`] });
  }
  const errors: ErrorsByPath = {};
  const seen = new Map<string, number>();
  data.forEach((d, i) => {
    if (d.type === 'SerializedJson') {
      try {
        // Stored as text but read back as JSON: the same bound as every stored JSON value.
        checkStoredJson(JSON.parse(d.value), `[${i}].value`);
      } catch (e) {
        if (e instanceof ValidationError) Object.assign(errors, e.errors);
        else errors[`[${i}].value`] = ['A SerializedJson value must be JSON.'];
      }
    }
    seen.set(d.key, i); // the last value of a repeated key wins
  });
  if (Object.keys(errors).length) throw new ValidationError(errors);
  const unique = [...seen.values()].sort((a, b) => a - b).map((i) => data[i]!);
  const ok = await store.upsertOrderData(t.env.DB, t.tenantId, project.id, item, unique, LIMITS.orderDataKeys);
  if (!ok) throw new ValidationError({ $: [`A project (or item) holds at most ${LIMITS.orderDataKeys} order-data keys.`] });
}

export async function projectOrder(t: TenantContext, id: string) {
  const { project } = await projectOr404(t, id);
  return {
    orderId: project.order_id,
    orderUrl: project.order_url,
    orderNumber: project.order_number,
    orderName: project.order_name,
    customerId: project.customer_id,
    customerName: project.customer_name,
    data: await store.orderDataOf(t.env.DB, t.tenantId, project.id),
  };
}
