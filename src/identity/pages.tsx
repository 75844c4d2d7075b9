// Server-rendered pages of the identity host (login, errors, sign-out). No scripts, no external
// assets; every page is uncacheable and refuses to be framed.
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;color:#1d2330}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;box-sizing:border-box}
button{margin-top:1.2rem;padding:.6rem 1.2rem}.error{color:#a4161a;background:#fde2e1;padding:.6rem;border-radius:4px}`;

/** Headers for login, admin and other pages of the identity host (contract: no-store, no framing). */
export function setPageHeaders(c: Context): void {
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'");
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
}

export function Layout(props: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>{props.children}</main>
      </body>
    </html>
  );
}

export function renderPage(c: Context, title: string, body: Child, status: ContentfulStatusCode = 200): Response | Promise<Response> {
  setPageHeaders(c);
  return c.html(<Layout title={title}>{body}</Layout>, status);
}

/** An error that must not go back to the client (unknown client, bad redirect_uri): shown, never redirected. */
export function renderErrorPage(c: Context, error: string, description: string, status: ContentfulStatusCode = 400) {
  return renderPage(
    c,
    'Sign-in error',
    <>
      <h1>Sorry, there was an error</h1>
      <p class="error">
        <strong>{error}</strong>: {description}
      </p>
    </>,
    status,
  );
}
