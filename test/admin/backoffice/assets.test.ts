// Back office > Assets inside workerd, against the real D1 and R2: the folder page with its tree
// and thumbnails, uploads (form post and the XHR's JSON answer), rename, move, custom fields and
// delete, a design's variables and missing fonts, 409 reasons, validation errors beside their
// fields, and CSRF refusals that change nothing.
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { bundledFont, psdFixture, testAsset } from '../../helpers/fixtures';
import { cookiesFrom, get, makeTenant, post, signIn, type Browser } from '../../identity/admin/helpers';

/**
 * Posts a multipart upload as the page does: `json` like its XHR (Accept: application/json, the
 * token as X-CSRF-Token, so the body streams), else like the form without script (token in the body).
 */
function upload(path: string, browser: Browser, file: { bytes: Uint8Array; name: string; type?: string } | null, opts: { folderId?: string; csrf?: string | null; json?: boolean } = {}) {
  const form = new FormData();
  const token = opts.csrf === null ? null : (opts.csrf ?? browser.csrf);
  if (token !== null) form.set('_csrf', opts.json ? browser.csrf : token);
  form.set('folderId', opts.folderId ?? '');
  if (file) form.set('file', new File([file.bytes], file.name, { type: file.type ?? 'application/octet-stream' }));
  return exports.default.fetch(`http://localhost${path}`, {
    method: 'POST',
    headers: { cookie: browser.cookie, ...(opts.json ? { accept: 'application/json', ...(token !== null ? { 'x-csrf-token': token } : {}) } : {}) },
    body: form,
    redirect: 'manual',
  });
}

const assetsOf = async (tenantId: number) =>
  (await env.DB.prepare(`SELECT id, type, name, folder_id AS folderId, custom_fields AS customFields FROM assets WHERE tenant_id = ?1 ORDER BY name`).bind(tenantId).all<{
    id: string;
    type: string;
    name: string;
    folderId: string;
    customFields: string;
  }>()).results;
const foldersOf = async (tenantId: number) =>
  (await env.DB.prepare(`SELECT id, type, name, path FROM folders WHERE tenant_id = ?1 ORDER BY path`).bind(tenantId).all<{ id: string; type: string; name: string; path: string }>()).results;

/** The text of the `<span class="error" id="{id}-error">` beside a field. */
const errorBeside = (html: string, id: string) => new RegExp(`id="${id}-error"[^>]*>([^<]*)<`).exec(html)?.[1];

async function setup() {
  const t = await makeTenant();
  const admin = await signIn(t.admin);
  return { t, admin };
}

async function uploadPsd(admin: Browser, name = 'card.psd', folderId = '') {
  const res = await upload('/admin/assets/designs/upload', admin, { bytes: await psdFixture('psdtools-text.psd'), name, type: 'image/vnd.adobe.photoshop' }, { folderId, json: true });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string; name: string; location: string };
}

