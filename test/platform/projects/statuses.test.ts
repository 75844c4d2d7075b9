// Project statuses and transitions: the back-office CRUD with its 409 rules, and the storefront's
// statuses, transitions and forced status (contract, "Back-office" and "Storefront").
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { api, apiJson, seedPlatform } from '../../helpers/platform';
import * as store from '../../../src/platform/projects/store';
import { keepTenantRows } from '../../helpers/tenant-state';

// vitest.shared.config.ts: later files find both tenants' status models as this one did.
keepTenantRows(1, ['project_statuses', 'project_transitions']);
keepTenantRows(2, ['project_statuses', 'project_transitions']);

const BO = '/api/backoffice/v1';
const SF = '/api/storefront/v1';

beforeAll(async () => {
  await seedPlatform();
});

async function newProject(owner = 'status-owner'): Promise<number> {
  const p = await apiJson('POST', `${SF}/projects/with-single-item?storefrontId=1`, { ownerId: owner, item: {} }, { token: 1 }, 201);
  return p.id;
}

describe('back-office project statuses', () => {
  it('lists the seeded statuses with isInitial and isFinal', async () => {
    const list = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 1 });
    const byCode = Object.fromEntries(list.items.map((s: any) => [s.code, s]));
    expect(byCode[1]).toMatchObject({ displayName: 'New', isInitial: true, isFinal: false });
    expect(byCode[3]).toMatchObject({ displayName: 'Completed', isInitial: false, isFinal: true });
    expect(list.total).toBe(list.items.length);
    const paged = await apiJson('GET', `${BO}/projects-statuses?take=1&sorting=code DESC`, undefined, { token: 1 });
    expect(paged.items).toHaveLength(1);
    expect(paged.total).toBe(list.total);
    expect(paged.items[0].code).toBe(Math.max(...list.items.map((s: any) => s.code)));
    expect((await apiJson('GET', `${BO}/projects-statuses?search=produc`, undefined, { token: 1 })).items.map((s: any) => s.code)).toEqual([2]);
    expect((await api('GET', `${BO}/projects-statuses?take=5000`, undefined, { token: 1 })).status).toBe(400);
    expect((await api('GET', `${BO}/projects-transitions?sorting=color ASC`, undefined, { token: 1 })).status).toBe(400);
  });

  it('creates a status (201), a duplicate code answers 409', async () => {
    const s = await apiJson('POST', `${BO}/projects-statuses`, { code: 40, displayName: 'Shipped', color: '#00ff00', isFinal: true }, { token: 1 }, 201);
    expect(s).toMatchObject({ code: 40, displayName: 'Shipped', color: '#00ff00', isInitial: false, isFinal: true });
    const dup = await api('POST', `${BO}/projects-statuses`, { code: 40, displayName: 'Again' }, { token: 1 });
    expect(dup.status).toBe(409);
    expect((await dup.json()) as any).toMatchObject({ type: 'GeneralConflict' });
  });

  it("the tenant's first status becomes initial whatever the body says", async () => {
    // Tenant 2 has one status (New, initial); delete nothing, but create in a fresh tenant-less state via tenant 2's rows.
    await env.DB.prepare(`DELETE FROM project_statuses WHERE tenant_id = 2`).run();
    const first = await apiJson('POST', `${BO}/projects-statuses`, { code: 7, displayName: 'First', isInitial: false }, { token: 2 }, 201);
    expect(first.isInitial).toBe(true);
    const second = await apiJson('POST', `${BO}/projects-statuses`, { code: 8, displayName: 'Second' }, { token: 2 }, 201);
    expect(second.isInitial).toBe(false);
  });

  it('marking another status initial moves the flag (exactly one initial)', async () => {
    const s = await apiJson('POST', `${BO}/projects-statuses`, { code: 41, displayName: 'Draft', isInitial: true }, { token: 1 }, 201);
    expect(s.isInitial).toBe(true);
    let list = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 1 });
    expect(list.items.filter((x: any) => x.isInitial).map((x: any) => x.code)).toEqual([41]);
    // Move it back with PUT.
    const newId = list.items.find((x: any) => x.code === 1).id;
    await apiJson('PUT', `${BO}/projects-statuses/${newId}`, { isInitial: true }, { token: 1 });
    list = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 1 });
    expect(list.items.filter((x: any) => x.isInitial).map((x: any) => x.code)).toEqual([1]);
  });

  it('unsetting or deleting the initial status answers 409', async () => {
    const list = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 1 });
    const initial = list.items.find((x: any) => x.isInitial);
    const unset = await api('PUT', `${BO}/projects-statuses/${initial.id}`, { isInitial: false }, { token: 1 });
    expect(unset.status).toBe(409);
    const del = await api('DELETE', `${BO}/projects-statuses/${initial.id}`, undefined, { token: 1 });
    expect(del.status).toBe(409);
  });

  it('a status used by a transition or a project answers 409 on delete; an unused one answers 200 with the DTO', async () => {
    const list = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 1 });
    const inProduction = list.items.find((x: any) => x.code === 2);
    expect((await api('DELETE', `${BO}/projects-statuses/${inProduction.id}`, undefined, { token: 1 })).status).toBe(409);
    const unused = await apiJson('POST', `${BO}/projects-statuses`, { code: 42, displayName: 'Unused' }, { token: 1 }, 201);
    const deleted = await apiJson('DELETE', `${BO}/projects-statuses/${unused.id}`, undefined, { token: 1 });
    expect(deleted).toMatchObject({ id: unused.id, code: 42, displayName: 'Unused' });
    expect((await api('GET', `${BO}/projects-statuses/${unused.id}`, undefined, { token: 1 })).status).toBe(404);
    // Used by a project (no transition): 409 too.
    const used = await apiJson('POST', `${BO}/projects-statuses`, { code: 43, displayName: 'Used' }, { token: 1 }, 201);
    const project = await newProject();
    await apiJson('POST', `${SF}/projects/${project}/statuses/43`, undefined, { token: 1 });
    expect((await api('DELETE', `${BO}/projects-statuses/${used.id}`, undefined, { token: 1 })).status).toBe(409);
  });

  it('changing a code carries projects and transitions along', async () => {
    const s = await apiJson('POST', `${BO}/projects-statuses`, { code: 44, displayName: 'Packed' }, { token: 1 }, 201);
    const t = await apiJson('POST', `${BO}/projects-transitions/transitions`, { name: 'pack', startStatus: 1, resultStatus: 44 }, { token: 1 }, 201);
    const project = await newProject();
    await apiJson('POST', `${SF}/projects/${project}/transitions/pack`, undefined, { token: 1 });
    await apiJson('PUT', `${BO}/projects-statuses/${s.id}`, { code: 45 }, { token: 1 });
    expect((await apiJson('GET', `${SF}/projects/${project}`, undefined, { token: 1 })).status).toBe(45);
    expect((await apiJson('GET', `${BO}/projects-transitions/${t.id}`, undefined, { token: 1 })).resultStatus).toBe(45);
  });

  it('bad bodies are 400, unknown ids 404', async () => {
    expect((await api('POST', `${BO}/projects-statuses`, { code: 'x' }, { token: 1 })).status).toBe(400);
    expect((await api('POST', `${BO}/projects-statuses`, {}, { token: 1 })).status).toBe(400);
    expect((await api('GET', `${BO}/projects-statuses/999999`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('GET', `${BO}/projects-statuses/abc`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('PUT', `${BO}/projects-transitions/abc`, { name: 'x' }, { token: 1 })).status).toBe(404);
  });

  it("another tenant's status is 404", async () => {
    const list = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 1 });
    const id = list.items[0].id;
    expect((await api('GET', `${BO}/projects-statuses/${id}`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('DELETE', `${BO}/projects-statuses/${id}`, undefined, { token: 2 })).status).toBe(404);
    const t2 = await apiJson('GET', `${BO}/projects-statuses`, undefined, { token: 2 });
    expect(t2.items.some((s: any) => s.id === id)).toBe(false);
  });

  it('needs Projects_full to create, Projects_read to list', async () => {
    const { tenantToken } = await import('../../helpers/platform');
    const reader = await tenantToken(1, 'Projects_read');
    expect((await api('GET', `${BO}/projects-statuses`, undefined, { token: reader })).status).toBe(200);
    expect((await api('POST', `${BO}/projects-statuses`, { code: 99 }, { token: reader })).status).toBe(403);
  });
});

