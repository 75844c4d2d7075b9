// Settings > External apps: routes. Each handler reads the form, delegates to app-form.ts (rules)
// and store.ts (storage), then redirects with a banner (post/redirect/get).
import { Hono } from 'hono';
import { AUTH_TYPES, type AuthType } from '../../app-types';
import { notFound } from '../../../errors';
import { done, render, takeFlash, type AdminContextOf, type AdminEnv } from '../guard';
import type { Banner } from '../layout';
import { draftFromApp, draftFromForm, emptyDraft, validateDraft, type AppDraft, type FieldErrors } from './app-form';
import { AppForm, AppSummary, AppsList, DeleteAppConfirm, flowStatesJson, formScript } from './pages';
import { createClientApp, findClientApp, listClientApps, removeClientApp, updateClientApp, type AppRow } from './store';

export const appsRoutes = new Hono<AdminEnv>();

const appPath = (clientId: string) => `/admin/apps/${encodeURIComponent(clientId)}`;

async function appOf(c: AdminContextOf): Promise<AppRow> {
  const app = await findClientApp(c.get('db'), c.get('admin').session.tenantId, c.req.param('clientId') ?? '');
  if (!app) throw notFound('There is no external app with this client id in your tenant. It may have been deleted.');
  return app;
}

function newAppPage(c: AdminContextOf, draft: AppDraft, errors: FieldErrors, status: 200 | 400 = 200) {
  return render(
    c,
    {
      title: 'New external app',
      section: 'apps',
      script: formScript(flowStatesJson()),
      body: (
        <>
          <p class="small">
            <a href="/admin/apps">External apps</a> /
          </p>
          <h1>New external app</h1>
          <p class="lead">The client id is generated when you save; a secret too if the flow uses one. The secret is shown once.</p>
          <AppForm draft={draft} errors={errors} csrf={c.get('admin').csrf} action="/admin/apps/new" />
        </>
      ),
    },
    status,
  );
}

appsRoutes.get('/', async (c) => {
  const apps = await listClientApps(c.get('db'), c.get('admin').session.tenantId);
  return render(c, { title: 'External apps', section: 'apps', body: <AppsList apps={apps} /> });
});

appsRoutes.get('/new', (c) => {
  const type = c.req.query('type');
  return newAppPage(c, emptyDraft((AUTH_TYPES as readonly string[]).includes(type ?? '') ? (type as AuthType) : undefined), {});
});

appsRoutes.post('/new', async (c) => {
  const draft = draftFromForm(await c.req.parseBody());
  const result = validateDraft(draft);
  if (result.errors) return newAppPage(c, draft, result.errors, 400);
  const { clientId, secret } = await createClientApp(c.get('db'), c.get('admin').session.tenantId, result.settings);
  const text = secret ? `App “${result.settings.name}” created. Copy its secret now: it is shown only once.` : `App “${result.settings.name}” created.`;
  return done(c, appPath(clientId), text, secret ? { secret: { clientId, value: secret } } : {});
});

/**
 * An app's page: summary (with the secret, right after it was issued), the edit form (as typed,
 * with errors, after a refused save) and the way to delete it.
 */
function appPage(
  c: AdminContextOf,
  app: AppRow,
  view: { secret?: string; banner?: Banner; draft?: AppDraft; errors?: FieldErrors },
  status: 200 | 400 = 200,
) {
  const body = (
    <>
      <p class="small">
        <a href="/admin/apps">External apps</a> /
      </p>
      <h1>{app.name}</h1>
      <AppSummary app={app} secret={view.secret} />
      <h2 style="margin-top:1.5rem">Settings</h2>
      <AppForm draft={view.draft ?? draftFromApp(app)} errors={view.errors ?? {}} csrf={c.get('admin').csrf} action={appPath(app.clientId)} editing={app} />
      <div class="card danger" style="margin-top:2rem">
        <h2>Delete this app</h2>
        <p class="muted">Revokes its credentials and every token issued to it. You will be asked to confirm.</p>
        <a class="button danger" href={`${appPath(app.clientId)}/delete`}>
          Delete app…
        </a>
      </div>
    </>
  );
  return render(c, { title: app.name, section: 'apps', banner: view.banner, script: formScript(flowStatesJson()), body }, status);
}

appsRoutes.get('/:clientId', async (c) => {
  const app = await appOf(c);
  const flash = takeFlash(c);
  // The secret travels in the one-time flash of the redirect after saving: shown here once.
  const secret = flash.secret?.clientId === app.clientId ? flash.secret.value : undefined;
  return appPage(c, app, { secret, banner: flash.banner });
});

appsRoutes.post('/:clientId', async (c) => {
  const app = await appOf(c);
  const draft = draftFromForm(await c.req.parseBody(), app.authType);
  const result = validateDraft(draft);
  if (result.errors) return appPage(c, app, { draft, errors: result.errors }, 400);
  const { secret } = await updateClientApp(c.get('db'), app, result.settings);
  const text = secret ? 'Changes saved. A client secret was issued: copy it now, it is shown only once.' : 'Changes saved.';
  return done(c, appPath(app.clientId), text, secret ? { secret: { clientId: app.clientId, value: secret } } : {});
});

appsRoutes.get('/:clientId/delete', async (c) => {
  const app = await appOf(c);
  return render(c, { title: `Delete ${app.name}`, section: 'apps', body: <DeleteAppConfirm app={app} csrf={c.get('admin').csrf} /> });
});

appsRoutes.post('/:clientId/delete', async (c) => {
  const app = await appOf(c);
  await removeClientApp(c.get('db'), app);
  return done(c, '/admin/apps', `App “${app.name}” deleted. Its client id and secret no longer work.`);
});
