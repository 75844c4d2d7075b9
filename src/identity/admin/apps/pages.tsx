// Settings > External apps: the list, the create/edit form, the once-only secret and the delete
// confirmation. Server-rendered; a small inline script only switches fields on and off by flow
// and copies values (the server enforces every rule without it).
import { APP_TYPES, AUTH_TYPES, TOKEN_LIFETIME_MAX, TOKEN_LIFETIME_MIN, type AuthType } from '../../app-types';
import { PERMISSION_LEVELS, PERMISSION_LEVEL_LABELS, RESOURCE_TYPES, normalizePermissions, scopesForPermissions } from '../../../auth/scopes';
import { Age, CsrfField, Field, Table, age, dateTime, describedBy } from '../layout';
import { LIST_FIELDS, fieldStates, permissionField, type AppDraft, type FieldErrors, type FieldState, type FlowField, type ListField as ListFieldName } from './app-form';
import type { AppRow } from './store';

/** What each flow is for (platform spec, Authentication: flow choice). */
export const FLOW_HELP: Record<AuthType, string> = {
  client_credentials:
    'Backend-to-backend with no sign-in screen. The app acts as a tenant admin, limited by its Permissions.',
  authorization_code:
    'Server-side web apps acting for a signed-in user. Your backend swaps a one-time code for tokens and can refresh them.',
  implicit:
    'Browser or mobile front-ends acting for a signed-in user; use only if no backend is possible. No secret, no refresh tokens.',
};

export const typeLabel = (type: string): string => APP_TYPES[type as AuthType]?.label ?? type;

