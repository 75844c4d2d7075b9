// Back office > Pipelines: the tenant's processing pipelines. The JSON is edited as text; the
// platform's validator (the same one the API's save runs) reports problems by JSON path, shown
// here next to the lines they concern (json-lines.ts). "Dry run" checks the text, unsaved,
// against a chosen product: the validator, tasks not available yet, and the product's designs.
//
//   GET  /admin/pipelines · /new · /{id}        list; editor
//   POST /admin/pipelines/new · /{id}           save (errors by line, 400) · action=dry-run checks only
import { Hono } from 'hono';
import { PlatformError, ValidationError } from '../../platform/core';
import { getEntity, listEntities, savePipeline } from '../../platform/catalogue/entities';
import { listProducts, productOr404 } from '../../platform/catalogue/products';
import { variantDesigns } from '../../platform/catalogue/variant-assets';
import { validatePipeline } from '../../platform/pipelines/language';
import { unavailableTasks } from '../../platform/pipelines/tasks/registry';
import { notFound } from '../../errors';
import { field, type FormBody } from '../../identity/admin/form-body';
import { done, render, type AdminContextOf, type AdminEnv } from '../../identity/admin/guard';
import { CsrfField, Field, Table, describedBy } from '../../identity/admin/layout';
import { tenantOf } from './context';
import { jsonLines, lineOf } from './json-lines';

export const pipelinesRoutes = new Hono<AdminEnv>();

type Problem = { line: number; path: string; message: string };
type Draft = { id: number | null; name: string; rawContent: string; productId: string };

const TEMPLATE = `{
  "tasks": [
    { "name": "extract", "type": "extract-project-design", "outputArtifacts": ["design*"] },
    { "name": "render", "type": "render-hires", "inputArtifacts": ["design*"], "outputArtifacts": ["result*"],
      "parameters": { "hiResOutputDpi": 300, "hiResOutputFileFormat": "Pdf" } },
    { "name": "finalize", "type": "finalize", "finalArtifacts": ["result*"] }
  ]
}`;

/**
 * The text as the editor shows it: a pipeline stored or pasted as one minified line (the API
 * keeps what it was sent) is laid out two spaces deep, so each task and parameter has its own
 * line and a problem its own line number. Text already on several lines is the admin's own.
 */
