// Back office > Projects: the tenant's projects as a printer works them. Calls the platform's
// service functions directly in the admin's tenant (context.ts), never the HTTP API.
//
//   GET  /admin/projects                         list: status, processing status, preflight, period, storefront; paging
//   GET  /admin/projects/{id}                    items + preview + preflight badge and problems, order data,
//                                                status + transitions, job timelines (refresh while running), output files
//   POST /admin/projects/{id}/transitions/{name} apply a transition (409 shows its reason)
//   POST /admin/projects/{id}/resume · /restart  the runner's resume / restart (409 shows its reason)
//   GET  /admin/projects/{id}/preview            the project's preview image
//   GET  /admin/projects/{id}/items/{itemId}/preview[?design=]   an item's design with its data (item-preview.ts)
//   GET  /admin/projects/{id}/files/{artifactId} an output file (download)
import { Hono } from 'hono';
import { nameWithoutMarkers } from '../../engine/personalise/markers';
import { notFound } from '../../errors';
import * as assets from '../../platform/assets';
import { ConflictError, PlatformError } from '../../platform/core';
import { getArtifact, artifactFileKey } from '../../platform/assets/artifacts';
import { jobStub, projectDoName, projectProcessingResults, restartProject, resumeProject, type JobView } from '../../platform/jobs';
import type { PreflightSummary } from '../../platform/jobs/preflight';
import { projectPreview } from '../../platform/projects/preview';
import { listProjects, projectOr404, projectOrder } from '../../platform/projects/service';
import { applyTransition, projectTransitions, storefrontStatuses } from '../../platform/projects/statuses';
import { listStorefronts } from '../../platform/projects/users';
import { done, render, type AdminContextOf, type AdminEnv } from '../../identity/admin/guard';
import { CsrfField, Table } from '../../identity/admin/layout';
import { tenantOf } from './context';
import { itemDesignIds, itemPreview } from './item-preview';

export const projectsRoutes = new Hono<AdminEnv>();

const PAGE_SIZE = 20;
const PROCESSING = ['Pending', 'InProgress', 'Completed', 'Failed'] as const;
const PERIODS = [
  ['', 'Any time'],
  ['Today', 'Today'],
  ['LastDay', 'Last 24 hours'],
  ['LastWeek', 'Last 7 days'],
  ['LastMonth', 'Last 30 days'],
  ['LastYear', 'Last 365 days'],
] as const;
const RUNNING = new Set(['New', 'InProgress', 'Recovered']);
/** Items and designs per item drawn on the page (each preview is a render). */
const MAX_ITEMS_SHOWN = 20;
const MAX_DESIGNS_SHOWN = 4;

/** A grey tile saying why there is no image (the project's, or one design of an item). */
const noPreviewSvg = (text: string) =>
  '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240" viewBox="0 0 400 240"><rect width="400" height="240" fill="#eef1f5"/>' +
  `<text x="200" y="125" font-family="system-ui,sans-serif" font-size="18" fill="#4a5565" text-anchor="middle">${text}</text></svg>`;

type Status = { code: number; displayName: string | null; color: string | null };
const projectPath = (id: number | string) => `/admin/projects/${id}`;

export const StatusBadge = ({ status, statuses }: { status: number; statuses: Status[] }) => {
  const s = statuses.find((x) => x.code === status);
  return (
    <span class="badge">
      {s?.color && <span aria-hidden="true" style={`display:inline-block;width:.7em;height:.7em;border-radius:50%;margin-right:.35em;background:${s.color}`} />}
      {s?.displayName ?? `Status ${status}`}
    </span>
  );
};

const ProcessingBadge = ({ value }: { value: string }) => (
  <span class={`badge ${value === 'Completed' ? 'ok' : value === 'Failed' ? 'off' : ''}`}>{value}</span>
);

// --- preflight (issue 21) ------------------------------------------------------------------------

