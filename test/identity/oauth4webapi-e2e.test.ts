// End to end through a real OAuth client library (oauth4webapi) instead of hand-built requests:
// discovery, client credentials, authorization code + PKCE with the browser part simulated,
// refresh, userinfo, revocation and introspection.
import { exports } from 'cloudflare:workers';
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedIdentity } from '../helpers/identity-seed';
import { authorizeWithLogin, Browser } from './flow';

beforeAll(seedIdentity);

const issuer = new URL(DEMO.issuer);
const options = {
  [oauth.allowInsecureRequests]: true,
  [oauth.customFetch]: (url: string, init: RequestInit) => exports.default.fetch(new Request(url, init)),
};

async function discover(): Promise<oauth.AuthorizationServer> {
  const res = await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oidc' });
  return oauth.processDiscoveryResponse(issuer, res);
}

describe('oauth4webapi end to end', () => {
  it('discovers the server and gets a client credentials token', async () => {
    const as = await discover();
    expect(as.token_endpoint).toBe(`${DEMO.issuer}/connect/token`);
    const client: oauth.Client = { client_id: DEMO.backend.clientId };
    const auth = oauth.ClientSecretBasic(DEMO.backend.secret);
    const res = await oauth.clientCredentialsGrantRequest(as, client, auth, new URLSearchParams({ scope: 'Projects_read' }), options);
    const result = await oauth.processClientCredentialsResponse(as, client, res);
    expect(result.token_type).toBe('bearer');
    expect(result.scope).toBe('Projects_read');
    expect(result.expires_in).toBe(3600);
  });

  it('runs authorization code + PKCE + nonce, validates the ID token, refreshes, reads userinfo, revokes and introspects', async () => {
    const as = await discover();
    const client: oauth.Client = { client_id: DEMO.server.clientId };
    const auth = oauth.ClientSecretPost(DEMO.server.secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();

    const authorizationUrl = new URL(as.authorization_endpoint!);
    const params = {
      client_id: client.client_id,
      redirect_uri: DEMO.server.redirectUri,
      response_type: 'code',
      scope: 'openid profile email offline_access Projects_read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    // The browser part: our test browser follows the login page.
    const redirect = await authorizeWithLogin(new Browser(), params);
    const callback = new URL(redirect.headers.get('location')!);
    expect(authorizationUrl.pathname).toBe('/connect/authorize');

    const callbackParams = oauth.validateAuthResponse(as, client, callback, state);
    const tokenRes = await oauth.authorizationCodeGrantRequest(as, client, auth, callbackParams, DEMO.server.redirectUri, verifier, options);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenRes, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims.sub).toBe(DEMO.admin.id);
    expect(tokens.refresh_token).toBeTruthy();

    const infoRes = await oauth.userInfoRequest(as, client, tokens.access_token, options);
    const info = await oauth.processUserInfoResponse(as, client, claims.sub, infoRes);
    expect(info.email).toBe(DEMO.admin.email);

    const refreshRes = await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options);
    const refreshed = await oauth.processRefreshTokenResponse(as, client, refreshRes);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(oauth.getValidatedIdTokenClaims(refreshed)!.auth_time).toBe(claims.auth_time);

    const introspected = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, refreshed.access_token, options));
    expect(introspected.active).toBe(true);

    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, options));
    const after = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, refreshed.access_token, options));
    expect(after.active).toBe(false);
  });

  it('surfaces a server error through the client as an OAuth error', async () => {
    const as = await discover();
    const client: oauth.Client = { client_id: DEMO.backend.clientId };
    const res = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(DEMO.backend.secret), new URLSearchParams({ scope: 'openid' }), options);
    await expect(oauth.processClientCredentialsResponse(as, client, res)).rejects.toMatchObject({ error: 'invalid_scope' });
  });
});
