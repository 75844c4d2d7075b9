// Settings > Project statuses (statuses with colour swatches, one initial, final marks, and the
// transitions between them) and Settings > Secrets (tenant secrets, write-only: names are listed,
// values are never shown). Calls the platform's status and secret services in the admin's tenant.
//
//   GET  /admin/statuses                       statuses and transitions, with their forms
//   POST /admin/statuses · /{id}/initial · /{id}/final · /{id}/delete
//   POST /admin/statuses/transitions · /transitions/{id}/delete
//   GET  /admin/secrets · POST /admin/secrets · /admin/secrets/{name}/delete
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { ConflictError, PlatformError } from '../../platform/core';
import { deleteTenantSecret, putTenantSecret, SECRET_NAME, tenantSecretNames } from '../../platform/catalogue/tenant';
import { createStatus, createTransition, deleteStatus, deleteTransition, getStatus, listStatuses, listTransitions, updateStatus } from '../../platform/projects/statuses';
import { field, type FormBody } from '../../identity/admin/form-body';
import { done, render, type AdminContextOf, type AdminEnv } from '../../identity/admin/guard';
import { CsrfField, Field, PostButton, Table, describedBy } from '../../identity/admin/layout';
import { tenantOf } from './context';

export const statusesRoutes = new Hono<AdminEnv>();
export const secretsRoutes = new Hono<AdminEnv>();

type Errors = Record<string, string>;
const ALL = { skip: 0, take: 1000, sorting: [{ field: 'code', direction: 'ASC' as const }] };
const COLOR = /^#[0-9a-fA-F]{6}$/;

const Swatch = ({ color }: { color: string | null }) =>
  color ? (
    <span role="img" aria-label={`colour ${color}`} style={`display:inline-block;width:1.1em;height:1.1em;border-radius:4px;vertical-align:-.2em;border:1px solid #0003;background:${color}`} />
  ) : (
    <span class="muted">—</span>
  );

/** Runs a platform change; a 409 or 400 becomes the page again with the reason. */
async function attempt(c: AdminContextOf, act: () => Promise<unknown>, again: (problem: string, errors?: Errors) => Response | Promise<Response>) {
  try {
    await act();
    return null;
  } catch (e) {
    if (e instanceof ConflictError) return again(e.description);
    if (e instanceof PlatformError && (e.status === 400 || e.status === 404)) {
      const errors = Object.fromEntries(Object.entries(e.errors ?? {}).map(([k, v]) => [k.replace(/^\$\.?/, ''), v.join(' ')]));
      return again(e.message, errors);
    }
    throw e;
  }
}

// --- statuses and transitions ------------------------------------------------------------------