describe('back office: assets', () => {
  it('shows the Assets page in the back-office navigation, with tabs, the folder tree and an upload form', async () => {
    const { admin } = await setup();
    const start = await get('/admin/assets', admin);
    expect(start.status).toBe(303);
    expect(start.headers.get('location')).toBe('/admin/assets/designs');
    const res = await get('/admin/assets/designs', admin);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<a href="\/admin\/assets" aria-current="page">Assets<\/a>/);
    for (const tab of ['designs', 'mockups', 'images', 'fonts']) expect(html).toContain(`href="/admin/assets/${tab}"`);
    expect(html).toContain('enctype="multipart/form-data"');
    expect(html).toContain('This folder is empty.');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'nonce-.*connect-src 'self'/);
    expect((await get('/admin/assets/videos', admin)).status).toBe(404);
  });

  it('uploads a PSD by XHR (JSON answer), lists it with a thumbnail, and shows its variables and missing fonts', async () => {
    const { t, admin } = await setup();
    const res = await upload('/admin/assets/designs/upload', admin, { bytes: await psdFixture('psdtools-text.psd'), name: 'card.psd', type: 'image/vnd.adobe.photoshop' }, { json: true });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; name: string; location: string };
    expect(created.name).toBe('card');
    expect(created.location).toBe(`/admin/assets/designs/${created.id}`);
    const list = await (await get('/admin/assets/designs', admin, cookiesFrom(res))).text();
    expect(list).toContain(`href="/admin/assets/designs/${created.id}">card</a>`);
    expect(list).toContain(`src="/admin/assets/designs/${created.id}/thumbnail"`);
    expect(list).toContain('Uploaded &quot;card&quot;.'); // the flash the XHR answer set

    const thumb = await get(`/admin/assets/designs/${created.id}/thumbnail`, admin);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    const jpeg = new Uint8Array(await thumb.arrayBuffer());
    expect([jpeg[0], jpeg[1]]).toEqual([0xff, 0xd8]);

    const page = await (await get(created.location, admin)).text();
    expect(page).toContain('<h2 id="vars-h">Variables</h2>');
    expect(page).toMatch(/<td><code>[^<]+<\/code><\/td><td>Text<\/td>/);
    expect(page).toContain('missing font');
    expect(page).toContain('<code>ArialMT</code>');
    const file = await get(`${created.location}/file`, admin);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="card.psd"/);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    expect((await assetsOf(t.id)).map((a) => a.type)).toEqual(['design']);
  });

  it('uploads by a plain form post (no script): redirect with a banner; an image gets a JPEG thumbnail, a font a placeholder', async () => {
    const { t, admin } = await setup();
    const img = await upload('/admin/assets/images/upload', admin, { bytes: await testAsset('marker-40x20.jpg'), name: 'marker.jpg', type: 'image/jpeg' });
    expect(img.status).toBe(303);
    expect(img.headers.get('location')).toBe('/admin/assets/images');
    const [row] = await assetsOf(t.id);
    const thumb = await get(`/admin/assets/images/${row!.id}/thumbnail`, admin);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');

    const font = await upload('/admin/assets/fonts/upload', admin, { bytes: await bundledFont('LiberationSans-Regular.ttf'), name: 'LiberationSans-Regular.ttf', type: 'font/ttf' }, { json: true });
    expect(font.status).toBe(201);
    const { id } = (await font.json()) as { id: string };
    const ph = await get(`/admin/assets/fonts/${id}/thumbnail`, admin);
    expect(ph.headers.get('content-type')).toBe('image/svg+xml');
    expect(ph.headers.get('x-thumbnail')).toBe('none');
    expect(await (await get(`/admin/assets/fonts/${id}`, admin)).text()).toContain('LiberationSans');

    const mockup = await upload('/admin/assets/mockups/upload', admin, { bytes: await psdFixture('agpsd-shapes-smart-objects.psd'), name: 'mug.psd', type: 'image/vnd.adobe.photoshop' }, { json: true });
    expect(mockup.status).toBe(201);
    const m = (await mockup.json()) as { id: string };
    const mt = await get(`/admin/assets/mockups/${m.id}/thumbnail`, admin);
    expect(mt.headers.get('content-type')).toBe('image/jpeg');
    expect((await get(`/admin/assets/mockups`, admin)).status).toBe(200);
  });

  it('takes uploads larger than the 256 KB cap of other admin forms, by form post and by the streamed XHR', async () => {
    const { t, admin } = await setup();
    const big = await psdFixture('psdrb-example-design.psd');
    expect(big.byteLength).toBeGreaterThan(256 * 1024);
    const form = await upload('/admin/assets/designs/upload', admin, { bytes: big, name: 'big.psd', type: 'image/vnd.adobe.photoshop' });
    expect(form.status).toBe(303);
    const xhr = await upload('/admin/assets/mockups/upload', admin, { bytes: big, name: 'big.psd', type: 'image/vnd.adobe.photoshop' }, { json: true });
    expect(xhr.status).toBe(201);
    expect((await assetsOf(t.id)).map((a) => `${a.type}:${a.name}`).sort()).toEqual(['design:big', 'mockup:big']);
    // Other admin forms keep their cap.
    const fields = await post(`/admin/assets/designs/folders`, admin, { parentId: '', name: 'x'.repeat(300 * 1024) });
    expect(fields.status).toBe(413);
  });

  it('refuses bad uploads with the reason beside the file field (form) or in JSON (XHR), and stores nothing', async () => {
    const { t, admin } = await setup();
    const none = await upload('/admin/assets/designs/upload', admin, null);
    expect(none.status).toBe(400);
    const html = await none.text();
    expect(html).toContain('Choose a file to upload.');
    expect(html).toMatch(/id="upload-file"[^>]*aria-invalid="true"/);

    const junk = await upload('/admin/assets/designs/upload', admin, { bytes: new TextEncoder().encode('not a design at all'), name: 'junk.psd' }, { json: true });
    expect(junk.status).toBeGreaterThanOrEqual(400);
    expect(junk.status).toBeLessThan(500);
    expect(junk.headers.get('content-type')).toContain('application/json');
    const body = (await junk.json()) as { message: string; errors: { file: string[] } };
    expect(body.errors.file[0]!.length).toBeGreaterThan(5);

    const junkForm = await upload('/admin/assets/designs/upload', admin, { bytes: new TextEncoder().encode('not a design at all'), name: 'junk.psd' });
    expect(junkForm.status).toBeGreaterThanOrEqual(400);
    expect(junkForm.status).toBeLessThan(500);
    expect((await junkForm.text()).match(/id="upload-file-live"[^>]*>([^<]+)</)?.[1]?.length).toBeGreaterThan(5);

    const empty = await upload('/admin/assets/images/upload', admin, { bytes: new Uint8Array(0), name: 'empty.png' }, { json: true });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { errors: { file: string[] } }).errors.file[0]).toContain('empty');

    const noFolder = await upload('/admin/assets/images/upload', admin, { bytes: await testAsset('marker-40x20.jpg'), name: 'm.jpg' }, { json: true, folderId: 'nope' });
    expect(noFolder.status).toBe(404);
    expect(await assetsOf(t.id)).toEqual([]);
  });

  it('creates folders (errors beside the name), moves and renames assets, and shows a 409 name clash beside the name', async () => {
    const { t, admin } = await setup();
    const blank = await post('/admin/assets/designs/folders', admin, { parentId: '', name: '  ' });
    expect(blank.status).toBe(400);
    expect(errorBeside(await blank.text(), 'folder-name')).toContain('blank');
    const slash = await post('/admin/assets/designs/folders', admin, { parentId: '', name: 'a/b' });
    expect(errorBeside(await slash.text(), 'folder-name')).toContain('/');

    const made = await post('/admin/assets/designs/folders', admin, { parentId: '', name: 'Cards' });
    expect(made.status).toBe(303);
    const [cards] = await foldersOf(t.id);
    expect(cards).toMatchObject({ name: 'Cards', path: '/Cards/', type: 'design' });
    expect(made.headers.get('location')).toBe(`/admin/assets/designs?folder=${cards!.id}`);
    const again = await post('/admin/assets/designs/folders', admin, { parentId: '', name: 'cards' });
    expect(again.status).toBe(409);
    expect(errorBeside(await again.text(), 'folder-name')).toContain('already exists');

    const a = await uploadPsd(admin, 'a.psd');
    const b = await uploadPsd(admin, 'b.psd', cards!.id);
    const tree = await (await get(`/admin/assets/designs?folder=${cards!.id}`, admin)).text();
    expect(tree).toContain(`href="/admin/assets/designs?folder=${cards!.id}" aria-current="page">Cards</a>`);
    expect(tree).toContain(`>b</a>`);
    expect(tree).not.toContain(`>a</a>`);

    const moved = await post(`/admin/assets/designs/${a.id}/move`, admin, { folderId: cards!.id });
    expect(moved.status).toBe(303);
    expect((await assetsOf(t.id)).find((x) => x.id === a.id)?.folderId).toBe(cards!.id);
    const clash = await post(`/admin/assets/designs/${a.id}/rename`, admin, { name: 'B' });
    expect(clash.status).toBe(409);
    const clashHtml = await clash.text();
    expect(errorBeside(clashHtml, 'asset-name')).toContain('already exists');
    expect(clashHtml).toContain('value="B"');
    const blankName = await post(`/admin/assets/designs/${a.id}/rename`, admin, { name: '' });
    expect(blankName.status).toBe(400);
    expect(errorBeside(await blankName.text(), 'asset-name')).toContain('blank');
    const renamed = await post(`/admin/assets/designs/${a.id}/rename`, admin, { name: 'Front' });
    expect(renamed.status).toBe(303);
    expect((await assetsOf(t.id)).map((x) => x.name).sort()).toEqual(['Front', 'b']);
    const badMove = await post(`/admin/assets/designs/${b.id}/move`, admin, { folderId: 'nope' });
    expect(badMove.status).toBe(404);
  });

  it('edits custom fields: JSON errors beside the field, an object replaces them', async () => {
    const { t, admin } = await setup();
    const a = await uploadPsd(admin);
    const bad = await post(`/admin/assets/designs/${a.id}/fields`, admin, { customFields: '{"colour": ' });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(errorBeside(html, 'asset-fields')).toMatch(/^Not JSON/);
    expect(html).toContain('{&quot;colour&quot;: </textarea>');
    const arr = await post(`/admin/assets/designs/${a.id}/fields`, admin, { customFields: '[1]' });
    expect(errorBeside(await arr.text(), 'asset-fields')).toContain('JSON object');
    const ok = await post(`/admin/assets/designs/${a.id}/fields`, admin, { customFields: '{"colour": "red", "sku": 12}' });
    expect(ok.status).toBe(303);
    expect(JSON.parse((await assetsOf(t.id))[0]!.customFields)).toEqual({ colour: 'red', sku: 12 });
  });

  it('deletes assets and folders; a 409 shows the platform reason and keeps them', async () => {
    const { t, admin } = await setup();
    await post('/admin/assets/images/folders', admin, { parentId: '', name: 'Photos' });
    const [photos] = await foldersOf(t.id);
    const img = await upload('/admin/assets/images/upload', admin, { bytes: await testAsset('marker-40x20.jpg'), name: 'm.jpg', type: 'image/jpeg' }, { json: true, folderId: photos!.id });
    const { id } = (await img.json()) as { id: string };
    // A design a project keeps names the image as its source: the image cannot go.
    await env.DB.prepare(
      `INSERT INTO assets (tenant_id, id, type, owner_id, folder_id, name, size, metadata, retention_policy, design_type, source_id) VALUES (?1, ?2, 'design', 'shopper', '', 'kept', 0, '{}', 'Never', 'PrintProduct', ?3)`,
    ).bind(t.id, `kept-${t.id}`, id).run();
    const refused = await post(`/admin/assets/images/${id}/delete`, admin, {});
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain(`is used by the design kept-${t.id}`);

    const folderRefused = await post(`/admin/assets/images/folders/${photos!.id}/delete`, admin, {});
    expect(folderRefused.status).toBe(409);
    expect(await folderRefused.text()).toContain('is not empty');
    expect((await foldersOf(t.id)).length).toBe(1);

    await env.DB.prepare(`DELETE FROM assets WHERE tenant_id = ?1 AND id = ?2`).bind(t.id, `kept-${t.id}`).run();
    const deleted = await post(`/admin/assets/images/${id}/delete`, admin, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe(`/admin/assets/images?folder=${photos!.id}`);
    expect(await assetsOf(t.id)).toEqual([]);
    expect((await get(`/admin/assets/images/${id}`, admin)).status).toBe(404);
    const folderDeleted = await post(`/admin/assets/images/folders/${photos!.id}/delete`, admin, {});
    expect(folderDeleted.status).toBe(303);
    expect(await foldersOf(t.id)).toEqual([]);
  });

  it('renames and moves folders; moving a folder into itself is refused beside the field', async () => {
    const { t, admin } = await setup();
    await post('/admin/assets/mockups/folders', admin, { parentId: '', name: 'A' });
    await post('/admin/assets/mockups/folders', admin, { parentId: '', name: 'B' });
    const [a, b] = await foldersOf(t.id);
    const into = await post(`/admin/assets/mockups/folders/${a!.id}`, admin, { name: 'A', parentId: a!.id });
    expect(into.status).toBe(400);
    expect(errorBeside(await into.text(), 'folder-parent')).toContain('itself');
    const ok = await post(`/admin/assets/mockups/folders/${a!.id}`, admin, { name: 'Inner', parentId: b!.id });
    expect(ok.status).toBe(303);
    expect((await foldersOf(t.id)).map((f) => f.path)).toEqual(['/B/', '/B/Inner/']);
  });

  it('refuses every asset form without the session CSRF token (403) and changes nothing', async () => {
    const { t, admin } = await setup();
    const a = await uploadPsd(admin);
    await post('/admin/assets/designs/folders', admin, { parentId: '', name: 'Keep' });
    const [keep] = await foldersOf(t.id);
    const before = { assets: await assetsOf(t.id), folders: await foldersOf(t.id) };
    for (const csrf of [null, 'forged-token']) {
      const posts: [string, Record<string, string>][] = [
        [`/admin/assets/designs/${a.id}/rename`, { name: 'X' }],
        [`/admin/assets/designs/${a.id}/move`, { folderId: keep!.id }],
        [`/admin/assets/designs/${a.id}/fields`, { customFields: '{"a":1}' }],
        [`/admin/assets/designs/${a.id}/delete`, {}],
        ['/admin/assets/designs/folders', { parentId: '', name: 'New' }],
        [`/admin/assets/designs/folders/${keep!.id}`, { name: 'Y', parentId: '' }],
        [`/admin/assets/designs/folders/${keep!.id}/delete`, { recursive: 'true' }],
      ];
      for (const [path, fields] of posts) {
        const res = await post(path, admin, fields, csrf);
        expect(res.status, path).toBe(403);
        expect(await res.text()).toContain('nothing was changed');
      }
      for (const json of [true, false]) {
        const up = await upload('/admin/assets/designs/upload', admin, { bytes: await psdFixture('psdtools-text.psd'), name: 'x.psd' }, { csrf, json });
        expect(up.status).toBe(403);
      }
    }
    expect({ assets: await assetsOf(t.id), folders: await foldersOf(t.id) }).toEqual(before);
  });

  it('keeps tenants apart: another tenant’s asset is a 404', async () => {
    const one = await setup();
    const other = await setup();
    const a = await uploadPsd(one.admin);
    expect((await get(`/admin/assets/designs/${a.id}`, other.admin)).status).toBe(404);
    expect((await get(`/admin/assets/designs/${a.id}/thumbnail`, other.admin)).status).toBe(404);
    expect((await post(`/admin/assets/designs/${a.id}/delete`, other.admin, {})).status).toBe(404);
    expect((await assetsOf(one.t.id)).length).toBe(1);
  });
});
