// Back office > Assets: the tenant's public designs, mockups, images and fonts as a folder tree
// and file list with thumbnails. Files go up by drag and drop or the file picker; the page's
// script sends each one with XMLHttpRequest (upload progress) to the same form action, which
// also works without the script. An asset's page renames, moves, edits custom fields and
// deletes (a 409 shows the platform's reason); a design's page lists its variables and the
// fonts the font check cannot find. Everything goes through the asset service (asset-files.ts).
//
//   GET  /admin/assets/{tab}?folder=                 tab = designs | mockups | images | fonts
//   POST /admin/assets/{tab}/upload                  multipart file (JSON answer when Accept: application/json;
//                                                    streamed to storage when the token comes as X-CSRF-Token)
//   POST /admin/assets/{tab}/folders                 new folder · /folders/{id} rename, move · /folders/{id}/delete
//   GET  /admin/assets/{tab}/{id}                    the asset's page · /thumbnail · /file (download)
//   POST /admin/assets/{tab}/{id}/rename · /move · /fields · /delete
import { Hono } from 'hono';
import type { Child } from 'hono/jsx';
import { notFound } from '../../errors';
import * as assets from '../../platform/assets';
import type { AssetRow, AssetScope } from '../../platform/assets';
import { EXTENSION } from '../../platform/assets/model';
import { checkDesign } from '../../platform/api/processor/service';
import { ConflictError, PlatformError, ValidationError, type ErrorsByPath } from '../../platform/core';
import { field, type FormBody } from '../../identity/admin/form-body';
import { done, render, setFlash, type AdminContextOf, type AdminEnv } from '../../identity/admin/guard';
import { CsrfField, Field, Table, dateTime, describedBy } from '../../identity/admin/layout';
import { ASSET_TABS, designVariables, isAssetTab, scopeOf, thumbnail, uploadAsset, uploadRequest, type AssetTab, type DesignVariable } from './asset-files';
import { tenantOf } from './context';

export const assetsRoutes = new Hono<AdminEnv>();

type Folder = Awaited<ReturnType<typeof assets.allFolders>>[number];
/** What went wrong with a post: the status, a banner, and messages beside named fields. */
interface Problem {
  status: 400 | 404 | 409 | 413 | 415 | 422;
  banner: string;
  fields: Record<string, string>;
}

const base = (tab: AssetTab) => `/admin/assets/${tab}`;
const folderUrl = (tab: AssetTab, folderId: string) => (folderId ? `${base(tab)}?folder=${encodeURIComponent(folderId)}` : base(tab));
const assetUrl = (tab: AssetTab, id: string) => `${base(tab)}/${encodeURIComponent(id)}`;

function tabOf(c: AdminContextOf): AssetTab {
  const tab = c.req.param('tab');
  if (!isAssetTab(tab)) throw notFound('There is no such asset type. The Assets page has designs, mockups, images and fonts.');
  return tab;
}

/** A platform error as a problem to show (ValidationError paths → fields, `alias` renames one); other errors rethrown. */
function problemOf(e: unknown, alias: Record<string, string> = {}): Problem {
  if (e instanceof ConflictError) return { status: 409, banner: e.description, fields: {} };
  if (e instanceof PlatformError && e.status !== 403 && e.status !== 501) {
    const fields: Record<string, string> = {};
    for (const [path, messages] of Object.entries((e.errors ?? {}) as ErrorsByPath)) {
      const key = alias[path] ?? path;
      fields[key] = [fields[key], ...messages].filter(Boolean).join(' ');
    }
    const detail = Object.values(fields).join(' ');
    const banner = e.status === 400 ? `Nothing was changed: ${detail || e.message}` : `${e.message}${detail && !e.message.includes(detail) ? ` ${detail}` : ''}`;
    return { status: e.status as Problem['status'], banner, fields };
  }
  throw e;
}

const fmtSize = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
const folderLabel = (f: Folder | { path: string }) => (f.path === '/' ? 'Root (/)' : f.path);
const kindOf = (row: AssetRow) => (row.type === 'design' ? (row.designType ?? 'Psd') : row.type === 'mockup' ? (row.mockupType ?? 'Mockup2D') : (row.format ?? row.mimeType ?? '—'));

