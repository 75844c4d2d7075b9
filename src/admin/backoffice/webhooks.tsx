// Back office > Webhooks: the tenant's webhook endpoints (docs/webhooks.md). Creating one or
// rotating its secret shows the secret once, on the answering page (never stored in a flash
// cookie, never shown again); an endpoint's page lists its latest deliveries with their attempts
// and a "Send again" button. Calls the platform's webhook service in the admin's tenant.
//
//   GET  /admin/webhooks · POST /admin/webhooks                    list · create (shows the secret)
//   GET  /admin/webhooks/{id}                                      details and delivery log
//   POST /admin/webhooks/{id}/delete · /rotate · /deliveries/{d}/resend
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { PlatformError, ValidationError } from '../../platform/core';
import { EVENT_TYPES } from '../../platform/webhooks/events';
import * as webhooks from '../../platform/webhooks/service';
import { notFound } from '../../errors';
import { field, type FormBody } from '../../identity/admin/form-body';
import { done, render, type AdminContextOf, type AdminEnv } from '../../identity/admin/guard';
import { ACTIONS, CsrfField, Field, PostButton, Table, describedBy } from '../../identity/admin/layout';
import { tenantOf } from './context';

export const webhooksRoutes = new Hono<AdminEnv>();

type Errors = { url?: string; events?: string };

/** The secret, shown once, with what to do with it. */
const SecretShown = ({ secret, what }: { secret: string; what: string }) => (
  <div class="banner success" role="status">
    <p>
      {what} Copy the signing secret now: it is not shown again.
    </p>
    <p>
      <code id="webhook-secret">{secret}</code>
    </p>
  </div>
);

