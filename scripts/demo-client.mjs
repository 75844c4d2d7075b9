// `npm run demo:client`: a tiny relying party on http://localhost:8788 — the redirect host the
// demo apps are registered with — so the browser sign-in can be tried end to end:
//   /                    links to both flows and the shop
//   /shop                the storefront demo (scripts/demo-client/shop.mjs): live previews, order
//   /login               Authorization Code + PKCE for demo-server (oauth4webapi, a certified
//                        client library), /callback redeems the code and shows tokens + userinfo
//   /implicit            Implicit (`id_token token`) for demo-spa; /implicit-callback reads the fragment
//   /logout              RP-initiated logout back to /signed-out
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import * as oauth from 'oauth4webapi';
import { createShop } from './demo-client/shop.mjs';

// The issuer `npm run dev` serves: ISSUER, else localhost on PORT (as `npm run dev` reads it), else :8787.
const issuer = new URL(process.env.ISSUER ?? `http://localhost:${process.env.PORT ?? 8787}`);
// DEMO_PORT serves elsewhere (the browser test does); the registered redirect URIs use 8788.
const port = Number(process.env.DEMO_PORT ?? 8788);
const base = `http://localhost:${port}`;
const client = { client_id: 'demo-server' };
const clientAuth = oauth.ClientSecretPost('demo-server-secret');
const options = { [oauth.allowInsecureRequests]: true };
const debug = Boolean(process.env.DEBUG_DEMO_CLIENT);
// How long to wait for `npm run dev` to answer (a first start takes about 30 s on 2 cores).
const waitSeconds = Number(process.env.DEMO_WAIT_SECONDS ?? 180);

/** Nothing listens there (yet): worth waiting for, unlike an answer we cannot use. */
const notListening = (err) => err instanceof TypeError && /ECONNREFUSED|ECONNRESET|EADDRNOTAVAIL|ENOTFOUND|EAI_AGAIN/.test(`${err.cause?.code} ${err.cause?.message}`);

/**
 * Discovery, retried with backoff (0.5 s doubling to 5 s) while nothing listens at the issuer
 * yet, so `npm run demo:client` may start before `npm run dev` is ready, for DEMO_WAIT_SECONDS
 * at most. An answer that is not this issuer's discovery document (another port's server, an
 * issuer that says another URL) stops it at once with what was wrong.
 */
