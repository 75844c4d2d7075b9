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

  it('is cached unless disableCache=true', async () => {
    await thumb(`file=${photo}&width=33`);
    const cached = await keys('thumbs/');
    await thumb(`file=${photo}&width=33`);
    await thumb(`file=${photo}&width=33&disableCache=true`);
    expect(await keys('thumbs/')).toEqual(cached);
    await thumb(`file=${photo}&width=34`);
    expect((await keys('thumbs/')).length).toBe(cached.length + 1);
  });
});
