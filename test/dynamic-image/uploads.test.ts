// Uploads stream into R2 (issue 25 §1): each file part is staged as it arrives, checked (and a
// template compiled) from there, copied to its name; nothing half-written stays on any refusal.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ENGINE_VERSION, templateHash } from '../../src/engine';
import { HOLD_BYTES } from '../../src/dynamic-image/staging';
import { psdFixture } from '../helpers/fixtures';
import { call, keys, postJson, upload, withKey } from './helpers';

const sha256 = async (bytes: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A PSD past one R2 part (8 MiB): a noisy 1,400 × 1,200 layer and its composite, both RLE (incompressible). */
async function bigPsd(): Promise<Uint8Array> {
  const { writePsdUint8Array } = await import('ag-psd');
  const width = 1400;
  const height = 1200;
  const data = new Uint8ClampedArray(width * height * 4);
  let x = 12345;
  for (let i = 0; i < data.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    data[i] = i % 4 === 3 ? 255 : x >>> 24;
  }
  const image = { width, height, data };
  return writePsdUint8Array({ width, height, children: [{ name: 'noise', left: 0, top: 0, imageData: image }], imageData: image });
}

describe('uploads stream into R2', () => {
  it('several template parts, held (16 MB in all) then streamed past an R2 part, are stored byte for byte with their SHA-256 and compiled form; no staging stays', async () => {
    const big = await bigPsd();
    expect(big.length).toBeGreaterThan(8 * 1024 * 1024);
    expect(2 * big.length).toBeGreaterThan(HOLD_BYTES); // the second goes to R2 staging
    const small = await psdFixture('psdtools-text.psd');
    const res = await upload('templates', [['big.psd', big], ['big-2.psd', big], ['small.psd', small]], '?destination=stream-many&overwrite=true');
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual(['stream-many/big.psd', 'stream-many/big-2.psd', 'stream-many/small.psd']);
    for (const [name, bytes] of [['big.psd', big], ['big-2.psd', big], ['small.psd', small]] as const) {
      const stored = await env.FILES.get(`templates/stream-many/${name}`);
      const back = new Uint8Array(await stored!.arrayBuffer());
      expect([back.length, await sha256(back)], name).toEqual([bytes.length, await sha256(bytes)]); // not toEqual on 10 MB: its diff
      expect(stored!.customMetadata).toMatchObject({ sha256: await sha256(bytes), compiled: await templateHash(bytes), engine: ENGINE_VERSION });
      expect(stored!.httpMetadata?.contentType).toBe('image/vnd.adobe.photoshop');
      expect(await keys(`compiled/${stored!.customMetadata!.compiled}/`)).not.toHaveLength(0);
    }
    expect(await keys('uploads/staging/')).toEqual([]);
  }, 120_000);

  it('an upload past 100 MB without Content-Length is refused with 413 mid-stream and leaves nothing in R2', async () => {
    const before = await keys();
    const boundary = 'b0undary';
    const head = new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.psd"\r\n\r\n8BPS`);
    const chunk = new Uint8Array(1024 * 1024).fill(7);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        if (sent >= 101) return controller.close();
        controller.enqueue(chunk);
        sent++;
      },
    });
    const res = await call('/api/resources/templates', withKey({ method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body, duplex: 'half' } as RequestInit));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large', message: 'The upload is larger than the limit of 100 MB.' });
    expect(sent).toBeGreaterThan(100); // drained, not cancelled
    expect(await keys()).toEqual(before);
  }, 120_000);

  it('a refused template among good ones leaves nothing: staging deleted, its compiled forms undone', async () => {
    const before = await keys();
    const good = await psdFixture('psdtools-blend-hue.psd');
    const res = await upload('templates', [['ok.psd', good], ['bad.psd', good.slice(0, 3000)]], '?destination=stream-bad');
    expect(res.status).toBe(422);
    expect(await keys()).toEqual(before);
  });

  it('fonts and images are staged too: stored byte for byte with their SHA-256', async () => {
    const png = await psdFixture('psdtools-text.psd').then(() => Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0)));
    const res = await upload('images', [['a.png', png], ['b.png', png]], '?destination=stream-img&overwrite=true');
    expect(res.status).toBe(201);
    for (const name of ['a.png', 'b.png']) {
      const stored = await env.FILES.get(`images/stream-img/${name}`);
      expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(png);
      expect(stored!.customMetadata).toMatchObject({ sha256: await sha256(png), width: '1', height: '1' });
    }
    expect(await keys('uploads/staging/')).toEqual([]);
  });
});

describe('a template compiled by an older engine', () => {
  it('is compiled again from R2 and its new form recorded, the file and its hash unchanged', async () => {
    const bytes = await psdFixture('psdtools-blend-soft-light.psd');
    const sha = await sha256(bytes);
    await env.FILES.put('templates/stream-old/old.psd', bytes, {
      httpMetadata: { contentType: 'image/vnd.adobe.photoshop' },
      customMetadata: { sha256: sha, compiled: 'f'.repeat(64), engine: 'psd-engine/1', bleed: '3mm' },
    });
    const info = await postJson('/api/information/template', { template: 'stream-old/old' });
    expect(info.status).toBe(200);
    const stored = await env.FILES.get('templates/stream-old/old.psd');
    expect(stored!.customMetadata).toEqual({ sha256: sha, compiled: await templateHash(bytes), engine: ENGINE_VERSION, bleed: '3mm' });
    expect(stored!.httpMetadata?.contentType).toBe('image/vnd.adobe.photoshop');
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(bytes);
  });
});
