// Back office > one project's page (issue 24, "The back office"): runs numbered by run, Resume only
// when a job failed, the project preview falls back to the first item's design, items numbered
// as the project's items, the order name as the shop sent it, and each item's preflight badge and
// problems (issue 21); against the demo seed (tenant 1).
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { findUser } from '../../../src/identity/users';
import { api, apiJson, seedPlatform } from '../../helpers/platform';
import { LONG_NAME, preflightCard, uploadCardFonts } from '../../platform/projects/preflight-card';
import { DEMO } from '../../helpers/identity-seed';
import { get, post, signIn, type Browser } from '../../identity/admin/helpers';
import { clearTenantSettings, keepTenantSettings } from '../../helpers/tenant-state';

keepTenantSettings(1); // vitest.shared.config.ts: later files find the tenant's settings as this one did

let admin: Browser;
/** A print-product card whose Name box is 80 pt wide: a long name overflows it (preflight-card.ts). */
let strictCard = '';
let run = 0;
const unique = (s: string) => `${s}-${Date.now().toString(36)}-${++run}`;

beforeAll(async () => {
  await seedPlatform();
  await clearTenantSettings(1); // the seed's tenant 1, which processes a project at once
  admin = await signIn((await findUser(env.DB, DEMO.admin.id))!);
  await uploadCardFonts();
  strictCard = (await apiJson('POST', '/api/atoms/v1/designs', { product: preflightCard('None'), name: 'Strict card', path: '/admin-project-page/' }, { token: 1 }, 201)).id;
});

async function project(body: Record<string, unknown> = {}) {
  const res = await api(
    'POST',
    '/api/storefront/v1/projects/with-single-item?storefrontId=1',
    { ownerId: 'admin-project-page', orderId: unique('order'), productReference: 'demo-card', item: { quantity: 10, fields: {} }, ...body },
    { token: 1 },
  );
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: number; items: Array<{ id: number; preflight: { ok: boolean; errors: number; warnings: number; problems: Array<{ code: string; message: string }> } | null }> };
}

const page = async (id: number) => {
  const res = await get(`/admin/projects/${id}`, admin);
  expect(res.status).toBe(200);
  return res.text();
};

/** Waits until no job of the project runs (the runner works in its Durable Object). */
async function settled(id: number): Promise<string> {
  for (let i = 0; i < 240; i++) {
    const html = await page(id);
    if (!html.includes('refreshing while the job runs')) return html;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`project ${id} still processing`);
}

describe('project page', () => {
  it('shows the order name the shop sent, and numbers items as the project does', async () => {
    const p = await project({ orderNumber: 4242, orderName: 'Shop order 4242 for Ada' });
    const html = await page(p.id);
    expect(html).toContain('<p class="lead">Shop order 4242 for Ada</p>');
    expect(html).toContain('<dt>Order name</dt><dd>Shop order 4242 for Ada</dd>');
    expect(html).toContain('<dt>Order number</dt><dd>4242</dd>');
    expect(html).toContain('>Item 1</h3>');
    expect(html).not.toContain(`Item #${p.items[0]!.id}`);
  });

  it('numbers runs by run, and offers Resume only when a job failed', async () => {
    const p = await project();
    let html = await settled(p.id);
    expect(html).toContain('Run 1: job project');
    expect(html).not.toContain('Resume processing');
    expect(html).toContain('Restart processing');
    const restarted = await post(`/admin/projects/${p.id}/restart`, admin, {});
    expect(restarted.status).toBe(303);
    html = await settled(p.id);
    expect(html).toContain('Run 1: job project');
    expect(html).toContain('Run 2: job project');
    expect(html).not.toContain('Resume processing');
  });

  it("the project preview is the first item's design when the items name none", async () => {
    const p = await project();
    const res = await get(`/admin/projects/${p.id}/preview`, admin);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-preview')).toBeNull();
    expect(res.headers.get('content-type')).toBe('image/jpeg');
  });

  it('a project whose items have no design at all shows a tile saying so', async () => {
    const made = await post('/admin/products/new', admin, { name: unique('Bare card') });
    expect(made.status).toBe(303);
    const productId = Number(/(\d+)$/.exec(made.headers.get('location') ?? '')?.[1]);
    const p = await project({ productReference: undefined, item: { quantity: 1, productSpecifier: { type: 'Product', id: productId }, fields: {} } });
    const res = await get(`/admin/projects/${p.id}/preview`, admin);
    expect(res.headers.get('x-preview')).toBe('none');
    expect(await res.text()).toContain('No preview: no item has a design');
  });

  it('offers Resume processing once a job failed', async () => {
    // The demo pipeline (render-hires) on a product with no design: its extract task has nothing to take.
    const made = await post('/admin/products/new', admin, { name: unique('Designless card'), processingPipelineId: '1' });
    expect(made.status).toBe(303);
    const productId = Number(/(\d+)$/.exec(made.headers.get('location') ?? '')?.[1]);
    const p = await project({ productReference: undefined, item: { quantity: 1, productSpecifier: { type: 'Product', id: productId }, fields: {} } });
    const html = await settled(p.id);
    expect(html).toContain('Run 1: job project');
    expect(html).toContain('Failed');
    expect(html).toContain('Resume processing');
  });

  it("shows each item's preflight: a badge with its counts and the problems, and the list filters by it", async () => {
    const p = await project({ orderName: 'Too long for the card', item: { quantity: 1, designIds: [strictCard], fields: { Name: LONG_NAME } } });
    const preflight = p.items[0]!.preflight;
    expect(preflight?.errors, JSON.stringify(preflight)).toBeGreaterThan(0);
    const html = await page(p.id);
    const counts = [`${preflight!.errors} error${preflight!.errors === 1 ? '' : 's'}`, preflight!.warnings ? `${preflight!.warnings} warning${preflight!.warnings === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ');
    expect(html).toMatch(new RegExp(`<span class="badge off"[^>]*>${counts}</span>`));
    expect(html).toContain('aria-label="Preflight problems"');
    expect(html).toContain('<strong style="color:var(--err)">Error</strong>');
    expect(html).toContain(`Name: &quot;${LONG_NAME}&quot; is too long for`);
    const list = await get('/admin/projects?preflight=errors', admin);
    const listed = await list.text();
    expect(listed).toContain(`href="/admin/projects/${p.id}"`);
    expect(listed).toContain('<option value="errors" selected="">Errors</option>');
    expect(listed).toContain('<span class="badge off">Errors</span>');
    const clean = await get('/admin/projects?preflight=ok', admin);
    expect(await clean.text()).not.toContain(`href="/admin/projects/${p.id}"`);
  });

  it('lists a field named after a layer with markers by its data name', async () => {
    const p = await project({ item: { quantity: 1, fields: { 'Name <TOS_fitToBox> <REQ>': 'Ada Lovelace' } } });
    const html = await page(p.id);
    expect(html).toContain('<dt>Name</dt><dd>Ada Lovelace</dd>');
    expect(html).not.toContain('TOS_fitToBox');
  });

  it('shows no preflight badge for an item that was not checked (no design)', async () => {
    const made = await post('/admin/products/new', admin, { name: unique('Unchecked card') });
    const productId = Number(/(\d+)$/.exec(made.headers.get('location') ?? '')?.[1]);
    const p = await project({ productReference: undefined, item: { quantity: 1, productSpecifier: { type: 'Product', id: productId }, fields: {} } });
    expect(p.items[0]!.preflight).toBeNull();
    const html = await page(p.id);
    expect(html).not.toContain('Preflight problems');
    expect(html).not.toContain('Preflight ok');
  });
});