async function discover() {
  const deadline = Date.now() + waitSeconds * 1000;
  let delay = 500;
  let announced = false;
  for (;;) {
    try {
      const response = await oauth.discoveryRequest(issuer, options);
      return await oauth.processDiscoveryResponse(issuer, response);
    } catch (err) {
      if (debug) console.log(inspect(err, { depth: 4 }));
      if (!notListening(err)) {
        const said = err?.cause?.body?.issuer;
        console.error(`Discovery at ${issuer.href} failed: ${err?.message ?? err}` +
          (said ? `\nThat server says its issuer is ${said}: run the demo client with the PORT (or ISSUER) that server was started with.` : '') +
          (debug ? '' : '\nDEBUG_DEMO_CLIENT=1 shows the whole error.'));
        process.exit(1);
      }
      if (Date.now() > deadline) {
        console.error(`Nothing answered at ${issuer.href} within ${waitSeconds} s. Start \`npm run dev\` (with the same PORT), or set ISSUER to where it runs.`);
        process.exit(1);
      }
      if (!announced) {
        console.log(`Waiting for the identity issuer at ${issuer.href}: nothing listens there yet (start it with \`npm run dev\`; PORT or ISSUER for another address)…`);
        announced = true;
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
const as = await discover();
const shop = createShop({ issuer, apiKey: process.env.RENDERING_API_KEY ?? 'demo-api-key' });

/** state → { verifier, nonce } for flows started here (one process, memory is enough). */
const pending = new Map();
let lastIdToken;

const page = (title, body) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title>` +
  `<style>body{font:16px system-ui;max-width:52rem;margin:2rem auto;padding:0 1rem}pre{background:#f3f4f6;padding:1rem;overflow:auto;white-space:pre-wrap;word-break:break-all}</style>` +
  `<h1>${title}</h1>${body}`;
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', base);
  const send = (status, html, headers = {}) => res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(html);
  try {
    if (await shop(req, res, url)) return;
    if (url.pathname === '/') {
      return send(200, page('Demo client', `<p>Identity: <code>${issuer}</code></p><ul>
        <li><a href="/shop">Demo shop: the Demo card with live previews</a> (storefront 1, reference <code>demo-card</code>)</li>
        <li><a href="/login">Sign in with demo-server</a> (Authorization Code + PKCE, server side)</li>
        <li><a href="/implicit">Sign in with demo-spa</a> (Implicit, <code>id_token token</code>)</li>
        <li><a href="/logout">Sign out</a></li></ul>`));
    }
    if (url.pathname === '/login') {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const nonce = oauth.generateRandomNonce();
      pending.set(state, { verifier, nonce });
      const target = new URL(as.authorization_endpoint);
      target.search = new URLSearchParams({
        client_id: client.client_id,
        response_type: 'code',
        redirect_uri: `${base}/callback`,
        scope: 'openid profile email offline_access Projects_read Templates_read',
        state,
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();
      return send(302, '', { location: target.href });
    }
    if (url.pathname === '/callback') {
      const state = url.searchParams.get('state') ?? '';
      const flow = pending.get(state);
      if (!flow) return send(400, page('Unknown state', '<p>This callback was not started here.</p>'));
      pending.delete(state);
      const params = oauth.validateAuthResponse(as, client, url, state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, `${base}/callback`, flow.verifier, options);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: flow.nonce, requireIdToken: true });
      lastIdToken = tokens.id_token;
      const claims = oauth.getValidatedIdTokenClaims(tokens);
      const info = await oauth
        .userInfoRequest(as, client, tokens.access_token, options)
        .then((r) => oauth.processUserInfoResponse(as, client, claims.sub, r));
      return send(200, page('Signed in (demo-server)', `<h2>Token response</h2><pre>${esc(JSON.stringify(tokens, null, 2))}</pre>
        <h2>ID token claims</h2><pre>${esc(JSON.stringify(claims, null, 2))}</pre>
        <h2>Userinfo</h2><pre>${esc(JSON.stringify(info, null, 2))}</pre><p><a href="/logout">Sign out</a></p>`));
    }
    if (url.pathname === '/implicit') {
      const target = new URL(as.authorization_endpoint);
      target.search = new URLSearchParams({
        client_id: 'demo-spa',
        response_type: 'id_token token',
        redirect_uri: `${base}/implicit-callback`,
        scope: 'openid profile Projects_read',
        state: randomBytes(16).toString('hex'),
        nonce: randomBytes(16).toString('hex'),
      }).toString();
      return send(302, '', { location: target.href });
    }
    if (url.pathname === '/implicit-callback') {
      // The tokens are in the fragment, which only the browser sees.
      return send(200, page('Signed in (demo-spa)', `<pre id="out"></pre><script>
        const p = new URLSearchParams(location.hash.slice(1));
        document.getElementById('out').textContent = JSON.stringify(Object.fromEntries(p), null, 2);
      </script><p><a href="/">Back</a></p>`));
    }
    if (url.pathname === '/logout') {
      const target = new URL(as.end_session_endpoint);
      if (lastIdToken) target.searchParams.set('id_token_hint', lastIdToken);
      target.searchParams.set('post_logout_redirect_uri', `${base}/signed-out`);
      target.searchParams.set('state', 'bye');
      lastIdToken = undefined;
      return send(302, '', { location: target.href });
    }
    if (url.pathname === '/signed-out') return send(200, page('Signed out', '<p><a href="/">Start again</a></p>'));
    send(404, page('Not found', ''));
  } catch (err) {
    send(500, page('Sign-in failed', `<pre>${esc(err?.stack ?? err)}</pre><p><a href="/">Start again</a></p>`));
  }
}).listen(port, '127.0.0.1', () => console.log(`Demo client on ${base} (identity ${issuer})`));