export function AppsList({ apps }: { apps: AppRow[] }) {
  return (
    <>
      <div class="head">
        <div>
          <h1>External apps</h1>
          <p class="lead">
            Programs that get access tokens from this identity service. Each app has a client id and, depending on its
            flow, a secret. To revoke an app's credentials, delete it and create a new one.
          </p>
        </div>
        <a class="button" href="/admin/apps/new">
          New app
        </a>
      </div>
      {apps.length === 0 ? (
        <div class="card">
          <h2>No external apps yet</h2>
          <p class="muted">
            Create one for each program that needs tokens: a backend service (Client Credentials), a server-side web app
            (Authorization Code) or a browser front-end (Implicit).
          </p>
          <a class="button" href="/admin/apps/new">
            Create your first app
          </a>
        </div>
      ) : (
        <Table caption="External apps" columns={['Name', 'Client id', 'Authorization type', { label: 'Created', opt: true }]}>
          {apps.map((app) => (
            <tr>
              <td>
                <a href={`/admin/apps/${encodeURIComponent(app.clientId)}`}>{app.name}</a>
              </td>
              <td>
                <code>{app.clientId}</code>
              </td>
              <td>
                <span class="badge">{typeLabel(app.authType)}</span>
              </td>
              <td class="opt">
                <Age at={app.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

/** The reason a flow-dependent part is off, shown beside it (and updated by the script). */
const Reason = ({ name, state }: { name: FlowField; state: FieldState }) => (
  <span class="reason" data-reason-for={name} hidden={!state.reason}>
    {state.reason ?? ''}
  </span>
);

const LIST_TEXT: Record<ListFieldName, { label: string; hint: string }> = {
  redirectUris: {
    label: 'Redirect URIs',
    hint: 'One per line. Where users return after signing in; matched exactly. https, or http only for localhost, 127.0.0.1 and [::1]. No # fragment, no wildcards.',
  },
  postLogoutRedirectUris: {
    label: 'Post logout redirect URIs',
    hint: 'One per line. Where users may be sent after signing out; same rules as redirect URIs.',
  },
  corsOrigins: {
    label: 'Allowed CORS origins',
    hint: 'One per line, scheme://host[:port] without a path, e.g. https://shop.example.com. Browsers on these origins may call the token endpoint.',
  },
};

function ListField(props: { id: ListFieldName; label: string; hint: string; draft: AppDraft; errors: FieldErrors; disabled: boolean }) {
  const error = props.errors[props.id];
  return (
    <Field id={props.id} label={props.label} hint={props.hint} error={error}>
      <textarea id={props.id} name={props.id} rows={3} spellcheck={false} autocapitalize="off" disabled={props.disabled} {...describedBy(props.id, true, error)}>
        {props.draft[props.id]}
      </textarea>
    </Field>
  );
}

function Switch(props: { id: 'requireClientSecret' | 'requirePkce'; label: string; hint: string; draft: AppDraft; state: FieldState }) {
  const checked = props.state.enabled ? props.draft[props.id] : (props.state.forced ?? false);
  return (
    <div class="field" data-flow={props.id}>
      <div class="check">
        <input type="checkbox" id={props.id} name={props.id} checked={checked} disabled={!props.state.enabled} aria-describedby={`${props.id}-hint`} />
        <label for={props.id}>
          <strong>{props.label}</strong>
        </label>
      </div>
      <span class="hint" id={`${props.id}-hint`}>
        {props.hint}
      </span>
      <Reason name={props.id} state={props.state} />
    </div>
  );
}

/**
 * The create/edit form. On edit the flow is fixed: another flow means another app (its secret and
 * permissions rules differ).
 */
export function AppForm(props: { draft: AppDraft; errors: FieldErrors; csrf: string; action: string; editing?: AppRow }) {
  const { draft, errors } = props;
  const states = fieldStates(draft.authType, draft.requireClientSecret);
  const errorCount = Object.keys(errors).length;
  return (
    <form method="post" action={props.action} data-app-form data-type={draft.authType} novalidate>
      <CsrfField token={props.csrf} />
      <input type="hidden" name="switches" value="1" />
      {errorCount > 0 && (
        <div class="banner error" role="alert">
          {errorCount === 1 ? 'One field needs your attention' : `${errorCount} fields need your attention`}; nothing was saved.
        </div>
      )}
      <div class="card">
        <h2>General</h2>
        <Field id="name" label="Name" hint="Shown in this list only, e.g. “Print shop backend”." error={errors.name}>
          <input type="text" id="name" name="name" value={draft.name} maxlength={100} required autocomplete="off" {...describedBy('name', true, errors.name)} />
        </Field>
        {props.editing ? (
          <div class="field">
            <span class="label">Authorization type</span>
            <span class="badge">{typeLabel(props.editing.authType)}</span>
            <span class="hint">{FLOW_HELP[props.editing.authType]} The flow of an app cannot change; create a new app for another flow.</span>
          </div>
        ) : (
          <fieldset aria-describedby={errors.authType ? 'authType-error' : undefined}>
            <legend>Authorization type</legend>
            <div class="choices">
              {AUTH_TYPES.map((type) => (
                <label class="choice" for={`authType-${type}`}>
                  <input type="radio" id={`authType-${type}`} name="authType" value={type} checked={draft.authType === type} required />
                  <div>
                    <strong>{APP_TYPES[type].label}</strong>
                    <span>{FLOW_HELP[type]}</span>
                  </div>
                </label>
              ))}
            </div>
            {errors.authType && (
              <span class="error" id="authType-error">
                {errors.authType}
              </span>
            )}
          </fieldset>
        )}
        <Field
          id="tokenLifetime"
          label="Token lifetime (seconds)"
          hint={`How long an access token stays valid: ${TOKEN_LIFETIME_MIN} to ${TOKEN_LIFETIME_MAX} seconds. Default 3600 (one hour).`}
          error={errors.tokenLifetime}
        >
          <input
            type="number"
            id="tokenLifetime"
            name="tokenLifetime"
            value={draft.tokenLifetime}
            min={TOKEN_LIFETIME_MIN}
            max={TOKEN_LIFETIME_MAX}
            step={1}
            inputmode="numeric"
            style="max-width:12rem"
            {...describedBy('tokenLifetime', true, errors.tokenLifetime)}
          />
        </Field>
      </div>

      <fieldset class="card" data-flow="permissions" disabled={!states.permissions.enabled}>
        <legend>Permissions</legend>
        <p class="hint" style="margin-top:0">
          What a Client Credentials app may do, per resource type. Read allows <code>_read</code> scopes; Update adds{' '}
          <code>_update</code>; Full (create, read, update, delete) adds <code>_full</code>.
        </p>
        <Reason name="permissions" state={states.permissions} />
        <Table class="perm-table" columns={['Resource type', 'Access']}>
          {RESOURCE_TYPES.map((type) => (
            <tr>
              <th scope="row">
                <label for={`perm-${type}`}>{type}</label>
              </th>
              <td>
                <select id={`perm-${type}`} name={permissionField(type)}>
                  {PERMISSION_LEVELS.map((level) => (
                    <option value={level} selected={draft.permissions[type] === level}>
                      {PERMISSION_LEVEL_LABELS[level]}
                    </option>
                  ))}
                </select>
              </td>
            </tr>
          ))}
        </Table>
      </fieldset>

      <fieldset class="card" data-flow="redirects" disabled={!states.redirects.enabled}>
        <legend>Sign-in addresses</legend>
        <Reason name="redirects" state={states.redirects} />
        {LIST_FIELDS.map((id) => (
          <ListField id={id} label={LIST_TEXT[id].label} hint={LIST_TEXT[id].hint} draft={draft} errors={errors} disabled={!states.redirects.enabled} />
        ))}
      </fieldset>

      <div class="card">
        <h2>Security</h2>
        <Switch
          id="requireClientSecret"
          label="Require client secret"
          hint="The app must send its secret with every token request. Recommended for Authorization Code. A secret is issued when you save."
          draft={draft}
          state={states.requireClientSecret}
        />
        <Switch
          id="requirePkce"
          label="Require PKCE"
          hint="The app must send code_challenge (S256) when it starts sign-in. Recommended in production."
          draft={draft}
          state={states.requirePkce}
        />
      </div>
      <div class="actions">
        <button type="submit">{props.editing ? 'Save changes' : 'Create app'}</button>
        <a class="button secondary" href="/admin/apps">
          Cancel
        </a>
      </div>
    </form>
  );
}

/** The page's script data: field states for each flow, with the secret switch on (1) or off (0). */
export function flowStatesJson(): string {
  const all: Record<string, Record<FlowField, FieldState>> = { ':1': fieldStates('', true), ':0': fieldStates('', false) };
  for (const type of AUTH_TYPES) for (const secret of [true, false]) all[`${type}:${secret ? 1 : 0}`] = fieldStates(type, secret);
  return JSON.stringify(all).replace(/</g, '\\u003c');
}

/** Switches flow-dependent parts on and off as the admin picks a flow; copies values. */
export const formScript = (states: string) => `(function(){
var S=${states};
var form=document.querySelector('form[data-app-form]');
function put(name,st){
  var box=form.querySelector('[data-flow="'+name+'"]');if(!box)return;
  if(box.tagName==='FIELDSET'){box.disabled=!st.enabled;box.querySelectorAll('textarea').forEach(function(t){t.disabled=!st.enabled;});}
  else{var cb=box.querySelector('input[type=checkbox]');
    if(!st.enabled){if(cb.dataset.user===undefined)cb.dataset.user=cb.checked?'1':'0';cb.checked=!!st.forced;}
    else if(cb.dataset.user!==undefined){cb.checked=cb.dataset.user==='1';delete cb.dataset.user;}
    cb.disabled=!st.enabled;}
  var r=form.querySelector('[data-reason-for="'+name+'"]');if(r){r.textContent=st.reason||'';r.hidden=!st.reason;}
}
function apply(){
  var picked=form.querySelector('input[name=authType]:checked');
  var t=picked?picked.value:(form.getAttribute('data-type')||'');
  var s=S[t+':1'];put('permissions',s.permissions);put('redirects',s.redirects);put('requireClientSecret',s.requireClientSecret);
  var secret=form.querySelector('#requireClientSecret');
  put('requirePkce',S[t+':'+(secret&&secret.checked?1:0)].requirePkce);
}
if(form){form.addEventListener('change',function(e){if(e.target.name==='authType'||e.target.id==='requireClientSecret')apply();});apply();}
${COPY_SCRIPT}
})();`;

/** Copy buttons: hidden without script; clipboard API, or select-and-copy where it is missing. */
export const COPY_SCRIPT = `document.querySelectorAll('[data-copy]').forEach(function(b){
  b.hidden=false;
  b.addEventListener('click',function(){
    var el=document.getElementById(b.getAttribute('data-copy'));var v=el.value||el.textContent;
    var status=document.getElementById(b.getAttribute('data-copy')+'-copied');
    function ok(){if(status)status.textContent='Copied to the clipboard.';b.textContent='Copied';setTimeout(function(){b.textContent='Copy';},2500);}
    function fallback(){if(el.select){el.select();}try{document.execCommand('copy');ok();}catch(e){}}
    if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(v).then(ok,fallback);}else{fallback();}
  });
});`;

/** A value with a copy button, e.g. the client id or the once-only secret. */
export function CopyValue({ id, label, value, hint }: { id: string; label: string; value: string; hint?: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <div class="secret">
        <input type="text" id={id} value={value} readonly spellcheck={false} aria-describedby={hint ? `${id}-hint` : undefined} />
        <button type="button" class="secondary" data-copy={id} hidden>
          Copy
        </button>
        <span id={`${id}-copied`} class="small muted" role="status" aria-live="polite"></span>
      </div>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </div>
  );
}

/** The app's identity and, right after it was issued, its secret (never shown again). */
export function AppSummary({ app, secret }: { app: AppRow; secret?: string }) {
  const granted = app.authType === 'client_credentials' ? scopesForPermissions(normalizePermissions(app.permissions)) : [];
  return (
    <>
      {secret && (
        <div class="card" style="border-color:#a6d8b5;background:#f3fbf5">
          <h2>Client secret</h2>
          <p>
            <strong>Copy the secret now. It is shown only this once</strong>: we store only a hash of it. Keep it in your
            app's secret store, never in code. If it is lost or leaked, delete this app and create a new one.
          </p>
          <CopyValue id="clientSecret" label="Client secret" value={secret} />
        </div>
      )}
      <div class="card">
        <CopyValue id="clientId" label="Client id" value={app.clientId} hint="Public: the app sends it as client_id." />
        <dl class="props">
          <dt>Authorization type</dt>
          <dd>{typeLabel(app.authType)}</dd>
          <dt>Client secret</dt>
          <dd>{app.secretHash ? 'Issued (stored as a hash; shown only when issued)' : 'None: public app'}</dd>
          <dt>Created</dt>
          <dd>
            {dateTime(app.createdAt)} ({age(app.createdAt)})
          </dd>
          {app.authType === 'client_credentials' && (
            <>
              <dt>Scopes it may request</dt>
              <dd>{granted.length ? <code>{granted.join(' ')}</code> : 'None yet: set Permissions below.'}</dd>
            </>
          )}
        </dl>
      </div>
    </>
  );
}

export function DeleteAppConfirm({ app, csrf }: { app: AppRow; csrf: string }) {
  return (
    <div class="card danger">
      <h1>Delete “{app.name}”?</h1>
      <p>
        The client id <code>{app.clientId}</code> and its secret stop working at once, and tokens already issued to the
        app stop being accepted within 30 seconds. Users signed in through it must sign in again with another app.
      </p>
      <p>
        <strong>This cannot be undone.</strong> To keep the app running with new credentials, create a new app first.
      </p>
      <form method="post" action={`/admin/apps/${encodeURIComponent(app.clientId)}/delete`} class="actions">
        <CsrfField token={csrf} />
        <button type="submit" class="danger">
          Delete app
        </button>
        <a class="button secondary" href={`/admin/apps/${encodeURIComponent(app.clientId)}`}>
          Cancel
        </a>
      </form>
    </div>
  );
}