async function statusesPage(c: AdminContextOf, form: { status?: FormBody; statusErrors?: Errors; transition?: FormBody; transitionErrors?: Errors; problem?: string }, code: 200 | 400 | 404 | 409 = 200) {
  const t = tenantOf(c);
  const [statuses, transitions] = await Promise.all([listStatuses(t, ALL), listTransitions(t, { ...ALL, sorting: [] })]);
  const csrf = c.get('admin').csrf;
  const s = form.status ?? {};
  const se = form.statusErrors ?? {};
  const tr = form.transition ?? {};
  const te = form.transitionErrors ?? {};
  const name = (code: number) => statuses.items.find((x) => x.code === code)?.displayName ?? String(code);
  const input = (id: string, errors: Errors, key: string, props: Record<string, unknown>, body: FormBody, label: string, hint?: Child) => (
    <Field id={id} label={label} hint={hint} error={errors[key]}>
      <input id={id} name={key} value={field(body, key)} {...props} {...describedBy(id, !!hint, errors[key])} />
    </Field>
  );
  return render(
    c,
    {
      title: 'Project statuses',
      section: 'statuses',
      banner: form.problem ? { kind: 'error', text: form.problem } : undefined,
      body: (
        <>
          <h1>Project statuses</h1>
          <p class="lead">The steps a project goes through in your shop, and the transitions the storefronts and this panel may apply. One status is initial (new projects start there); final ones end the project.</p>
          <Table caption="Statuses" columns={['Colour', 'Code', 'Name', 'Marks', 'Actions']}>
            {statuses.items.map((x) => (
              <tr>
                <td>
                  <Swatch color={x.color} />
                </td>
                <td>{x.code}</td>
                <td>{x.displayName}</td>
                <td>
                  {x.isInitial && <span class="badge ok">Initial</span>} {x.isFinal && <span class="badge">Final</span>}
                </td>
                <td>
                  <div class="actions" style="margin-top:0">
                    {!x.isInitial && <PostButton action={`/admin/statuses/${x.id}/initial`} csrf={csrf} label={`Make "${x.displayName}" initial`} />}
                    <PostButton action={`/admin/statuses/${x.id}/final`} csrf={csrf} label={x.isFinal ? `Unmark "${x.displayName}" final` : `Mark "${x.displayName}" final`} />
                    <PostButton action={`/admin/statuses/${x.id}/delete`} csrf={csrf} label={`Delete "${x.displayName}"`} kind="danger" />
                  </div>
                </td>
              </tr>
            ))}
          </Table>
          <form method="post" action="/admin/statuses" class="card" aria-labelledby="new-status-h" novalidate>
            <h2 id="new-status-h">Add a status</h2>
            <CsrfField token={csrf} />
            <div class="grid">
              {input('status-code', se, 'code', { type: 'number', step: 1, required: true }, s, 'Code', 'A whole number, unique in your tenant.')}
              {input('status-name', se, 'displayName', { type: 'text', maxlength: 255, required: true }, s, 'Name')}
              {input('status-color', se, 'color', { type: 'color', value: field(s, 'color') || '#3b82f6' }, s, 'Colour')}
            </div>
            <label class="check">
              <input type="checkbox" name="isFinal" value="1" checked={field(s, 'isFinal') === '1'} /> Final (the project is done)
            </label>
            <div class="actions">
              <button type="submit">Add status</button>
            </div>
          </form>

          <h2>Transitions</h2>
          <Table caption="Transitions" columns={['Name', 'Button', 'From → to', 'Actions']}>
            {transitions.items.map((x) => (
              <tr>
                <td>
                  <code>{x.name}</code>
                </td>
                <td>{x.displayName}</td>
                <td>{`${name(x.startStatus)} → ${name(x.resultStatus)}`}</td>
                <td>
                  <PostButton action={`/admin/statuses/transitions/${x.id}/delete`} csrf={csrf} label={`Delete "${x.name}"`} kind="danger" />
                </td>
              </tr>
            ))}
          </Table>
          <form method="post" action="/admin/statuses/transitions" class="card" aria-labelledby="new-transition-h" novalidate>
            <h2 id="new-transition-h">Add a transition</h2>
            <CsrfField token={csrf} />
            <div class="grid">
              {input('transition-name', te, 'name', { type: 'text', maxlength: 255, required: true }, tr, 'Name', 'What the API calls: transitions/{name}.')}
              {input('transition-display', te, 'displayName', { type: 'text', maxlength: 255 }, tr, 'Button label')}
              {(['startStatus', 'resultStatus'] as const).map((key) => (
                <Field id={`transition-${key}`} label={key === 'startStatus' ? 'From' : 'To'} error={te[key]}>
                  <select id={`transition-${key}`} name={key} {...describedBy(`transition-${key}`, false, te[key])}>
                    {statuses.items.map((x) => (
                      <option value={String(x.code)} selected={field(tr, key) === String(x.code)}>
                        {x.displayName}
                      </option>
                    ))}
                  </select>
                </Field>
              ))}
            </div>
            <div class="actions">
              <button type="submit">Add transition</button>
            </div>
          </form>
        </>
      ),
    },
    code,
  );
}

statusesRoutes.get('/', (c) => statusesPage(c, {}));

statusesRoutes.post('/', async (c) => {
  const body = await c.req.parseBody();
  const errors: Errors = {};
  const code = field(body, 'code').trim();
  const displayName = field(body, 'displayName').trim();
  const color = field(body, 'color').trim();
  if (!/^-?\d{1,9}$/.test(code)) errors.code = 'Enter a whole number.';
  if (!displayName) errors.displayName = 'Enter a name.';
  else if (displayName.length > 255) errors.displayName = 'At most 255 characters.';
  if (color && !COLOR.test(color)) errors.color = 'A colour is #rrggbb.';
  if (Object.keys(errors).length) return statusesPage(c, { status: body, statusErrors: errors }, 400);
  const t = tenantOf(c);
  const failed = await attempt(
    c,
    () => createStatus(t, { code: Number(code), displayName, color: color || null, isFinal: field(body, 'isFinal') === '1' }),
    (problem) => statusesPage(c, { status: body, statusErrors: { code: problem } }, 409),
  );
  return failed ?? done(c, '/admin/statuses', `Status "${displayName}" added.`);
});

statusesRoutes.post('/transitions', async (c) => {
  const body = await c.req.parseBody();
  const errors: Errors = {};
  const name = field(body, 'name').trim();
  if (!name) errors.name = 'Enter a name.';
  else if (name.length > 255) errors.name = 'At most 255 characters.';
  if (Object.keys(errors).length) return statusesPage(c, { transition: body, transitionErrors: errors }, 400);
  const t = tenantOf(c);
  const failed = await attempt(
    c,
    () =>
      createTransition(t, {
        name,
        displayName: field(body, 'displayName').trim() || null,
        startStatus: Number(field(body, 'startStatus')),
        resultStatus: Number(field(body, 'resultStatus')),
      }),
    (problem, errs) => statusesPage(c, { transition: body, transitionErrors: { name: problem, ...errs } }, 409),
  );
  return failed ?? done(c, '/admin/statuses', `Transition "${name}" added.`);
});

