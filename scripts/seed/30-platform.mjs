// Local demo seed of the platform APIs (platform contract, "Demo seed"): tenant 2 "Demo 2" with
// demo2-backend, Products Full for both demo backends, storefronts 1 and 2, the project statuses
// and transitions, and the storefront user demo-customer. Idempotent: INSERT OR IGNORE on fixed
// ids (statuses and transitions on their unique codes and names; their ids are assigned).
// The rows are in scripts/lib/platform-seed-data.mjs, which test/helpers/platform.ts (seedPlatform) also writes.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMain, projectRoot, withLocalStorage } from '../lib/local-platform.mjs';
import { demoProductStatements, platformSeedStatements } from '../lib/platform-seed-data.mjs';

const RESOURCE_TYPES = ['Assets', 'Private_assets', 'Artifacts', 'Projects', 'ProcessingPipelines', 'Templates', 'Storefronts', 'StorefrontUsers', 'TenantUsers', 'Products'];
const secretHash = (secret) => createHash('sha256').update(secret).digest('base64url');
const allFull = JSON.stringify(Object.fromEntries(RESOURCE_TYPES.map((t) => [t, 'full'])));

/** [sql, ...params]: the rows shared with the tests (scripts/lib/platform-seed-data.mjs). */
const statements = [...platformSeedStatements({ demo2SecretHash: secretHash('demo2-backend-secret'), allFull }), ...demoProductStatements()];
// Asset storage / processor: design `demo-card-design` and mockup `demo-mockup`: see DEMO_ASSETS
// below (rows, blobs and R2 `p/1/blobs/<sha>`, written after these statements).

// --- Asset storage: the demo design and mockup (contract, "Demo seed") ---------------------------
// demo-card-design: public PSD design `/demo/psdtools-text` (its text layer "Line 1 Line 2 Line 3
// and text" is the variable); demo-mockup: Mockup2D `/demo/agpsd-shapes-smart-objects`. The
// metadata is what an upload computes (src/platform/assets/content.ts), read here with ag-psd;
// the engine compiles the PSDs on first use. Blob refcounts are recounted from the rows, so
// running the seed again changes nothing. The demo products' designs and mockups (issue 24 §1,
// made by scripts/demo-products/make.mjs) sit beside them in the same folders; the designs carry
// their declared bleed (`_bleed`) as the rendering seed's templates/demo/ copies do.
const DEMO_ASSETS = [
  { id: 'demo-card-design', type: 'design', name: 'Demo card design', folder: 'demo', folderId: 'de5160000000000000000001', file: 'psdtools-text.psd' },
  { id: 'demo-mockup', type: 'mockup', name: 'Demo mockup', folder: 'demo', folderId: 'de5160000000000000000002', file: 'agpsd-shapes-smart-objects.psd' },
  { id: 'demo-business-card-design', type: 'design', name: 'Business card', folder: 'demo', folderId: 'de5160000000000000000001', file: 'demo-business-card.psd', bleed: '3mm' },
  { id: 'demo-flyer-design', type: 'design', name: 'A5 flyer', folder: 'demo', folderId: 'de5160000000000000000001', file: 'demo-flyer-a5.psd', bleed: '3mm' },
  { id: 'demo-mockup-desk', type: 'mockup', name: 'Card on a desk', folder: 'demo', folderId: 'de5160000000000000000002', file: 'demo-mockup-desk.psd' },
  { id: 'demo-mockup-mug', type: 'mockup', name: 'Card on a mug', folder: 'demo', folderId: 'de5160000000000000000002', file: 'demo-mockup-mug.psd' },
  { id: 'demo-mockup-flyer', type: 'mockup', name: 'Flyer on a table', folder: 'demo', folderId: 'de5160000000000000000002', file: 'demo-mockup-flyer.psd' },
];

/**
 * Family and style of the bundled fonts the demo designs use, as the font lookup reads them from
 * the name table (typographic family, else family): a design whose fonts are all here has no
 * problems. psdtools-text's ArialMT is not bundled (the contract's demo keeps its flag).
 */
const BUNDLED_FONTS = {
  'Lato-Regular': { family: 'Lato', style: 'Regular' },
  'Lato-Bold': { family: 'Lato', style: 'Bold' },
  'Lato-Light': { family: 'Lato Light', style: 'Regular' },
};

