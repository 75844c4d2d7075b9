// Settings > Users: routes. An admin cannot disable themself.
import { Hono } from 'hono';
import { badRequest, notFound } from '../../../errors';
import { done, render, type AdminContextOf, type AdminEnv } from '../guard';
import { emptyUserDraft, passwordError, passwordFromForm, userDraftFromForm, validateUserDraft, type UserDraft, type UserErrors } from './user-form';
import { DisableUserConfirm, NewUserForm, UserDetail, UsersList, userPath } from './pages';
import { addUser, findTenantUser, listUsers, resetPassword, setDisabled, type UserRow } from './store';

export const usersRoutes = new Hono<AdminEnv>();

async function userOf(c: AdminContextOf): Promise<UserRow> {
  const user = await findTenantUser(c.get('db'), c.get('admin').session.tenantId, c.req.param('id') ?? '');
  if (!user) throw notFound('There is no such user in your tenant.');
  return user;
}

const isSelf = (c: AdminContextOf, user: UserRow) => user.id === c.get('admin').session.userId;

function newUserPage(c: AdminContextOf, draft: UserDraft, errors: UserErrors, status: 200 | 400 = 200) {
  return render(
    c,
    {
      title: 'New user',
      section: 'users',
      body: (
        <>
          <p class="small">
            <a href="/admin/users">Users</a> /
          </p>
          <h1>New user</h1>
          <NewUserForm draft={draft} errors={errors} csrf={c.get('admin').csrf} />
        </>
      ),
    },
    status,
  );
}

function userPage(c: AdminContextOf, user: UserRow, passwordErrorText?: string) {
  return render(
    c,
    {
      title: user.email,
      section: 'users',
      banner: passwordErrorText ? { kind: 'error', text: 'The password was not changed.' } : undefined,
      body: <UserDetail user={user} self={isSelf(c, user)} csrf={c.get('admin').csrf} passwordErrorText={passwordErrorText} />,
    },
    passwordErrorText ? 400 : 200,
  );
}

usersRoutes.get('/', async (c) => {
  const users = await listUsers(c.get('db'), c.get('admin').session.tenantId);
  return render(c, { title: 'Users', section: 'users', body: <UsersList users={users} selfId={c.get('admin').session.userId} /> });
});

usersRoutes.get('/new', (c) => newUserPage(c, emptyUserDraft(), {}));

usersRoutes.post('/new', async (c) => {
  const draft = userDraftFromForm(await c.req.parseBody());
  const errors = validateUserDraft(draft);
  if (Object.keys(errors).length > 0 || !draft.role) return newUserPage(c, { ...draft, password: '' }, errors, 400);
  const user = await addUser(c.get('db'), c.get('admin').session.tenantId, { ...draft, role: draft.role });
  if (user === 'taken') {
    return newUserPage(c, { ...draft, password: '' }, { email: 'A user with this e-mail address already exists in your tenant.' }, 400);
  }
  return done(c, userPath(user.id), `User ${user.email} created.`);
});

usersRoutes.get('/:id', async (c) => userPage(c, await userOf(c)));

usersRoutes.post('/:id/password', async (c) => {
  const user = await userOf(c);
  const password = passwordFromForm(await c.req.parseBody());
  const problem = passwordError(password);
  if (problem) return userPage(c, user, problem);
  await resetPassword(c.get('db'), user, password);
  return done(c, userPath(user.id), `Password of ${user.email} reset; they were signed out everywhere.`);
});

usersRoutes.get('/:id/disable', async (c) => {
  const user = await userOf(c);
  if (isSelf(c, user)) throw badRequest('You cannot disable your own account. Ask another admin.');
  return render(c, { title: `Disable ${user.email}`, section: 'users', body: <DisableUserConfirm user={user} csrf={c.get('admin').csrf} /> });
});

usersRoutes.post('/:id/disable', async (c) => {
  const user = await userOf(c);
  if (isSelf(c, user)) throw badRequest('You cannot disable your own account. Ask another admin.');
  await setDisabled(c.get('db'), user, true);
  return done(c, userPath(user.id), `User ${user.email} disabled; their sessions and tokens were revoked.`);
});

usersRoutes.post('/:id/enable', async (c) => {
  const user = await userOf(c);
  await setDisabled(c.get('db'), user, false);
  return done(c, userPath(user.id), `User ${user.email} enabled.`);
});
