// The platform demo seed's rows (platform contract, "Demo seed"), written by both
// scripts/seed/30-platform.mjs (Node, the local database) and test/helpers/platform.ts (inside
// workerd, for the tests), so the two cannot drift. Plain data: no Node or Workers imports.
// Idempotent: INSERT OR IGNORE on fixed ids (statuses and transitions on their unique codes and
// names; their ids are assigned).

/** Pipeline 1 "render-hires" (contract, Demo seed): extract → render-hires Pdf 300 dpi → finalize. */
export const DEMO_PIPELINE = JSON.stringify({
  tasks: [
    { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
    { name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['result*'], parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf' } },
    { name: 'finalize', type: 'finalize', finalArtifacts: ['result*'] },
  ],
});
export const DEMO_WORKFLOW = JSON.stringify({ editor: 'WorkflowElements', designGroup: 'front' });

/**
 * `[sql, ...params]` rows. The caller hashes demo2-backend's secret (Node and workerd hash
 * differently) and passes the all-Full permissions of its resource types.
 */
export function platformSeedStatements({ demo2SecretHash, allFull }) {
  return [
    // Tenant 2 and its backend app (Client Credentials, all Full, 3600 s).
    [`INSERT OR IGNORE INTO tenants (id, name) VALUES (2, 'Demo 2')`],
    [
      `INSERT OR IGNORE INTO apps (client_id, tenant_id, name, auth_type, secret_hash, token_lifetime, permissions, redirect_uris, post_logout_redirect_uris, cors_origins, require_client_secret, require_pkce)
       VALUES ('demo2-backend', 2, 'demo2-backend', 'client_credentials', ?1, 3600, ?2, '[]', '[]', '[]', 1, 0)`,
      demo2SecretHash,
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

    // Back office (catalogue): pipeline 1, workflow 1, product 1 (version 1: option Paper = Matte,
    // variant 1 DEMO-CARD-MATTE, design demo-card-design in group "front" and demo-mockup on every
    // variant), reference demo-card (storefront 1 → product 1). The design and mockup rows and
    // blobs are written by each side after these (they need the PSD bytes).
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
  ];
}

// --- Demo products (issue 24 §1): a business card and an A5 flyer ------------------------------
// Written by scripts/seed/30-platform.mjs only (the local demo and the browser tests' Worker);
// the workerd tests keep the contract's demo alone. Fixed ids from 101 up, so they never take
// the ids of products a developer made in the back office (INSERT OR IGNORE keeps those).

/**
 * Pipeline 101 "print-ready": the design as a CMYK PDF/X-4 at 300 dpi (TrimBox inside the
 * template's declared 3 mm bleed), imposed on SRA3 sheets with crop marks and a slug line for
 * the item's quantity, both kept as the project's results.
 */
export const DEMO_PRINT_PIPELINE = JSON.stringify(
  {
    tasks: [
      { name: 'extract', type: 'extract-project-design', outputArtifacts: ['design*'] },
      {
        name: 'render', type: 'render-hires', inputArtifacts: ['design*'], outputArtifacts: ['print*'],
        parameters: { hiResOutputDpi: 300, hiResOutputFileFormat: 'Pdf', hiResOutputColorSpace: 'Cmyk', hiResOutputPdfFormat: 'PdfX4' },
      },
      {
        name: 'impose', type: 'produce-imposition', inputArtifacts: ['print*'], outputArtifacts: ['sheets'],
        parameters: { sheetSize: 'SRA3', margin: '10mm', gutter: '4mm', layout: 'auto', quantity: '{{project.items.0.quantity}}', cropMarks: true, slugLine: true },
      },
      { name: 'finalize', type: 'finalize', finalArtifacts: ['print*', 'sheets'] },
    ],
  },
  null,
  2,
);

/** The demo products: id, names, design, mockups, quantity tiers and prices per paper. */
export const DEMO_PRODUCTS = [
  {
    id: 101, name: 'Business card', reference: 'business-card', skuPrefix: 'CARD',
    description: '85 × 55 mm business card on 350 g/m² paper, printed to its edges: your name, title, phone, e-mail and photo.',
    design: 'demo-business-card-design', mockups: ['demo-mockup-desk', 'demo-mockup-mug'],
    quantities: [100, 250, 500], prices: { matte: [19, 29, 45], gloss: [22, 34, 52] },
  },
  {
    id: 102, name: 'A5 flyer', reference: 'a5-flyer', skuPrefix: 'FLYER-A5',
    description: 'A5 flyer (148 × 210 mm) on 170 g/m² paper: a headline, a short text and a large photo.',
    design: 'demo-flyer-design', mockups: ['demo-mockup-flyer'],
    quantities: [50, 100, 250], prices: { matte: [24, 32, 55], gloss: [27, 36, 62] },
  },
];
const PAPERS = [['matte', 'Matte'], ['gloss', 'Gloss']];

/** `[sql, ...params]` rows of pipeline 101 and the demo products (each product's rows use ids id·10 + n). */
export function demoProductStatements() {
  const rows = [[`INSERT OR IGNORE INTO processing_pipelines (id, tenant_id, name, raw_content) VALUES (101, 1, 'print-ready PDF/X-4 + imposition', ?1)`, DEMO_PRINT_PIPELINE]];
  for (const p of DEMO_PRODUCTS) {
    const v = p.id; // one version per product, numbered like it
    rows.push(
      [`INSERT OR IGNORE INTO products (id, tenant_id, name, description, current_version_id, personalization_workflow_id, processing_pipeline_id) VALUES (?1, 1, ?2, ?3, ?1, 1, 101)`, p.id, p.name, p.description],
      [`INSERT OR IGNORE INTO product_versions (id, tenant_id, product_id) VALUES (?1, 1, ?1)`, v],
      [`INSERT OR IGNORE INTO product_options (id, tenant_id, product_version_id, product_id, uid, type, title, sort_index, use_for_design_binding, use_for_mockup_binding) VALUES (?1, 1, ?2, ?2, 'paper', 'Simple', 'Paper', 0, 0, 0)`, v * 10 + 1, v],
      [`INSERT OR IGNORE INTO product_options (id, tenant_id, product_version_id, product_id, uid, type, title, sort_index, use_for_design_binding, use_for_mockup_binding) VALUES (?1, 1, ?2, ?2, 'quantity', 'Simple', 'Quantity', 1, 0, 0)`, v * 10 + 2, v],
    );
    PAPERS.forEach(([uid, title], i) =>
      rows.push([`INSERT OR IGNORE INTO option_values (id, tenant_id, product_version_id, option_uid, uid, title, sort_index, is_default) VALUES (?1, 1, ?2, 'paper', ?3, ?4, ?5, ?6)`, v * 10 + 1 + i, v, uid, title, i, i === 0 ? 1 : 0]),
    );
    p.quantities.forEach((q, i) =>
      rows.push([`INSERT OR IGNORE INTO option_values (id, tenant_id, product_version_id, option_uid, uid, title, value, sort_index, is_default) VALUES (?1, 1, ?2, 'quantity', ?3, ?4, ?5, ?6, ?7)`, v * 10 + 5 + i, v, `q${q}`, `${q} pieces`, String(q), i, i === 0 ? 1 : 0]),
    );
    let n = 0;
    for (const [paper, paperTitle] of PAPERS) {
      p.quantities.forEach((q, i) => {
        rows.push([
          `INSERT OR IGNORE INTO variants (id, tenant_id, product_version_id, product_id, uid, option_value_uids, is_available, price, sort_index, sku) VALUES (?1, 1, ?2, ?2, ?3, ?4, 1, ?5, ?6, ?7)`,
          v * 10 + n, v, `${paper}-${q}`, JSON.stringify([paper, `q${q}`]), p.prices[paper][i], n, `${p.skuPrefix}-${paperTitle.toUpperCase()}-${q}`,
        ]);
        n++;
      });
    }
    rows.push([`INSERT OR IGNORE INTO design_connections (id, tenant_id, product_version_id, design_id, design_group, options) VALUES (?1, 1, ?1, ?2, 'front', '[]')`, v, p.design]);
    p.mockups.forEach((m, i) => rows.push([`INSERT OR IGNORE INTO mockup_connections (id, tenant_id, product_version_id, mockup_id, options) VALUES (?1, 1, ?2, ?3, '[]')`, v * 10 + i, v, m]));
    rows.push([`INSERT OR IGNORE INTO product_references (tenant_id, storefront_id, product_reference, product_reference_type, product_reference_name, product_id) VALUES (1, 1, ?1, 'Product', ?2, ?3)`, p.reference, p.name, p.id]);
  }
  return rows;
}