const eventsOf = (body: FormBody): string[] => {
  const raw = body['events'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((x): x is string => typeof x === 'string');
};

async function listPage(c: AdminContextOf, form: { body?: FormBody; errors?: Errors; created?: { id: string; secret: string } } = {}, status: 200 | 400 = 200) {
  const { items } = await webhooks.listWebhooks(tenantOf(c));
  const csrf = c.get('admin').csrf;
  const errors = form.errors ?? {};
  const chosen = new Set(form.body ? eventsOf(form.body) : []);
  return render(
    c,
    {
      title: 'Webhooks',
      section: 'webhooks',
      banner: Object.keys(errors).length ? { kind: 'error', text: 'The webhook was not created; see the fields below.' } : undefined,
      body: (
        <>
          <h1>Webhooks</h1>
          <p class="lead">
            Where the platform POSTs events (a project created, its print files ready, a job failed), signed as the Standard Webhooks specification says. Failed deliveries are retried for about a day.
          </p>
          {form.created && <SecretShown secret={form.created.secret} what="Webhook created." />}
          {items.length === 0 ? (
            <p class="muted">No webhooks yet.</p>
          ) : (
            <Table caption="Webhooks" columns={['URL', 'Events', { label: 'Created', opt: true }, ACTIONS]}>
              {items.map((h) => (
                <tr>
                  <td>
                    <a href={`/admin/webhooks/${h.id}`}>{h.url}</a>
                  </td>
                  <td class="small">{h.events.join(', ')}</td>
                  <td class="opt">{h.created.slice(0, 16).replace('T', ' ')}</td>
                  <td>
                    <PostButton action={`/admin/webhooks/${h.id}/delete`} csrf={csrf} label={`Delete ${h.url}`} kind="danger" />
                  </td>
                </tr>
              ))}
            </Table>
          )}
          <form method="post" action="/admin/webhooks" class="card" aria-labelledby="new-webhook-h" novalidate>
            <h2 id="new-webhook-h">New webhook</h2>
            <CsrfField token={csrf} />
            <Field id="webhook-url" label="URL" hint="https on a public host." error={errors.url}>
              <input id="webhook-url" name="url" type="url" maxlength={2048} value={form.body ? field(form.body, 'url') : ''} {...describedBy('webhook-url', true, errors.url)} />
            </Field>
            <fieldset aria-describedby={errors.events ? 'webhook-events-error' : undefined}>
              <legend>Events</legend>
              {EVENT_TYPES.map((t) => (
                <label class="check">
                  <input type="checkbox" name="events" value={t} checked={chosen.has(t)} /> <code>{t}</code>
                </label>
              ))}
              {errors.events && (
                <span class="error" id="webhook-events-error">
                  {errors.events}
                </span>
              )}
            </fieldset>
            <p>
              <button type="submit">Create webhook</button>
            </p>
          </form>
        </>
      ),
    },
    status,
  );
}

async function endpointOr404(c: AdminContextOf) {
  try {
    return await webhooks.getWebhook(tenantOf(c), c.req.param('id') ?? '');
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound('There is no such webhook in your tenant.');
    throw e;
  }
}

async function detailPage(c: AdminContextOf, rotated?: string) {
  const h = await endpointOr404(c);
  const { items } = await webhooks.listDeliveries(tenantOf(c), h.id);
  const csrf = c.get('admin').csrf;
  const attempts = (d: (typeof items)[number]): Child =>
    d.attemptLog.map((a) => `${a.responseStatus ?? a.error ?? '—'}`).join(' · ') || '—';
  return render(c, {
    title: `Webhook ${h.url}`,
    section: 'webhooks',
    body: (
      <>
        <p class="small">
          <a href="/admin/webhooks">Webhooks</a> /
        </p>
        <h1>{h.url}</h1>
        {rotated && <SecretShown secret={rotated} what="New secret made; the previous one keeps signing for 24 hours." />}
        <dl class="props">
          <dt>Events</dt>
          <dd>{h.events.join(', ')}</dd>
          <dt>Created</dt>
          <dd>{h.created.slice(0, 16).replace('T', ' ')} UTC</dd>
        </dl>
        <p>
          <PostButton action={`/admin/webhooks/${h.id}/rotate`} csrf={csrf} label="Rotate secret" />{' '}
          <PostButton action={`/admin/webhooks/${h.id}/delete`} csrf={csrf} label="Delete webhook" kind="danger" />
        </p>
        <h2>Deliveries</h2>
        {items.length === 0 ? (
          <p class="muted">Nothing sent yet.</p>
        ) : (
          <Table caption="Latest deliveries" columns={['Event', 'Status', 'Attempts (answers)', { label: 'Created', opt: true }, { label: 'Next attempt', opt: true }, ACTIONS]}>
            {items.map((d) => (
              <tr data-delivery={d.id}>
                <td>
                  <code>{d.eventType}</code>
                  <br />
                  <span class="small muted">{d.eventId}</span>
                </td>
                <td>{d.status}</td>
                <td class="small">
                  {d.attempts}: {attempts(d)}
                </td>
                <td class="opt">{d.created.slice(0, 19).replace('T', ' ')}</td>
                <td class="opt">{d.nextAttempt ? d.nextAttempt.slice(0, 19).replace('T', ' ') : '—'}</td>
                <td>
                  <PostButton action={`/admin/webhooks/${h.id}/deliveries/${d.id}/resend`} csrf={csrf} label={`Send ${d.eventType} again`} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </>
    ),
  });
}

webhooksRoutes.get('/', (c) => listPage(c));

webhooksRoutes.post('/', async (c) => {
  const body = await c.req.parseBody({ all: true });
  const url = field(body, 'url').trim();
  const events = eventsOf(body);
  const errors: Errors = {};
  if (!url) errors.url = 'Enter the URL.';
  if (!events.length) errors.events = 'Choose at least one event.';
  else if (events.some((e) => !(EVENT_TYPES as readonly string[]).includes(e))) errors.events = 'Choose from the events listed.';
  if (Object.keys(errors).length) return listPage(c, { body, errors }, 400);
  try {
    const created = await webhooks.createWebhook(tenantOf(c), { url, events: [...new Set(events)] });
    return listPage(c, { created });
  } catch (e) {
    if (e instanceof ValidationError) return listPage(c, { body, errors: { url: (e.errors?.url ?? []).join(' ') || e.message } }, 400);
    if (e instanceof PlatformError && e.status === 422) return listPage(c, { body, errors: { url: e.message } }, 400);
    throw e;
  }
});

webhooksRoutes.get('/:id', (c) => detailPage(c));

webhooksRoutes.post('/:id/delete', async (c) => {
  const h = await endpointOr404(c);
  await webhooks.deleteWebhook(tenantOf(c), h.id);
  return done(c, '/admin/webhooks', `Webhook ${h.url} deleted.`);
});

webhooksRoutes.post('/:id/rotate', async (c) => {
  const h = await endpointOr404(c);
  const { secret } = await webhooks.rotateWebhookSecret(tenantOf(c), h.id);
  return detailPage(c, secret);
});

webhooksRoutes.post('/:id/deliveries/:delivery/resend', async (c) => {
  const h = await endpointOr404(c);
  try {
    await webhooks.resendDelivery(tenantOf(c), h.id, c.req.param('delivery') ?? '');
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound('There is no such delivery.');
    throw e;
  }
  return done(c, `/admin/webhooks/${h.id}`, 'The delivery will be sent again shortly.');
});
