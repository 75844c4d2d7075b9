// The admin panel's page frame: navigation, banners and the one inline stylesheet (no front-end
// build). Readable from phone to laptop: a sidebar on wide screens, a top bar on narrow ones. The
// panel that mounts the pages (src/admin) names itself and lists its sections (PanelChrome), so
// this frame knows no section but the ones it is given.
import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';

/** The page's place in the navigation: a NavLink's `section`. */
export type Section = string;

/** One link of the panel's navigation; links of a `group` are listed under its heading. */
export interface NavLink {
  section: Section;
  href: string;
  label: string;
  group?: string;
}

/** What the panel tells the frame: the product it is the admin panel of, and its navigation in order. */
export interface PanelChrome {
  name: string;
  nav: readonly NavLink[];
}

/** A one-time message shown at the top of the next page. */
export interface Banner {
  kind: 'success' | 'error' | 'info';
  text: string;
}

export interface PageFrame {
  title: string;
  panel: PanelChrome;
  section?: Section;
  /** The signed-in admin; absent on pages shown before sign-in (403). */
  admin?: { email: string; tenantName: string };
  csrf?: string;
  banner?: Banner;
  /** CSP nonce of the page's inline script. */
  nonce?: string;
  script?: string;
  children?: Child;
}

const CSS = `
:root{--bg:#f4f6f9;--card:#fff;--text:#1b2430;--muted:#4a5565;--line:#d5dbe3;--brand:#1d4ed8;--brand-dark:#1e3a8a;
--nav:#16213a;--nav-text:#e6ebf5;--ok-bg:#e7f6ec;--ok:#14532d;--err-bg:#fdecec;--err:#8a1c1c;--info-bg:#e8f0fe;--info:#1e3a8a;
--radius:8px;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.5;color:var(--text);background:var(--bg)}
*{box-sizing:border-box}body{margin:0}
a{color:var(--brand)}a:hover{color:var(--brand-dark)}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:10}.skip:focus{left:.5rem}
.sr-only{position:absolute;left:0;top:0;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.shell{display:grid;grid-template-columns:240px minmax(0,1fr);min-height:100vh;background:linear-gradient(to right,var(--nav) 240px,transparent 240px)}
.side{background:var(--nav);color:var(--nav-text);padding:1.25rem 1rem;display:flex;flex-direction:column;gap:1rem;position:sticky;top:0;height:100vh;overflow-y:auto}
.brand{font-weight:700;font-size:1.05rem;color:#fff;text-decoration:none}
.brand small{display:block;font-weight:400;color:#b8c3d9;font-size:.8rem}
.side nav{display:flex;flex-direction:column;gap:.15rem}
.side nav h2{font-size:.72rem;text-transform:uppercase;letter-spacing:.08em;color:#b8c3d9;margin:1rem .6rem .3rem}
.side nav a{color:var(--nav-text);text-decoration:none;padding:.5rem .6rem;border-radius:6px}
.side nav a:hover{background:#24324f;color:#fff}
.side nav a[aria-current=page]{background:#2f4370;color:#fff;font-weight:600}
.who{margin-top:auto;font-size:.85rem;color:#b8c3d9;overflow-wrap:anywhere}
.who form{margin-top:.5rem}
.who button{background:transparent;color:#fff;border:1px solid #5b6b8c;padding:.35rem .8rem}
main{padding:2rem clamp(1rem,4vw,3rem);max-width:1100px;width:100%;min-width:0}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:0 0 .5rem}
.lead{color:var(--muted);margin:0 0 1.5rem;max-width:70ch}
.head{display:flex;justify-content:space-between;align-items:flex-start;gap:1rem;flex-wrap:wrap;margin-bottom:.5rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:1.25rem;margin-bottom:1.25rem}
.card.danger{border-color:#e8b4b4}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:1rem}
.stat{font-size:2rem;font-weight:700}
.muted{color:var(--muted)}.small{font-size:.875rem}
table{width:100%;border-collapse:collapse;background:var(--card)}
th,td{text-align:left;padding:.65rem .75rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:#f8fafc}
.table-wrap{position:relative;overflow-x:auto;border:1px solid var(--line);border-radius:var(--radius);margin-bottom:1.25rem}
.table-wrap table{border:0}.table-wrap tr:last-child td{border-bottom:0}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;word-break:break-all}
.badge{display:inline-block;padding:.1rem .55rem;border-radius:999px;font-size:.8rem;background:#e9edf3;color:#26324a;white-space:nowrap}
.badge.ok{background:var(--ok-bg);color:var(--ok)}.badge.off{background:var(--err-bg);color:var(--err)}
.button,button{display:inline-block;font:inherit;font-weight:600;border-radius:6px;border:1px solid var(--brand);background:var(--brand);color:#fff;padding:.55rem 1.1rem;cursor:pointer;text-decoration:none;line-height:1.3}
.button:hover,button:hover{background:var(--brand-dark);color:#fff}
.button.secondary,button.secondary{background:#fff;color:var(--brand)}
.button.secondary:hover,button.secondary:hover{background:var(--info-bg);color:var(--brand-dark)}
.button.danger,button.danger{background:#b42318;border-color:#b42318;color:#fff}
.button.danger:hover,button.danger:hover{background:#8a1c1c}
button:disabled{opacity:.55;cursor:not-allowed}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;align-items:center;margin-top:1rem}
.banner{border-radius:var(--radius);padding:.8rem 1rem;margin-bottom:1.25rem;border:1px solid}
.banner.success{background:var(--ok-bg);color:var(--ok);border-color:#a6d8b5}
.banner.error{background:var(--err-bg);color:var(--err);border-color:#efb3b3}
.banner.info{background:var(--info-bg);color:var(--info);border-color:#b6c9f5}
.field{margin-bottom:1.1rem}
.field>label,.field>.label,fieldset legend{display:block;font-weight:600;margin-bottom:.3rem}
.hint{display:block;color:var(--muted);font-size:.875rem;margin-top:.25rem}
.error{display:block;color:var(--err);font-weight:600;font-size:.9rem;margin-top:.3rem}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=url],select,textarea{width:100%;max-width:38rem;font:inherit;padding:.5rem .65rem;border:1px solid #8a96a8;border-radius:6px;background:#fff;color:var(--text)}
textarea{min-height:5.5rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
input[aria-invalid=true],textarea[aria-invalid=true],select[aria-invalid=true]{border-color:#b42318;box-shadow:0 0 0 1px #b42318}
input:disabled,select:disabled,textarea:disabled{background:#eef1f5;color:#5b6677}
fieldset{border:1px solid var(--line);border-radius:var(--radius);padding:1rem 1.1rem;margin:0 0 1.1rem}
fieldset[disabled]{background:#f6f7f9}
.choices{display:grid;gap:.6rem;grid-template-columns:repeat(auto-fit,minmax(230px,1fr))}
.choice{display:flex;gap:.6rem;align-items:flex-start;border:1px solid var(--line);border-radius:var(--radius);padding:.75rem;background:#fff;cursor:pointer}
.choice:has(input:checked){border-color:var(--brand);box-shadow:0 0 0 1px var(--brand);background:#f5f8ff}
.choice input{margin-top:.3rem}.choice strong{display:block}.choice span{color:var(--muted);font-size:.875rem}
.check{display:flex;gap:.5rem;align-items:flex-start}.check input{margin-top:.3rem;width:1.05rem;height:1.05rem}
.perm-table td,.perm-table th{padding:.45rem .6rem;vertical-align:middle}
.perm-table th[scope=row]{background:#fff;text-transform:none;font-size:1rem;color:inherit;letter-spacing:0;overflow-wrap:anywhere}
.perm-table select{min-width:8.5rem}.perm-table select{max-width:12rem}
.reason{display:block;font-size:.875rem;color:var(--muted);font-style:italic;margin-top:.25rem}
.secret{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center;margin:.5rem 0}
.secret input{flex:1 1 20rem;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;max-width:none}
dl.props{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1.25rem;margin:0}
dl.props dt{color:var(--muted);font-weight:600}dl.props dd{margin:0;word-break:break-word}
ul.plain{margin:0;padding-left:1.1rem}
.inline-form{display:inline}
@media (max-width:760px){
 .shell{grid-template-columns:minmax(0,1fr);background:none}
 .side{padding:.75rem 1rem;gap:.5rem;position:static;height:auto}
 .side nav{flex-direction:row;flex-wrap:wrap;gap:.25rem}
 .side nav h2{display:none}
 .who{margin-top:0;display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}.who form{margin:0}
 main{padding:1.25rem 1rem}
 th.opt,td.opt{display:none}
 dl.props{grid-template-columns:1fr}dl.props dd{margin-bottom:.5rem}
}
`;

