// Back office > Pipelines inside workerd (issue 24): a pipeline stored as one minified line opens
// laid out one value a line with line numbers, and a problem is shown at its own line, marked in
// the gutter, not "line 1" for everything.
import { beforeAll, describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { findUser } from '../../../src/identity/users';
import { readable } from '../../../src/admin/backoffice/pipelines';
import { apiJson, seedPlatform } from '../../helpers/platform';
import { DEMO } from '../../helpers/identity-seed';
import { get, post, signIn, type Browser } from '../../identity/admin/helpers';

let admin: Browser;

beforeAll(async () => {
  await seedPlatform();
  admin = await signIn((await findUser(env.DB, DEMO.admin.id))!);
});

const minified = JSON.stringify({
  tasks: [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf' } },
    { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
  ],
});

/** The editor's text, its gutter's numbers (and which are marked) and the problem rows' lines. */
function editorOf(html: string) {
  const text = /<textarea id="pipeline-json"[^>]*>([\s\S]*?)<\/textarea>/.exec(html)?.[1] ?? '';
  const gutter = /<pre class="gutter" id="pipeline-json-lines" aria-hidden="true">([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? '';
  const numbers = [...gutter.matchAll(/<span( class="bad")?>(\d+)<\/span>/g)].map((m) => Number(m[2]));
  const marked = [...gutter.matchAll(/<span class="bad">(\d+)<\/span>/g)].map((m) => Number(m[1]));
  const problemLines = [...html.matchAll(/<tr data-line="(\d+)">/g)].map((m) => Number(m[1]));
  return { text: text.replace(/&quot;/g, '"'), numbers, marked, problemLines };
}

describe('back office: pipeline editor', () => {
  it('lays out a minified pipeline one value a line, numbered in a gutter beside the text', async () => {
    const saved = await apiJson<{ id: number }>('POST', '/api/backoffice/v1/processing-pipelines', { name: `Minified ${Date.now()}`, rawContent: minified }, { token: 1 }, 201);
    const res = await get(`/admin/pipelines/${saved.id}`, admin);
    expect(res.status).toBe(200);
    const html = await res.text();
    const { text, numbers, marked } = editorOf(html);
    expect(text.split('\n').length).toBeGreaterThan(20);
    expect(text).toContain('\n      "type": "render-hires",\n');
    expect(JSON.parse(text)).toEqual(JSON.parse(minified));
    expect(numbers).toEqual(text.split('\n').map((_, i) => i + 1));
    expect(marked).toEqual([]);
    // The label still names the textarea; the numbers are hidden from screen readers.
    expect(html).toContain('<label for="pipeline-json">Pipeline JSON</label>');
    expect(html).toMatch(/<textarea id="pipeline-json"[^>]*wrap="off"/);
  });

  it('shows a problem in minified text at its own line once laid out, marked in the gutter', async () => {
    const bad = minified.replace('"hiResOutputDpi":300', '"hiResOutputDpi":"many"');
    expect(bad).not.toBe(minified);
    const res = await post('/admin/pipelines/new', admin, { name: 'Bad dpi', rawContent: bad, action: 'save' });
    expect(res.status).toBe(400);
    const { text, marked, problemLines } = editorOf(await res.text());
    const dpiLine = text.split('\n').findIndex((l) => l.includes('"hiResOutputDpi"')) + 1;
    expect(dpiLine).toBeGreaterThan(1);
    expect(problemLines).toEqual([dpiLine]);
    expect(marked).toEqual([dpiLine]);
  });

  it('keeps text already on several lines as the admin typed it, and problems at their lines', async () => {
    const typed = '{\n  "tasks": [\n    { "name": "a", "type": "render-everything" }\n  ]\n}';
    const res = await post('/admin/pipelines/new', admin, { name: 'Typed', rawContent: typed, action: 'dry-run' });
    expect(res.status).toBe(400);
    const { text, numbers, marked, problemLines } = editorOf(await res.text());
    expect(text).toBe(typed);
    expect(numbers).toEqual([1, 2, 3, 4, 5]);
    // The unknown type at line 3 (and what the task list as a whole lacks, at "tasks" on line 2).
    expect(problemLines).toContain(3);
    expect(problemLines.every((l) => l > 1)).toBe(true);
    expect(marked).toEqual(problemLines);
    expect(readable('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(readable('{"a":')).toBe('{"a":');
  });
});