export function readable(raw: string): string {
  if (raw.includes('\n')) return raw;
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** Validator errors (by path) → problems by line of the typed text, in line order. */
function problemsOf(raw: string, errors: Record<string, string[]>): Problem[] {
  const { lines, syntax } = jsonLines(raw);
  if (syntax) return [{ line: syntax.line, path: '', message: `Not JSON: ${syntax.message}.` }];
  return Object.entries(errors)
    .flatMap(([path, messages]) => messages.map((message) => ({ line: lineOf(lines, path), path: path.replace(/^\$\.?/, ''), message })))
    .sort((a, b) => a.line - b.line);
}

/** The validator's and the runner's verdict on unsaved text. */
function check(raw: string): Problem[] {
  const r = validatePipeline(raw);
  if (!r.ok) return problemsOf(raw, r.errors);
  return problemsOf(raw, unavailableTasks(r.pipeline));
}

/** Dry run: the pipeline's problems, then what the chosen product gives its extract task. */
async function dryRun(c: AdminContextOf, draft: Draft): Promise<{ problems: Problem[]; notes: string[] }> {
  const problems = check(draft.rawContent);
  const notes: string[] = [];
  if (!problems.length) notes.push('The pipeline is valid and every task can run.');
  if (draft.productId) {
    const t = tenantOf(c);
    const product = await productOr404(t.env.DB, t.tenantId, Number(draft.productId));
    const designs = await variantDesigns(t.env.DB, t.tenantId, product.currentVersionId);
    const extracts = /"extract-project-design"/.test(draft.rawContent);
    if (extracts && !designs.length) problems.push({ line: extractLine(draft.rawContent), path: '', message: `Product "${product.name}" has no design connection: extract-project-design would find no design for items that name none.` });
    else notes.push(`Product "${product.name}": ${designs.length} design connection(s) (${[...new Set(designs.map((d) => d.designName ?? d.designId))].join(', ') || 'none'}).`);
  }
  return { problems, notes };
}

/** The line of the first extract-project-design task (1 when the text does not say). */
function extractLine(raw: string): number {
  const r = validatePipeline(raw);
  const at = r.ok ? r.pipeline.tasks.findIndex((task) => task.type === 'extract-project-design') : -1;
  return at < 0 ? 1 : lineOf(jsonLines(raw).lines, `tasks[${at}].type`);
}

/** The editor: line numbers in a gutter beside the text, lines with problems marked there. */
const EDITOR_STYLE = `
.code-lines{display:flex;align-items:stretch;border:1px solid #8a96a8;border-radius:6px;background:#fff;overflow:hidden}
.code-lines .gutter{margin:0;padding:.5rem .45rem;min-width:2.5rem;text-align:right;background:#f3f5f8;border-right:1px solid var(--line);color:#5b6677;overflow:hidden;user-select:none}
.code-lines .gutter,.code-lines textarea{font:.85rem/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.code-lines .gutter span{display:block}
.code-lines .gutter .bad{color:#fff;background:#b42318;border-radius:3px;padding:0 .2rem;font-weight:600}
.code-lines textarea{flex:1;min-width:0;max-width:none;margin:0;border:0;border-radius:0;padding:.5rem .65rem;white-space:pre;overflow:auto;resize:vertical}
.code-lines textarea[aria-invalid=true]{box-shadow:none}
.code-lines:has(textarea[aria-invalid=true]){border-color:#b42318;box-shadow:0 0 0 1px #b42318}
`;

/** Keeps the gutter's numbers in step with the text as it is typed and scrolled. */
const EDITOR_SCRIPT = `(() => {
  const text = document.getElementById('pipeline-json');
  const gutter = document.getElementById('pipeline-json-lines');
  if (!text || !gutter) return;
  const bad = new Set([...gutter.querySelectorAll('.bad')].map((s) => s.textContent));
  const number = () => {
    const n = text.value.split('\\n').length;
    if (gutter.children.length === n) return;
    gutter.replaceChildren(...Array.from({ length: n }, (_, i) => {
      const s = document.createElement('span');
      s.textContent = String(i + 1);
      if (bad.has(s.textContent)) s.className = 'bad';
      return s;
    }));
  };
  text.addEventListener('input', number);
  text.addEventListener('scroll', () => { gutter.scrollTop = text.scrollTop; });
})();`;

async function editor(c: AdminContextOf, draft: Draft, result: { problems?: Problem[]; notes?: string[]; nameError?: string } = {}, status: 200 | 400 = 200) {
  const t = tenantOf(c);
  const products = await listProducts(t, { skip: 0, take: 200, sorting: [{ field: 'name', direction: 'ASC' }] });
  const problems = result.problems ?? [];
  const byLine = new Map<number, Problem[]>();
  for (const p of problems) byLine.set(p.line, [...(byLine.get(p.line) ?? []), p]);
  const title = draft.id ? `Pipeline ${draft.name}` : 'New pipeline';
  const action = draft.id ? `/admin/pipelines/${draft.id}` : '/admin/pipelines/new';
  const textLines = draft.rawContent.split('\n');
  return render(
    c,
    {
      title,
      section: 'pipelines',
      script: EDITOR_SCRIPT,
      banner: problems.length ? { kind: 'error', text: `${problems.length} problem${problems.length === 1 ? '' : 's'} in the pipeline; nothing was saved.` } : undefined,
      body: (
        <>
          <style dangerouslySetInnerHTML={{ __html: EDITOR_STYLE }} />
          <p class="small">
            <a href="/admin/pipelines">Pipelines</a> /
          </p>
          <h1>{title}</h1>
          <form method="post" action={action} class="card" novalidate>
            <CsrfField token={c.get('admin').csrf} />
            <Field id="pipeline-name" label="Name" error={result.nameError}>
              <input id="pipeline-name" name="name" type="text" maxlength={255} value={draft.name} {...describedBy('pipeline-name', false, result.nameError)} />
            </Field>
            <Field id="pipeline-json" label="Pipeline JSON" hint={<>The task list (docs/pipelines.md). Problems are listed by line below the editor.</>}>
              <div class="code-lines">
                <pre class="gutter" id="pipeline-json-lines" aria-hidden="true">
                  {textLines.map((_, i) => (
                    <span class={byLine.has(i + 1) ? 'bad' : undefined}>{String(i + 1)}</span>
                  ))}
                </pre>
                <textarea id="pipeline-json" name="rawContent" rows={Math.min(40, Math.max(12, textLines.length + 1))} wrap="off" spellcheck={false} {...describedBy('pipeline-json', true, problems.length ? 'x' : undefined)}>
                  {draft.rawContent}
                </textarea>
              </div>
            </Field>
            {problems.length > 0 && (
              <Table wrap={{ id: 'pipeline-json-error', role: 'alert', 'aria-label': 'Problems by line' }} class="small" caption="Problems by line" columns={['Line', 'Text', 'Problem']}>
                {[...byLine.entries()].map(([line, ps]) => (
                  <tr data-line={String(line)}>
                    <td>{line}</td>
                    <td>
                      <code>{(textLines[line - 1] ?? '').trim().slice(0, 120)}</code>
                    </td>
                    <td>
                      {ps.map((p) => (
                        <span class="error" style="margin:0">
                          {p.path && <code>{p.path}</code>} {p.message}
                        </span>
                      ))}
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            {(result.notes ?? []).length > 0 && (
              <div class="banner info" role="status">
                {result.notes!.map((n) => (
                  <div>{n}</div>
                ))}
              </div>
            )}
            <Field id="pipeline-product" label="Dry run against product">
              <select id="pipeline-product" name="productId">
                <option value="">No product</option>
                {products.items.map((p) => (
                  <option value={String(p.id)} selected={draft.productId === String(p.id)}>
                    {p.name}
                  </option>
                ))}
              </select>
            </Field>
            <div class="actions">
              <button type="submit" name="action" value="save">
                Save pipeline
              </button>
              <button type="submit" name="action" value="dry-run" class="secondary">
                Dry run
              </button>
            </div>
          </form>
        </>
      ),
    },
    status,
  );
}

pipelinesRoutes.get('/', async (c) => {
  const list = await listEntities(tenantOf(c), 'pipeline', { skip: 0, take: 200, sorting: [{ field: 'name', direction: 'ASC' }], search: c.req.query('search') || undefined });
  return render(c, {
    title: 'Pipelines',
    section: 'pipelines',
    body: (
      <>
        <div class="head">
          <div>
            <h1>Pipelines</h1>
            <p class="lead">What happens to a project's designs after an order: render, convert, deliver.</p>
          </div>
          <a class="button" href="/admin/pipelines/new">
            New pipeline
          </a>
        </div>
        <Table caption="Pipelines" columns={['Name', 'Tasks', { label: 'Changed', opt: true }]}>
          {list.items.map((p) => {
            const r = validatePipeline(String(p.rawContent));
            return (
              <tr>
                <td>
                  <a href={`/admin/pipelines/${p.id}`}>{String(p.name)}</a>
                </td>
                <td>{r.ok ? r.pipeline.tasks.map((x) => x.type).join(' → ') : <span class="badge off">invalid</span>}</td>
                <td class="opt">{String(p.lastModified ?? '').slice(0, 16).replace('T', ' ')}</td>
              </tr>
            );
          })}
        </Table>
      </>
    ),
  });
});

const draftOf = (id: number | null, body: FormBody): Draft => {
  const productId = field(body, 'productId');
  return { id, name: field(body, 'name').trim(), rawContent: readable(field(body, 'rawContent').replace(/\r\n/g, '\n')), productId: /^\d{1,15}$/.test(productId) ? productId : '' };
};

async function existing(c: AdminContextOf): Promise<Draft> {
  const id = Number(c.req.param('id'));
  try {
    const p = await getEntity(tenantOf(c), 'pipeline', /^\d{1,15}$/.test(c.req.param('id') ?? '') ? id : 0);
    return { id, name: String(p.name), rawContent: readable(String(p.rawContent)), productId: '' };
  } catch (e) {
    if (e instanceof PlatformError && e.status === 404) throw notFound('There is no such pipeline in your tenant.');
    throw e;
  }
}

async function submit(c: AdminContextOf, id: number | null) {
  const body = await c.req.parseBody();
  const draft = draftOf(id, body);
  if (field(body, 'action') === 'dry-run') {
    const r = await dryRun(c, draft);
    return editor(c, draft, r, r.problems.length ? 400 : 200);
  }
  const nameError = !draft.name ? 'Enter a name.' : draft.name.length > 255 ? 'At most 255 characters.' : undefined;
  const problems = check(draft.rawContent);
  if (nameError || problems.length) return editor(c, draft, { problems, nameError }, 400);
  try {
    const saved = (await savePipeline(tenantOf(c), id, { name: draft.name, rawContent: draft.rawContent })) as { id: number };
    return done(c, `/admin/pipelines/${saved.id}`, `Pipeline "${draft.name}" saved.`);
  } catch (e) {
    if (e instanceof ValidationError) return editor(c, draft, { problems: problemsOf(draft.rawContent, e.errors ?? {}) }, 400);
    throw e;
  }
}

pipelinesRoutes.get('/new', (c) => editor(c, { id: null, name: '', rawContent: TEMPLATE, productId: '' }));
pipelinesRoutes.post('/new', (c) => submit(c, null));
pipelinesRoutes.get('/:id', async (c) => editor(c, await existing(c)));
pipelinesRoutes.post('/:id', async (c) => {
  const d = await existing(c);
  return submit(c, d.id);
});