describe('back-office project transitions', () => {
  it('creates with POST /projects-transitions/transitions; (name, startStatus) is unique', async () => {
    const t = await apiJson('POST', `${BO}/projects-transitions/transitions`, { name: 'hold', displayName: 'Hold', startStatus: 2, resultStatus: 1 }, { token: 1 }, 201);
    expect(t).toMatchObject({ name: 'hold', displayName: 'Hold', startStatus: 2, resultStatus: 1 });
    const dup = await api('POST', `${BO}/projects-transitions/transitions`, { name: 'hold', startStatus: 2, resultStatus: 3 }, { token: 1 });
    expect(dup.status).toBe(409);
    // The same name from another status is fine.
    await apiJson('POST', `${BO}/projects-transitions/transitions`, { name: 'hold', startStatus: 3, resultStatus: 1 }, { token: 1 }, 201);
  });

  it('statuses it names must exist (404 with errors)', async () => {
    const res = await api('POST', `${BO}/projects-transitions/transitions`, { name: 'nowhere', startStatus: 1, resultStatus: 777 }, { token: 1 });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).errors).toHaveProperty('resultStatus');
  });

  it('lists, gets, updates and deletes (200 with the deleted DTO)', async () => {
    const t = await apiJson('POST', `${BO}/projects-transitions/transitions`, { name: 'reopen', startStatus: 3, resultStatus: 2 }, { token: 1 }, 201);
    const list = await apiJson('GET', `${BO}/projects-transitions`, undefined, { token: 1 });
    expect(list.items.map((x: any) => x.name)).toContain('reopen');
    const updated = await apiJson('PUT', `${BO}/projects-transitions/${t.id}`, { displayName: 'Reopen order' }, { token: 1 });
    expect(updated.displayName).toBe('Reopen order');
    const deleted = await apiJson('DELETE', `${BO}/projects-transitions/${t.id}`, undefined, { token: 1 });
    expect(deleted).toMatchObject({ id: t.id, name: 'reopen' });
    expect((await api('GET', `${BO}/projects-transitions/${t.id}`, undefined, { token: 1 })).status).toBe(404);
  });
});