const PREFLIGHT = [
  ['ok', 'OK'],
  ['warnings', 'Warnings'],
  ['errors', 'Errors'],
] as const;
type Verdict = (typeof PREFLIGHT)[number][0];
/** Amber for warnings: the shell's badges know only ok (green) and off (red). */
const WARNING_BADGE = 'background:#fef3c7;color:#78350f';
const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** A project's verdict (the worst of its items'); nothing when no item was checked. */
const VerdictBadge = ({ verdict }: { verdict: Verdict | null }) =>
  verdict == null ? (
    <span class="muted small">—</span>
  ) : (
    <span class={`badge ${verdict === 'ok' ? 'ok' : verdict === 'errors' ? 'off' : ''}`} style={verdict === 'warnings' ? WARNING_BADGE : undefined}>
      {PREFLIGHT.find(([v]) => v === verdict)![1]}
    </span>
  );

/** An item's preflight at creation: ok, or its counts ("1 error, 2 warnings"). */
const PreflightBadge = ({ summary }: { summary: PreflightSummary }) => {
  const text = summary.errors + summary.warnings === 0 ? 'Preflight ok' : [summary.errors && count(summary.errors, 'error'), summary.warnings && count(summary.warnings, 'warning')].filter(Boolean).join(', ');
  return (
    <span class={`badge ${summary.errors ? 'off' : summary.warnings ? '' : 'ok'}`} style={!summary.errors && summary.warnings ? WARNING_BADGE : undefined}>
      {text}
    </span>
  );
};

/** The problems of an item, each with its layer (and design, when the item has several). */
const PreflightProblems = ({ summary, id, designNames, several }: { summary: PreflightSummary; id: string; designNames: Map<string, string>; several: boolean }) =>
  summary.problems.length === 0 ? null : (
    <ul class="plain small" id={id} aria-label="Preflight problems" style="margin:.25rem 0 .75rem">
      {summary.problems.map((p) => (
        <li style="overflow-wrap:anywhere">
          <strong style={p.severity === 'error' ? 'color:var(--err)' : 'color:#78350f'}>{p.severity === 'error' ? 'Error' : 'Warning'}</strong>
          {` · ${several && p.design ? `${designNames.get(p.design) ?? p.design}, ` : ''}${p.layer}: ${p.message}`}
        </li>
      ))}
    </ul>
  );

/** The item row's preflight JSON (null: no design, or not checked). */
const preflightOf = (json: string | null | undefined): PreflightSummary | null => {
  if (!json) return null;
  try {
    return JSON.parse(json) as PreflightSummary;
  } catch {
    return null;
  }
};