const STYLE = `
.tabs{display:flex;gap:.25rem;flex-wrap:wrap;border-bottom:1px solid var(--line);margin-bottom:1.25rem}
.tabs a{padding:.5rem .9rem;border-radius:6px 6px 0 0;text-decoration:none;border:1px solid transparent;margin-bottom:-1px}
.tabs a[aria-current=page]{background:var(--card);border-color:var(--line);border-bottom-color:var(--card);font-weight:600;color:var(--text)}
.assets-layout{display:grid;grid-template-columns:minmax(170px,230px) minmax(0,1fr);gap:1.25rem;align-items:start}
.tree,.tree ul{list-style:none;margin:0;padding:0}.tree ul{padding-left:1rem;border-left:1px solid var(--line);margin-left:.4rem}
.tree a{display:block;padding:.25rem .4rem;border-radius:4px;text-decoration:none;overflow-wrap:anywhere}
.tree a[aria-current=page]{background:var(--info-bg);font-weight:600}
.drop{border:2px dashed #8a96a8;border-radius:var(--radius);padding:1rem;background:#fafbfd}
.drop.over{border-color:var(--brand);background:var(--info-bg)}
progress{width:100%;max-width:38rem;height:1rem}
.thumb,.thumb-lg{background:repeating-conic-gradient(#e3e7ee 0 25%,#fff 0 50%) 0 0/12px 12px;border:1px solid #8a96a8;display:block}
.thumb{width:64px;height:64px;object-fit:contain;border-radius:4px}
.thumb-lg{max-width:100%;width:240px;height:auto;border-radius:6px}
.icon{display:block;flex:none}
.up{display:inline-flex;gap:.4rem;align-items:center}
.pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(260px,100%),1fr));gap:1.25rem}
.pair>*,.assets-layout>*{min-width:0}
.assets-layout td,h1,h2 code,.small a,dl.props dd,dl.props dd code{overflow-wrap:anywhere;word-break:break-word}
@media (max-width:760px){.assets-layout{grid-template-columns:1fr}}
`;

/** The page script: uploads each chosen or dropped file with XHR, showing progress; without it the form posts one file. */
const UPLOAD_SCRIPT = `(() => {
  const form = document.getElementById('upload-form');
  if (!form) return;
  const input = document.getElementById('upload-file');
  const zone = document.getElementById('drop-zone');
  const bar = document.getElementById('upload-progress');
  const status = document.getElementById('upload-status');
  const error = document.getElementById('upload-file-live');
  const button = form.querySelector('button[type=submit]');
  let busy = false;
  const say = (t) => { status.textContent = t; };
  const reason = (r, name) => {
    const b = r.body;
    const why = b && b.errors ? Object.values(b.errors).flat().join(' ') : '';
    if (why || (b && b.message)) return name + ': ' + (why || b.message);
    if (r.status === 403) return name + ': the page expired or you were signed out. Reload the page and try again.';
    if (r.status === 413) return name + ': the file is larger than the upload limit.';
    return name + ': the upload failed' + (r.status ? ' (HTTP ' + r.status + ')' : ' (no connection)') + '.';
  };
  const send = (file) => new Promise((resolve) => {
    const data = new FormData(form);
    data.delete('file');
    data.append('file', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('X-CSRF-Token', form.elements._csrf.value);
    xhr.upload.onprogress = (e) => {
      if (!e.lengthComputable) return;
      bar.max = e.total; bar.value = e.loaded;
      say('Uploading ' + file.name + ': ' + Math.round((e.loaded * 100) / e.total) + '%');
    };
    xhr.upload.onload = () => say('Checking ' + file.name + '…');
    xhr.onload = () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
      resolve({ ok: xhr.status >= 200 && xhr.status < 300, status: xhr.status, body });
    };
    xhr.onerror = () => resolve({ ok: false, status: 0, body: null });
    xhr.send(data);
  });
  const refresh = async () => {
    try {
      const res = await fetch(location.href, { headers: { Accept: 'text/html' } });
      if (!res.ok) return false;
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html').getElementById('asset-list');
      const old = document.getElementById('asset-list');
      if (!fresh || !old) return false;
      old.replaceWith(document.importNode(fresh, true));
      return true;
    } catch (e) { return false; }
  };
  const upload = async (files) => {
    if (busy) return;
    error.textContent = '';
    input.removeAttribute('aria-invalid');
    if (!files.length) { error.textContent = 'Choose a file to upload.'; input.setAttribute('aria-invalid', 'true'); input.focus(); return; }
    busy = true; button.disabled = true; bar.hidden = false;
    const problems = [];
    let uploaded = 0;
    for (const f of files) {
      const r = await send(f);
      if (r.ok) uploaded++; else problems.push(reason(r, f.name));
    }
    busy = false; button.disabled = false; bar.hidden = true;
    if (!problems.length) { say('Uploaded ' + uploaded + ' file' + (uploaded === 1 ? '' : 's') + '.'); location.reload(); return; }
    // Some went up: the list is fetched again and swapped in, so the refusals stay on screen.
    if (uploaded) say(uploaded + ' of ' + files.length + ' files uploaded' + ((await refresh()) ? '; they are in the list below.' : '.'));
    else say('Nothing was uploaded.');
    error.textContent = problems.join(' ');
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); upload([...input.files]); });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => { e.preventDefault(); zone.classList.remove('over'); upload([...e.dataTransfer.files]); });
})();`;

