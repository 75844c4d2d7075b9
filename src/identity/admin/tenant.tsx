// Dashboard and Settings > Tenant: who this tenant is, which instance serves it, and the
// instance's signing keys, read-only. The keys belong to the instance, not to a tenant: rotating
// them is an operator action (`npm run keys:rotate`), never something a tenant admin can reach.
// Other areas' settings of the tenant (the platform's, src/admin/tenant-settings.tsx) are cards
// the panel hands to tenantRoutes; they render between the tenant's properties and the keys.
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { issuerOf } from '../../auth/issuer';
import { nowSeconds } from '../crypto';
import { listSigningKeys } from '../keys';
import { tenants } from '../store';
import { render, type AdminContextOf, type AdminEnv } from './guard';
import { Age, Table, dateTime } from './layout';

/** A card of Settings > Tenant from another area: it loads what it shows for the signed-in admin. */
export type TenantCard = (c: AdminContextOf) => Promise<Child>;

type KeyRow = Awaited<ReturnType<typeof listSigningKeys>>[number];

/** A key's place in its life: published ahead of signing, signing, superseded, retired. */
export function keyStatus(key: KeyRow, now = nowSeconds()): string {
  if (key.retiresAt !== null && key.retiresAt <= now) return 'Retired';
  if (key.activatesAt > now) return `Published; signs from ${dateTime(key.activatesAt)}`;
  if (key.retiresAt !== null) return `Superseded; published until ${dateTime(key.retiresAt)}`;
  return 'Signing';
}

/** GET /admin */
export async function dashboard(c: AdminContextOf) {
  const counts = await tenants.counts(c.get('db'), c.get('admin').session.tenantId);
  const issuer = issuerOf(c.env);
  return render(c, {
    title: 'Dashboard',
    section: 'dashboard',
    body: (
      <>
        <h1>{c.get('admin').tenantName}</h1>
        <p class="lead">Manage the apps that get tokens from this identity service and the people who sign in.</p>
        <div class="grid">
          <a class="card" href="/admin/apps" style="text-decoration:none;color:inherit">
            <div class="muted">External apps</div>
            <div class="stat">{counts.apps}</div>
            <span class="small">Register and revoke API clients</span>
          </a>
          <a class="card" href="/admin/users" style="text-decoration:none;color:inherit">
            <div class="muted">Users</div>
            <div class="stat">{counts.users}</div>
            <span class="small">Create, reset passwords, disable</span>
          </a>
          <a class="card" href="/admin/tenant" style="text-decoration:none;color:inherit">
            <div class="muted">Region</div>
            <div class="stat">{c.env.REGION}</div>
            <span class="small">Tenant settings and signing keys</span>
          </a>
        </div>
        <div class="card">
          <h2>Connect an app</h2>
          <ol>
            <li>
              Create an app under <a href="/admin/apps/new">External apps</a> and choose its flow: Client Credentials for
              backend services, Authorization Code for server-side web apps, Implicit only for front-ends without a
              backend.
            </li>
            <li>Copy the client id and, if issued, the secret (shown once).</li>
            <li>
              Point the app at the discovery document: <code>{issuer}/.well-known/openid-configuration</code>
            </li>
          </ol>
        </div>
      </>
    ),
  });
}

/** GET /admin/tenant, with the given cards in order; their forms post to routes of their own. */
export function tenantRoutes(cards: readonly TenantCard[]): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/', (c) => tenantPage(c, cards));
}

async function tenantPage(c: AdminContextOf, cards: readonly TenantCard[]) {
  const [keys, shown] = await Promise.all([listSigningKeys(c.get('db')), Promise.all(cards.map((card) => card(c)))]);
  const admin = c.get('admin');
  const issuer = issuerOf(c.env);
  return render(c, {
    title: 'Tenant',
    section: 'tenant',
    body: (
      <>
        <h1>Tenant</h1>
        <p class="lead">This tenant and the regional instance that serves it. Instances share no data.</p>
        <div class="card">
          <dl class="props">
            <dt>Name</dt>
            <dd>{admin.tenantName}</dd>
            <dt>Tenant id</dt>
            <dd>
              <code>{admin.session.tenantId}</code> <span class="small muted">(the tenantId claim of tokens)</span>
            </dd>
            <dt>Region</dt>
            <dd>{c.env.REGION}</dd>
            <dt>Issuer URL</dt>
            <dd>
              <code>{issuer}</code>
            </dd>
            <dt>Discovery</dt>
            <dd>
              <a href={`${issuer}/.well-known/openid-configuration`}>
                <code>{issuer}/.well-known/openid-configuration</code>
              </a>
            </dd>
          </dl>
        </div>
        {shown}
        <div class="card">
          <h2>Signing keys</h2>
          <p class="muted">
            Tokens are signed with RS256 and verified with the published key set. The keys belong to this instance and serve
            every tenant on it, so the instance's operator rotates them: a new key is published at once, starts signing one
            hour later (so every client has fetched it), and the old key stays published until the tokens it signed have
            expired.
          </p>
          {keys.length === 0 ? (
            <p>No key yet: the first one is created when the first token is signed.</p>
          ) : (
            <Table columns={['Key id (kid)', 'Age', 'Status']}>
              {keys
                .slice()
                .reverse()
                .map((k) => (
                  <tr>
                    <td>
                      <code>{k.kid}</code>
                    </td>
                    <td>
                      <Age at={k.createdAt} />
                    </td>
                    <td>{keyStatus(k)}</td>
                  </tr>
                ))}
            </Table>
          )}
        </div>
      </>
    ),
  });
}
