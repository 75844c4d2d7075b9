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
