// Back office > Products: the catalogue with search; create and edit a product (name, pipeline,
// workflow, options and values), its generated variants (SKU, price, availability edited in the
// table), design and mockup connections picked from storage with thumbnails, the product image,
// the storefront references that name it, and delete. Every change goes through the catalogue's
// services (the ones the back-office API calls), so the rules and 409s are the API's.
//
//   GET  /admin/products?search= · /new · /{id}     list; create form; edit page
//   POST /admin/products/new · /{id}                 create · save details and options
//   POST /admin/products/{id}/variants               SKU, price, availability of the variants
//   POST /admin/products/{id}/designs[/remove]       connect · disconnect a design (mockups alike)
//   POST /admin/products/{id}/image                  upload the product image (multipart)
//   POST /admin/products/{id}/references[/remove]    add · remove a storefront reference
//   POST /admin/products/{id}/delete                 delete (409 while projects or references use it)
//   GET  /admin/products/{id}/image · /thumbnails/{design|mockup}/{assetId}   images the pages show
import { Hono } from 'hono';
import { notFound } from '../../errors';
import { preparePreview } from '../../engine/preview';
import { UrlImages } from '../../engine/inputs';
import { imageFetcher } from '../../dynamic-image/context';
import * as assets from '../../platform/assets';
import { ConflictError, PlatformError, type ErrorsByPath, type TenantContext } from '../../platform/core';
import { renderDesign } from '../../platform/designs/outputs';
import { listEntities } from '../../platform/catalogue/entities';
import {
  addConnections,
  connectionsOfVersion,
  createProduct,
  deleteProduct,
  getProduct,
  getOptions,
  listProducts,
  listVariants,
  removeConnections,
  setProductImage,
  setVariantField,
  updateProduct,
  type ConnectionKind,
  type ProductOption,
} from '../../platform/catalogue/products';
import { createReference, deleteReference, referencesOfProduct } from '../../platform/catalogue/references';
import { CreateProductDto, CATALOGUE_LIMITS, type OptionInput } from '../../platform/catalogue/schemas';
import { listStorefronts } from '../../platform/catalogue/tenant';
import { field, type FormBody } from '../../identity/admin/form-body';
import { done, render, type AdminContextOf, type AdminEnv } from '../../identity/admin/guard';
import { ACTIONS, CsrfField, Field, Table, describedBy, type Banner } from '../../identity/admin/layout';
import { tenantOf } from './context';
import { cachedRender } from './render-cache';

export const productsRoutes = new Hono<AdminEnv>();

const path = (id: number | string, rest = '') => `/admin/products/${id}${rest}`;
const ID = /^[1-9]\d{0,14}$/;
const THUMB = 160;

// --- the options text ---------------------------------------------------------------------------
// One option per line, "Title: value, value, …" (the first value is the default). Titles that
// match the current options and values keep their uids, so the variants keep SKU, price and
// availability across the new version.

type CurrentOption = Pick<ProductOption, 'uid' | 'title' | 'type' | 'useForDesignBinding' | 'useForMockupBinding'> & {
  productOptionValues: Array<{ uid: string; title: string; value: string | null; description: string | null }>;
};

export const optionsText = (options: CurrentOption[]) => options.map((o) => `${o.title}: ${o.productOptionValues.map((v) => v.title).join(', ')}`).join('\n');

/** The text → OptionInput[] (uids of same-titled current options kept); problems by line. */
export function parseOptions(text: string, current: CurrentOption[] = []): { options: OptionInput[]; problems: string[] } {
  const options: OptionInput[] = [];
  const problems: string[] = [];
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const at = line.indexOf(':');
    const title = at > 0 ? line.slice(0, at).trim() : '';
    const values = at > 0 ? line.slice(at + 1).split(',').map((v) => v.trim()).filter(Boolean) : [];
    if (!title || !values.length) return void problems.push(`Line ${i + 1}: write "Option: value, value" (a title, a colon, then the values).`);
    if (options.some((o) => same(o.title, title))) return void problems.push(`Line ${i + 1}: the option "${title}" is given twice.`);
    const dup = values.find((v, j) => values.findIndex((w) => same(w, v)) !== j);
    if (dup) return void problems.push(`Line ${i + 1}: the value "${dup}" is given twice.`);
    const was = current.find((o) => same(o.title, title));
    options.push({
      uid: was?.uid,
      title,
      type: was?.type,
      useForDesignBinding: was?.useForDesignBinding,
      useForMockupBinding: was?.useForMockupBinding,
      values: values.map((v, j) => {
        const old = was?.productOptionValues.find((x) => same(x.title, v));
        return { uid: old?.uid, title: v, value: old?.value, description: old?.description, isDefault: j === 0 };
      }),
    });
  });
  if (options.length > CATALOGUE_LIMITS.options) problems.push(`At most ${CATALOGUE_LIMITS.options} options.`);
  return { options, problems };
}

// --- form drafts and their errors -------------------------------------------------------------

interface Draft {
  name: string;
  description: string;
  pipelineId: string;
  workflowId: string;
  options: string;
}
/** Field id → what is wrong there (shown beside the field). */
type Problems = Record<string, string>;

const draftOf = (body: FormBody): Draft => ({
  name: field(body, 'name').trim(),
  description: field(body, 'description').replace(/\r\n/g, '\n').trim(),
  pipelineId: ID.test(field(body, 'processingPipelineId')) ? field(body, 'processingPipelineId') : '',
  workflowId: ID.test(field(body, 'personalizationWorkflowId')) ? field(body, 'personalizationWorkflowId') : '',
  options: field(body, 'options').replace(/\r\n/g, '\n'),
});

