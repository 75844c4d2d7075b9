// Copies Swagger UI from the pinned `swagger-ui-dist` npm package into the Worker's static assets
// (static/api/docs/swagger-ui/, wrangler `[assets]`), so /api/docs loads it from our own origin:
// no CDN, works offline and under a strict content security policy. The licence and notice go
// with it (Apache-2.0). Runs from `npm run dev`, `pretest` and the browser tests' local Worker.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const out = path.join(root, 'static/api/docs/swagger-ui');
const dist = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const FILES = ['swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE'];

mkdirSync(out, { recursive: true });
// Files of another version go; current ones are copied only when they differ, so parallel test
// runs never see the folder empty.
for (const file of readdirSync(out)) if (!FILES.includes(file)) rmSync(path.join(out, file), { recursive: true, force: true });
for (const file of FILES) {
  const from = path.join(dist, file);
  const to = path.join(out, file);
  if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue;
  copyFileSync(from, to);
}
const { version } = JSON.parse(readFileSync(path.join(dist, 'package.json'), 'utf8'));
console.log(`copied swagger-ui-dist ${version} to static/api/docs/swagger-ui`);
