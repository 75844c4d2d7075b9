// Back office > Assets, the page itself (issue 24): the list is one block the upload script
// fetches again and swaps in (no "reload the page to see them"), folder and file icons are inline
// SVG (no emoji, which render as empty boxes without an emoji font), long names and ids wrap
// instead of clipping, and thumbnails sit on a checkerboard inside a visible border so white ones
// show. Server-rendered, so asserted on the HTML.
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { AssetRow } from '../../../src/platform/assets';
import { placeholder } from '../../../src/admin/backoffice/assets';
import { psdFixture } from '../../helpers/fixtures';
import { get, makeTenant, post, signIn, type Browser } from '../../identity/admin/helpers';

const EMOJI = /\p{Extended_Pictographic}/u;

/** The page's XHR upload: multipart, Accept JSON, the token as X-CSRF-Token. */
async function xhrUpload(admin: Browser, name: string, folderId = '') {
  const form = new FormData();
  form.set('_csrf', admin.csrf);
  form.set('folderId', folderId);
  form.set('file', new File([await psdFixture('psdtools-text.psd')], name, { type: 'image/vnd.adobe.photoshop' }));
  const res = await exports.default.fetch('http://localhost/admin/assets/designs/upload', {
    method: 'POST',
    headers: { cookie: admin.cookie, accept: 'application/json', 'x-csrf-token': admin.csrf },
    body: form,
    redirect: 'manual',
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string; name: string };
}

/** The `<div class="table-wrap" id="asset-list">…</div>` block the script swaps. */
const listBlock = (html: string) => /<div class="table-wrap" id="asset-list">([\s\S]*?)<\/table><\/div>/.exec(html)?.[1];

describe('back office: the Assets page (issue 24)', () => {
  it('draws folder icons and the way up as inline SVG, with no emoji on the page', async () => {
    const t = await makeTenant();
    const admin = await signIn(t.admin);
    const made = await post('/admin/assets/designs/folders', admin, { parentId: '', name: 'Cards' });
    expect(made.status).toBe(303);
    await post('/admin/assets/designs/folders', admin, { parentId: '', name: 'Flyers' });

    const root = await (await get('/admin/assets/designs', admin)).text();
    expect(root).not.toMatch(EMOJI);
    const rows = [...listBlock(root)!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).filter((r) => r.includes('Folder</td>'));
    expect(rows.length).toBe(2);
    for (const row of rows) expect(row).toMatch(/^<td><svg class="icon" width="20" height="20" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path /);

    const inside = await (await get(made.headers.get('location')!, admin)).text();
    expect(inside).not.toMatch(EMOJI);
    expect(listBlock(inside)).toMatch(/<td><svg class="icon"[^>]*>[\s\S]*?<\/svg><\/td><td colspan="4"><a href="\/admin\/assets\/designs">Up to \/<\/a>/);
  });

  it('keeps the list in one block the upload script fetches again, so files that went up show without a reload', async () => {
    const t = await makeTenant();
    const admin = await signIn(t.admin);
    const before = await (await get('/admin/assets/designs', admin)).text();
    expect(listBlock(before)).toContain('This folder is empty.');
    expect(before).not.toContain('reload the page to see them');
    expect(before).toContain("getElementById('asset-list')");
    expect(before).toContain('fetch(location.href');

    // What the script's fetch gets after one upload: the block with the new design in it.
    const created = await xhrUpload(admin, 'card.psd');
    const after = await (await get('/admin/assets/designs', admin)).text();
    expect(listBlock(after)).toContain(`href="/admin/assets/designs/${created.id}">card</a>`);
    expect(listBlock(after)).not.toContain('This folder is empty.');
  });

  it('wraps long names and ids instead of clipping them, and frames thumbnails so white ones show', async () => {
    const t = await makeTenant();
    const admin = await signIn(t.admin);
    const long = `${'poster-'.repeat(30)}final`;
    const created = await xhrUpload(admin, `${long}.psd`);
    const list = await (await get('/admin/assets/designs', admin)).text();
    expect(list).toContain(`>${long}</a>`);
    expect(list).toMatch(/\.assets-layout td,[^{]*\{overflow-wrap:anywhere/);
    expect(list).toMatch(/\.thumb,\.thumb-lg\{background:repeating-conic-gradient\([^)]*\)[^;]*;border:1px solid #8a96a8/);
    const page = await (await get(`/admin/assets/designs/${created.id}`, admin)).text();
    expect(page).toContain(`<code>${created.id}</code>`);
    expect(page).toMatch(/dl\.props dd code\{overflow-wrap:anywhere/);
    expect(page).toMatch(/\.pair\{display:grid;grid-template-columns:repeat\(auto-fit,minmax\(min\(260px,100%\),1fr\)\)/);
    expect(page).toContain('class="thumb-lg"');
  });

  it('draws a file outline (not a character that may be missing) for assets without a picture', () => {
    const svg = placeholder({ type: 'mockup', mockupType: 'Mockup3D', metadata: {} } as unknown as AssetRow);
    expect(svg).toContain('<path d="M92 50h40');
    expect(svg).toContain('>Mockup3D</text>');
    expect(svg).not.toMatch(EMOJI);
    expect(placeholder({ type: 'font', metadata: { family: 'Liberation Sans' } } as unknown as AssetRow)).toContain('>Aa</text>');
  });
});
