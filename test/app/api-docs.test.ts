import { SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

// The platform serves static assets before the Worker; in the test pool only the assets binding
// reaches them (wrangler dev serves them on the page's origin: test/browser/api-docs.test.ts).
const assets = (env as unknown as { ASSETS: Fetcher }).ASSETS;

describe('API docs page', () => {
  it('loads Swagger UI from our own origin only, under a strict CSP', async () => {
    const res = await SELF.fetch('http://localhost/api/docs');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) expect(ref).toMatch(/^\/api\/docs\//);
    expect(html).not.toMatch(/<script>/);
  });

  it('serves the pinned swagger-ui-dist files as static assets', async () => {
    for (const [file, type] of [
      ['swagger-ui-bundle.js', 'javascript'],
      ['swagger-ui-standalone-preset.js', 'javascript'],
      ['swagger-ui.css', 'text/css'],
    ]) {
      const res = await assets.fetch(`http://localhost/api/docs/swagger-ui/${file}`);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('content-type')).toContain(type);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    }
    const init = await SELF.fetch('http://localhost/api/docs/init.js');
    expect(init.headers.get('content-type')).toContain('javascript');
    expect(await init.text()).toContain('validatorUrl: null');
  });
});
