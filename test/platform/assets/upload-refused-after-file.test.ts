// A platform upload refused after its file part was staged (a field given twice, a second file, a
// body that breaks after the file) leaves no staging object behind: since session 29 PSD designs
// and mockups are staged in R2 too (they were held in memory), so every such 400 left one there
// until the daily sweep (review29).
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { psdFixture } from '../../helpers/fixtures';
import { api, seedPlatform } from '../../helpers/platform';
import { S } from '../storage/helpers';

beforeAll(seedPlatform);

async function staging(): Promise<string[]> {
  const page = await env.FILES.list({ prefix: 'p/1/cache/staging/' });
  return page.objects.map((o) => o.key);
}

const enc = new TextEncoder();
const join = (...parts: Array<Uint8Array | string>) => {
  const bytes = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) out.set(b, (at += b.length) - b.length);
  return out;
};

describe('a platform upload refused after its file part', () => {
  it('leaves no staging object (field given twice, second file, broken tail)', async () => {
    const psd = await psdFixture('psdtools-text.psd');
    const png = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
    const file = (bytes: Uint8Array, name: string) => [`--b\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`, bytes, '\r\n'] as const;
    const field = (name: string, value: string) => `--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const bodies: Array<[string, string, Uint8Array]> = [
      ['designs', 'twice', join(...file(psd, 'a.psd'), field('name', 'x'), field('Name', 'y'), '--b--\r\n')],
      ['designs', 'second file', join(...file(psd, 'a.psd'), ...file(psd, 'b.psd'), '--b--\r\n')],
      ['designs', 'broken tail', join(...file(psd, 'a.psd'), '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated')],
      ['images', 'twice', join(...file(png, 'a.png'), field('name', 'x'), field('NAME', 'y'), '--b--\r\n')],
    ];
    for (const [type, what, body] of bodies) {
      const res = await api('POST', `${S}/${type}`, undefined, { token: 1, raw: body, headers: { 'content-type': 'multipart/form-data; boundary=b' } });
      expect(res.status, `${type} ${what}: ${await res.clone().text()}`).toBe(400);
      expect(await staging(), `${type} ${what}`).toEqual([]);
    }
  }, 120_000);
});
