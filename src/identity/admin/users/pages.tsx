// Settings > Users: list, create, and one user's page (reset password, disable, enable).
import { PASSWORD_MIN_LENGTH } from '../../passwords';
import { Age, CsrfField, Field, Table, age, dateTime, describedBy } from '../layout';
import type { UserDraft, UserErrors } from './user-form';
import type { UserRow } from './store';

export const userPath = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

const ROLES = [
  { value: 'user', label: 'User', help: 'Signs in to apps and reads data; cannot manage users.' },
  { value: 'admin', label: 'Admin', help: 'Full access to every resource and to this admin panel.' },
] as const;

const Status = ({ user }: { user: UserRow }) =>
  user.disabled ? <span class="badge off">Disabled</span> : <span class="badge ok">Active</span>;

export function UsersList({ users, selfId }: { users: UserRow[]; selfId: string }) {
  return (
    <>
      <div class="head">
        <div>
          <h1>Users</h1>
          <p class="lead">People who sign in to this tenant. Admins also manage this panel.</p>
        </div>
        <a class="button" href="/admin/users/new">
          New user
        </a>
      </div>
      {users.length === 0 ? (
        <div class="card">
          <h2>No users yet</h2>
          <p class="muted">Add the people who sign in through your apps.</p>
        </div>
      ) : (
        <Table caption="Users" columns={['E-mail', { label: 'Name', opt: true }, 'Role', 'Status', { label: 'Created', opt: true }]}>
          {users.map((u) => (
            <tr>
              <td>
                <a href={userPath(u.id)}>{u.email}</a>
                {u.id === selfId && <span class="small muted"> (you)</span>}
              </td>
              <td class="opt">{u.name || <span class="muted">—</span>}</td>
              <td>{u.role === 'admin' ? 'Admin' : 'User'}</td>
              <td>
                <Status user={u} />
              </td>
              <td class="opt">
                <Age at={u.createdAt} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

const PasswordInput = ({ error, autocomplete }: { error?: string; autocomplete: string }) => (
  <Field id="password" label="Password" hint={`At least ${PASSWORD_MIN_LENGTH} characters. Share it with the person over a safe channel.`} error={error}>
    <input type="password" id="password" name="password" autocomplete={autocomplete} required minlength={PASSWORD_MIN_LENGTH} {...describedBy('password', true, error)} />
  </Field>
);

export function NewUserForm({ draft, errors, csrf }: { draft: UserDraft; errors: UserErrors; csrf: string }) {
  return (
    <form method="post" action="/admin/users/new" novalidate>
      <CsrfField token={csrf} />
      {Object.keys(errors).length > 0 && (
        <div class="banner error" role="alert">
          Please correct the fields below; nothing was saved.
        </div>
      )}
      <div class="card">
        <Field id="email" label="E-mail" hint="The person signs in with this address." error={errors.email}>
          <input type="email" id="email" name="email" value={draft.email} autocomplete="off" required {...describedBy('email', true, errors.email)} />
        </Field>
        <Field id="name" label="Name (optional)" error={errors.name}>
          <input type="text" id="name" name="name" value={draft.name} autocomplete="off" {...describedBy('name', false, errors.name)} />
        </Field>
        <fieldset aria-describedby={errors.role ? 'role-error' : undefined}>
          <legend>Role</legend>
          <div class="choices">
            {ROLES.map((r) => (
              <label class="choice" for={`role-${r.value}`}>
                <input type="radio" id={`role-${r.value}`} name="role" value={r.value} checked={draft.role === r.value} />
                <div>
                  <strong>{r.label}</strong>
                  <span>{r.help}</span>
                </div>
              </label>
            ))}
          </div>
          {errors.role && (
            <span class="error" id="role-error">
              {errors.role}
            </span>
          )}
        </fieldset>
        <PasswordInput error={errors.password} autocomplete="new-password" />
      </div>
      <div class="actions">
        <button type="submit">Create user</button>
        <a class="button secondary" href="/admin/users">
          Cancel
        </a>
      </div>
    </form>
  );
}

export function UserDetail({ user, self, csrf, passwordErrorText }: { user: UserRow; self: boolean; csrf: string; passwordErrorText?: string }) {
  const base = userPath(user.id);
  return (
    <>
      <p class="small">
        <a href="/admin/users">Users</a> /
      </p>
      <h1>{user.email}</h1>
      <div class="card">
        <dl class="props">
          <dt>Name</dt>
          <dd>{user.name || '—'}</dd>
          <dt>Role</dt>
          <dd>{user.role === 'admin' ? 'Admin' : 'User'}</dd>
          <dt>Status</dt>
          <dd>
            <Status user={user} />
          </dd>
          <dt>User id</dt>
          <dd>
            <code>{user.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>
            {dateTime(user.createdAt)} ({age(user.createdAt)})
          </dd>
        </dl>
      </div>
      <form method="post" action={`${base}/password`} class="card" novalidate>
        <h2>Reset password</h2>
        <p class="muted">
          Sets a new password and signs the user out everywhere: their sessions and refresh tokens are revoked.
          {self && ' This includes your own session: you will sign in again.'}
        </p>
        <CsrfField token={csrf} />
        <PasswordInput error={passwordErrorText} autocomplete="new-password" />
        <button type="submit">Reset password</button>
      </form>
      <div class="card danger">
        {user.disabled ? (
          <>
            <h2>Enable user</h2>
            <p class="muted">The user can sign in again with their password.</p>
            <form method="post" action={`${base}/enable`}>
              <CsrfField token={csrf} />
              <button type="submit" class="secondary">
                Enable user
              </button>
            </form>
          </>
        ) : self ? (
          <>
            <h2>Disable user</h2>
            <p class="muted">You cannot disable your own account. Another admin can.</p>
          </>
        ) : (
          <>
            <h2>Disable user</h2>
            <p class="muted">The user can no longer sign in; their sessions and tokens are revoked. You will be asked to confirm.</p>
            <a class="button danger" href={`${base}/disable`}>
              Disable user…
            </a>
          </>
        )}
      </div>
    </>
  );
}

export function DisableUserConfirm({ user, csrf }: { user: UserRow; csrf: string }) {
  return (
    <div class="card danger">
      <h1>Disable {user.email}?</h1>
      <p>
        They can no longer sign in. Their sessions end now, their refresh tokens stop working at once and access tokens
        issued to them stop being accepted within 30 seconds. You can enable them again later.
      </p>
      <form method="post" action={`${userPath(user.id)}/disable`} class="actions">
        <CsrfField token={csrf} />
        <button type="submit" class="danger">
          Disable user
        </button>
        <a class="button secondary" href={userPath(user.id)}>
          Cancel
        </a>
      </form>
    </div>
  );
}
