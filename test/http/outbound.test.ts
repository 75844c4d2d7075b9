/**
 * The outbound-fetch module (issue 8, item 2.6): which hosts it refuses, and how it fetches
 * (redirects re-checked hop by hop, limits, sniffing, messages that never echo the upstream).
 * The fixture server (test/global-setup.ts) listens on 127.0.0.1, which the tests' bindings allow
 * (OUTBOUND_ALLOW_HOSTS); without that allow-list entry the same URLs are refused.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { checkOutboundUrl, isInternalHost, OutboundError, outboundFetch, parseIpv4, parseIpv6, platformOrigins } from '../../src/http/outbound';
import { sniffJpegOrPng } from '../../src/engine/inputs';
import { fixtureServer } from '../helpers/fixtures';

const local = { REGION: 'local', OUTBOUND_ALLOW_HOSTS: '127.0.0.1' };
const strict = { REGION: 'local' };
const production = { REGION: 'eu' };

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(OutboundError);
  return e as OutboundError;
}

const hostOf = (url: string) => new URL(url).hostname;

describe('internal hosts', () => {
  it.each([
    // IPv4 loopback, private, link-local, CGNAT, "this network", multicast, broadcast, in every notation the URL parser takes
    'http://127.0.0.1/', 'http://127.255.255.254/', 'http://10.1.2.3/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://224.0.0.1/', 'http://255.255.255.255/',
    'http://2130706433/', 'http://017700000001/', 'http://0x7f000001/', 'http://0x7f.0.0.1/', 'http://127.1/', 'http://0177.0.0.01/', 'http://10.0x10.1/',
    // IPv6 loopback, unspecified, unique-local, link-local, multicast, and v6 forms carrying a private v4
    'http://[::1]/', 'http://[::]/', 'http://[0:0:0:0:0:0:0:1]/', 'http://[fc00::1]/', 'http://[fd12:3456::1]/', 'http://[fe80::1]/', 'http://[ff02::1]/',
    'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[::ffff:10.0.0.1]/', 'http://[::ffff:169.254.169.254]/', 'http://[::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:c0a8:0101::1]/',
    // names
    'http://localhost/', 'http://LOCALHOST./', 'http://api.localhost/', 'http://printer.local/', 'http://db.internal/', 'http://metadata.google.internal/', 'http://intranet/',
  ])('refuses %s', (url) => {
    expect(isInternalHost(hostOf(url)), hostOf(url)).toBe(true);
    const e = (() => {
      try {
        checkOutboundUrl(url, strict);
      } catch (err) {
        return err as OutboundError;
      }
    })();
    expect(e).toBeInstanceOf(OutboundError);
    expect(e!.refused).toBe(true);
    expect(e!.code).toBe('ERR_OUTBOUND_HOST');
  });

  it.each(['https://example.com/a.jpg', 'https://8.8.8.8/', 'https://[2606:4700::1111]/', 'https://[::ffff:8.8.8.8]/', 'https://172.32.0.1/', 'https://100.128.0.1/', 'https://cdn.example.internal.example.com/'])(
    'lets %s through',
    (url) => {
      expect(isInternalHost(hostOf(url))).toBe(false);
      expect(checkOutboundUrl(url, production).href).toBe(new URL(url).href);
    },
  );

  it('parses v4 and v6 literals the way inet_aton and RFC 4291 do', () => {
    expect(parseIpv4('127.1')).toBe(0x7f000001);
    expect(parseIpv4('0x7f.0.0.1')).toBe(0x7f000001);
    expect(parseIpv4('017700000001')).toBe(0x7f000001);
    expect(parseIpv4('256.0.0.1')).toBeNull();
    expect(parseIpv4('example.com')).toBeNull();
    expect(parseIpv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6('fe80::1')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6('1::2::3')).toBeNull();
    expect(parseIpv6('::1%eth0')).toBeNull();
  });

  it('OUTBOUND_ALLOW_HOSTS names the exceptions (development); plain http only in local development', () => {
    expect(checkOutboundUrl('http://127.0.0.1:8080/x', local).port).toBe('8080');
    expect(checkOutboundUrl('http://localhost/x', { REGION: 'local', OUTBOUND_ALLOW_HOSTS: ' 127.0.0.1, localhost ' }).hostname).toBe('localhost');
    expect(() => checkOutboundUrl('http://10.0.0.1/', local)).toThrow(OutboundError);
    expect(() => checkOutboundUrl('http://example.com/', production)).toThrow(/only https/);
    expect(() => checkOutboundUrl('ftp://example.com/', local)).toThrow(/scheme/);
    expect(() => checkOutboundUrl('https://user:pw@example.com/', production)).toThrow(/credentials/);
    expect(() => checkOutboundUrl('not a url', production)).toThrow(/valid/);
  });

  it('the Worker under test allows exactly the fixture server', () => {
    expect(env.OUTBOUND_ALLOW_HOSTS).toBe('127.0.0.1');
  });
});

describe('outboundFetch', () => {
  const base = () => fixtureServer();

  it('downloads and reports the final URL', async () => {
    const r = await outboundFetch(`${base()}/redirect/2/assets/marker-40x20.jpg`, { env: local, sniff: sniffJpegOrPng });
    expect(r.url).toMatch(/\/assets\/marker-40x20\.jpg$/);
    expect(r.headers.get('content-type')).toBe('image/jpeg');
    expect(sniffJpegOrPng(r.bytes)).toBeUndefined();
  });

  it('refuses the fixture server without the allow-list entry, before connecting', async () => {
    const e = await failure(outboundFetch(`${base()}/assets/marker-40x20.jpg`, { env: strict }));
    expect([e.code, e.refused]).toEqual(['ERR_OUTBOUND_HOST', true]);
  });

  it('re-checks every redirect hop: a public URL may not redirect to an internal one', async () => {
    // 127.0.0.1 is allowed, `localhost` is not: the hop to it is refused (not fetched).
    const port = new URL(base()).port;
    const hop = `${base()}/redirect-to/${encodeURIComponent(`http://localhost:${port}/assets/marker-40x20.jpg`)}`;
    const e = await failure(outboundFetch(hop, { env: local }));
    expect(e.code).toBe('ERR_OUTBOUND_REDIRECT');
    expect(e.refused).toBe(false);
    expect(e.message).toMatch(/internal/);
  });

  it('follows at most maxRedirects', async () => {
    expect((await outboundFetch(`${base()}/redirect/3/assets/marker-40x20.jpg`, { env: local })).bytes.length).toBeGreaterThan(0);
    const e = await failure(outboundFetch(`${base()}/redirect/4/assets/marker-40x20.jpg`, { env: local }));
    expect(e.code).toBe('ERR_OUTBOUND_REDIRECT');
  });

  it('never echoes the upstream status or body', async () => {
    for (const status of [404, 500, 418]) {
      const e = await failure(outboundFetch(`${base()}/status/${status}`, { env: local }));
      expect(e.code).toBe('ERR_OUTBOUND_STATUS');
      expect(e.upstreamStatus).toBe(status);
      expect(e.message).not.toMatch(new RegExp(String(status)));
    }
    const body = await failure(outboundFetch(`${base()}/fixtures/psd/manifest.json`, { env: local, sniff: sniffJpegOrPng }));
    expect(body.code).toBe('ERR_OUTBOUND_CONTENT');
    expect(body.message).not.toMatch(/[{}"]/);
  });

  it('gives up after the time limit', async () => {
    const e = await failure(outboundFetch(`${base()}/slow/3000`, { env: local, timeoutMs: 300 }));
    expect(e.code).toBe('ERR_OUTBOUND_TIMEOUT');
  });

  it('stops at maxBytes: a declared length at once, an undeclared one while streaming', async () => {
    const declared = await failure(outboundFetch(`${base()}/assets/marker-40x20.jpg`, { env: local, maxBytes: 100 }));
    expect(declared.code).toBe('ERR_OUTBOUND_TOO_LARGE');
    const started = Date.now();
    const streamed = await failure(outboundFetch(`${base()}/big/${64 << 20}?chunked=1`, { env: local, maxBytes: 1 << 20 }));
    expect(streamed.code).toBe('ERR_OUTBOUND_TOO_LARGE');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('onBytes sees every chunk; what it throws aborts the download and comes back unchanged', async () => {
    let seen = 0;
    const r = await outboundFetch(`${base()}/assets/marker-40x20.jpg`, { env: local, onBytes: (n) => (seen += n) });
    expect(seen).toBe(r.bytes.length);
    const stop = new Error('budget');
    const started = Date.now();
    let counted = 0;
    const e = await outboundFetch(`${base()}/big/${24 << 20}?chunked=1`, {
      env: local,
      onBytes: (n) => {
        counted += n;
        if (counted > 1 << 20) throw stop;
      },
    }).catch((err: unknown) => err);
    expect(e).toBe(stop);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('a sniff refusal aborts a large body after its first bytes', async () => {
    const started = Date.now();
    const e = await failure(outboundFetch(`${base()}/big/${24 << 20}?kind=text&chunked=1`, { env: local, sniff: sniffJpegOrPng }));
    expect(e.code).toBe('ERR_OUTBOUND_CONTENT');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('drops credentials when a redirect leaves the origin, and turns a POST into a GET on 303', async () => {
    const echo = await outboundFetch(`${base()}/echo`, { env: local, method: 'POST', body: 'hello', headers: { authorization: 'Bearer x' } });
    expect(JSON.parse(new TextDecoder().decode(echo.bytes))).toMatchObject({ method: 'POST', authorization: 'Bearer x', body: 'hello' });
    const port = new URL(base()).port;
    // Same host spelled differently = another origin (allowed through the allow-list here).
    const other = { REGION: 'local', OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost' };
    const moved = await outboundFetch(`${base()}/redirect-to/${encodeURIComponent(`http://localhost:${port}/echo`)}?status=303`, {
      env: other,
      method: 'POST',
      body: 'hello',
      headers: { authorization: 'Bearer x' },
    });
    expect(JSON.parse(new TextDecoder().decode(moved.bytes))).toEqual({ method: 'GET', authorization: null, body: '' });
  });
});

describe('the platform\'s own origins', () => {
  const platform = { REGION: 'local', OUTBOUND_ALLOW_HOSTS: 'localhost,print.example.com', ISSUER: 'http://localhost:8787', PUBLIC_BASE_URL: 'https://Print.example.com/' };

  it('are the scheme, host and port of ISSUER and PUBLIC_BASE_URL', () => {
    expect(platformOrigins(platform)).toEqual(['http://localhost:8787', 'https://print.example.com']);
    expect(platformOrigins({ ISSUER: 'http://localhost:8787', PUBLIC_BASE_URL: '' }, 'https://api.example.com/x')).toEqual(['http://localhost:8787', 'https://api.example.com']);
  });

  it('are refused when asked, in every spelling; other ports and schemes of the same host are not', () => {
    const refuse = platformOrigins(platform);
    for (const url of ['https://print.example.com/api/storefront/v1/projects/with-single-item', 'https://PRINT.example.com:443/x', 'http://localhost:8787/connect/token']) {
      expect(() => checkOutboundUrl(url, platform, undefined, refuse), url).toThrow(/the platform's own origin/);
    }
    for (const url of ['https://print.example.com:8443/x', 'http://print.example.com/x', 'http://localhost:8788/x']) {
      expect(checkOutboundUrl(url, platform, undefined, refuse).href).toBe(new URL(url).href);
    }
    // Without the list (image URLs, imports), nothing changes.
    expect(checkOutboundUrl('https://print.example.com/x', platform).host).toBe('print.example.com');
  });

  it('are refused by outboundFetch (the caller\'s input), and the hop header goes with every request, redirects included', async () => {
    const origin = new URL(fixtureServer()).origin;
    const e = await failure(outboundFetch(`${origin}/redirect/1/flaky/outbound-hop/0`, { env: local, refuseOrigins: [`http://127.0.0.2:1`, origin] }));
    expect(e.refused).toBe(true);
    await outboundFetch(`${origin}/redirect/1/flaky/outbound-hop/0`, { env: local, hop: 2 });
    const made = (await (await fetch(`${fixtureServer()}/calls/outbound-hop`)).json()) as Array<{ headers: Record<string, string> }>;
    expect(made.map((m) => m.headers['x-platform-hop'])).toEqual(['2']);
  });
});
