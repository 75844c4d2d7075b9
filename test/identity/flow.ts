// Browser-and-client helpers for the identity conformance tests: they drive the Worker through
// `exports.default.fetch` exactly as a browser and an OAuth client would (cookies, redirects, forms).
import { exports } from 'cloudflare:workers';
import { base64url, sha256 } from '../../src/identity/crypto';
import { DEMO } from '../helpers/identity-seed';

export const BASE = 'http://localhost';

export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(path.startsWith('http') ? path : BASE + path, { redirect: 'manual', ...init }));
}

/** A minimal cookie jar: one browser. */
export class Browser {
  cookies = new Map<string, string>();

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await call(path, { ...init, headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }
}

export const formField = (html: string, name: string): string | undefined =>
  new RegExp(`name="${name}"(?: type="[^"]*")? value="([^"]*)"`).exec(html)?.[1];

/** Follows authorize → login page → login POST and returns the final response (usually a redirect). */
export async function authorizeWithLogin(
  browser: Browser,
  params: Record<string, string>,
  credentials: { email: string; password: string } = DEMO.admin,
): Promise<Response> {
  const first = await browser.fetch(`/connect/authorize?${new URLSearchParams(params)}`);
  if (first.status !== 302 || !first.headers.get('location')!.startsWith('/account/login')) return first;
  const page = await browser.fetch(first.headers.get('location')!);
  const html = await page.text();
  return browser.postForm('/account/login', {
    pending: formField(html, 'pending')!,
    csrf: formField(html, 'csrf')!,
    email: credentials.email,
    password: credentials.password,
  });
}

/** Query (or fragment) parameters of a redirect response. */
export function redirectParams(res: Response): URLSearchParams {
  const location = res.headers.get('location');
  if (!location) throw new Error(`expected a redirect, got ${res.status}`);
  const url = new URL(location, BASE);
  return new URLSearchParams(url.hash ? url.hash.slice(1) : url.search);
}

export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: base64url(await sha256(verifier)) };
}

export function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return call('/connect/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export const basic = (id: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

export async function clientCredentialsToken(scope?: string): Promise<string> {
  const res = await tokenRequest({
    grant_type: 'client_credentials',
    client_id: DEMO.backend.clientId,
    client_secret: DEMO.backend.secret,
    ...(scope ? { scope } : {}),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export interface CodeFlowResult {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope: string;
  expires_in: number;
}

/** The whole Authorization Code + PKCE flow for demo-server; returns the token response. */
export async function codeFlow(
  scope = 'openid profile offline_access Projects_read',
  credentials: { email: string; password: string } = DEMO.admin,
  browser = new Browser(),
): Promise<CodeFlowResult> {
  const { verifier, challenge } = await pkcePair();
  const res = await authorizeWithLogin(
    browser,
    {
      client_id: DEMO.server.clientId,
      response_type: 'code',
      redirect_uri: DEMO.server.redirectUri,
      scope,
      state: 's1',
      nonce: 'n1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    },
    credentials,
  );
  const code = redirectParams(res).get('code');
  if (!code) throw new Error(`no code: ${res.headers.get('location')}`);
  const token = await tokenRequest(
    { grant_type: 'authorization_code', code, redirect_uri: DEMO.server.redirectUri, code_verifier: verifier },
    { authorization: basic(DEMO.server.clientId, DEMO.server.secret) },
  );
  if (token.status !== 200) throw new Error(`token: ${token.status} ${await token.text()}`);
  return token.json();
}

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split('.');
  const dec = (s: string) => JSON.parse(atob(s.replace(/-/g, '+').replace(/_/g, '/')));
  return { header: dec(h!), payload: dec(p!) };
}
