// Delivering an authorization response or error to the client's redirect_uri (RFC 6749 §4.1.2,
// §4.2.2; OAuth 2.0 Multiple Response Types; Form Post Response Mode). Every response carries
// `iss` (RFC 9207).
import type { Context } from 'hono';
import { setPageHeaders } from './pages';

export type ResponseMode = 'query' | 'fragment' | 'form_post';

export interface ResponseTarget {
  redirectUri: string;
  responseMode: ResponseMode;
}

export function sendAuthorizeResponse(c: Context, target: ResponseTarget, values: Record<string, string | undefined>): Response | Promise<Response> {
  const entries = Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined);
  c.header('Cache-Control', 'no-store');
  c.header('Pragma', 'no-cache');
  if (target.responseMode === 'form_post') {
    const nonce = crypto.randomUUID();
    setPageHeaders(c);
    c.header('Content-Security-Policy', `default-src 'none'; script-src 'nonce-${nonce}'; form-action ${new URL(target.redirectUri).origin}; frame-ancestors 'none'`);
    return c.html(
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Submitting…</title>
        </head>
        <body>
          <form method="post" action={target.redirectUri}>
            {entries.map(([name, value]) => (
              <input type="hidden" name={name} value={value} />
            ))}
            <noscript>
              <button type="submit">Continue</button>
            </noscript>
          </form>
          <script nonce={nonce}>{'document.forms[0].submit()'}</script>
        </body>
      </html>,
    );
  }
  const url = new URL(target.redirectUri);
  if (target.responseMode === 'query') {
    for (const [k, v] of entries) url.searchParams.append(k, v);
    return c.redirect(url.href, 302);
  }
  url.hash = new URLSearchParams(entries).toString();
  return c.redirect(url.href, 302);
}