statusesRoutes.post('/transitions/:id/delete', async (c) => {
  const failed = await attempt(c, () => deleteTransition(tenantOf(c), c.req.param('id')), (problem) => statusesPage(c, { problem }, 404));
  return failed ?? done(c, '/admin/statuses', 'Transition deleted.');
});

statusesRoutes.post('/:id/initial', async (c) => {
  const failed = await attempt(c, () => updateStatus(tenantOf(c), c.req.param('id'), { isInitial: true }), (problem) => statusesPage(c, { problem }, 409));
  return failed ?? done(c, '/admin/statuses', 'Initial status changed.');
});

statusesRoutes.post('/:id/final', async (c) => {
  const t = tenantOf(c);
  const failed = await attempt(
    c,
    async () => updateStatus(t, c.req.param('id'), { isFinal: !(await getStatus(t, c.req.param('id'))).isFinal }),
    (problem) => statusesPage(c, { problem }, 409),
  );
  return failed ?? done(c, '/admin/statuses', 'Final mark changed.');
});

statusesRoutes.post('/:id/delete', async (c) => {
  const failed = await attempt(c, () => deleteStatus(tenantOf(c), c.req.param('id')), (problem) => statusesPage(c, { problem }, 409));
  return failed ?? done(c, '/admin/statuses', 'Status deleted.');
});

// --- tenant secrets (write-only) ------------------------------------------------------------------

async function secretsPage(c: AdminContextOf, form: { body?: FormBody; errors?: Errors } = {}, code: 200 | 400 = 200) {
  const names = await tenantSecretNames(c.env.DB, c.get('admin').session.tenantId);
  const csrf = c.get('admin').csrf;
  const errors = form.errors ?? {};
  return render(
    c,
    {
      title: 'Secrets',
      section: 'secrets',
      body: (
        <>
          <h1>Secrets</h1>
          <p class="lead">
            Values pipelines use as <code>{'{{secrets.<name>}}'}</code> (passwords of FTP servers, API keys). They are stored encrypted and never shown again: to change one,
            set it anew.
          </p>
          {names.length === 0 ? (
            <p class="muted">No secrets yet.</p>
          ) : (
            <Table caption="Secrets" columns={['Name', 'Value', 'Actions']}>
              {names.map((n) => (
                <tr>
                  <td>
                    <code>{n}</code>
                  </td>
                  <td class="muted">hidden</td>
                  <td>
                    <PostButton action={`/admin/secrets/${encodeURIComponent(n)}/delete`} csrf={csrf} label={`Delete ${n}`} kind="danger" />
                  </td>
                </tr>
              ))}
            </Table>
          )}
          <form method="post" action="/admin/secrets" class="card" aria-labelledby="set-secret-h" novalidate>
            <h2 id="set-secret-h">Set a secret</h2>
            <CsrfField token={csrf} />
            <Field id="secret-name" label="Name" hint="1–64 characters: A–Z, a–z, 0–9, _ and -. An existing name is replaced." error={errors.name}>
              <input id="secret-name" name="name" type="text" maxlength={64} value={field(form.body ?? {}, 'name')} {...describedBy('secret-name', true, errors.name)} />
            </Field>
            <Field id="secret-value" label="Value" error={errors.value}>
              <input id="secret-value" name="value" type="password" autocomplete="off" {...describedBy('secret-value', false, errors.value)} />
            </Field>
            <div class="actions">
              <button type="submit">Save secret</button>
            </div>
          </form>
        </>
      ),
    },
    code,
  );
}

secretsRoutes.get('/', (c) => secretsPage(c));

secretsRoutes.post('/', async (c) => {
  const body = await c.req.parseBody();
  const name = field(body, 'name').trim();
  const value = field(body, 'value');
  const errors: Errors = {};
  if (!SECRET_NAME.test(name)) errors.name = 'A secret name is 1–64 characters of A–Z, a–z, 0–9, _ and -.';
  if (!value) errors.value = 'Enter the value.';
  else if (value.length > 16_384) errors.value = 'At most 16,384 characters.';
  if (Object.keys(errors).length) return secretsPage(c, { body, errors }, 400);
  await putTenantSecret(tenantOf(c), name, value);
  return done(c, '/admin/secrets', `Secret ${name} saved.`);
});

secretsRoutes.post('/:name/delete', async (c) => {
  const name = c.req.param('name');
  try {
    await deleteTenantSecret(tenantOf(c), name);
  } catch (e) {
    if (!(e instanceof PlatformError && e.status === 404)) throw e;
  }
  return done(c, '/admin/secrets', `Secret ${name} deleted.`);
});