async function psdFacts(bytes) {
  const { readPsd } = await import('ag-psd');
  const psd = readPsd(bytes, { skipLayerImageData: true, skipCompositeImageData: true, skipThumbnail: true });
  const ppi = psd.imageResources?.resolutionInfo?.horizontalResolution || 72;
  const fonts = new Set();
  const walk = (layers) => {
    for (const l of layers ?? []) {
      if (l.text) {
        if (l.text.style?.font?.name) fonts.add(l.text.style.font.name);
        for (const run of l.text.styleRuns ?? []) if (run.style?.font?.name) fonts.add(run.style.font.name);
      }
      walk(l.children);
    }
  };
  walk(psd.children);
  const pt = (px) => Math.round((px / ppi) * 72 * 1000) / 1000;
  return { surface: { width: pt(psd.width), height: pt(psd.height) }, fonts: [...fonts], ppi, px: { width: psd.width, height: psd.height } };
}

async function seedDemoAssets(env) {
  const root = projectRoot(import.meta.url);
  for (const a of DEMO_ASSETS) {
    const bytes = readFileSync(path.join(root, 'scripts/seed/demo-templates', a.file));
    const sha = createHash('sha256').update(bytes).digest('hex');
    const facts = await psdFacts(bytes);
    const fonts = facts.fonts.map((postscriptName) => ({ postscriptName, family: BUNDLED_FONTS[postscriptName]?.family ?? null, style: BUNDLED_FONTS[postscriptName]?.style ?? null }));
    const missingFonts = fonts.some((f) => f.family === null);
    const metadata =
      a.type === 'design'
        ? { fonts, surfaces: [facts.surface], printAreas: [facts.surface], hasDataSchema: false, _ppi: facts.ppi, _px: facts.px, ...(a.bleed ? { _bleed: a.bleed } : {}) }
        : { _ppi: facts.ppi, _px: facts.px };
    await env.FILES.put(`p/1/blobs/${sha}`, bytes, { httpMetadata: { contentType: 'image/vnd.adobe.photoshop' }, customMetadata: { sha256: sha } });
    await env.DB.batch([
      env.DB.prepare(`INSERT OR IGNORE INTO folders (tenant_id, id, type, owner_id, parent_id, name, path, depth) VALUES (1, ?1, ?2, '', '', ?3, ?4, 1)`).bind(
        a.folderId, a.type, a.folder, `/${a.folder}/`),
      env.DB.prepare(
        `INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type)
         VALUES (1, ?1, ?2, '', (SELECT id FROM folders WHERE tenant_id = 1 AND type = ?2 AND owner_id = '' AND path = ?3 COLLATE NOCASE), ?4, ?5, ?6, 'image/vnd.adobe.photoshop', 'psd', ?7, ?8, ?9, ?10)`,
      ).bind(a.id, a.type, `/${a.folder}/`, a.name, sha, bytes.length, JSON.stringify(metadata), a.type === 'design' ? 'Psd' : null,
        a.type === 'design' && missingFonts ? 1 : 0, a.type === 'mockup' ? 'Mockup2D' : null),
      env.DB.prepare(
        `INSERT INTO blobs (tenant_id, sha256, size, content_type, refcount) VALUES (1, ?1, ?2, 'image/vnd.adobe.photoshop', 0)
         ON CONFLICT (tenant_id, sha256) DO NOTHING`,
      ).bind(sha, bytes.length),
      env.DB.prepare(
        `UPDATE blobs SET refcount = (SELECT count(*) FROM assets WHERE tenant_id = 1 AND blob_sha = ?1) + (SELECT count(*) FROM artifacts WHERE tenant_id = 1 AND blob_sha = ?1)
         WHERE tenant_id = 1 AND sha256 = ?1`,
      ).bind(sha),
    ]);
  }
}

/** Writes the rows and the demo assets; `npm run dev` calls it with its local bindings. */
export async function seed(env) {
  await env.DB.batch(statements.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
  await seedDemoAssets(env);
  console.log('Platform demo seed: tenant 2 "Demo 2" (demo2-backend), storefronts 1 and 2, project statuses and transitions, demo-customer, pipeline 1, workflow 1, product 1 and reference demo-card; design demo-card-design and mockup demo-mockup; demo products 101 "Business card" (business-card) and 102 "A5 flyer" (a5-flyer) with pipeline 101.');
}

// Run alone: its own local bindings (getPlatformProxy); `--persist-to <dir>` selects the state.
if (isMain(import.meta.url)) await withLocalStorage(projectRoot(import.meta.url), seed);