const when = (iso: string) => iso.slice(0, 16).replace('T', ' ') + ' UTC';
/** Attempts shown: the first start, each retry, and starts that never ended (the runner's `attempts`). */
const ms = (n: number | null | undefined) => (n == null ? '—' : n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`);

// --- list ------------------------------------------------------------------------------------

/** One filter of the list: a labelled select of `[value, label]` choices, `any` ('' value) first when given. */
const FilterSelect = (props: { id: string; label: string; name: string; any?: string; selected: string; choices: ReadonlyArray<readonly [string, string]> }) => (
  <div class="field">
    <label for={props.id}>{props.label}</label>
    <select id={props.id} name={props.name}>
      {props.any !== undefined && <option value="">{props.any}</option>}
      {props.choices.map(([value, label]) => (
        <option value={value} selected={props.selected === value}>
          {label}
        </option>
      ))}
    </select>
  </div>
);

projectsRoutes.get('/', async (c) => {
  const t = tenantOf(c);
  const q = c.req.query();
  const status = q.status && /^-?\d{1,10}$/.test(q.status) ? q.status : '';
  const processing = PROCESSING.find((p) => p === q.processingStatus) ?? '';
  const period = PERIODS.some(([v]) => v === q.datePeriod) ? q.datePeriod! : '';
  const storefront = q.storefrontId && /^[1-9]\d{0,14}$/.test(q.storefrontId) ? q.storefrontId : '';
  const preflight = PREFLIGHT.find(([v]) => v === q.preflight)?.[0] ?? '';
  const page = Math.max(1, Math.min(10_000, Number(q.page) || 1));
  const [list, statuses, storefronts] = await Promise.all([
    listProjects(t, {
      skip: (page - 1) * PAGE_SIZE,
      take: PAGE_SIZE,
      sorting: [],
      status: status ? [status] : undefined,
      processingStatus: processing ? [processing] : undefined,
      datePeriod: period || undefined,
      storefrontId: storefront || undefined,
      preflight: preflight ? [preflight] : undefined,
    }),
    storefrontStatuses(t),
    listStorefronts(t, { skip: 0, take: 100, sorting: [] }),
  ]);
  const pages = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
  const link = (p: number) => {
    const s = new URLSearchParams({ ...(status && { status }), ...(processing && { processingStatus: processing }), ...(preflight && { preflight }), ...(period && { datePeriod: period }), ...(storefront && { storefrontId: storefront }), page: String(p) });
    return `/admin/projects?${s}`;
  };
  return render(c, {
    title: 'Projects',
    section: 'projects',
    body: (
      <>
        <h1>Projects</h1>
        <p class="lead">Orders from the storefronts, their processing and their print files.</p>
        <form method="get" action="/admin/projects" class="card" aria-label="Filter projects">
          <div class="grid">
            <FilterSelect id="f-status" label="Status" name="status" any="Any status" selected={status} choices={statuses.map((s) => [String(s.code), s.displayName ?? `Status ${s.code}`])} />
            <FilterSelect id="f-processing" label="Processing" name="processingStatus" any="Any" selected={processing} choices={PROCESSING.map((p) => [p, p])} />
            <FilterSelect id="f-preflight" label="Preflight" name="preflight" any="Any" selected={preflight} choices={PREFLIGHT} />
            <FilterSelect id="f-period" label="Created" name="datePeriod" selected={period} choices={PERIODS} />
            <FilterSelect id="f-storefront" label="Storefront" name="storefrontId" any="Any storefront" selected={storefront} choices={storefronts.items.map((s) => [String(s.id), s.name])} />
          </div>
          <button type="submit">Filter</button>
        </form>
        <p class="muted small" role="status">
          {list.total} project{list.total === 1 ? '' : 's'}
          {pages > 1 && ` · page ${page} of ${pages}`}
        </p>
        {list.items.length > 0 && (
          <Table caption="Projects" columns={['Project', 'Status', 'Processing', 'Preflight', { label: 'Order', opt: true }, { label: 'Storefront', opt: true }, { label: 'Created', opt: true }]}>
            {list.items.map((p) => (
              <tr>
                <td>
                  <a href={projectPath(p.id)}>{`#${p.id} ${p.orderName ?? p.name ?? ''}`.trim()}</a>
                </td>
                <td>
                  <StatusBadge status={p.status} statuses={statuses} />
                </td>
                <td>
                  <ProcessingBadge value={p.processingStatus} />
                </td>
                <td>
                  <VerdictBadge verdict={p.preflight} />
                </td>
                <td class="opt">{p.orderId ?? '—'}</td>
                <td class="opt">{storefronts.items.find((s) => s.id === p.storefrontId)?.name ?? p.storefrontId}</td>
                <td class="opt">{when(p.created)}</td>
              </tr>
            ))}
          </Table>
        )}
        <nav class="actions" aria-label="Pages">
          {page > 1 && (
            <a class="button secondary" href={link(page - 1)} rel="prev">
              Previous page
            </a>
          )}
          {page < pages && (
            <a class="button secondary" href={link(page + 1)} rel="next">
              Next page
            </a>
          )}
        </nav>
      </>
    ),
  });
});

// --- one project -----------------------------------------------------------------------------

