import { beforeAll, describe, expect, it } from 'vitest';
import { sniffImage } from '../../src/engine/raster/sniff';
import { call, form, keys, PNG_1x1, postJson, uploadFixture, withKey } from './helpers';

let photo: string; // 900×600 JPEG made from a template

beforeAll(async () => {
  const template = await uploadFixture('psdrb-example-design.psd', 'ip');
  const url = (await (await postJson('/api/rendering/preview', { template, size: { width: 900, height: 900 } })).json()) as string;
  const bytes = new Uint8Array(await (await call(new URL(url).pathname)).arrayBuffer());
  const res = await call('/api/resources/images?destination=ip&overwrite=true', withKey({ method: 'POST', body: form([['design.jpg', bytes], ['dot.png', PNG_1x1]]) }));
  photo = ((await res.json()) as Array<{ name: string }>)[0].name;
});

async function thumb(query: string) {
  const res = await call(`/api/resources/images/preview?${query}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, image: res.status === 200 ? sniffImage(bytes) : null, text: new TextDecoder().decode(bytes) };
}

describe('image thumbnails (GET /api/resources/images/preview)', () => {
  it('fits into 400×400 by default as JPEG', async () => {
    const { res, image } = await thumb(`file=${photo}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(image).toMatchObject({ format: 'jpeg', width: 400, height: 267 });
  });

  it('takes width, height, format with any case and the model. prefix; never enlarges', async () => {
    expect((await thumb(`Model.File=${photo}&WIDTH=90&height=90&Format=PNG`)).image).toMatchObject({ format: 'png', width: 90, height: 60 });
    expect((await thumb('file=ip/dot.png&width=50&height=50')).image).toMatchObject({ width: 1, height: 1 });
  });

  it('validates its parameters', async () => {
    for (const q of [`file=${photo}&jpegQuality=101`, `file=${photo}&jpegQuality=x`, `file=${photo}&width=0`, `file=${photo}&format=gif`, `file=${photo}&unsharpMask=1,2`, `file=${photo}&disableCache=maybe`, 'file=../x.png', '']) {
      expect((await thumb(q)).res.status, q).toBe(400);
    }
    expect((await thumb(`file=${photo}&unsharpMask=(1.5, 1, 0)&jpegQuality=0`)).res.status).toBe(200);
    expect((await thumb(`file=${photo}&unsharpMask=FALSE`)).res.status).toBe(200);
    const missing = await thumb('file=ip/none.png');
    expect(missing.res.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ error: 'not_found' });
  });

  it('is cached per image and size bucket, not per query: a few objects per image whatever the queries', async () => {
    await thumb(`file=${photo}&width=33`);
    const cached = await keys('thumbs/');
    // 900×600 fitted: longest sides 33…128 share the 128 bucket, 129…256 the 256 one, 400 the 512 one.
    const sizes: Array<[string, number, number]> = [
      ['width=33', 33, 22], ['width=34&format=png', 34, 23], ['width=90&height=90&jpegQuality=40', 90, 60], ['width=128&unsharpMask=false', 128, 85],
      ['width=200', 200, 133], ['width=256&height=100', 150, 100], ['', 400, 267], ['width=1000&height=1000', 900, 600],
    ];
    for (const [q, w, h] of sizes) expect((await thumb(`file=${photo}&${q}`)).image, q).toMatchObject({ width: w, height: h });
    const all = await keys('thumbs/');
    const sha = cached[0]!.split('/')[1];
    expect(all.filter((k) => k.startsWith(`thumbs/${sha}/`)).sort()).toEqual(['1024', '128', '256', '512'].map((b) => `thumbs/${sha}/${b}.png`));
    // disableCache renders from the image again (and refreshes the bucket), adding nothing.
    expect((await thumb(`file=${photo}&width=33&disableCache=true`)).image).toMatchObject({ width: 33, height: 22 });
    expect(await keys('thumbs/')).toEqual(all);
  });

  it('thumbnails expire like results: a stale one is a miss, and the hourly sweep deletes them', async () => {
    await thumb(`file=${photo}&width=50`);
    expect((await keys('thumbs/')).length).toBeGreaterThan(0);
    const { sweepExpiredResults } = await import('../../src/dynamic-image/expiry');
    const { env } = await import('cloudflare:workers');
    await sweepExpiredResults({ ...env, RESULT_TTL_HOURS: '24' }, Date.now() + 23 * 3_600_000);
    expect((await keys('thumbs/')).length).toBeGreaterThan(0);
    await sweepExpiredResults({ ...env, RESULT_TTL_HOURS: '24' }, Date.now() + 25 * 3_600_000);
    expect(await keys('thumbs/')).toEqual([]);
    expect((await thumb(`file=${photo}&width=50`)).image).toMatchObject({ width: 50, height: 33 });
  });
});
