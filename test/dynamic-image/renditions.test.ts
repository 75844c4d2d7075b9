import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/engine/hash';
import { deleteRenditions } from '../../src/engine/raster/renditions';
import { testAsset } from '../helpers/fixtures';
import { call, keys, postJson, upload, uploadFixture, withKey } from './helpers';

let template: string;
let photo: Uint8Array;

beforeAll(async () => {
  template = await uploadFixture('agpsd-shapes-smart-objects.psd', 'rend');
  photo = await testAsset('jpeg/photo-420-restart.jpg');
});

/** The photo with `tag` after its end: other content (a shopper's own upload), the same pixels. */
const variant = (tag: string) => new Uint8Array([...photo, ...new TextEncoder().encode(tag)]);

async function uploadImage(name: string, bytes: Uint8Array): Promise<string> {
  const res = await upload('images', [[name, bytes]], '?destination=rend&overwrite=true');
  expect(res.status).toBe(201);
  return ((await res.json()) as Array<{ name: string }>)[0]!.name;
}

/** A personalised preview's bytes: the photo in the "apple" smart object, small enough to use a rendition. */
async function personalised(image: string): Promise<Uint8Array> {
  const res = await postJson('/api/rendering/preview', {
    template,
    format: 'png',
    size: { width: 120, height: 120 },
    data: { apple: { type: 'image', image, resizeMode: 'fill' } },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const name = ((await res.json()) as string).split('/').pop()!;
  return new Uint8Array(await (await call(`/api/results/download/${name}`)).arrayBuffer());
}

describe('image uploads keep renditions of the picture', () => {
  it('made at upload, recorded in the metadata, dropped with the file (kept when the same content replaces it)', async () => {
    const bytes = variant('upload');
    const sha = await sha256Hex(bytes);
    const name = await uploadImage('photo.jpg', bytes);
    expect(await keys(`renditions/${sha}/`)).toEqual([1, 2, 3, 4].map((s) => `renditions/${sha}/${s}.rgba`));
    expect((await env.FILES.head(`images/${name}`))?.customMetadata).toMatchObject({ width: '203', height: '141', renditions: '1,2,3,4', sha256: sha });
    // The same content again under the same name: its renditions hold.
    await uploadImage('photo.jpg', bytes);
    expect((await keys(`renditions/${sha}/`)).length).toBe(4);
    // Other content replaces it: the old renditions go, the new are made.
    const other = variant('other');
    await uploadImage('photo.jpg', other);
    expect(await keys(`renditions/${sha}/`)).toEqual([]);
    const otherSha = await sha256Hex(other);
    expect((await keys(`renditions/${otherSha}/`)).length).toBe(4);
    expect((await call(`/api/resources/images/${name}`, withKey({ method: 'DELETE' }))).status).toBe(200);
    expect(await keys(`renditions/${otherSha}/`)).toEqual([]);
  });

  it('none for a PNG or a progressive JPEG', async () => {
    for (const file of ['marker-40x20-alpha.png', 'jpeg/photo-progressive.jpg']) {
      const bytes = await testAsset(file);
      const name = await uploadImage(file.replace('/', '-'), bytes);
      expect((await env.FILES.head(`images/${name}`))?.customMetadata?.renditions, file).toBeUndefined();
      expect(await keys(`renditions/${await sha256Hex(bytes)}/`), file).toEqual([]);
    }
  });

  it('a personalised preview is the same bytes with or without them', async () => {
    const withRenditions = await uploadImage('with.jpg', variant('with'));
    const without = await uploadImage('without.jpg', variant('without'));
    await deleteRenditions(env.FILES, await sha256Hex(variant('without')));
    expect(Buffer.from(await personalised(withRenditions)).equals(Buffer.from(await personalised(without)))).toBe(true);
  });

  it('a personalised preview reads the rendition, not the file', async () => {
    // Its renditions inverted: the preview shows them, so they are what it read.
    const shown = await uploadImage('shown.jpg', variant('shown'));
    const sha = await sha256Hex(variant('shown'));
    for (const scale of [1, 2, 3, 4]) {
      const obj = (await env.FILES.get(`renditions/${sha}/${scale}.rgba`))!;
      const meta = obj.customMetadata;
      const inverted = new Uint8Array(await obj.arrayBuffer()).map((v, i) => (i % 4 === 3 ? v : 255 - v));
      await env.FILES.put(`renditions/${sha}/${scale}.rgba`, inverted, { customMetadata: meta });
    }
    const plain = await uploadImage('plain.jpg', variant('plain'));
    expect(Buffer.from(await personalised(shown)).equals(Buffer.from(await personalised(plain)))).toBe(false);
  });
});
