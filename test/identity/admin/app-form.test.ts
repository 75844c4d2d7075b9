import { describe, expect, it } from 'vitest';
import { draftFromForm, emptyDraft, fieldStates, validateDraft, type AppDraft } from '../../../src/identity/admin/apps/app-form';
import { ccForm, codeForm } from './helpers';

const errorsOf = (form: Record<string, string>) => validateDraft(draftFromForm(form)).errors ?? {};
const settingsOf = (form: Record<string, string>) => {
  const r = validateDraft(draftFromForm(form));
  expect(r.errors).toBeUndefined();
  return r.settings!;
};

describe('External app form rules', () => {
  it('requires a name of at most 100 characters', () => {
    expect(errorsOf(ccForm({ name: '' })).name).toMatch(/Enter a name/);
    expect(errorsOf(ccForm({ name: '   ' })).name).toMatch(/Enter a name/);
    expect(errorsOf(ccForm({ name: 'x'.repeat(101) })).name).toMatch(/at most 100/);
    expect(errorsOf(ccForm({ name: 'x'.repeat(100) })).name).toBeUndefined();
  });

  it('requires one of the three flows', () => {
    expect(errorsOf(ccForm({ authType: '' })).authType).toMatch(/Choose the flow/);
    expect(errorsOf(ccForm({ authType: 'password' })).authType).toMatch(/Choose the flow/);
  });

  it('accepts token lifetimes from 60 to 86400 whole seconds, default 3600', () => {
    for (const bad of ['59', '86401', '0', '-60', '60.5', 'abc', '1e3']) {
      expect(errorsOf(ccForm({ tokenLifetime: bad })).tokenLifetime, bad).toBeDefined();
    }
    expect(settingsOf(ccForm({ tokenLifetime: '60' })).tokenLifetime).toBe(60);
    expect(settingsOf(ccForm({ tokenLifetime: '86400' })).tokenLifetime).toBe(86400);
    expect(settingsOf(ccForm({ tokenLifetime: '' })).tokenLifetime).toBe(3600);
    expect(emptyDraft().tokenLifetime).toBe('3600');
  });

  it('rejects redirect URIs that are relative, have a fragment or wildcard, or use http off loopback', () => {
    const bad = [
      '/callback',
      'shop.example.com/callback',
      'https://shop.example.com/callback#frag',
      'https://*.example.com/callback',
      'https://shop.example.com/*',
      'http://shop.example.com/callback',
      'ftp://shop.example.com/callback',
      'com.example.app:/callback',
    ];
    for (const uri of bad) {
      expect(errorsOf(codeForm({ redirectUris: uri })).redirectUris, uri).toContain(uri);
      expect(errorsOf(codeForm({ postLogoutRedirectUris: uri })).postLogoutRedirectUris, uri).toContain(uri);
    }
  });

  it('accepts https redirect URIs and http only for localhost, 127.0.0.1 and [::1]', () => {
    const good = ['https://shop.example.com/cb?x=1', 'http://localhost:8788/callback', 'http://127.0.0.1/cb', 'http://[::1]:3000/cb'];
    const s = settingsOf(codeForm({ redirectUris: good.join('\n'), postLogoutRedirectUris: good.join('\r\n') }));
    expect(s.redirectUris).toEqual(good);
    expect(s.postLogoutRedirectUris).toEqual(good);
  });

  it('names the offending line when one of several URIs is wrong', () => {
    const e = errorsOf(codeForm({ redirectUris: 'https://ok.example.com/cb\nhttp://bad.example.com/cb' }));
    expect(e.redirectUris).toContain('http://bad.example.com/cb');
    expect(e.redirectUris).not.toContain('ok.example.com');
  });

  it('needs at least one redirect URI for browser flows', () => {
    expect(errorsOf(codeForm({ redirectUris: '' })).redirectUris).toMatch(/at least one/);
    expect(errorsOf(codeForm({ authType: 'implicit', redirectUris: '\n  \n' })).redirectUris).toMatch(/at least one/);
  });

  it('accepts CORS origins as scheme://host[:port] only', () => {
    for (const bad of ['https://shop.example.com/app', 'https://shop.example.com?x=1', 'shop.example.com', 'ftp://shop.example.com', 'https://user@shop.example.com']) {
      expect(errorsOf(codeForm({ corsOrigins: bad })).corsOrigins, bad).toBeDefined();
    }
    const s = settingsOf(codeForm({ corsOrigins: 'https://shop.example.com\nhttp://localhost:8788\nhttps://Shop.Example.com:8443' }));
    expect(s.corsOrigins).toEqual(['https://shop.example.com', 'http://localhost:8788', 'https://shop.example.com:8443']);
  });

  it('drops blank lines and duplicates from lists', () => {
    const s = settingsOf(codeForm({ redirectUris: '\n https://a.example.com/cb \n\nhttps://a.example.com/cb\n' }));
    expect(s.redirectUris).toEqual(['https://a.example.com/cb']);
  });

  it('reports every wrong field at once', () => {
    const e = errorsOf(codeForm({ name: '', tokenLifetime: '5', redirectUris: 'nope', corsOrigins: 'https://x.example.com/p' }));
    expect(Object.keys(e).sort()).toEqual(['corsOrigins', 'name', 'redirectUris', 'tokenLifetime']);
  });

  it('keeps permissions only for Client Credentials', () => {
    expect(settingsOf(ccForm()).permissions).toMatchObject({ Projects: 'read', Assets: 'none', TenantUsers: 'none' });
    expect(settingsOf(codeForm({ 'perm.Projects': 'full' })).permissions).toEqual({});
    expect(settingsOf(ccForm({ 'perm.Projects': 'everything' })).permissions.Projects).toBe('none');
  });

  it('ignores URIs and origins for Client Credentials, which has no browser sign-in', () => {
    const s = settingsOf(ccForm({ redirectUris: 'not a uri', corsOrigins: 'https://x.example.com/path' }));
    expect(s.redirectUris).toEqual([]);
    expect(s.corsOrigins).toEqual([]);
  });

  it('forces the secret on for Client Credentials and off for Implicit, whatever the form says', () => {
    expect(settingsOf(ccForm({ requireClientSecret: '' }))).toMatchObject({ requireClientSecret: true, requirePkce: false });
    const implicit = settingsOf(codeForm({ authType: 'implicit', requireClientSecret: 'on', requirePkce: 'on' }));
    expect(implicit).toMatchObject({ requireClientSecret: false, requirePkce: false });
  });

  it('defaults Authorization Code to secret and PKCE on, and forces PKCE on without a secret', () => {
    const noSwitches = { ...codeForm() } as Record<string, string>;
    delete noSwitches.switches;
    delete noSwitches.requireClientSecret;
    delete noSwitches.requirePkce;
    expect(settingsOf(noSwitches)).toMatchObject({ requireClientSecret: true, requirePkce: true });
    expect(settingsOf(codeForm({ requirePkce: '' }))).toMatchObject({ requireClientSecret: true, requirePkce: false });
    expect(settingsOf(codeForm({ requireClientSecret: '', requirePkce: '' }))).toMatchObject({ requireClientSecret: false, requirePkce: true });
  });

  it('keeps the flow fixed when editing', () => {
    const draft: AppDraft = draftFromForm(codeForm({ authType: 'client_credentials' }), 'authorization_code');
    expect(draft.authType).toBe('authorization_code');
  });

  it('disables, with a reason, the parts a flow does not use', () => {
    const cc = fieldStates('client_credentials', true);
    expect(cc.permissions.enabled).toBe(true);
    expect(cc.redirects).toMatchObject({ enabled: false });
    expect(cc.requireClientSecret).toMatchObject({ enabled: false, forced: true });
    expect(cc.requirePkce.enabled).toBe(false);
    for (const type of ['implicit', 'authorization_code'] as const) {
      const s = fieldStates(type, true);
      expect(s.permissions.enabled).toBe(false);
      expect(s.permissions.reason).toMatch(/signed-in user/);
      expect(s.redirects.enabled).toBe(true);
    }
    expect(fieldStates('implicit', true).requireClientSecret).toMatchObject({ enabled: false, forced: false });
    expect(fieldStates('authorization_code', false).requirePkce).toMatchObject({ enabled: false, forced: true });
    expect(fieldStates('authorization_code', true).requirePkce.enabled).toBe(true);
  });
});
