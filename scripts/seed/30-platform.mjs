// Local demo seed of the platform APIs (platform contract, "Demo seed"): tenant 2 "Demo 2" with
// demo2-backend, Products Full for both demo backends, storefronts 1 and 2, the project statuses
// and transitions, and the storefront user demo-customer. Idempotent: INSERT OR IGNORE on fixed
// ids (statuses and transitions on their unique codes and names; their ids are assigned).
// test/helpers/platform.ts (seedPlatformDemo) writes the same rows inside workerd for the tests.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot, withLocalPlatform } from '../lib/local-platform.mjs';

const RESOURCE_TYPES = ['Assets', 'Private_assets', 'Artifacts', 'Projects', 'ProcessingPipelines', 'Templates', 'Storefronts', 'StorefrontUsers', 'TenantUsers', 'Products'];
const secretHash = (secret) => createHash('sha256').update(secret).digest('base64url');
const allFull = JSON.stringify(Object.fromEntries(RESOURCE_TYPES.map((t) => [t, 'full'])));

/** Pipeline 1 "render-hires" (contract, Demo seed): extract → render-hires Pdf 300 dpi → finalize. */
const DEMO_PIPELINE = JSON.stringify({
  tasks: [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf' } },
    { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
  ],
});
const DEMO_WORKFLOW = JSON.stringify({ editor: 'WorkflowElements', designGroup: 'front' });

/** [sql, ...params] */
const statements = [
  // Tenant 2 and its backend app (Client Credentials, all Full, 3600 s).
  [`INSERT OR IGNORE INTO tenants (id, name) VALUES (2, 'Demo 2')`],
  [
    `INSERT OR IGNORE INTO apps (client_id, tenant_id, name, auth_type, secret_hash, token_lifetime, permissions, redirect_uris, post_logout_redirect_uris, cors_origins, require_client_secret, require_pkce)
     VALUES ('demo2-backend', 2, 'demo2-backend', 'client_credentials', ?1, 3600, ?2, '[]', '[]', '[]', 1, 0)`,
    secretHash('demo2-backend-secret'),
    allFull,
  ],
  // An already-seeded database gets the Products resource type too.
  [`UPDATE apps SET permissions = json_set(permissions, '$.Products', 'full') WHERE client_id IN ('demo-backend', 'demo2-backend')`],

  // Storefronts.
  [`INSERT OR IGNORE INTO storefronts (id, tenant_id, name, type, status) VALUES (1, 1, 'Demo storefront', 'Custom', 'Dev')`],
  [`INSERT OR IGNORE INTO storefronts (id, tenant_id, name, type, status) VALUES (2, 2, 'Demo 2 storefront', 'Custom', 'Dev')`],

  // Project statuses (by code) and transitions (by name and start status).
  [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (1, 1, 'New', 1, 0)`],
  [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (1, 2, 'In production', 0, 0)`],
  [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (1, 3, 'Completed', 0, 1)`],
  [`INSERT OR IGNORE INTO project_transitions (tenant_id, name, display_name, start_status, result_status) VALUES (1, 'start-production', 'Start production', 1, 2)`],
  [`INSERT OR IGNORE INTO project_transitions (tenant_id, name, display_name, start_status, result_status) VALUES (1, 'complete', 'Complete', 2, 3)`],
  [`INSERT OR IGNORE INTO project_statuses (tenant_id, code, display_name, is_initial, is_final) VALUES (2, 1, 'New', 1, 0)`],

  // The storefront user.
  [`INSERT OR IGNORE INTO storefront_users (tenant_id, storefront_id, user_id, is_anonymous) VALUES (1, 1, 'demo-customer', 0)`],

  // --- Added by the area helpers (keep ids fixed, INSERT OR IGNORE) --------------------------
    // Back office (catalogue): pipeline 1, workflow 1, product 1 (version 1: option Paper = Matte,
    // variant 1 DEMO-CARD-MATTE, design demo-card-design in group "front" and demo-mockup on every
    // variant), reference demo-card (storefront 1 → product 1).
    [`INSERT OR IGNORE INTO processing_pipelines (id, tenant_id, name, raw_content) VALUES (1, 1, 'render-hires', ?1)`, DEMO_PIPELINE],
    [`INSERT OR IGNORE INTO personalization_workflows (id, tenant_id, name, content, workflow_type) VALUES (1, 1, 'Demo editor', ?1, 'WorkflowElements')`, DEMO_WORKFLOW],
    [`INSERT OR IGNORE INTO products (id, tenant_id, name, description, current_version_id, personalization_workflow_id, processing_pipeline_id) VALUES (1, 1, 'Demo card', 'A business card with three lines of text.', 1, 1, 1)`],
    [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (1, 1, 1)`],
    [`INSERT OR IGNORE INTO product_options (id, tenant_id, product_version_id, product_id, uid, type, title, sort_index, use_for_design_binding, use_for_mockup_binding) VALUES (1, 1, 1, 1, 'paper', 'Simple', 'Paper', 0, 1, 1)`],
    [`INSERT OR IGNORE INTO option_values (id, tenant_id, product_version_id, option_uid, uid, title, sort_index, is_default) VALUES (1, 1, 1, 'paper', 'matte', 'Matte', 0, 1)`],
    [`INSERT OR IGNORE INTO variants (id, tenant_id, product_version_id, product_id, uid, option_value_uids, is_available, sort_index, sku) VALUES (1, 1, 1, 1, 'demo-card-matte', '["matte"]', 1, 0, 'DEMO-CARD-MATTE')`],
    [`INSERT OR IGNORE INTO design_connections (id, tenant_id, product_version_id, design_id, design_group, options) VALUES (1, 1, 1, 'demo-card-design', 'front', '[]')`],
    [`INSERT OR IGNORE INTO mockup_connections (id, tenant_id, product_version_id, mockup_id, options) VALUES (1, 1, 1, 'demo-mockup', '[]')`],
    [`INSERT OR IGNORE INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_id) VALUES (1, 1, 'demo-card', 'Product', 'Demo card', 1)`],
  // Asset storage / processor: design `demo-card-design` and mockup `demo-mockup`: see
  //   DEMO_ASSETS below (rows, blobs and R2 `p/1/blobs/<sha>`, written after these statements).
  // Back office: pipeline `1` "render-hires"; product `1` "Demo card" (version 1, option Paper =
  //   Matte, variant 1 SKU DEMO-CARD-MATTE, design group `front` and mockup on all variants,
  //   pipeline 1, workflow `1` "Demo editor" WorkflowElements); reference `demo-card`
  //   (storefront 1 → product 1).
];

// --- Asset storage: the demo design and mockup (contract, "Demo seed") ---------------------------
// demo-card-design: public PSD design `/demo/psdtools-text` (its text layer "Line 1 Line 2 Line 3
// and text" is the variable); demo-mockup: Mockup2D `/demo/agpsd-shapes-smart-objects`. The
// metadata is what an upload computes (src/platform/assets/content.ts), read here with ag-psd;
// the engine compiles the PSDs on first use. Blob refcounts are recounted from the rows, so
// running the seed again changes nothing.
const DEMO_ASSETS = [
  { id: 'demo-card-design', type: 'design', name: 'Demo card design', folder: 'demo', folderId: 'de5160000000000000000001', file: 'psdtools-text.psd' },
  { id: 'demo-mockup', type: 'mockup', name: 'Demo mockup', folder: 'demo', folderId: 'de5160000000000000000002', file: 'agpsd-shapes-smart-objects.psd' },
];

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
    const metadata =
      a.type === 'design'
        ? { fonts: facts.fonts.map((postscriptName) => ({ postscriptName, family: null, style: null })), surfaces: [facts.surface], printAreas: [facts.surface], hasDataSchema: false, _ppi: facts.ppi, _px: facts.px }
        : { _ppi: facts.ppi, _px: facts.px };
    await env.FILES.put(`p/1/blobs/${sha}`, bytes, { httpMetadata: { contentType: 'image/vnd.adobe.photoshop' }, customMetadata: { sha256: sha } });
    await env.DB.batch([
      env.DB.prepare(`INSERT OR IGNORE INTO folders (tenant_id, id, type, owner_id, parent_id, name, path, depth) VALUES (1, ?1, ?2, '', '', ?3, ?4, 1)`).bind(
        a.folderId, a.type, a.folder, `/${a.folder}/`),
      env.DB.prepare(
        `INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type)
         VALUES (1, ?1, ?2, '', (SELECT id FROM folders WHERE tenant_id = 1 AND type = ?2 AND owner_id = '' AND path = ?3 COLLATE NOCASE), ?4, ?5, ?6, 'image/vnd.adobe.photoshop', 'psd', ?7, ?8, ?9, ?10)`,
      ).bind(a.id, a.type, `/${a.folder}/`, a.name, sha, bytes.length, JSON.stringify(metadata), a.type === 'design' ? 'Psd' : null,
        a.type === 'design' && facts.fonts.length ? 1 : 0, a.type === 'mockup' ? 'Mockup2D' : null),
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

await withLocalPlatform(projectRoot(import.meta.url), async (env) => {
  await env.DB.batch(statements.map(([sql, ...params]) => env.DB.prepare(sql).bind(...params)));
  await seedDemoAssets(env);
});
console.log('Platform demo seed: tenant 2 "Demo 2" (demo2-backend), storefronts 1 and 2, project statuses and transitions, demo-customer, pipeline 1, workflow 1, product 1 and reference demo-card; design demo-card-design and mockup demo-mockup.');