/** Icons drawn inline (an emoji is an empty box where no emoji font is installed). */
const iconProps = { class: 'icon', width: 20, height: 20, viewBox: '0 0 24 24', 'aria-hidden': 'true', focusable: 'false' } as const;
const FOLDER_PATH = 'M2.5 6.5a2 2 0 0 1 2-2h4.6l2 2.2h8.4a2 2 0 0 1 2 2v9.8a2 2 0 0 1-2 2h-15a2 2 0 0 1-2-2z';

export function FolderIcon() {
  return (
    <svg {...iconProps}>
      <path d={FOLDER_PATH} fill="#f2c14e" stroke="#9a6b00" stroke-width="1.3" stroke-linejoin="round" />
    </svg>
  );
}

export function UpIcon() {
  return (
    <svg {...iconProps}>
      <path d={FOLDER_PATH} fill="none" stroke="#4a5565" stroke-width="1.3" stroke-linejoin="round" />
      <path d="M12 17.5v-7M8.8 13.4 12 10.2l3.2 3.2" fill="none" stroke="#4a5565" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}

function Tabs({ tab }: { tab: AssetTab }) {
  return (
    <nav class="tabs" aria-label="Asset types">
      {(Object.keys(ASSET_TABS) as AssetTab[]).map((t) => (
        <a href={base(t)} aria-current={t === tab ? 'page' : undefined}>
          {ASSET_TABS[t].label}
        </a>
      ))}
    </nav>
  );
}

function Tree({ tab, folders, current }: { tab: AssetTab; folders: Folder[]; current: string }) {
  const children = new Map<string, Folder[]>();
  for (const f of folders) children.set(f.parentId, [...(children.get(f.parentId) ?? []), f]);
  const branch = (parentId: string): Child => {
    const kids = children.get(parentId);
    if (!kids?.length) return null;
    return (
      <ul>
        {kids.map((f) => (
          <li>
            <a href={folderUrl(tab, f.id)} aria-current={f.id === current ? 'page' : undefined}>
              {f.name}
            </a>
            {branch(f.id)}
          </li>
        ))}
      </ul>
    );
  };
  return (
    <ul class="tree">
      <li>
        <a href={folderUrl(tab, '')} aria-current={current === '' ? 'page' : undefined}>
          Root (/)
        </a>
        {branch('')}
      </li>
    </ul>
  );
}

function FolderSelect(props: { id: string; name: string; folders: Folder[]; selected: string; exclude?: string; error?: string }) {
  return (
    <select id={props.id} name={props.name} {...describedBy(props.id, false, props.error)}>
      <option value="" selected={props.selected === ''}>
        Root (/)
      </option>
      {props.folders
        .filter((f) => !props.exclude || !f.path.toLowerCase().startsWith(props.exclude.toLowerCase()))
        .map((f) => (
          <option value={f.id} selected={props.selected === f.id}>
            {f.path}
          </option>
        ))}
    </select>
  );
}

/** The folder page of a tab; `problem` re-renders it after a failed post with its status. */
async function folderPage(c: AdminContextOf, tab: AssetTab, folderId: string, problem?: Problem, values: Record<string, string> = {}) {
  const s = scopeOf(tenantOf(c), tab);
  const fs = assets.folderScope(s);
  let folder: Folder;
  try {
    folder = (await assets.folderOr404(fs, folderId || null)) as Folder;
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound('There is no such folder.');
    throw e;
  }
  const [folders, subfolders, files] = await Promise.all([assets.allFolders(fs), assets.childFolders(fs, folder.id), assets.folderEntities(s, folder.id)]);
  const err = problem?.fields ?? {};
  const csrf = c.get('admin').csrf;
  const { label, accept } = ASSET_TABS[tab];
  const parent = folder.id ? folders.find((f) => f.id === folder.parentId) : undefined;
  return render(
    c,
    {
      title: `${label} ${folder.path}`,
      section: 'assets',
      banner: problem && { kind: 'error', text: problem.banner },
      script: UPLOAD_SCRIPT,
      body: (
        <>
          <style dangerouslySetInnerHTML={{ __html: STYLE }} />
          <h1>Assets</h1>
          <p class="lead">The designs, mockups, images and fonts products and storefronts use. Files here are the tenant's public assets.</p>
          <Tabs tab={tab} />
          <div class="assets-layout">
            <aside class="card" aria-labelledby="folders-h">
              <h2 id="folders-h">Folders</h2>
              <nav aria-label="Folders">
                <Tree tab={tab} folders={folders} current={folder.id} />
              </nav>
              <form method="post" action={`${base(tab)}/folders`} style="margin-top:1rem" novalidate>
                <CsrfField token={csrf} />
                <input type="hidden" name="parentId" value={folder.id} />
                <Field id="folder-name" label={`New folder in ${folder.path}`} error={err.folderName}>
                  <input id="folder-name" name="name" type="text" maxlength={255} value={values.folderName ?? ''} {...describedBy('folder-name', false, err.folderName)} />
                </Field>
                <button type="submit" class="secondary">
                  Create folder
                </button>
              </form>
            </aside>
            <div>
              <h2>
                <span class="sr-only">Folder </span>
                <code>{folder.path}</code>
              </h2>
              <form id="upload-form" method="post" action={`${base(tab)}/upload`} enctype="multipart/form-data" class="card" novalidate>
                <CsrfField token={csrf} />
                <input type="hidden" name="folderId" value={folder.id} />
                <div id="drop-zone" class="drop">
                  <div class="field" style="margin-bottom:.5rem">
                    <label for="upload-file">{`Upload ${label.toLowerCase()} to ${folder.path}`}</label>
                    <input id="upload-file" name="file" type="file" multiple accept={accept} aria-describedby="upload-file-hint upload-file-live" aria-invalid={err.file ? 'true' : undefined} />
                    <span class="hint" id="upload-file-hint">
                      Drop files here or choose them. Each file is checked as the storage API checks it (type, size, content).
                    </span>
                    <span class="error" id="upload-file-live" role="alert">
                      {err.file ?? ''}
                    </span>
                  </div>
                  <progress id="upload-progress" hidden max={1} value={0} aria-label="Upload progress"></progress>
                  <p id="upload-status" class="small muted" role="status" aria-live="polite" style="margin:.25rem 0"></p>
                  <button type="submit">Upload</button>
                </div>
              </form>
              <Table wrap={{ id: 'asset-list' }} caption={`Folders and files in ${folder.path}`} columns={[{ label: 'Thumbnail', hidden: true }, 'Name', 'Kind', { label: 'Size', opt: true }, { label: 'Changed', opt: true }]}>
                {parent !== undefined || folder.id ? (
                  <tr>
                    <td>
                      <UpIcon />
                    </td>
                    <td colspan={4}>
                      <a href={folderUrl(tab, folder.parentId)}>Up to {parent ? parent.path : '/'}</a>
                    </td>
                  </tr>
                ) : null}
                {subfolders.map((f) => (
                  <tr>
                    <td>
                      <FolderIcon />
                    </td>
                    <td>
                      <a href={folderUrl(tab, f.id)}>{`${f.name}/`}</a>
                    </td>
                    <td>Folder</td>
                    <td class="opt"></td>
                    <td class="opt">{dateTime(Math.floor(f.lastModified / 1000))}</td>
                  </tr>
                ))}
                {files.map((row) => (
                  <tr>
                    <td>
                      <img class="thumb" src={`${assetUrl(tab, row.id)}/thumbnail`} alt="" loading="lazy" width={64} height={64} />
                    </td>
                    <td>
                      <a href={assetUrl(tab, row.id)}>{row.name}</a>
                      {row.hasProblems && (
                        <>
                          {' '}
                          <span class="badge off">missing fonts</span>
                        </>
                      )}
                    </td>
                    <td>{kindOf(row)}</td>
                    <td class="opt">{fmtSize(row.size)}</td>
                    <td class="opt">{dateTime(Math.floor(row.lastModified / 1000))}</td>
                  </tr>
                ))}
                {!subfolders.length && !files.length && (
                  <tr>
                    <td colspan={5} class="muted">
                      This folder is empty.
                    </td>
                  </tr>
                )}
              </Table>
              {folder.id && (
                <div class="pair">
                  <form method="post" action={`${base(tab)}/folders/${encodeURIComponent(folder.id)}`} class="card" novalidate>
                    <h2>Rename or move this folder</h2>
                    <CsrfField token={csrf} />
                    <Field id="folder-rename" label="Name" error={err.name}>
                      <input id="folder-rename" name="name" type="text" maxlength={255} value={values.name ?? folder.name} {...describedBy('folder-rename', false, err.name)} />
                    </Field>
                    <Field id="folder-parent" label="Inside" error={err.parentId}>
                      <FolderSelect id="folder-parent" name="parentId" folders={folders} selected={values.parentId ?? folder.parentId} exclude={folder.path} error={err.parentId} />
                    </Field>
                    <button type="submit">Save folder</button>
                  </form>
                  <form method="post" action={`${base(tab)}/folders/${encodeURIComponent(folder.id)}/delete`} class="card danger">
                    <h2>Delete this folder</h2>
                    <CsrfField token={csrf} />
                    <p class="small muted">An empty folder goes at once; a folder with files or subfolders only with the box below ticked.</p>
                    <label class="check">
                      <input type="checkbox" name="recursive" value="true" />
                      <span>Also delete everything inside it</span>
                    </label>
                    <div class="actions">
                      <button type="submit" class="danger">
                        Delete folder
                      </button>
                    </div>
                  </form>
                </div>
              )}
            </div>
          </div>
        </>
      ),
    },
    problem?.status ?? 200,
  );
}

async function rowOf(c: AdminContextOf, tab: AssetTab): Promise<{ s: AssetScope; row: AssetRow }> {
  const s = scopeOf(tenantOf(c), tab);
  const row = await assets.findAsset(s, c.req.param('id') ?? '');
  if (!row) throw notFound(`There is no such ${ASSET_TABS[tab].kind.noun} in your tenant.`);
  return { s, row };
}

function Props({ row, folders }: { row: AssetRow; folders: Folder[] }) {
  const m = row.metadata as Record<string, any>;
  const folder = row.folderId ? folders.find((f) => f.id === row.folderId) : undefined;
  const px = m._px as { width: number; height: number } | undefined;
  return (
    <dl class="props">
      <dt>Id</dt>
      <dd>
        <code>{row.id}</code>
      </dd>
      <dt>Kind</dt>
      <dd>{kindOf(row)}</dd>
      <dt>Folder</dt>
      <dd>{folder ? folder.path : '/'}</dd>
      <dt>Size</dt>
      <dd>{fmtSize(row.size)}</dd>
      {px && (
        <>
          <dt>Pixels</dt>
          <dd>{`${px.width} × ${px.height}`}</dd>
        </>
      )}
      {typeof m.width === 'number' && typeof m.height === 'number' && (
        <>
          <dt>Dimensions</dt>
          <dd>{`${m.width} × ${m.height}${typeof m.pages === 'number' && m.pages > 1 ? `, ${m.pages} pages` : ''}`}</dd>
        </>
      )}
      {row.type === 'font' && (
        <>
          <dt>Font</dt>
          <dd>{[m.family, m.style].filter(Boolean).join(' ') || '—'} <code>{row.postscriptName ?? m.postscriptName ?? ''}</code></dd>
        </>
      )}
      <dt>Changed</dt>
      <dd>{dateTime(Math.floor(row.lastModified / 1000))}</dd>
    </dl>
  );
}

function DesignFacts({ variables, missing }: { variables: DesignVariable[] | string; missing: string[] | string }) {
  return (
    <div class="pair">
      <section class="card" aria-labelledby="vars-h">
        <h2 id="vars-h">Variables</h2>
        {typeof variables === 'string' ? (
          <p class="error">{variables}</p>
        ) : variables.length === 0 ? (
          <p class="muted">This design has no variables: nothing in it is personalised.</p>
        ) : (
          <Table class="small" caption="Variables" columns={['Name', 'Type', 'Value now']}>
            {variables.map((v) => (
              <tr>
                <td>
                  <code>{v.name}</code>
                  {v.required && <span class="badge">required</span>}
                </td>
                <td>{v.type}</td>
                <td>{v.value.slice(0, 200) || <span class="muted">empty</span>}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      <section class="card" aria-labelledby="fonts-h">
        <h2 id="fonts-h">Fonts</h2>
        {typeof missing === 'string' ? (
          <p class="error">{missing}</p>
        ) : missing.length === 0 ? (
          <p>
            <span class="badge ok">All fonts found</span>
          </p>
        ) : (
          <>
            <p>
              <span class="badge off">{`${missing.length} missing font${missing.length === 1 ? '' : 's'}`}</span> Upload them under Fonts, or the design renders with a fallback.
            </p>
            <ul class="plain" aria-label="Missing fonts">
              {missing.map((f) => (
                <li>
                  <code>{f}</code>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </div>
  );
}

/** The asset's page; `problem` and `values` re-render a failed form with the typed values. */
async function assetPage(c: AdminContextOf, tab: AssetTab, problem?: Problem, values: Record<string, string> = {}) {
  const t = tenantOf(c);
  const { s, row } = await rowOf(c, tab);
  const folders = await assets.allFolders(assets.folderScope(s));
  let facts: Child = null;
  if (row.type === 'design') {
    const [variables, missing] = await Promise.all([
      designVariables(t, row).catch((e) => (e instanceof PlatformError ? `The variables cannot be read: ${e.message}` : Promise.reject(e))),
      checkDesign(s, row.id).then(
        (r) => r.missingFonts,
        (e) => (e instanceof PlatformError ? `The fonts cannot be checked: ${e.message}` : Promise.reject(e)),
      ),
    ]);
    facts = <DesignFacts variables={variables} missing={missing} />;
  }
  const err = problem?.fields ?? {};
  const csrf = c.get('admin').csrf;
  const here = assetUrl(tab, row.id);
  const fieldsText = values.customFields ?? JSON.stringify(row.customFields, null, 2);
  return render(
    c,
    {
      title: row.name,
      section: 'assets',
      banner: problem && { kind: 'error', text: problem.banner },
      body: (
        <>
          <style dangerouslySetInnerHTML={{ __html: STYLE }} />
          <p class="small">
            <a href="/admin/assets">Assets</a> / <a href={base(tab)}>{ASSET_TABS[tab].label}</a> / <a href={folderUrl(tab, row.folderId)}>{folders.find((f) => f.id === row.folderId)?.path ?? '/'}</a>
          </p>
          <h1>{row.name}</h1>
          <div class="pair">
            <div>
              <img class="thumb-lg" src={`${here}/thumbnail`} alt={`Thumbnail of ${row.name}`} width={240} height={240} />
              <p>
                <a class="button secondary" href={`${here}/file`}>
                  Download
                </a>
              </p>
            </div>
            <section class="card" aria-label="Details">
              <Props row={row} folders={folders} />
            </section>
          </div>
          {facts}
          <div class="pair">
            <form method="post" action={`${here}/rename`} class="card" novalidate>
              <h2>Rename</h2>
              <CsrfField token={csrf} />
              <Field id="asset-name" label="Name" error={err.name}>
                <input id="asset-name" name="name" type="text" maxlength={255} value={values.name ?? row.name} {...describedBy('asset-name', false, err.name)} />
              </Field>
              <button type="submit">Rename</button>
            </form>
            <form method="post" action={`${here}/move`} class="card" novalidate>
              <h2>Move</h2>
              <CsrfField token={csrf} />
              <Field id="asset-folder" label="To folder" error={err.folderId}>
                <FolderSelect id="asset-folder" name="folderId" folders={folders} selected={values.folderId ?? row.folderId} error={err.folderId} />
              </Field>
              <button type="submit">Move</button>
            </form>
          </div>
          <form method="post" action={`${here}/fields`} class="card" novalidate>
            <h2>Custom fields</h2>
            <CsrfField token={csrf} />
            <Field id="asset-fields" label="Custom fields (JSON object)" hint="Replaces the asset's custom fields; storefronts and list filters read them (customFields)." error={err.customFields}>
              <textarea id="asset-fields" name="customFields" rows={Math.min(16, Math.max(4, fieldsText.split('\n').length + 1))} spellcheck={false} {...describedBy('asset-fields', true, err.customFields)}>
                {fieldsText}
              </textarea>
            </Field>
            <button type="submit">Save custom fields</button>
          </form>
          <form method="post" action={`${here}/delete`} class="card danger">
            <h2>Delete</h2>
            <CsrfField token={csrf} />
            <p class="small muted">The file is deleted for good. A file a kept project's design still uses cannot be deleted; the reason is shown.</p>
            <button type="submit" class="danger">{`Delete ${ASSET_TABS[tab].kind.noun}`}</button>
          </form>
        </>
      ),
    },
    problem?.status ?? 200,
  );
}

const wantsJson = (c: AdminContextOf) => (c.req.header('accept') ?? '').includes('application/json');

assetsRoutes.get('/', (c) => c.redirect('/admin/assets/designs', 303));
assetsRoutes.get('/:tab', (c) => folderPage(c, tabOf(c), c.req.query('folder') ?? ''));

/** The page's XHR (token in X-CSRF-Token) streams; a plain form post arrives parsed by the guard. */
async function received(c: AdminContextOf, tab: AssetTab): Promise<{ folderId: string; row?: () => Promise<AssetRow> }> {
  const s = scopeOf(tenantOf(c), tab);
  if (c.req.header('x-csrf-token') !== undefined) return { folderId: '', row: () => uploadRequest(s, c.req.raw) };
  const body = (await c.req.parseBody()) as FormBody;
  const file = body.file;
  const folderId = field(body, 'folderId');
  if (!(file instanceof File) || file.name === '') return { folderId };
  return { folderId, row: () => uploadAsset(s, file, folderId) };
}

assetsRoutes.post('/:tab/upload', async (c) => {
  const tab = tabOf(c);
  const { folderId, row: upload } = await received(c, tab);
  try {
    if (!upload) throw new ValidationError({ file: ['Choose a file to upload.'] });
    const row = await upload();
    const text = `Uploaded "${row.name}".`;
    if (!wantsJson(c)) return done(c, folderUrl(tab, row.folderId), text);
    setFlash(c, { banner: { kind: 'success', text } });
    return c.json({ id: row.id, name: row.name, location: assetUrl(tab, row.id) }, 201);
  } catch (e) {
    const p = problemOf(e, { name: 'file', path: 'file', customFields: 'file' });
    if (!p.fields.file) p.fields.file = p.banner;
    if (wantsJson(c)) return c.json({ error: 'upload_refused', message: p.banner, errors: { file: [p.fields.file] } }, p.status);
    return folderPage(c, tab, folderId, p);
  }
});

assetsRoutes.post('/:tab/folders', async (c) => {
  const tab = tabOf(c);
  const body = (await c.req.parseBody()) as FormBody;
  const parentId = field(body, 'parentId');
  const name = field(body, 'name');
  const fs = assets.folderScope(scopeOf(tenantOf(c), tab));
  try {
    const parent = await assets.folderOr404(fs, parentId || null);
    const row = await assets.createFolder(fs, parent.path, name);
    return done(c, folderUrl(tab, row.id), `Folder ${row.path} created.`);
  } catch (e) {
    const p = problemOf(e, { name: 'folderName', path: 'folderName' });
    if (p.status === 409) p.fields.folderName = p.banner;
    return folderPage(c, tab, parentId, p, { folderName: name });
  }
});

assetsRoutes.post('/:tab/folders/:folderId', async (c) => {
  const tab = tabOf(c);
  const id = c.req.param('folderId');
  const body = (await c.req.parseBody()) as FormBody;
  const values = { name: field(body, 'name'), parentId: field(body, 'parentId') };
  const fs = assets.folderScope(scopeOf(tenantOf(c), tab));
  try {
    const row = await assets.updateFolder(fs, id, { name: values.name, parentId: values.parentId || null });
    return done(c, folderUrl(tab, row.id), `Folder saved as ${row.path}.`);
  } catch (e) {
    const p = problemOf(e, { id: 'name' });
    if (p.status === 409) p.fields.name = p.banner;
    return folderPage(c, tab, id, p, values);
  }
});

assetsRoutes.post('/:tab/folders/:folderId/delete', async (c) => {
  const tab = tabOf(c);
  const id = c.req.param('folderId');
  const body = (await c.req.parseBody()) as FormBody;
  const s = scopeOf(tenantOf(c), tab);
  const folder = await assets.folderById(assets.folderScope(s), id);
  if (!folder) throw notFound('There is no such folder.');
  try {
    await assets.deleteFolder(s, id, field(body, 'recursive') === 'true');
    return done(c, folderUrl(tab, folder.parentId), `Folder ${folder.path} deleted.`);
  } catch (e) {
    return folderPage(c, tab, id, problemOf(e));
  }
});

assetsRoutes.get('/:tab/:id', (c) => assetPage(c, tabOf(c)));

assetsRoutes.get('/:tab/:id/thumbnail', async (c) => {
  const tab = tabOf(c);
  const { row } = await rowOf(c, tab);
  const thumb = await thumbnail(tenantOf(c), row);
  if (!thumb) return new Response(placeholder(row), { headers: { 'content-type': 'image/svg+xml', 'x-thumbnail': 'none' } });
  return new Response(thumb.bytes, { headers: { 'content-type': thumb.type } });
});

assetsRoutes.get('/:tab/:id/file', async (c) => {
  const { row } = await rowOf(c, tabOf(c));
  if (!row.blobSha) throw notFound('This asset has no file.');
  const ext = row.format ? (EXTENSION[row.format] ?? row.format) : '';
  const filename = ext && !row.name.toLowerCase().endsWith(`.${ext}`) ? `${row.name}.${ext}` : row.name;
  return assets.serveFile(c.env.FILES, { key: assets.blobKey(row.tenantId, row.blobSha), filename, contentType: row.mimeType ?? 'application/octet-stream', attachment: true, cacheControl: 'no-store' }, c.req.raw);
});

/** Runs a change of the asset; a platform error re-renders its page with the reason (and the typed values). */
async function change(c: AdminContextOf, act: (s: AssetScope, row: AssetRow, body: FormBody) => Promise<string>, values: (b: FormBody) => Record<string, string> = () => ({})) {
  const tab = tabOf(c);
  const { s, row } = await rowOf(c, tab);
  const body = (await c.req.parseBody()) as FormBody;
  try {
    return done(c, assetUrl(tab, row.id), await act(s, row, body));
  } catch (e) {
    const p = problemOf(e, { path: 'folderId' });
    if (p.status === 409 && !Object.keys(p.fields).length && c.req.path.endsWith('/rename')) p.fields.name = p.banner;
    return assetPage(c, tab, p, values(body));
  }
}

assetsRoutes.post('/:tab/:id/rename', (c) =>
  change(
    c,
    async (s, row, b) => `Renamed to "${(await assets.updateAsset(s, row.id, { name: field(b, 'name') })).name}".`,
    (b) => ({ name: field(b, 'name') }),
  ),
);
assetsRoutes.post('/:tab/:id/move', (c) =>
  change(
    c,
    async (s, row, b) => {
      const moved = await assets.updateAsset(s, row.id, { folderId: field(b, 'folderId') || null });
      const folder = moved.folderId ? await assets.folderById(assets.folderScope(s), moved.folderId) : null;
      return `Moved to ${folder?.path ?? '/'}.`;
    },
    (b) => ({ folderId: field(b, 'folderId') }),
  ),
);
assetsRoutes.post('/:tab/:id/fields', (c) =>
  change(
    c,
    async (s, row, b) => {
      const text = field(b, 'customFields').trim();
      let parsed: unknown = {};
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch (e) {
          throw new ValidationError({ customFields: [`Not JSON: ${(e as Error).message}`] });
        }
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ValidationError({ customFields: ['Enter a JSON object, such as {"colour": "red"}.'] });
      await assets.updateAsset(s, row.id, { customFields: parsed as Record<string, unknown> });
      return 'Custom fields saved.';
    },
    (b) => ({ customFields: field(b, 'customFields') }),
  ),
);
assetsRoutes.post('/:tab/:id/delete', async (c) => {
  const tab = tabOf(c);
  const { s, row } = await rowOf(c, tab);
  try {
    await assets.deleteAsset(s, row.id);
  } catch (e) {
    return assetPage(c, tab, problemOf(e));
  }
  return done(c, folderUrl(tab, row.folderId), `Deleted "${row.name}".`);
});

const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);

/** A picture for assets without one: a file outline and the kind (fonts: "Aa" and the family). */
export function placeholder(row: AssetRow): string {
  const label = row.type === 'font' ? String((row.metadata as Record<string, unknown>).family ?? row.name) : kindOf(row);
  const big =
    row.type === 'font'
      ? '<text x="120" y="130" font-family="serif" font-size="72" text-anchor="middle" fill="#4a5565">Aa</text>'
      : '<path d="M92 50h40l24 24v76a6 6 0 0 1-6 6H92a6 6 0 0 1-6-6V56a6 6 0 0 1 6-6z M132 50v24h24" fill="#fff" stroke="#4a5565" stroke-width="4" stroke-linejoin="round"/>';
  return `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 240 240"><rect width="240" height="240" fill="#eef1f5"/>${big}<text x="120" y="190" font-family="sans-serif" font-size="18" text-anchor="middle" fill="#4a5565">${esc(label.slice(0, 24))}</text></svg>`;
}
