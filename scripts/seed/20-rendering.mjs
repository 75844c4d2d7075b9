// Local demo seed of the Dynamic Image API: the demo templates (scripts/seed/demo-templates →
// templates/demo/) and the bundled open fonts (assets/fonts → fonts/) in the local R2 bucket.
// Idempotent: the same keys get the same bytes. Templates are compiled by the dev server on first
// use; the font index is dropped so that the server rebuilds it from the fonts present.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const BUCKET = 'platform-files-local';
const root = path.resolve(import.meta.dirname, '../..');

function wrangler(args) {
  const r = spawnSync('npx', ['wrangler', ...args], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: process.env });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(' ')} failed (exit ${r.status})`);
}

const put = (key, file, contentType) =>
  wrangler(['r2', 'object', 'put', `${BUCKET}/${key}`, '--local', '--file', file, '--content-type', contentType]);

const templates = path.join(root, 'scripts/seed/demo-templates');
for (const name of readdirSync(templates).filter((f) => /\.ps[db]$/i.test(f)).sort()) {
  put(`templates/demo/${name}`, path.join(templates, name), 'image/vnd.adobe.photoshop');
}

const fonts = path.join(root, 'assets/fonts');
for (const name of readdirSync(fonts).filter((f) => /\.(ttf|otf)$/i.test(f)).sort()) {
  put(`fonts/${name}`, path.join(fonts, name), name.toLowerCase().endsWith('.otf') ? 'font/otf' : 'font/ttf');
}
wrangler(['r2', 'object', 'delete', `${BUCKET}/cache/fonts/index.json`, '--local']);
console.log('Seeded the Dynamic Image API: templates/demo/* and fonts/*.');