/** Platform error paths (API body paths) → the form's field ids. */
function problemsOf(errors: ErrorsByPath | undefined): Problems {
  const out: Problems = {};
  const fieldOf = (p: string) => {
    const k = p.replace(/^\$\.?/, '');
    if (k.startsWith('name')) return 'product-name';
    if (k.startsWith('description')) return 'product-description';
    if (k.startsWith('processingPipelineId')) return 'product-pipeline';
    if (k.startsWith('personalizationWorkflowId')) return 'product-workflow';
    if (k.startsWith('options')) return 'product-options';
    return 'product-form';
  };
  for (const [p, messages] of Object.entries(errors ?? {})) {
    const id = fieldOf(p);
    const line = /^\$?\.?options\[(\d+)\]/.exec(p);
    const text = messages.map((m) => (line ? `Line ${Number(line[1]) + 1}: ${m}` : m)).join(' ');
    out[id] = out[id] ? `${out[id]} ${text}` : text;
  }
  return out;
}

/** The zod issues of the create schema as the platform reports them (path → messages). */
function check(input: unknown): Problems {
  const r = CreateProductDto.safeParse(input);
  if (r.success) return {};
  const errors: ErrorsByPath = {};
  for (const issue of r.error.issues) {
    const p = issue.path.reduce<string>((s, k) => (typeof k === 'number' ? `${s}[${k}]` : s ? `${s}.${String(k)}` : String(k)), '');
    (errors[p] ??= []).push(issue.message);
  }
  return problemsOf(errors);
}

// --- shared bits --------------------------------------------------------------------------------

async function choices(t: TenantContext) {
  const all = { skip: 0, take: 200, sorting: [{ field: 'name' as const, direction: 'ASC' as const }] };
  const [pipelines, workflows] = await Promise.all([listEntities(t, 'pipeline', all), listEntities(t, 'workflow', all)]);
  return { pipelines: pipelines.items, workflows: workflows.items };
}

/** A labelled select of named things (a pipeline, a workflow), with a "none" choice first. */
function PickOne(props: { id: string; label: string; hint: string; name: string; none: string; items: Array<Record<string, unknown>>; selected: string; error?: string }) {
  return (
    <Field id={props.id} label={props.label} error={props.error} hint={props.hint}>
      <select id={props.id} name={props.name} {...describedBy(props.id, true, props.error)}>
        <option value="">{props.none}</option>
        {props.items.map((x) => (
          <option value={String(x.id)} selected={props.selected === String(x.id)}>
            {String(x.name)}
          </option>
        ))}
      </select>
    </Field>
  );
}

function DetailsFields({ draft, problems, lists }: { draft: Draft; problems: Problems; lists: Awaited<ReturnType<typeof choices>> }) {
  const p = problems;
  return (
    <>
      <Field id="product-name" label="Name" error={p['product-name']}>
        <input id="product-name" name="name" type="text" maxlength={255} required value={draft.name} {...describedBy('product-name', false, p['product-name'])} />
      </Field>
      <Field id="product-description" label="Description" error={p['product-description']}>
        <textarea id="product-description" name="description" rows={3} style="font-family:inherit" {...describedBy('product-description', false, p['product-description'])}>
          {draft.description}
        </textarea>
      </Field>
      <div class="grid">
        <PickOne id="product-pipeline" label="Processing pipeline" hint="What runs after an order." name="processingPipelineId" none="No pipeline" items={lists.pipelines} selected={draft.pipelineId} error={p['product-pipeline']} />
        <PickOne id="product-workflow" label="Personalization workflow" hint="The editor the storefront opens." name="personalizationWorkflowId" none="No workflow" items={lists.workflows} selected={draft.workflowId} error={p['product-workflow']} />
      </div>
      <Field
        id="product-options"
        label="Options and values"
        error={p['product-options']}
        hint={<>One option per line: <code>Paper: Matte, Glossy</code>. The first value is the default; every combination of values is a variant. Changing options makes a new product version (projects keep theirs).</>}
      >
        <textarea id="product-options" name="options" rows={Math.max(3, draft.options.split('\n').length + 1)} spellcheck={false} {...describedBy('product-options', true, p['product-options'])}>
          {draft.options}
        </textarea>
      </Field>
    </>
  );
}

/** A thumbnail the admin panel serves (same origin: the CSP allows only 'self' images). */
const Thumb = ({ kind, id, alt }: { kind: ConnectionKind; id: string; alt: string }) => (
  <img src={`/admin/products/thumbnails/${kind}/${encodeURIComponent(id)}`} alt={alt} width={THUMB / 2} height={THUMB / 2} loading="lazy" style="object-fit:contain;background:#eef1f5;border-radius:4px;flex:none" />
);

/**
 * On a phone the variants table becomes one card per variant (its options, then SKU, price and
 * availability each under a visible label), so nothing is scrolled out of sight; the shell's CSP
 * allows inline styles, as on the Assets page.
 */
const VARIANT_CARDS = `@media (max-width:760px){
.variant-cards thead{display:none}
.variant-cards,.variant-cards tbody,.variant-cards tr,.variant-cards th,.variant-cards td{display:block;width:100%}
.variant-cards tr{border-bottom:1px solid var(--line);padding:.4rem 0}
.variant-cards th,.variant-cards td{border:0;padding:.3rem .75rem}
.variant-cards td[data-label]::before{content:attr(data-label);display:block;font-size:.8rem;font-weight:600;color:var(--muted)}
.variant-cards input[type=text]{min-width:0!important}
}`;

