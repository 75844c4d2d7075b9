// Reading submitted admin forms (c.req.parseBody()): the first value of a field as a string.

export type FormBody = Record<string, string | File | (string | File)[]>;

/** The field's first string value; '' when absent or a file. */
export function field(body: FormBody, key: string): string {
  const v = body[key];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : '';
}