export function BannerBox({ banner }: { banner?: Banner }) {
  if (!banner) return null;
  return (
    <div class={`banner ${banner.kind}`} role={banner.kind === 'error' ? 'alert' : 'status'}>
      {banner.text}
    </div>
  );
}

/** The CSRF token every form carries, bound to the session. */
export const CsrfField = ({ token }: { token?: string }) => <input type="hidden" name="_csrf" value={token ?? ''} />;

/** One action as a small POST form with the CSRF token (delete, rotate, send again…). */
export const PostButton = ({ action, csrf, label, kind }: { action: string; csrf: string; label: string; kind?: string }) => (
  <form method="post" action={action} class="inline-form">
    <CsrfField token={csrf} />
    <button type="submit" class={kind ?? 'secondary'}>
      {label}
    </button>
  </form>
);

export function Page(frame: PageFrame) {
  const { name, nav } = frame.panel;
  const link = (item: NavLink) => (
    <a href={item.href} aria-current={frame.section === item.section ? 'page' : undefined}>
      {item.label}
    </a>
  );
  // Ungrouped links first (the dashboard), then each group under its heading, in the order given.
  const groups = [undefined, ...new Set(nav.flatMap((n) => n.group ?? []))];
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="robots" content="noindex" />
          <title>{`${frame.title} · ${name}`}</title>
          <style dangerouslySetInnerHTML={{ __html: CSS }} />
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <div class="shell">
            <header class="side">
              <a class="brand" href="/admin">
                {name}
                {frame.admin && <small>{frame.admin.tenantName}</small>}
              </a>
              {frame.admin && (
                <nav aria-label="Admin">
                  {groups.map((group) => (
                    <>
                      {group !== undefined && <h2>{group}</h2>}
                      {nav.filter((n) => n.group === group).map(link)}
                    </>
                  ))}
                </nav>
              )}
              {frame.admin && (
                <div class="who">
                  <span>
                    Signed in as <strong>{frame.admin.email}</strong>
                  </span>
                  <form method="post" action="/admin/logout">
                    <CsrfField token={frame.csrf} />
                    <button type="submit">Sign out</button>
                  </form>
                </div>
              )}
            </header>
            <main id="main" tabindex={-1}>
              <BannerBox banner={frame.banner} />
              {frame.children}
            </main>
          </div>
          {frame.script && <script nonce={frame.nonce} dangerouslySetInnerHTML={{ __html: frame.script }} />}
        </body>
      </html>
    </>
  );
}