const PLACEHOLDER_SVG = (text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${THUMB}" height="${THUMB}" viewBox="0 0 ${THUMB} ${THUMB}"><rect width="${THUMB}" height="${THUMB}" fill="#eef1f5"/>` +
  `<text x="${THUMB / 2}" y="${THUMB / 2 + 5}" font-family="system-ui,sans-serif" font-size="13" fill="#4a5565" text-anchor="middle">${text}</text></svg>`;

// --- list and create ------------------------------------------------------------------------------

productsRoutes.get('/', async (c) => {
  const search = (c.req.query('search') ?? '').trim().slice(0, 200);
  const list = await listProducts(tenantOf(c), { skip: 0, take: 100, sorting: [{ field: 'name', direction: 'ASC' }], search: search || undefined });
  return render(c, {
    title: 'Products',
    section: 'products',
    body: (
      <>
        <div class="head">
          <div>
            <h1>Products</h1>
            <p class="lead">What the storefronts sell: options, variants, and the designs and mockups they are personalised with.</p>
          </div>
          <a class="button" href="/admin/products/new">
            New product
          </a>
        </div>
        <form method="get" action="/admin/products" class="actions" role="search">
          <label for="product-search" class="sr-only">
            Search products
          </label>
          <input id="product-search" name="search" type="text" value={search} placeholder="Search by name" style="max-width:20rem" />
          <button type="submit">Search</button>
        </form>
        <p class="muted small" role="status">{`${list.total} product${list.total === 1 ? '' : 's'}`}</p>
        {list.items.length > 0 && (
          <Table caption="Products" columns={['Name', { label: 'Description', opt: true }, 'Pipeline']}>
            {list.items.map((p) => (
              <tr>
                <td>
                  <a href={path(p.id)}>{p.name}</a>
                </td>
                <td class="opt">{p.description ?? ''}</td>
                <td>{p.processingPipelineId != null ? <a href={`/admin/pipelines/${p.processingPipelineId}`}>{`#${p.processingPipelineId}`}</a> : '—'}</td>
              </tr>
            ))}
          </Table>
        )}
      </>
    ),
  });
});

async function newForm(c: AdminContextOf, draft: Draft, problems: Problems = {}, status: 200 | 400 | 404 = 200) {
  const lists = await choices(tenantOf(c));
  return render(
    c,
    {
      title: 'New product',
      section: 'products',
      banner: Object.keys(problems).length ? { kind: 'error', text: 'The product was not created: see the fields marked below.' } : undefined,
      body: (
        <>
          <p class="small">
            <a href="/admin/products">Products</a> /
          </p>
          <h1>New product</h1>
          <form method="post" action="/admin/products/new" class="card" novalidate>
            <CsrfField token={c.get('admin').csrf} />
            {problems['product-form'] && <p class="error" id="product-form-error">{problems['product-form']}</p>}
            <DetailsFields draft={draft} problems={problems} lists={lists} />
            <div class="actions">
              <button type="submit">Create product</button>
              <a href="/admin/products">Cancel</a>
            </div>
          </form>
        </>
      ),
    },
    status,
  );
}

/** Draft → the API's input; the options text's problems and the schema's, by field. */
function inputOf(draft: Draft, current: CurrentOption[] = [], keepOptions = false) {
  const parsed = keepOptions ? { options: undefined, problems: [] } : parseOptions(draft.options, current);
  const input = {
    name: draft.name,
    description: draft.description || null,
    processingPipelineId: draft.pipelineId ? Number(draft.pipelineId) : null,
    personalizationWorkflowId: draft.workflowId ? Number(draft.workflowId) : null,
    options: parsed.options,
  };
  const problems = check(input);
  if (!draft.name) problems['product-name'] = 'Enter a name.';
  if (parsed.problems.length) problems['product-options'] = parsed.problems.join(' ');
  return { input, problems };
}

/** A platform error a form can show beside its fields (else rethrown: the error page). */
function formProblems(e: unknown): { problems: Problems; status: 400 | 404 } | null {
  if (e instanceof PlatformError && (e.status === 400 || e.status === 404) && e.errors && Object.keys(e.errors).length) {
    return { problems: problemsOf(e.errors), status: e.status };
  }
  return null;
}

productsRoutes.get('/new', (c) => newForm(c, { name: '', description: '', pipelineId: '', workflowId: '', options: '' }));

productsRoutes.post('/new', async (c) => {
  const draft = draftOf(await c.req.parseBody());
  const { input, problems } = inputOf(draft);
  if (Object.keys(problems).length) return newForm(c, draft, problems, 400);
  try {
    const p = await createProduct(tenantOf(c), input);
    return done(c, path(p.id), `Product "${p.name}" created.`);
  } catch (e) {
    const shown = formProblems(e);
    if (shown) return newForm(c, draft, shown.problems, shown.status);
    throw e;
  }
});

// --- thumbnails and the image (registered before /:id) ----------------------------------------------

/** A design or mockup drawn small: designs through the atoms render, mockups through the engine. */
async function thumbnail(t: TenantContext, kind: ConnectionKind, id: string): Promise<Uint8Array> {
  if (kind === 'design') {
    const f = await renderDesign(t, { designId: id, renderingConfig: { width: THUMB, height: THUMB, fileFormat: 'Jpeg', mockupStrategy: 'None' } }, false);
    return f.bytes;
  }
  try {
    const prepared = await preparePreview(
      new assets.TenantInputStore(t.env, t.tenantId),
      { template: id, format: 'jpg', size: { width: THUMB, height: THUMB }, jpegQuality: 80, unsharpMask: null },
      { urlImages: new UrlImages(imageFetcher(t.env)) },
    );
    return (await prepared.render()).bytes;
  } catch (e) {
    throw assets.engineError(e);
  }
}

productsRoutes.get('/thumbnails/:kind/:assetId', async (c) => {
  const kind = c.req.param('kind');
  if (kind !== 'design' && kind !== 'mockup') throw notFound('There is no such thumbnail.');
  const t = tenantOf(c);
  const id = c.req.param('assetId');
  try {
    // Public files of this tenant only; the tile is kept per file content (render-cache.ts).
    const row = await assets.getAsset(assets.scopeFor(t, assets.assetKind(kind, false), undefined), id);
    const { bytes } = await cachedRender(['thumbnail', t.tenantId, kind, id, row.blobSha ?? ''], async () => ({ bytes: await thumbnail(t, kind, id), mime: 'image/jpeg', note: '' }));
    return new Response(bytes, { headers: { 'content-type': 'image/jpeg' } });
  } catch (e) {
    // A file the renderer cannot draw (or one deleted meanwhile) still gets a tile in the list.
    if (!(e instanceof PlatformError && e.status < 500)) throw e;
    return new Response(PLACEHOLDER_SVG('No preview'), { headers: { 'content-type': 'image/svg+xml', 'x-thumbnail': 'none' } });
  }
});

// --- one product ----------------------------------------------------------------------------------

async function productOf(c: AdminContextOf) {
  const id = c.req.param('id') ?? '';
  try {
    return await getProduct(tenantOf(c), ID.test(id) ? Number(id) : 0);
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound('There is no such product in your tenant.');
    throw e;
  }
}

/** What a failed post shows on the page: its section's errors and, for that form, what was typed. */
interface PageState {
  banner?: Banner;
  details?: { draft: Draft; problems: Problems };
  variants?: { values: FormBody; problems: Problems };
  design?: Problems;
  mockup?: Problems;
  image?: string;
  reference?: { values: FormBody; problems: Problems };
}

async function productPage(c: AdminContextOf, state: PageState = {}, status: 200 | 400 | 404 | 409 = 200) {
  const t = tenantOf(c);
  const p = await productOf(c);
  const db = t.env.DB;
  const list = { skip: 0, take: 200, sorting: [{ field: 'name' as const, direction: 'ASC' as const }] };
  const [variants, options, designConns, mockupConns, refs, lists, designs, mockups, storefronts] = await Promise.all([
    listVariants(t, p.id, { skip: 0, take: CATALOGUE_LIMITS.variants }),
    getOptions(t, p.id),
    connectionsOfVersion(db, t.tenantId, p.productVersionId, 'design'),
    connectionsOfVersion(db, t.tenantId, p.productVersionId, 'mockup'),
    referencesOfProduct(db, t.tenantId, p.id),
    choices(t),
    assets.listAssets(assets.scopeFor(t, assets.assetKind('design', false), undefined), list),
    assets.listAssets(assets.scopeFor(t, assets.assetKind('mockup', false), undefined), list),
    listStorefronts(db, t.tenantId, { ...list, take: 100 }),
  ]);
  const csrf = c.get('admin').csrf;
  const draft: Draft = state.details?.draft ?? {
    name: p.name,
    description: p.description ?? '',
    pipelineId: p.processingPipelineId != null ? String(p.processingPipelineId) : '',
    workflowId: p.personalizationWorkflowId != null ? String(p.personalizationWorkflowId) : '',
    options: optionsText(options.items),
  };
  const nameOf = (kind: ConnectionKind, id: string) => (kind === 'design' ? designs : mockups).items.find((a) => a.id === id)?.name ?? id;
  const valueTitle = (uid: string) => options.items.flatMap((o) => o.productOptionValues).find((v) => v.uid === uid)?.title ?? uid;
  const bindingText = (b: Array<{ optionUID: string; optionValueUIDs: string[] }>) =>
    b.length ? b.map((x) => `${options.items.find((o) => o.uid === x.optionUID)?.title ?? x.optionUID}: ${x.optionValueUIDs.map(valueTitle).join(', ')}`).join('; ') : 'every variant';
  const vp = state.variants?.problems ?? {};
  const typed = (name: string, fallback: string) => (state.variants ? field(state.variants.values, name) : fallback);

  const Connections = ({ kind }: { kind: ConnectionKind }) => {
    const conns = kind === 'design' ? designConns : mockupConns;
    const pool = (kind === 'design' ? designs : mockups).items;
    const problems = (kind === 'design' ? state.design : state.mockup) ?? {};
    const Noun = kind === 'design' ? 'Design' : 'Mockup';
    const bindable = options.items.filter((o) => (kind === 'design' ? o.useForDesignBinding : o.useForMockupBinding));
    return (
      <section class="card" aria-labelledby={`${kind}s-h`}>
        <h2 id={`${kind}s-h`}>{`${Noun}s`}</h2>
        {conns.length === 0 ? (
          <p class="muted">{`No ${kind} is connected.`}</p>
        ) : (
          <Table caption={`Connected ${kind}s`} columns={[Noun, kind === 'design' && 'Group', 'Variants', ACTIONS]}>
            {conns.map((x) => (
              <tr>
                <td>
                  <span style="display:flex;gap:.6rem;align-items:center">
                    <Thumb kind={kind} id={x.assetId} alt="" />
                    {nameOf(kind, x.assetId)}
                  </span>
                </td>
                {kind === 'design' && <td>{x.designGroup ?? '—'}</td>}
                <td>{bindingText(x.options)}</td>
                <td>
                  <form method="post" action={path(p.id, `/${kind}s/remove`)} class="inline-form">
                    <CsrfField token={csrf} />
                    <input type="hidden" name="assetId" value={x.assetId} />
                    {kind === 'design' && <input type="hidden" name="designGroup" value={x.designGroup ?? ''} />}
                    <button type="submit" class="secondary" aria-label={`Disconnect ${nameOf(kind, x.assetId)}`}>
                      Disconnect
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {pool.length === 0 ? (
          <p class="muted small">{`There are no ${kind}s in storage yet.`}</p>
        ) : (
          <form method="post" action={path(p.id, `/${kind}s`)} novalidate>
            <CsrfField token={csrf} />
            {/* min-width 0: a fieldset is at least as wide as its content, and one long file id would widen the page on a phone. */}
            <fieldset style="min-width:0" aria-describedby={problems[`${kind}-asset`] ? `${kind}-asset-error` : undefined}>
              <legend>{`Connect a ${kind}`}</legend>
              <div class="choices" role="radiogroup" aria-label={`${Noun}s in storage`}>
                {pool.map((a, i) => (
                  <label class="choice" for={`${kind}-asset-${i}`}>
                    <input type="radio" id={`${kind}-asset-${i}`} name="assetId" value={a.id} />
                    <Thumb kind={kind} id={a.id} alt="" />
                    <span style="min-width:0;overflow-wrap:anywhere">
                      <strong>{a.name}</strong>
                      <span>{a.id}</span>
                    </span>
                  </label>
                ))}
              </div>
              {problems[`${kind}-asset`] && (
                <span class="error" id={`${kind}-asset-error`}>
                  {problems[`${kind}-asset`]}
                </span>
              )}
            </fieldset>
            {kind === 'design' && (
              <Field id="design-group" label="Design group" hint="Optional: e.g. front, back." error={problems['design-group']}>
                <input id="design-group" name="designGroup" type="text" maxlength={255} {...describedBy('design-group', true, problems['design-group'])} />
              </Field>
            )}
            {bindable.length > 0 && (
              <fieldset>
                <legend>Only for variants with (none ticked: every variant)</legend>
                {bindable.map((o) => (
                  <div class="field">
                    <span class="label">{o.title}</span>
                    {o.productOptionValues.map((v) => (
                      <label class="check" for={`${kind}-bind-${o.uid}-${v.uid}`}>
                        <input type="checkbox" id={`${kind}-bind-${o.uid}-${v.uid}`} name={`bind.${o.uid}`} value={v.uid} />
                        {v.title}
                      </label>
                    ))}
                  </div>
                ))}
              </fieldset>
            )}
            <button type="submit">{`Connect ${kind}`}</button>
          </form>
        )}
      </section>
    );
  };

  return render(
    c,
    {
      title: p.name,
      section: 'products',
      banner: state.banner,
      body: (
        <>
          <p class="small">
            <a href="/admin/products">Products</a> /
          </p>
          <div class="head">
            <div>
              <h1>{p.name}</h1>
              <p class="lead">{`Product #${p.id} · version ${p.productVersionId}`}</p>
            </div>
          </div>

          <section class="card" aria-labelledby="overview-h">
            <h2 id="overview-h">Overview</h2>
            <dl class="props">
              <dt>Variants</dt>
              <dd>{`${variants.total}: ${variants.items.map((v) => v.sku ?? '(no SKU)').join(', ')}`}</dd>
              <dt>Designs</dt>
              <dd>{designConns.map((x) => `${nameOf('design', x.assetId)} (${x.designGroup ?? 'no group'})`).join(', ') || '—'}</dd>
              <dt>Mockups</dt>
              <dd>{mockupConns.map((x) => nameOf('mockup', x.assetId)).join(', ') || '—'}</dd>
              <dt>Pipeline</dt>
              <dd>
                {p.processingPipelineId != null ? (
                  <a href={`/admin/pipelines/${p.processingPipelineId}`}>{String(lists.pipelines.find((x) => x.id === p.processingPipelineId)?.name ?? `#${p.processingPipelineId}`)}</a>
                ) : (
                  '—'
                )}
              </dd>
              <dt>Workflow</dt>
              <dd>{p.personalizationWorkflowId != null ? String(lists.workflows.find((x) => x.id === p.personalizationWorkflowId)?.name ?? `#${p.personalizationWorkflowId}`) : '—'}</dd>
              <dt>Storefronts</dt>
              <dd>{refs.map((r) => `${r.reference} on ${r.storefront}`).join(', ') || '—'}</dd>
            </dl>
          </section>

          <section class="card" aria-labelledby="details-h">
            <h2 id="details-h">Details and options</h2>
            <form method="post" action={path(p.id)} novalidate>
              <CsrfField token={csrf} />
              {state.details?.problems['product-form'] && <p class="error">{state.details.problems['product-form']}</p>}
              <DetailsFields draft={draft} problems={state.details?.problems ?? {}} lists={lists} />
              <button type="submit">Save product</button>
            </form>
          </section>

          <section class="card" aria-labelledby="variants-h">
            <h2 id="variants-h">Variants</h2>
            <form method="post" action={path(p.id, '/variants')} novalidate>
              <CsrfField token={csrf} />
              {vp['variants-form'] && <p class="error">{vp['variants-form']}</p>}
              <style dangerouslySetInnerHTML={{ __html: VARIANT_CARDS }} />
              <Table caption="Variants" class="variant-cards" columns={['Options', 'SKU', 'Price', 'Available']}>
                {variants.items.map((v) => {
                  const label = (v.productVariantOptions ?? []).map((o) => `${o.productOptionTitle}: ${o.productOptionValueTitle}`).join(', ') || 'The only variant';
                  const sku = `variant-${v.id}-sku`;
                  const price = `variant-${v.id}-price`;
                  const avail = `variant-${v.id}-available`;
                  return (
                    <tr>
                      <th scope="row" style="text-transform:none;letter-spacing:0;font-size:.95rem;color:inherit;background:#fff">
                        {label}
                        <input type="hidden" name="variant" value={String(v.id)} />
                      </th>
                      <td data-label="SKU">
                        <label for={sku} class="sr-only">{`SKU of ${label}`}</label>
                        <input id={sku} name={`sku.${v.id}`} type="text" maxlength={255} value={typed(`sku.${v.id}`, v.sku ?? '')} style="min-width:9rem" {...describedBy(sku, false, vp[sku])} />
                        {vp[sku] && <span class="error" id={`${sku}-error`}>{vp[sku]}</span>}
                      </td>
                      <td data-label="Price">
                        <label for={price} class="sr-only">{`Price of ${label}`}</label>
                        <input id={price} name={`price.${v.id}`} type="text" inputmode="decimal" value={typed(`price.${v.id}`, v.price == null ? '' : String(v.price))} style="min-width:6rem" {...describedBy(price, false, vp[price])} />
                        {vp[price] && <span class="error" id={`${price}-error`}>{vp[price]}</span>}
                      </td>
                      <td data-label="Available">
                        <label for={avail} class="check">
                          <input id={avail} name={`available.${v.id}`} type="checkbox" value="on" checked={state.variants ? field(state.variants.values, `available.${v.id}`) === 'on' : v.isAvailable} />
                          <span class="sr-only">{`${label} is available`}</span>
                        </label>
                      </td>
                    </tr>
                  );
                })}
              </Table>
              <button type="submit">Save variants</button>
            </form>
          </section>

          <Connections kind="design" />
          <Connections kind="mockup" />

          <section class="card" aria-labelledby="image-h">
            <h2 id="image-h">Product image</h2>
            {p.image ? (
              <img src={path(p.id, '/image')} alt={`Image of ${p.name}`} style="max-width:min(100%,320px);border:1px solid var(--line);border-radius:6px" />
            ) : (
              <p class="muted">No image yet.</p>
            )}
            <form method="post" action={path(p.id, '/image')} enctype="multipart/form-data" novalidate>
              <CsrfField token={csrf} />
              <Field id="product-image" label={p.image ? 'Replace the image' : 'Upload an image'} hint="JPEG, PNG, WebP or GIF." error={state.image}>
                <input id="product-image" name="file" type="file" accept="image/jpeg,image/png,image/webp,image/gif" {...describedBy('product-image', true, state.image)} />
              </Field>
              <button type="submit">Upload image</button>
            </form>
          </section>

          <section class="card" aria-labelledby="refs-h">
            <h2 id="refs-h">Storefront references</h2>
            <p class="muted small">The names storefronts use for this product when they create projects.</p>
            {refs.length === 0 ? (
              <p class="muted">No storefront names this product.</p>
            ) : (
              <Table caption="Storefront references" columns={['Reference', 'Storefront', ACTIONS]}>
                {refs.map((r) => (
                  <tr>
                    <td>
                      <code>{r.reference}</code>
                    </td>
                    <td>{`${r.storefront} (#${r.storefrontId})`}</td>
                    <td>
                      <form method="post" action={path(p.id, '/references/remove')} class="inline-form">
                        <CsrfField token={csrf} />
                        <input type="hidden" name="storefrontId" value={String(r.storefrontId)} />
                        <input type="hidden" name="reference" value={r.reference} />
                        <button type="submit" class="secondary" aria-label={`Remove reference ${r.reference}`}>
                          Remove
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            {storefronts.items.length === 0 ? (
              <p class="muted small">The tenant has no storefront yet.</p>
            ) : (
              <form method="post" action={path(p.id, '/references')} novalidate>
                <CsrfField token={csrf} />
                <div class="grid">
                  <Field id="reference-storefront" label="Storefront" error={state.reference?.problems['reference-storefront']}>
                    <select id="reference-storefront" name="storefrontId" {...describedBy('reference-storefront', false, state.reference?.problems['reference-storefront'])}>
                      {storefronts.items.map((s) => (
                        <option value={String(s.id)} selected={state.reference ? field(state.reference.values, 'storefrontId') === String(s.id) : false}>
                          {s.name}
                        </option>
                      ))}
                    </select>
                  </Field>
                  <Field id="reference-name" label="Reference" error={state.reference?.problems['reference-name']}>
                    <input id="reference-name" name="reference" type="text" maxlength={255} value={state.reference ? field(state.reference.values, 'reference') : ''} {...describedBy('reference-name', false, state.reference?.problems['reference-name'])} />
                  </Field>
                  <Field id="reference-title" label="Display name (optional)" error={state.reference?.problems['reference-title']}>
                    <input id="reference-title" name="referenceName" type="text" maxlength={255} value={state.reference ? field(state.reference.values, 'referenceName') : ''} {...describedBy('reference-title', false, state.reference?.problems['reference-title'])} />
                  </Field>
                </div>
                {state.reference?.problems['reference-existing'] && (
                  <p class="error" id="reference-existing" role="alert">
                    {state.reference.problems['reference-existing']}
                  </p>
                )}
                <button type="submit">Add reference</button>
              </form>
            )}
          </section>

          <section class="card danger" aria-labelledby="delete-h">
            <h2 id="delete-h">Delete product</h2>
            <p class="small muted">A product that projects or storefront references use cannot be deleted; remove those first.</p>
            <form method="post" action={path(p.id, '/delete')}>
              <CsrfField token={csrf} />
              <button type="submit" class="danger">Delete product</button>
            </form>
          </section>
        </>
      ),
    },
    status,
  );
}

const conflictBanner = (e: ConflictError): Banner => ({ kind: 'error', text: e.description });

productsRoutes.get('/:id', (c) => productPage(c));

productsRoutes.post('/:id', async (c) => {
  const t = tenantOf(c);
  const p = await productOf(c);
  const draft = draftOf(await c.req.parseBody());
  const current = await getOptions(t, p.id);
  // Options are sent only when their text changed: each change makes a new product version, and
  // untouched text is never re-parsed (titles made through the API may hold commas or colons).
  const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean).join('\n');
  const same = lines(draft.options) === lines(optionsText(current.items));
  const { input, problems } = inputOf(draft, current.items, same);
  if (Object.keys(problems).length) return productPage(c, { banner: { kind: 'error', text: 'Nothing was saved: see the fields marked below.' }, details: { draft, problems } }, 400);
  try {
    await updateProduct(t, p.id, input);
  } catch (e) {
    const shown = formProblems(e);
    if (shown) return productPage(c, { banner: { kind: 'error', text: 'Nothing was saved: see the fields marked below.' }, details: { draft, problems: shown.problems } }, shown.status);
    if (e instanceof ConflictError) return productPage(c, { banner: conflictBanner(e), details: { draft, problems: {} } }, 409);
    throw e;
  }
  return done(c, path(p.id), same ? 'Product saved.' : 'Product saved with its new options (a new version).');
});

/** The variants table's changes: SKU, price and availability, each sent only where it changed. */
productsRoutes.post('/:id/variants', async (c) => {
  const t = tenantOf(c);
  const p = await productOf(c);
  const body = await c.req.parseBody({ all: true });
  const current = (await listVariants(t, p.id, { skip: 0, take: CATALOGUE_LIMITS.variants })).items;
  const problems: Problems = {};
  const changes = { sku: [] as Array<{ productVariantId: number; value: string | null }>, price: [] as Array<{ productVariantId: number; value: number | null }>, availability: [] as Array<{ productVariantId: number; value: boolean }> };
  for (const v of current) {
    if (!(`sku.${v.id}` in body) && !(`price.${v.id}` in body)) continue;
    const sku = field(body, `sku.${v.id}`).trim();
    const priceText = field(body, `price.${v.id}`).trim().replace(',', '.');
    const available = field(body, `available.${v.id}`) === 'on';
    if (sku.length > CATALOGUE_LIMITS.name) problems[`variant-${v.id}-sku`] = 'At most 255 characters.';
    const price = priceText === '' ? null : Number(priceText);
    if (priceText !== '' && (!/^\d+(\.\d+)?$/.test(priceText) || !(Number(price) <= 1e12))) problems[`variant-${v.id}-price`] = 'A price is a number of 0 or more, like 12.50 (empty: none).';
    if ((v.sku ?? '') !== sku) changes.sku.push({ productVariantId: v.id, value: sku || null });
    if (v.price !== price && !problems[`variant-${v.id}-price`]) changes.price.push({ productVariantId: v.id, value: price });
    if (v.isAvailable !== available) changes.availability.push({ productVariantId: v.id, value: available });
  }
  const fail = (status: 400 | 404 | 409, banner: Banner, ps: Problems = problems) => productPage(c, { banner, variants: { values: body, problems: ps } }, status);
  if (Object.keys(problems).length) return fail(400, { kind: 'error', text: 'The variants were not saved: see the cells marked below.' });
  const count = changes.sku.length + changes.price.length + changes.availability.length;
  if (!count) return done(c, path(p.id), 'Nothing changed in the variants.');
  try {
    for (const f of ['sku', 'price', 'availability'] as const) if (changes[f].length) await setVariantField(t, p.id, f, changes[f]);
  } catch (e) {
    if (e instanceof ConflictError) return fail(409, conflictBanner(e));
    if (e instanceof PlatformError && (e.status === 400 || e.status === 404)) return fail(e.status, { kind: 'error', text: e.message }, { 'variants-form': e.message });
    throw e;
  }
  return done(c, path(p.id), `${count} variant change${count === 1 ? '' : 's'} saved.`);
});

/** The binding ticked in a connect form: `bind.<optionUid>` = value uids (none: every variant). */
function bindingOf(body: FormBody) {
  return Object.entries(body)
    .filter(([k]) => k.startsWith('bind.'))
    .map(([k, v]) => ({ optionUID: k.slice(5), optionValueUIDs: (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string') }))
    .filter((b) => b.optionValueUIDs.length > 0);
}

for (const kind of ['design', 'mockup'] as const) {
  productsRoutes.post(`/:id/${kind}s`, async (c) => {
    const p = await productOf(c);
    const body = await c.req.parseBody({ all: true });
    const assetId = field(body, 'assetId');
    const group = field(body, 'designGroup').trim();
    const problems: Problems = {};
    if (!assetId) problems[`${kind}-asset`] = `Pick a ${kind}.`;
    if (group.length > CATALOGUE_LIMITS.name) problems['design-group'] = 'At most 255 characters.';
    const fail = (status: 400 | 404 | 409, text: string, ps: Problems) => productPage(c, { banner: { kind: 'error', text }, [kind]: ps }, status);
    if (Object.keys(problems).length) return fail(400, `The ${kind} was not connected: see below.`, problems);
    try {
      await addConnections(tenantOf(c), p.id, kind, [{ assetId, designGroup: kind === 'design' ? group || null : null, options: bindingOf(body) }]);
    } catch (e) {
      if (e instanceof ConflictError) return fail(409, e.description, {});
      if (e instanceof PlatformError && (e.status === 400 || e.status === 404)) {
        const text = Object.values(e.errors ?? {}).flat().join(' ') || e.message;
        return fail(e.status, `The ${kind} was not connected: ${text}`, { [`${kind}-asset`]: text });
      }
      throw e;
    }
    return done(c, path(p.id), `${kind === 'design' ? 'Design' : 'Mockup'} connected (a new product version).`);
  });

  productsRoutes.post(`/:id/${kind}s/remove`, async (c) => {
    const p = await productOf(c);
    const body = await c.req.parseBody();
    try {
      await removeConnections(tenantOf(c), p.id, kind, [{ assetId: field(body, 'assetId'), ...(kind === 'design' && { designGroup: field(body, 'designGroup') || null }) }]);
    } catch (e) {
      if (e instanceof ConflictError) return productPage(c, { banner: conflictBanner(e) }, 409);
      if (e instanceof PlatformError && e.status === 404) return productPage(c, { banner: { kind: 'error', text: Object.values(e.errors ?? {}).flat().join(' ') || e.message } }, 404);
      throw e;
    }
    return done(c, path(p.id), `${kind === 'design' ? 'Design' : 'Mockup'} disconnected.`);
  });
}

const IMAGE_TYPES = /^image\/(jpeg|png|webp|gif)$/;

productsRoutes.post('/:id/image', async (c) => {
  const p = await productOf(c);
  const file = (await c.req.parseBody()).file;
  const fail = (text: string) => productPage(c, { banner: { kind: 'error', text: `The image was not saved: ${text}` }, image: text }, 400);
  if (!(file instanceof File) || file.size === 0) return fail('Choose an image file.');
  if (!IMAGE_TYPES.test(file.type)) return fail('The file is not a JPEG, PNG, WebP or GIF image.');
  // The guard read the body for its CSRF check, so the file is sent on as a fresh multipart request.
  const form = new FormData();
  form.append('file', file, file.name || 'image');
  try {
    await setProductImage(tenantOf(c), p.id, new Request(c.req.url, { method: 'POST', body: form }));
  } catch (e) {
    if (e instanceof PlatformError && e.status >= 400 && e.status < 500) return fail(Object.values(e.errors ?? {}).flat().join(' ') || e.message);
    throw e;
  }
  return done(c, path(p.id), 'Product image saved.');
});

productsRoutes.get('/:id/image', async (c) => {
  const t = tenantOf(c);
  const p = await productOf(c);
  const row = p.image ? await assets.findAsset(assets.scopeFor(t, assets.assetKind('resource', false), undefined), p.image.resourceId) : null;
  const bytes = row ? await assets.readAssetBytes(t.env.FILES, row) : null;
  if (!row || !bytes) throw notFound('This product has no image.');
  return new Response(bytes, { headers: { 'content-type': row.mimeType && IMAGE_TYPES.test(row.mimeType) ? row.mimeType : 'application/octet-stream' } });
});

productsRoutes.post('/:id/references', async (c) => {
  const p = await productOf(c);
  const body = await c.req.parseBody();
  const storefront = field(body, 'storefrontId');
  const reference = field(body, 'reference').trim();
  const title = field(body, 'referenceName').trim();
  const problems: Problems = {};
  if (!ID.test(storefront)) problems['reference-storefront'] = 'Pick a storefront.';
  if (!reference) problems['reference-name'] = 'Enter the name the storefront uses for this product.';
  else if (reference.length > CATALOGUE_LIMITS.name) problems['reference-name'] = 'At most 255 characters.';
  if (title.length > CATALOGUE_LIMITS.name) problems['reference-title'] = 'At most 255 characters.';
  const fail = (status: 400 | 404 | 409, text: string, ps: Problems) => productPage(c, { banner: { kind: 'error', text }, reference: { values: body, problems: ps } }, status);
  if (Object.keys(problems).length) return fail(400, 'The reference was not added: see the fields marked below.', problems);
  try {
    await createReference(tenantOf(c), Number(storefront), { productReference: reference, productReferenceType: 'Product', productReferenceName: title || null, productId: p.id });
  } catch (e) {
    if (e instanceof ConflictError) {
      // The reference the storefront already has, and what it names (another product or this one).
      const existing = ((e.extras.existingReferences ?? []) as Array<{ productReferenceType: string; productId: number | null; productLinkId: number | null }>)
        .map((r) => (r.productId != null ? `it names product #${r.productId}${r.productId === p.id ? ' (this one)' : ''}` : `it names a ${r.productReferenceType}`))
        .join('; ');
      return fail(409, e.description, { 'reference-name': 'This storefront already uses this reference.', 'reference-existing': `${e.description}${existing ? ` Existing reference: ${existing}.` : ''}` });
    }
    if (e instanceof PlatformError && (e.status === 400 || e.status === 404)) return fail(e.status, e.message, { 'reference-storefront': Object.values(e.errors ?? {}).flat().join(' ') || e.message });
    throw e;
  }
  return done(c, path(p.id), `Reference "${reference}" added.`);
});

productsRoutes.post('/:id/references/remove', async (c) => {
  const p = await productOf(c);
  const body = await c.req.parseBody();
  const storefront = field(body, 'storefrontId');
  const reference = field(body, 'reference');
  const t = tenantOf(c);
  // Only this product's references are removed here (the form names one of them).
  const mine = (await referencesOfProduct(t.env.DB, t.tenantId, p.id)).some((r) => String(r.storefrontId) === storefront && r.reference === reference);
  if (!mine) return productPage(c, { banner: { kind: 'error', text: `This product has no reference "${reference}" on storefront ${storefront}.` } }, 404);
  await deleteReference(t, Number(storefront), reference);
  return done(c, path(p.id), `Reference "${reference}" removed.`);
});

productsRoutes.post('/:id/delete', async (c) => {
  const p = await productOf(c);
  try {
    await deleteProduct(tenantOf(c), p.id);
  } catch (e) {
    if (e instanceof ConflictError) return productPage(c, { banner: conflictBanner(e) }, 409);
    throw e;
  }
  return done(c, '/admin/products', `Product "${p.name}" deleted.`);
});
