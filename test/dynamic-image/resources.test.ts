import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { bundledFont, psdFixture, testAsset } from '../helpers/fixtures';
import { call, form, keys, PNG_1x1, postJson, upload, uploadFixture, withKey } from './helpers';

describe('templates', () => {
  it('upload validates and compiles, answers 201 with the stored names', async () => {
    const res = await upload('templates', [['card.psd', await psdFixture('psdtools-text.psd')]], '?destination=tpl-upload');
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual(['tpl-upload/card.psd']);
    expect((await keys('compiled/')).length).toBeGreaterThan(0);
  });

  it('overwrite=false renames clashes to name_1, name_2; overwrite=true replaces', async () => {
    const bytes = await psdFixture('psdtools-blend-screen.psd');
    const names = [];
    for (let i = 0; i < 3; i++) {
      const res = await upload('templates', [['x.psd', bytes]], '?destination=tpl-clash');
      names.push(...((await res.json()) as string[]));
    }
    expect(names).toEqual(['tpl-clash/x.psd', 'tpl-clash/x_1.psd', 'tpl-clash/x_2.psd']);
    const again = await upload('templates', [['x.psd', bytes]], '?destination=tpl-clash&overwrite=true');
    expect(await again.json()).toEqual(['tpl-clash/x.psd']);
    // Two files of one request with the same name do not overwrite each other.
    const two = await upload('templates', [['y.psd', bytes], ['y.psd', bytes]], '?destination=tpl-clash');
    expect(await two.json()).toEqual(['tpl-clash/y.psd', 'tpl-clash/y_1.psd']);
  });

  it('a file that is not a renderable PSD is refused with 422 and nothing stays behind', async () => {
    const before = await keys();
    const good = await psdFixture('psdtools-blend-hue.psd');
    const unknownMode = good.slice();
    unknownMode[25] = 6; // colour mode 6, which no Photoshop mode has (Lab, 9, now renders)
    for (const [name, bytes] of [
      ['notes.psd', new TextEncoder().encode('hello')],
      ['mode6.psd', unknownMode],
      ['truncated.psd', good.slice(0, 2000)],
    ] as Array<[string, Uint8Array]>) {
      const res = await upload('templates', [['ok.psd', good], [name, bytes]], '?destination=tpl-bad');
      expect(res.status, name).toBe(422);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe('unprocessable');
      expect(body.message).toBeTruthy();
    }
    expect((await upload('templates', [['mode6.psd', unknownMode]])).status).toBe(422);
    expect(await keys()).toEqual(before);
  });

  it('recognises PSB by content and finds templates without extension', async () => {
    const res = await upload('templates', [['big.psb', await psdFixture('agpsd-shapes-psb.psb')]], '?destination=tpl-psb');
    expect(res.status).toBe(201);
    const info = await postJson('/api/information/template', { template: 'tpl-psb/big' });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ size: { width: 413, height: 413 } });
  });

  it('lists a folder, or recursively with showSubfolders=true', async () => {
    const bytes = await psdFixture('psdtools-blend-overlay.psd');
    await upload('templates', [['a.psd', bytes]], '?destination=tpl-list');
    await upload('templates', [['b.psd', bytes]], '?destination=tpl-list/sub');
    expect(await (await call('/api/resources/templates?subfolder=tpl-list')).json()).toEqual({ total: 1, items: ['tpl-list/a.psd'] });
    expect(await (await call('/api/resources/templates?subfolder=tpl-list&showSubfolders=true')).json()).toEqual({
      total: 2,
      items: ['tpl-list/a.psd', 'tpl-list/sub/b.psd'],
    });
    expect((await call('/api/resources/templates?subfolder=../x')).status).toBe(400);
  });

  it('delete needs the key, drops the compiled form, 404 for unknown', async () => {
    const name = await uploadFixture('psdtools-blend-soft-light.psd', 'tpl-del');
    const compiledBefore = await keys('compiled/');
    expect((await call(`/api/resources/templates?file=${name}`, { method: 'DELETE' })).status).toBe(403);
    const res = await call(`/api/resources/templates/${name}`, withKey({ method: 'DELETE' }));
    expect(res.status).toBe(200);
    expect((await call(`/api/resources/templates?file=${name}`, withKey({ method: 'DELETE' }))).status).toBe(404);
    expect((await keys('compiled/')).length).toBeLessThan(compiledBefore.length);
    expect((await postJson('/api/information/template', { template: name })).status).toBe(404);
  });

  it('compiles on first use a template put into R2 without compiling (old uploads, seed)', async () => {
    await env.FILES.put('templates/tpl-raw/raw.psd', await psdFixture('psdtools-blend-color-dodge.psd'));
    const info = await postJson('/api/information/template', { template: 'tpl-raw/raw' });
    expect(info.status).toBe(200);
    expect((await env.FILES.head('templates/tpl-raw/raw.psd'))?.customMetadata?.compiled).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('API key (X-DynamicImageApiKey) on every write', () => {
  it.each([
    ['POST', '/api/resources/templates'],
    ['POST', '/api/resources/fonts'],
    ['POST', '/api/resources/fonts/reload'],
    ['POST', '/api/resources/images'],
    ['POST', '/api/resources/images/folder'],
    ['DELETE', '/api/resources/images?file=x.png'],
    ['DELETE', '/api/resources/fonts/x.ttf'],
    ['DELETE', '/api/results/delete?file=x.jpg'],
    ['DELETE', '/api/results/delete/x.jpg'],
  ])('%s %s without or with a wrong key → 403', async (method, path) => {
    for (const headers of [{}, { 'X-DynamicImageApiKey': 'wrong' }, { 'x-dynamicimageapikey': '' }] as Array<Record<string, string>>) {
      const res = await call(path, { method, headers, body: method === 'POST' ? form([['a.png', PNG_1x1]]) : undefined });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden' });
    }
  });
});

describe('images', () => {
  it('upload (query or path destination) answers 201 with ImageModels; listing carries preview URLs', async () => {
    const viaQuery = await upload('images', [['dot.png', PNG_1x1]], '?destination=img-a');
    expect(viaQuery.status).toBe(201);
    expect(await viaQuery.json()).toEqual([
      { title: 'dot', name: 'img-a/dot.png', previewUrl: 'http://localhost/api/resources/images/preview?file=img-a%2Fdot.png' },
    ]);
    const viaPath = await call('/api/resources/images/img-a/deeper/', withKey({ method: 'POST', body: form([['dot.png', PNG_1x1]]) }));
    expect(viaPath.status).toBe(201);
    expect(((await viaPath.json()) as Array<{ name: string }>)[0].name).toBe('img-a/deeper/dot.png');
    const list = (await (await call('/api/resources/images?subfolder=img-a&showSubfolders=true')).json()) as { total: number; items: Array<{ name: string }> };
    expect(list.items.map((i) => i.name)).toEqual(['img-a/deeper/dot.png', 'img-a/dot.png']);
  });

  it('refuses files that are not JPEG or PNG with 422, a missing file field with 400', async () => {
    expect((await upload('images', [['x.png', 'not an image']])).status).toBe(422);
    const fd = new FormData();
    fd.append('other', 'x');
    expect((await call('/api/resources/images', withKey({ method: 'POST', body: fd }))).status).toBe(400);
    expect((await call('/api/resources/images', withKey({ method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }))).status).toBe(400);
  });

  it('accepts the field name in any case', async () => {
    const res = await call('/api/resources/images?destination=img-case', withKey({ method: 'POST', body: form([['dot.png', PNG_1x1]], 'File') }));
    expect(res.status).toBe(201);
  });

  it('a malformed multipart body is refused with 400 JSON; several files go in one request', async () => {
    for (const [type, body] of [
      ['multipart/form-data', '--x\r\n\r\n'],
      ['multipart/form-data; boundary=x', 'no parts here'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nunterminated'],
    ]) {
      const res = await call('/api/resources/images', withKey({ method: 'POST', headers: { 'content-type': type }, body }));
      expect(res.status, body).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request', details: [{ path: 'file', reason: 'malformed multipart body' }] });
    }
    const res = await upload('images', [['one.png', PNG_1x1], ['two.png', PNG_1x1], ['one.png', PNG_1x1]], '?destination=img-many');
    expect(res.status).toBe(201);
    expect(((await res.json()) as Array<{ name: string }>).map((i) => i.name)).toEqual(['img-many/one.png', 'img-many/two.png', 'img-many/one_1.png']);
  });

  it('uploads over 100 MB are refused with 413', async () => {
    const res = await call('/api/resources/images', withKey({
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(101 * 1024 * 1024) },
      body: 'x',
    }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('delete by path or query; the thumbnails go too', async () => {
    // An image no other file previews, and the thumbnails its preview made: other files sharing
    // the runtime (vitest.shared.config.ts) leave thumbnails of theirs.
    const before = await keys('thumbs/');
    await upload('images', [['del.jpg', await testAsset('marker-40x20-exif8.jpg')]], '?destination=img-del&overwrite=true');
    expect((await call('/api/resources/images/preview?file=img-del/del.jpg')).status).toBe(200);
    const made = (await keys('thumbs/')).filter((k) => !before.includes(k));
    expect(made.length).toBeGreaterThan(0);
    expect((await call('/api/resources/images/img-del/del.jpg', withKey({ method: 'DELETE' }))).status).toBe(200);
    expect((await call('/api/resources/images?file=img-del/del.jpg', withKey({ method: 'DELETE' }))).status).toBe(404);
    expect((await keys('thumbs/')).filter((k) => made.includes(k))).toEqual([]);
  });
});

describe('fonts', () => {
  it('upload lists the font by its names; reload rebuilds; delete removes it', async () => {
    const ttf = await bundledFont('LiberationSans-Regular.ttf');
    const res = await upload('fonts', [['Brand-Bold.ttf', ttf]]);
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual(['Brand-Bold.ttf']);
    const list = (await (await call('/api/resources/fonts')).json()) as { total: number; items: unknown[] };
    expect(list.items).toContainEqual({ fullName: 'Liberation Sans', style: 'Regular', family: 'Liberation Sans', postscriptName: 'LiberationSans' });

    await env.FILES.put('fonts/direct/Other.ttf', ttf);
    expect((await call('/api/resources/fonts/reload', withKey({ method: 'POST' }))).status).toBe(200);
    expect(((await (await call('/api/resources/fonts')).json()) as { total: number }).total).toBe(list.total + 1);

    expect((await call('/api/resources/fonts/Brand-Bold.ttf', withKey({ method: 'DELETE' }))).status).toBe(200);
    expect(((await (await call('/api/resources/fonts')).json()) as { total: number }).total).toBe(list.total);
  });

  it('refuses a file that is not a font with 422', async () => {
    const res = await upload('fonts', [['x.ttf', 'hello world, not a font']]);
    expect(res.status).toBe(422);
    expect(await keys('fonts/x.ttf')).toEqual([]);
  });
});
