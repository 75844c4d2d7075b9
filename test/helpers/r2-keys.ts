/** Every key in `bucket` under `prefix`, sorted (all pages of the listing). */
export async function listKeys(bucket: R2Bucket, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    out.push(...page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return out.sort();
}
