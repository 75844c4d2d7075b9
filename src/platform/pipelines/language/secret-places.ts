/**
 * Where `{{secrets.<name>}}` may be interpolated (docs/security.md). Tenant secrets are
 * write-only: a secret may go only into what is sent to someone else and never kept or shown by
 * the platform, so a pipeline cannot copy it into order data, file names, folders, artifact
 * names, a URL's path or query (shown in errors, kept in logs) or a condition (an oracle that
 * tells whether a guess is right through a task's Skipped status).
 *
 * | where                                        | secrets                        |
 * |----------------------------------------------|--------------------------------|
 * | credential parameters (by name: `…password`, `…passphrase`, `…secret`, `…token`, `…apiKey`, `…appKey`, `…privateKey`, `…accessKey`, `accessKeyId`, `userName`) | anywhere in the value |
 * | invoke-url `queryHeaders`, download-files `headers` | in header values, not names |
 * | invoke-url `url`                              | in the user info only          |
 * | invoke-url `body`                             | anywhere                       |
 * | anything else, and every skip condition      | never                          |
 *
 * A task type added later gets the credential rule by its parameter names; anything else needs
 * an entry in `PLACES`.
 */
import { type Segment, hasExpression, jsonPath, parseTemplate } from './expressions';
import { type TaskType, findParameter, isConditionParameter } from './tasks';

/** How a parameter may hold secrets: the whole value, record values only, or URL user info. */
export type SecretPlace = 'anywhere' | 'values' | 'userinfo';

const PLACES: Partial<Record<TaskType, Record<string, SecretPlace>>> = {
  'invoke-url': { url: 'userinfo', queryHeaders: 'values', body: 'anywhere' },
  'download-files': { headers: 'values' },
};

const CREDENTIAL = /(password|passphrase|secret|token|apikey|appkey|privatekey|accesskey|accesskeyid|username)$/i;

export const SECRET_PLACES_RULE =
  'secrets may be used only in credential parameters (passwords, keys, tokens), invoke-url queryHeaders values, URL user info and an invoke-url body';

/** Where a written parameter of `type` may hold secrets; undefined: nowhere. */
export function secretPlace(type: TaskType, written: string): SecretPlace | undefined {
  if (isConditionParameter(written)) return undefined;
  const found = findParameter(type, written);
  if (!found) return undefined;
  return PLACES[type]?.[found.name] ?? (CREDENTIAL.test(found.name) ? 'anywhere' : undefined);
}

/** `[path, message]` for every secret reference in `value` that `place` does not allow. */
export function misplacedSecrets(value: unknown, place: SecretPlace | undefined, path: string): Array<[string, string]> {
  if (place === 'anywhere') return [];
  const out: Array<[string, string]> = [];
  const refuse = (p: string, raw: string, where = '') => out.push([p, `${raw}: ${SECRET_PLACES_RULE}${where}`]);
  if (place === 'userinfo' && typeof value === 'string') {
    const problem = userinfoOnly(value);
    if (problem) refuse(path, problem, ' (in a URL: only in the user info, https://user:password@host/)');
    return out;
  }
  if (place === 'values' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // Header names are shown; values are sent.
    for (const k of Object.keys(value)) for (const raw of secretRefs(k)) refuse(path, raw);
    return out;
  }
  // Iterative: values are depth-bounded by the validator, but this never needs the stack.
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length) {
    const [v, p] = stack.pop()!;
    if (typeof v === 'string') for (const raw of secretRefs(v)) refuse(p, raw);
    else if (Array.isArray(v)) v.forEach((x, i) => stack.push([x, jsonPath(p, i)]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, jsonPath(p, k)]);
  }
  return out.reverse();
}

/** The secret references of a template (as written), e.g. `{{secrets.x}}`. */
export function secretRefs(text: string): string[] {
  return segments(text).flatMap((s) => (s.kind === 'ref' && s.ref.root === 'secret' ? [s.raw] : []));
}

function segments(text: string): Segment[] {
  if (!hasExpression(text)) return [];
  try {
    return parseTemplate(text);
  } catch {
    return []; // malformed: reported by the expression check
  }
}

/**
 * The first secret reference of a URL template that would land outside its user info, or
 * undefined. Each reference is replaced by a marker and the URL parsed: a secret's marker must
 * appear in the user name or password and nowhere else.
 */
function userinfoOnly(template: string): string | undefined {
  const segs = segments(template);
  const secrets: Array<{ raw: string; marker: string }> = [];
  const text = segs
    .map((s) => {
      if (s.kind === 'text') return s.text;
      if (s.ref.root !== 'secret') return 'x';
      const marker = `zzsecret${secrets.length}zz`;
      secrets.push({ raw: s.raw, marker });
      return marker;
    })
    .join('');
  if (!secrets.length) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return secrets[0]!.raw;
  }
  const userinfo = `${url.username}:${url.password}`.toLowerCase();
  const rest = `${url.protocol}//${url.host}${url.pathname}${url.search}${url.hash}`.toLowerCase();
  return secrets.find((s) => !userinfo.includes(s.marker) || rest.includes(s.marker))?.raw;
}
