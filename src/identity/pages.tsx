// Server-rendered pages of the identity host (login, errors, sign-out). No scripts, no external
// assets; every page is uncacheable and refuses to be framed.
import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f5f7;margin:0;color:#1d2330;line-height:1.5}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:10px;box-shadow:0 1px 3px #0002,0 8px 24px #0001}
@media (max-width:30rem){main{margin:0;border-radius:0;min-height:100vh;box-sizing:border-box}}
h1{font-size:1.4rem;margin-top:0}p{color:#3d4555}
label{display:block;margin:1rem 0 .3rem;font-weight:600;font-size:.95rem}
input{width:100%;padding:.6rem .7rem;box-sizing:border-box;border:1px solid #9aa3b2;border-radius:6px;font:inherit}
input:focus{outline:3px solid #1d4ed855;border-color:#1d4ed8}
button{margin-top:1.4rem;padding:.65rem 1.3rem;font:inherit;font-weight:600;color:#fff;background:#1d4ed8;border:0;border-radius:6px;cursor:pointer}
button:hover{background:#1e40af}button:focus-visible{outline:3px solid #1d4ed855;outline-offset:2px}
a{color:#1d4ed8}.error{color:#8a1116;background:#fde2e1;padding:.6rem .8rem;border-radius:6px}`;

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
