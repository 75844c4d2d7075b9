// Where a JSON path (`tasks[1].parameters.dpi`, the pipeline validator's error keys) sits in the
// text the admin typed: its 1-based line, so errors can be shown next to the lines they concern.
// A small position-recording JSON reader; invalid JSON gives the line of the syntax error.

export interface JsonLines {
  /** path → line of the value (`$` and '' are the document). */
  lines: Map<string, number>;
  /** Set when the text is not JSON: the line and the reason. */
  syntax?: { line: number; message: string };
}

export function jsonLines(text: string): JsonLines {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { line });
  };
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) {
      if (text[i] === '\n') line++;
      i++;
    }
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text[i] === '\n') fail('a string may not span lines');
      i++;
    }
    if (i >= text.length) fail('a string is not closed');
    i++;
    try {
      return JSON.parse(text.slice(start, i)) as string;
    } catch {
      return fail('a string has a bad escape');
    }
  };
  const value = (path: string): void => {
    ws();
    lines.set(path, line);
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a property name in double quotes');
        const key = str();
        ws();
        if (text[i] !== ':') fail(`expected ":" after "${key}"`);
        i++;
        value(path ? `${path}.${key}` : key);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') return void i++;
        fail('expected "," or "}"');
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (let n = 0; ; n++) {
        value(`${path}[${n}]`);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') return void i++;
        fail('expected "," or "]"');
      }
    }
    if (ch === '"') return void str();
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m) fail(i >= text.length ? 'the text ends too early' : `unexpected "${ch}"`);
    i += m![0].length;
  };
  try {
    value('');
    ws();
    if (i < text.length) fail('unexpected text after the end');
    return { lines };
  } catch (e) {
    return { lines, syntax: { line: (e as { line?: number }).line ?? line, message: (e as Error).message } };
  }
}

/** The line of an error path: the path itself, else its nearest parent that has one, else 1. */
export function lineOf(lines: Map<string, number>, path: string): number {
  let p = path.replace(/^\$\.?/, '');
  for (;;) {
    const at = lines.get(p);
    if (at != null) return at;
    if (!p) return 1;
    const parent = p.replace(/(\.[^.[\]]+|\[\d+\])$/, '');
    p = parent === p ? '' : parent;
  }
}