/** A labelled form field with its help text and, when wrong, its error tied by aria-describedby. */
export function Field(props: { id: string; label: string; hint?: Child; error?: string; children: Child }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <span class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </span>
      )}
      {props.error && (
        <span class="error" id={`${props.id}-error`}>
          {props.error}
        </span>
      )}
    </div>
  );
}

/**
 * A column heading of <Table>: its text, or `{ label, hidden }` for one only screen readers hear
 * (a column of buttons or thumbnails), `opt` for one narrow screens leave out; `false` for none.
 */
export type Column = string | { label: string; hidden?: boolean; opt?: boolean } | false;

/** The heading of a column of row buttons: heard, not shown. */
export const ACTIONS: Column = { label: 'Actions', hidden: true };

/**
 * An admin table in its scrolling wrapper (`wrap`: more attributes for it): a caption for screen
 * readers, one header row of `columns`, and the rows given as children.
 */
export function Table(props: { caption?: string; columns: Column[]; class?: string; wrap?: Record<string, string>; children?: Child }) {
  return (
    <div class="table-wrap" {...props.wrap}>
      <table class={props.class}>
        {props.caption && <caption class="sr-only">{props.caption}</caption>}
        <thead>
          <tr>
            {props.columns.map((c) =>
              c === false ? null : typeof c === 'string' ? (
                <th scope="col">{c}</th>
              ) : (
                <th scope="col" class={c.opt ? 'opt' : undefined}>
                  {c.hidden ? <span class="sr-only">{c.label}</span> : c.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** aria attributes of an input inside <Field>. */
export function describedBy(id: string, hint: boolean, error?: string) {
  const ids = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return { 'aria-describedby': ids || undefined, 'aria-invalid': error ? 'true' : undefined };
}

const UNITS: [number, string][] = [
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
];

/** "3 days ago", "just now": ages of keys and apps. */
export function age(unixSeconds: number, now = Math.floor(Date.now() / 1000)): string {
  const diff = Math.max(0, now - unixSeconds);
  for (const [size, unit] of UNITS) {
    const n = Math.floor(diff / size);
    if (n >= 1) return `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/** A UTC date and time a person reads: 2026-11-22 02:45 UTC. */
export const dateTime = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/** An age ("3 days ago") with the exact UTC time on hover: created-at cells of the lists. */
export const Age = ({ at }: { at: number }) => <span title={dateTime(at)}>{age(at)}</span>;