async function projectPage(c: AdminContextOf, id: string, problem?: { status: 409; text: string }) {
  const t = tenantOf(c);
  const { project, items } = await load(c, id);
  const [statuses, transitions, order, results] = await Promise.all([
    storefrontStatuses(t),
    projectTransitions(t, id),
    projectOrder(t, id),
    projectProcessingResults(t, project.id),
  ]);
  const views: JobView[] = project.processing_triggered_at == null ? [] : await jobStub(t.env, projectDoName(t.tenantId, project.id)).views();
  const shown = items.slice(0, MAX_ITEMS_SHOWN);
  const designsOf = await Promise.all(shown.map(async (i) => (await itemDesignIds(t, i)).slice(0, MAX_DESIGNS_SHOWN)));
  const designScope = assets.scopeFor(t, assets.assetKind('design', false), undefined);
  const designNames = new Map(
    await Promise.all([...new Set(designsOf.flat())].map(async (id) => [id, (await assets.findAsset(designScope, id))?.name ?? id] as const)),
  );
  const running = views.some((v) => RUNNING.has(v.job.status));
  // The runner resumes only a Failed job that a restart has not discarded.
  const resumable = !running && views.some((v) => v.job.status === 'Failed');
  const csrf = c.get('admin').csrf;
  const title = `Project #${project.id}`;
  return render(
    c,
    {
      title,
      section: 'projects',
      banner: problem && { kind: 'error', text: problem.text },
      // While a job runs the page reloads itself (a tiny same-origin script, nonce'd by the CSP).
      script: running ? 'setTimeout(() => location.reload(), 2000);' : undefined,
      body: (
        <>
          <p class="small">
            <a href="/admin/projects">Projects</a> /
          </p>
          <div class="head">
            <div>
              <h1>{title}</h1>
              <p class="lead">{project.order_name ?? project.name ?? ''}</p>
            </div>
          </div>
          <section class="card" aria-labelledby="status-h">
            <h2 id="status-h">Status</h2>
            <p>
              <StatusBadge status={project.status} statuses={statuses} /> · processing <ProcessingBadge value={results.status} />
              {running && <span class="small muted"> (refreshing while the job runs)</span>}
            </p>
            {results.statusDescription && <p class="error">{results.statusDescription}</p>}
            <div class="actions">
              {transitions.map((tr) => (
                <form method="post" action={`${projectPath(project.id)}/transitions/${encodeURIComponent(tr.name)}`} class="inline-form">
                  <CsrfField token={csrf} />
                  <button type="submit">{tr.displayName ?? tr.name}</button>
                </form>
              ))}
              {transitions.length === 0 && <span class="muted small">No transitions from this status.</span>}
            </div>
          </section>
          <section class="card" aria-labelledby="items-h">
            <h2 id="items-h">Items</h2>
            {shown.map((i, n) => {
              const fields = Object.entries(JSON.parse(i.fields) as Record<string, unknown>);
              const preflight = preflightOf(i.preflight);
              return (
                <article aria-labelledby={`item-${i.id}-h`} style={n ? 'border-top:1px solid var(--line);padding-top:1rem;margin-top:1rem' : undefined}>
                  <div style="display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap;margin:0 0 .5rem">
                    <h3 id={`item-${i.id}-h`} style="font-size:1rem;margin:0">{`Item ${n + 1} ${i.name ?? ''}`.trim()}</h3>
                    {preflight && <PreflightBadge summary={preflight} />}
                  </div>
                  {preflight && <PreflightProblems summary={preflight} id={`item-${i.id}-preflight`} designNames={designNames} several={designsOf[n]!.length > 1} />}
                  <div class="grid">
                    {designsOf[n]!.length === 0 && <p class="muted small">No design: the item names none and its product variant has none connected.</p>}
                    {designsOf[n]!.map((d) => (
                      <figure style="margin:0">
                        <img
                          src={`${projectPath(project.id)}/items/${i.id}/preview?design=${encodeURIComponent(d)}`}
                          alt={`Preview of item ${n + 1} with its data: ${designNames.get(d) ?? d}`}
                          loading="lazy"
                          style="max-width:100%;border:1px solid var(--line);border-radius:6px;background:#eef1f5"
                        />
                        <figcaption class="small muted">{designNames.get(d) ?? d}</figcaption>
                      </figure>
                    ))}
                    <dl class="props" style="align-content:start">
                      <dt>SKU</dt>
                      <dd>{i.sku ?? '—'}</dd>
                      <dt>Quantity</dt>
                      <dd>{i.quantity}</dd>
                      <dt>Designs</dt>
                      <dd>{(JSON.parse(i.design_ids) as string[]).length ? 'named by the item' : 'from the product'}</dd>
                      {/* A field named after a layer with markers ("Name <TOS_fitToBox>") reads as its data name. */}
                      {fields.map(([k, v]) => (
                        <>
                          <dt>{nameWithoutMarkers(k)}</dt>
                          <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                        </>
                      ))}
                    </dl>
                  </div>
                </article>
              );
            })}
            {items.length > shown.length && <p class="muted small">{`${items.length - shown.length} more items are not shown.`}</p>}
            <details open style="margin-top:1rem">
              <summary>Project preview (as the storefront API returns it)</summary>
              <img src={`${projectPath(project.id)}/preview`} alt={`Preview of project ${project.id}`} style="max-width:min(100%,400px);border:1px solid var(--line);border-radius:6px;margin-top:.5rem" />
            </details>
          </section>
          <section class="card" aria-labelledby="order-h">
            <h2 id="order-h">Order</h2>
            <dl class="props">
              {/* Each as the shop sent it, under its own name (one joined line hid which was which). */}
              <dt>Order name</dt>
              <dd>{order.orderName ?? '—'}</dd>
              <dt>Order number</dt>
              <dd>{order.orderNumber ?? '—'}</dd>
              <dt>Order ID</dt>
              <dd>{order.orderId ?? '—'}</dd>
              <dt>Customer</dt>
              <dd>{[project.customer_name, project.customer_id].filter(Boolean).join(' · ') || '—'}</dd>
              <dt>Owner</dt>
              <dd>{project.owner_id}</dd>
              <dt>Storefront</dt>
              <dd>{project.storefront_id}</dd>
              <dt>Product</dt>
              <dd>{project.product_reference ?? '—'}</dd>
              {order.data.map((d) => (
                <>
                  <dt>{d.key}</dt>
                  <dd>{d.value}</dd>
                </>
              ))}
            </dl>
          </section>
          <section class="card" aria-labelledby="jobs-h">
            <h2 id="jobs-h">Processing</h2>
            {views.length === 0 && <p class="muted">No job has run yet.</p>}
            {/* A restart discards the jobs and starts new ones (each at its own run 1): runs count the jobs in order. */}
            {views.map((v, n) => (
              <div style="margin-bottom:1rem">
                <h3 style="font-size:1rem;margin:.5rem 0">
                  {`Run ${n + 1}: job ${v.job.kind}${v.job.run > 1 ? ` (restarted ${v.job.run - 1}×)` : ''} `}
                  <ProcessingBadge value={v.job.status} />
                </h3>
                {v.job.statusDescription && <p class="error">{v.job.statusDescription}</p>}
                <Table caption={`Tasks of job ${v.job.id}`} columns={['Task', 'Status', { label: 'Attempts', opt: true }, 'Duration', 'Error']}>
                  {v.tasks.map((task) => (
                    <tr>
                      <td>{task.name}</td>
                      <td>
                        <ProcessingBadge value={task.status} />
                      </td>
                      <td class="opt">{task.started == null ? 0 : 1 + task.autoRetries + task.callRetries + task.attempts}</td>
                      <td>{task.started != null && task.finished != null ? ms(task.finished - task.started) : task.started != null ? 'running' : '—'}</td>
                      <td>{task.description ? <span class="error">{task.description}</span> : ''}</td>
                    </tr>
                  ))}
                </Table>
              </div>
            ))}
            <div class="actions">
              {resumable && (
                <form method="post" action={`${projectPath(project.id)}/resume`} class="inline-form">
                  <CsrfField token={csrf} />
                  <button type="submit" class="secondary">Resume processing</button>
                </form>
              )}
              <form method="post" action={`${projectPath(project.id)}/restart`} class="inline-form">
                <CsrfField token={csrf} />
                <button type="submit" class="secondary">Restart processing</button>
              </form>
            </div>
          </section>
          <section class="card" aria-labelledby="files-h">
            <h2 id="files-h">Output files</h2>
            {results.outputFileDetails.length === 0 ? (
              <p class="muted">None yet.</p>
            ) : (
              <ul class="plain">
                {results.outputFileDetails.map((f) => (
                  <li>
                    <a href={`${projectPath(project.id)}/files/${f.artifactId}`} download={f.name}>
                      {f.name}
                    </a>{' '}
                    <span class="muted small">{`${f.format ?? ''} · ${Math.ceil(f.size / 1024)} KB`}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </>
      ),
    },
    problem?.status ?? 200,
  );
}

/** The project, or the admin panel's 404 page. */
async function load(c: AdminContextOf, id: string) {
  try {
    return await projectOr404(tenantOf(c), id);
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound(`There is no project ${id} in your tenant.`);
    throw e;
  }
}

/** Runs a change; a 409 from the platform re-renders the project page with its reason. */
async function change(c: AdminContextOf, act: () => Promise<unknown>, okText: string) {
  const id = c.req.param('id') ?? '';
  await load(c, id);
  try {
    await act();
  } catch (e) {
    if (e instanceof ConflictError) return projectPage(c, id, { status: 409, text: e.description });
    if (e instanceof PlatformError && e.status === 404) throw notFound(e.message);
    throw e;
  }
  return done(c, projectPath(id), okText);
}

projectsRoutes.get('/:id', (c) => projectPage(c, c.req.param('id')));

projectsRoutes.post('/:id/transitions/:name', (c) =>
  change(c, () => applyTransition(tenantOf(c), c.req.param('id'), c.req.param('name')), `Transition "${c.req.param('name')}" applied.`),
);
projectsRoutes.post('/:id/resume', (c) => change(c, () => resumeProject(tenantOf(c), Number(c.req.param('id'))), 'Processing resumed.'));
projectsRoutes.post('/:id/restart', (c) => change(c, () => restartProject(tenantOf(c), Number(c.req.param('id'))), 'Processing restarted.'));

projectsRoutes.get('/:id/preview', async (c) => {
  await load(c, c.req.param('id'));
  try {
    const res = await projectPreview(tenantOf(c), c.req.param('id'));
    return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'image/jpeg' } });
  } catch (e) {
    // No Preview resource and no item with a design (of its own or its product variant's): a
    // placeholder the page can show instead of a broken image.
    if (!(e instanceof PlatformError && e.status === 404)) throw e;
    return new Response(noPreviewSvg('No preview: no item has a design'), { headers: { 'content-type': 'image/svg+xml', 'x-preview': 'none' } });
  }
});

projectsRoutes.get('/:id/items/:itemId/preview', async (c) => {
  const { project, items } = await load(c, c.req.param('id'));
  const item = items.find((i) => String(i.id) === c.req.param('itemId'));
  if (!item) throw notFound('This project has no such item.');
  try {
    const p = await itemPreview(tenantOf(c), project.owner_id, item, c.req.query('design') || undefined);
    return new Response(p.file.bytes, { headers: { 'content-type': p.file.mime, 'x-preview-data': encodeURIComponent(p.applied) } });
  } catch (e) {
    // A design deleted since the order, or one the renderer refuses: a tile saying so.
    if (!(e instanceof PlatformError && e.status < 500)) throw e;
    return new Response(noPreviewSvg('No preview of this design'), { headers: { 'content-type': 'image/svg+xml', 'x-preview': 'none' } });
  }
});

projectsRoutes.get('/:id/files/:artifactId', async (c) => {
  const t = tenantOf(c);
  const { project } = await load(c, c.req.param('id'));
  const results = await projectProcessingResults(t, project.id);
  const f = results.outputFileDetails.find((x) => x.artifactId === c.req.param('artifactId'));
  if (!f) throw notFound('This project has no such output file.');
  const artifact = await getArtifact(t, f.artifactId);
  const key = artifactFileKey(artifact);
  const object = key ? await c.env.FILES.get(key) : null;
  if (!object) throw notFound('The file is no longer stored.');
  return new Response(object.body, {
    headers: {
      'content-type': object.httpMetadata?.contentType ?? 'application/octet-stream',
      'content-disposition': `attachment; filename="${f.name.replace(/[^\w. -]/g, '_')}"`,
      'content-length': String(object.size),
    },
  });
});
