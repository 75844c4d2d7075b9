// The small rule modules the token endpoint, the middleware and the admin panel share.
import { describe, expect, it } from 'vitest';
import { corsOriginProblem, effectiveSwitches, matchesRegisteredUri, redirectUriProblem } from '../../src/identity/app-types';
import { generateClientSecret, verifyClientSecret } from '../../src/identity/client-secrets';
import { hashPassword, PASSWORD_ITERATIONS, verifyPassword } from '../../src/identity/passwords';
import { parseResourceScope, permissionsForRole, RESOURCE_SCOPES, RESOURCE_TYPES, scopeSatisfies, scopesForPermissions } from '../../src/auth/scopes';
import { grantedUserScopes } from '../../src/identity/user-scopes';

describe('scope table (identity contract "Scopes, roles, tenants")', () => {
  it('has ten resource types (Products the newest) with _read, _update and _full each', () => {
    expect(RESOURCE_TYPES).toHaveLength(10);
    expect(RESOURCE_SCOPES).toHaveLength(30);
    expect(parseResourceScope('Private_assets_update')).toEqual({ type: 'Private_assets', level: 'update' });
    expect(parseResourceScope('Private_read')).toBeUndefined();
    expect(parseResourceScope('openid')).toBeUndefined();
  });

  it('a level allows itself and every level below it', () => {
    expect(scopesForPermissions({ Projects: 'update', Assets: 'none', Templates: 'full' })).toEqual([
      'Projects_read', 'Projects_update', 'Templates_read', 'Templates_update', 'Templates_full',
    ]);
  });

  it('a required _read is satisfied by _update and _full, never by another type', () => {
    expect(scopeSatisfies(['Projects_full'], 'Projects_read')).toBe(true);
    expect(scopeSatisfies(['Projects_update'], 'Projects_full')).toBe(false);
    expect(scopeSatisfies(['Private_assets_full'], 'Assets_read')).toBe(false);
    expect(scopeSatisfies(['openid'], 'openid')).toBe(true);
  });

  it('roles: admin Full everywhere; user Read everywhere except TenantUsers', () => {
    expect(Object.values(permissionsForRole('admin')).every((l) => l === 'full')).toBe(true);
    const user = permissionsForRole('user');
    expect(user.TenantUsers).toBe('none');
    expect(user.Projects).toBe('read');
  });

  it('user tokens get requested ∩ role, plus OIDC scopes, offline_access only for Authorization Code', () => {
    expect(grantedUserScopes(['openid', 'Projects_update', 'Projects_read', 'offline_access'], 'user', false)).toEqual(['openid', 'Projects_read']);
    expect(grantedUserScopes(['offline_access', 'TenantUsers_full'], 'admin', true)).toEqual(['offline_access', 'TenantUsers_full']);
  });
});

describe('app types (identity contract "App types")', () => {
  it('Client Credentials always requires its secret; Implicit never has one', () => {
    expect(effectiveSwitches('client_credentials', { requireClientSecret: false })).toEqual({ requireClientSecret: true, requirePkce: false });
    expect(effectiveSwitches('implicit', { requireClientSecret: true, requirePkce: true })).toEqual({ requireClientSecret: false, requirePkce: false });
  });

  it('Authorization Code defaults to secret and PKCE on, and forces PKCE when the secret is off', () => {
    expect(effectiveSwitches('authorization_code', {})).toEqual({ requireClientSecret: true, requirePkce: true });
    expect(effectiveSwitches('authorization_code', { requireClientSecret: true, requirePkce: false })).toEqual({ requireClientSecret: true, requirePkce: false });
    expect(effectiveSwitches('authorization_code', { requireClientSecret: false, requirePkce: false })).toEqual({ requireClientSecret: false, requirePkce: true });
  });

  it('redirect URIs: absolute, no fragment, no wildcard, https or loopback http', () => {
    expect(redirectUriProblem('https://app.example/cb')).toBeUndefined();
    for (const ok of ['http://localhost:8788/callback', 'http://127.0.0.1/cb', 'http://[::1]:3000/cb']) expect(redirectUriProblem(ok)).toBeUndefined();
    for (const bad of ['/cb', 'https://app.example/cb#x', 'https://*.example/cb', 'http://app.example/cb', 'javascript:alert(1)']) {
      expect(redirectUriProblem(bad), bad).toEqual(expect.any(String));
    }
  });

  it('CORS origins are scheme://host[:port] without a path', () => {
    expect(corsOriginProblem('http://localhost:8788')).toBeUndefined();
    expect(corsOriginProblem('https://app.example')).toBeUndefined();
    for (const bad of ['https://app.example/path', 'app.example', 'ftp://app.example', 'https://app.example?x']) expect(corsOriginProblem(bad), bad).toEqual(expect.any(String));
  });

  it('redirect matching is exact, except the port of loopback http URIs of public clients (RFC 8252 §7.3)', () => {
    const pub = { publicClient: true };
    expect(matchesRegisteredUri(['https://app.example/cb'], 'https://app.example/cb', pub)).toBe(true);
    expect(matchesRegisteredUri(['https://app.example/cb'], 'https://APP.example/cb', pub)).toBe(false);
    expect(matchesRegisteredUri(['https://app.example/cb'], 'https://app.example:444/cb', pub)).toBe(false);
    expect(matchesRegisteredUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:9999/cb', pub)).toBe(true);
    expect(matchesRegisteredUri(['http://localhost:8788/cb'], 'http://localhost:9999/cb', pub)).toBe(true);
    expect(matchesRegisteredUri(['http://localhost:8788/cb'], 'http://localhost:9999/cb2', pub)).toBe(false);
  });

  it('redirect matching of confidential clients is exact, loopback ports included (issue 18 item 11)', () => {
    const confidential = { publicClient: false };
    expect(matchesRegisteredUri(['http://127.0.0.1/cb'], 'http://127.0.0.1/cb', confidential)).toBe(true);
    expect(matchesRegisteredUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:9999/cb', confidential)).toBe(false);
    expect(matchesRegisteredUri(['http://localhost:8788/cb'], 'http://localhost:9999/cb', confidential)).toBe(false);
  });
});

describe('secrets and passwords', () => {
  it('client secrets are 32 random bytes, stored as SHA-256, verified in constant time', async () => {
    const { secret, secretHash } = await generateClientSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secretHash).not.toContain(secret);
    expect(await verifyClientSecret(secret, secretHash)).toBe(true);
    expect(await verifyClientSecret(`${secret}x`, secretHash)).toBe(false);
  });

  it('passwords use PBKDF2-SHA256 with 100,000 iterations and a per-user salt', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a.passwordIterations).toBe(PASSWORD_ITERATIONS);
    expect(PASSWORD_ITERATIONS).toBe(100_000);
    expect(a.passwordSalt).not.toBe(b.passwordSalt);
    expect(a.passwordHash).not.toBe(b.passwordHash);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('wrong horse', a)).toBe(false);
  });
});