describe('storefront statuses and transitions of a project', () => {
  it('lists statuses (no isInitial) and transitions', async () => {
    const statuses = await apiJson('GET', `${SF}/projects/statuses`, undefined, { token: 1 });
    expect(statuses.find((s: any) => s.code === 1)).toEqual(expect.objectContaining({ code: 1, displayName: 'New' }));
    expect(statuses[0]).not.toHaveProperty('isInitial');
    const transitions = await apiJson('GET', `${SF}/projects/transitions`, undefined, { token: 1 });
    expect(transitions.map((t: any) => t.name)).toEqual(expect.arrayContaining(['start-production', 'complete']));
  });

  it('a new project has the initial status; its transitions are those from it', async () => {
    const id = await newProject();
    const p = await apiJson('GET', `${SF}/projects/${id}`, undefined, { token: 1 });
    expect(p.status).toBe(1);
    const available = await apiJson('GET', `${SF}/projects/${id}/transitions`, undefined, { token: 1 });
    expect(available.map((t: any) => t.name)).toContain('start-production');
    expect(available.every((t: any) => t.startStatus === 1)).toBe(true);
  });

  it('applies a transition (200 with the new status); one not available answers 409 with availableTransitions', async () => {
    const id = await newProject();
    const wrong = await api('POST', `${SF}/projects/${id}/transitions/complete`, undefined, { token: 1 });
    expect(wrong.status).toBe(409);
    const body = (await wrong.json()) as any;
    expect(wrong.headers.get('content-type')).toMatch(/application\/json/);
    expect(body.availableTransitions.map((t: any) => t.name)).toContain('start-production');
    const next = await apiJson('POST', `${SF}/projects/${id}/transitions/start-production`, undefined, { token: 1 });
    expect(next).toMatchObject({ code: 2, displayName: 'In production' });
    const done = await apiJson('POST', `${SF}/projects/${id}/transitions/complete`, undefined, { token: 1 });
    expect(done.code).toBe(3);
  });

  it('forces a status; an unknown code is 404', async () => {
    const id = await newProject();
    expect(await apiJson('POST', `${SF}/projects/${id}/statuses/3`, undefined, { token: 1 })).toMatchObject({ code: 3 });
    expect((await api('POST', `${SF}/projects/${id}/statuses/12345`, undefined, { token: 1 })).status).toBe(404);
    expect((await api('POST', `${SF}/projects/${id}/statuses/abc`, undefined, { token: 1 })).status).toBe(404);
  });

  it("tenant 2 cannot move tenant 1's project", async () => {
    const id = await newProject();
    expect((await api('POST', `${SF}/projects/${id}/statuses/1`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('POST', `${SF}/projects/${id}/transitions/start-production`, undefined, { token: 2 })).status).toBe(404);
    expect((await api('GET', `${SF}/projects/${id}/transitions`, undefined, { token: 2 })).status).toBe(404);
  });
});

describe('concurrent transitions (issue 18, item 7)', () => {
  it('the status update is conditional on the status it started from: a second move from the same status changes nothing', async () => {
    const id = await newProject('race-owner');
    const first = await store.setProjectStatus(env.DB, 1, id, 1, 2, null);
    const second = await store.setProjectStatus(env.DB, 1, id, 1, 3, null);
    expect(first.moved).toBe(true);
    expect(second.moved).toBe(false);
    expect((await store.projectRow(env.DB, 1, id))?.status).toBe(2);
  });

  it('ten parallel start-production calls: one 200, nine 409, the status moved once', async () => {
    const id = await newProject('race-owner');
    const answers = await Promise.all(Array.from({ length: 10 }, () => api('POST', `${SF}/projects/${id}/transitions/start-production`, undefined, { token: 1 })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const conflict = (await answers.find((r) => r.status === 409)!.json()) as any;
    expect(conflict).toMatchObject({ type: 'GeneralConflict' });
    expect(conflict.availableTransitions.map((t: any) => t.name)).toContain('complete');
    const project = await apiJson('GET', `${SF}/projects/${id}`, undefined, { token: 1 });
    expect(project.status).toBe(2);
  });
});
