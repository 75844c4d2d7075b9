// Local demo seed of the Dynamic Image API: the demo templates (scripts/seed/demo-templates →
// templates/demo/) and the bundled open fonts (assets/fonts → fonts/) in the local R2 bucket.
// Idempotent: the same keys get the same bytes. Templates are compiled by the dev server on first
// use; the font index is dropped so that the server rebuilds it from the fonts present. The demo
// products made by scripts/demo-products/make.mjs carry their declared bleed (as an upload with
// `bleed=3mm` keeps it), so their print PDFs have a TrimBox inside a 3 mm bleed.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isMain, projectRoot, withLocalStorage } from '../lib/local-platform.mjs';

const root = projectRoot(import.meta.url);

/** Bleed declared per demo template (docs/pdf.md, "Bleed"); the others declare none. */
export const DEMO_BLEED = { 'demo-business-card.psd': '3mm', 'demo-flyer-a5.psd': '3mm' };

const files = [];
const templates = path.join(root, 'scripts/seed/demo-templates');
for (const name of readdirSync(templates).filter((f) => /\.ps[db]$/i.test(f)).sort()) {
  const bleed = DEMO_BLEED[name];
  files.push({ key: `templates/demo/${name}`, file: path.join(templates, name), contentType: 'image/vnd.adobe.photoshop', ...(bleed ? { meta: { bleed } } : {}) });
}
const fonts = path.join(root, 'assets/fonts');
for (const name of readdirSync(fonts).filter((f) => /\.(ttf|otf)$/i.test(f)).sort()) {
  files.push({ key: `fonts/${name}`, file: path.join(fonts, name), contentType: name.toLowerCase().endsWith('.otf') ? 'font/otf' : 'font/ttf' });
}

/** Writes every object; `npm run dev` calls it with its local bindings. */
export async function seed(env) {
  for (const { key, file, contentType, meta } of files) {
    await env.FILES.put(key, readFileSync(file), { httpMetadata: { contentType }, ...(meta ? { customMetadata: meta } : {}) });
  }
  await env.FILES.delete('cache/fonts/index.json');
  console.log(`Seeded the Dynamic Image API: templates/demo/* and fonts/* (${files.length} files).`);
}

// Run alone: its own local bindings (getPlatformProxy); `--persist-to <dir>` selects the state.
if (isMain(import.meta.url)) await withLocalStorage(root, seed);
