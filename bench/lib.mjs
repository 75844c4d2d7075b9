// Pieces the bench modules share (not a bench itself: run.mjs loads only *.bench.mjs).
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const API_KEY = process.env.BENCH_API_KEY ?? 'demo-api-key';

/** Uploads `file` into `/api/resources/<root>` under `destination`; the stored name. */
export async function upload(baseUrl, root, file, destination = 'bench') {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)]), path.basename(file));
  const res = await fetch(`${baseUrl}/api/resources/${root}?destination=${destination}&overwrite=true`, {
    method: 'POST',
    headers: { 'X-DynamicImageApiKey': API_KEY },
    body: form,
  });
  if (res.status !== 201) throw new Error(`upload ${path.basename(file)}: HTTP ${res.status} ${(await res.text()).slice(0, 200)}`);
  const body = await res.json();
  const first = Array.isArray(body) ? body[0] : body;
  return typeof first === 'string' ? first : first.name;
}
