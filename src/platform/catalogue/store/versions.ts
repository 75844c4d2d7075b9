/**
 * D1 of product versions, copy-on-write (contract, "Storefront": versions are the spec's drafts).
 *
 * A version owns its options, values, variants and design/mockup connections; rows of a version
 * name each other by `(product_version_id, uid)`, never by row id, so a new version is made in ONE
 * batch of `INSERT … SELECT` from the one it replaces. Inside that batch the new version is
 * `(SELECT max(id) FROM product_versions WHERE tenant_id = ?1 AND product_id = <p>)`: a D1 batch
 * is one serialised transaction and ids only grow, so the newest version of the product is the
 * one the batch just inserted. A new version keeps SKU, price, weight, availability and uid of the
 * variant with the same option-value uids (`option_value_uids`, the sorted uids as JSON).
 */
import { batchUnlessGuardFails, guardThat } from '../../core/d1';

export interface PreparedOptions {
  options: Array<{ uid: string; title: string; type: string; traits: unknown[]; sortIndex: number; tag: string | null; useForDesignBinding: boolean; useForMockupBinding: boolean }>;
  values: Array<{ optionUid: string; uid: string; title: string; value: string | null; description: string | null; sortIndex: number; isDefault: boolean; tag: string | null }>;
  /** Variants to make: the sorted option-value uids (as JSON text) and a uid for new ones. */
  variants: Array<{ key: string; uid: string; sortIndex: number }>;
}

export interface ConnectionRow {
  assetId: string;
  designGroup: string | null;
  options: Array<{ optionUID: string; optionValueUIDs: string[] }>;
}

export interface VariantUpdate {
  column: 'sku' | 'price' | 'weight' | 'is_available';
  entries: Array<{ productVariantId: number; value: unknown }>;
}

export interface VersionChange {
  options?: PreparedOptions;
  designConnections?: ConnectionRow[];
  mockupConnections?: ConnectionRow[];
  variantUpdate?: VariantUpdate;
}

const VARIANT_COLUMNS = `tenant_id, product_version_id, product_id, uid, option_value_uids, is_available, price, weight, sort_index, storefront_product_variant_id, sku`;

/**
 * The statements that make a new version of product `productSql` (an integer, or a subquery
 * while the product itself is being inserted) from `fromVersion` (null: a new product) with
 * `change` applied. `?1` is the tenant in every statement.
 */
export function newVersionStatements(db: D1Database, tenantId: number, productSql: string, fromVersion: number | null, change: VersionChange): D1PreparedStatement[] {
  const from = fromVersion ?? 0;
  const NEWV = `(SELECT max(id) FROM product_versions WHERE tenant_id = ?1 AND product_id = ${productSql})`;
  const s: D1PreparedStatement[] = [db.prepare(`INSERT INTO product_versions (tenant_id, product_id) VALUES (?1, ${productSql})`).bind(tenantId)];

  if (change.options) {
    const o = change.options;
    s.push(
      db
        .prepare(
          `INSERT INTO product_options (tenant_id, product_version_id, product_id, uid, type, title, traits, sort_index, tag, use_for_design_binding, use_for_mockup_binding)
           SELECT ?1, ${NEWV}, ${productSql}, json_extract(j.value, '$.uid'), json_extract(j.value, '$.type'), json_extract(j.value, '$.title'),
                  json_extract(j.value, '$.traits'), json_extract(j.value, '$.sortIndex'), json_extract(j.value, '$.tag'),
                  json_extract(j.value, '$.useForDesignBinding'), json_extract(j.value, '$.useForMockupBinding')
           FROM json_each(?2) j`,
        )
        .bind(tenantId, JSON.stringify(o.options.map((x) => ({ ...x, traits: JSON.stringify(x.traits) })))),
      db
        .prepare(
          `INSERT INTO option_values (tenant_id, product_version_id, option_uid, uid, title, value, description, sort_index, is_default, tag)
           SELECT ?1, ${NEWV}, json_extract(j.value, '$.optionUid'), json_extract(j.value, '$.uid'), json_extract(j.value, '$.title'), json_extract(j.value, '$.value'),
                  json_extract(j.value, '$.description'), json_extract(j.value, '$.sortIndex'), json_extract(j.value, '$.isDefault'), json_extract(j.value, '$.tag')
           FROM json_each(?2) j`,
        )
        .bind(tenantId, JSON.stringify(o.values)),
      // New combinations keep what the old version's variant with the same option values had.
      db
        .prepare(
          `INSERT INTO variants (${VARIANT_COLUMNS})
           WITH o AS MATERIALIZED (SELECT uid, option_value_uids AS k, is_available, price, weight, storefront_product_variant_id, sku
                                    FROM variants WHERE tenant_id = ?1 AND product_version_id = ?3)
           SELECT ?1, ${NEWV}, ${productSql}, COALESCE(o.uid, json_extract(j.value, '$.uid')), json_extract(j.value, '$.key'), COALESCE(o.is_available, 1),
                  o.price, o.weight, json_extract(j.value, '$.sortIndex'), o.storefront_product_variant_id, o.sku
           FROM json_each(?2) j LEFT JOIN o ON o.k = json_extract(j.value, '$.key')`,
        )
        .bind(tenantId, JSON.stringify(o.variants), from),
    );
  } else {
    s.push(
      db
        .prepare(
          `INSERT INTO product_options (tenant_id, product_version_id, product_id, uid, type, title, traits, sort_index, tag, use_for_design_binding, use_for_mockup_binding)
           SELECT tenant_id, ${NEWV}, product_id, uid, type, title, traits, sort_index, tag, use_for_design_binding, use_for_mockup_binding
           FROM product_options WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY id`,
        )
        .bind(tenantId, from),
      db
        .prepare(
          `INSERT INTO option_values (tenant_id, product_version_id, option_uid, uid, title, value, description, sort_index, is_default, tag)
           SELECT tenant_id, ${NEWV}, option_uid, uid, title, value, description, sort_index, is_default, tag
           FROM option_values WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY id`,
        )
        .bind(tenantId, from),
      db
        .prepare(
          `INSERT INTO variants (${VARIANT_COLUMNS})
           SELECT tenant_id, ${NEWV}, product_id, uid, option_value_uids, is_available, price, weight, sort_index, storefront_product_variant_id, sku
           FROM variants WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY id`,
        )
        .bind(tenantId, from),
    );
  }

  for (const [table, column, rows] of [
    ['design_connections', 'design_id', change.designConnections],
    ['mockup_connections', 'mockup_id', change.mockupConnections],
  ] as const) {
    const group = table === 'design_connections';
    if (rows) {
      s.push(
        db
          .prepare(
            `INSERT INTO ${table} (tenant_id, product_version_id, ${column}${group ? ', design_group' : ''}, options)
             SELECT ?1, ${NEWV}, json_extract(j.value, '$.assetId')${group ? `, json_extract(j.value, '$.designGroup')` : ''}, json_extract(j.value, '$.options')
             FROM json_each(?2) j ORDER BY j.key`,
          )
          .bind(tenantId, JSON.stringify(rows.map((r) => ({ ...r, options: JSON.stringify(r.options) })))),
      );
    } else {
      s.push(
        db
          .prepare(
            `INSERT INTO ${table} (tenant_id, product_version_id, ${column}${group ? ', design_group' : ''}, options)
             SELECT tenant_id, ${NEWV}, ${column}${group ? ', design_group' : ''}, options FROM ${table} WHERE tenant_id = ?1 AND product_version_id = ?2 ORDER BY id`,
          )
          .bind(tenantId, from),
      );
    }
  }

  if (change.variantUpdate) {
    // The given ids are the old version's variants (one entry each); their twins in the new version share the uid.
    const { column, entries } = change.variantUpdate;
    s.push(
      db
        .prepare(
          `WITH j AS MATERIALIZED (SELECT o.uid AS uid, json_extract(e.value, '$.value') AS v FROM json_each(?2) e
                 JOIN variants o ON o.tenant_id = ?1 AND o.product_version_id = ?3 AND o.id = json_extract(e.value, '$.productVariantId'))
           UPDATE variants SET ${column} = j.v FROM j
           WHERE variants.tenant_id = ?1 AND variants.product_version_id = ${NEWV} AND variants.uid = j.uid`,
        )
        .bind(tenantId, JSON.stringify(entries), from),
    );
  }

  s.push(
    db
      .prepare(`UPDATE products SET current_version_id = ${NEWV}, last_modified = ?2 WHERE tenant_id = ?1 AND id = ${productSql}`)
      .bind(tenantId, Date.now()),
  );
  return s;
}

/** Fails the batch unless the product is still at `version` (a concurrent change won). */
export const versionGuard = (db: D1Database, tenantId: number, productId: number, version: number): D1PreparedStatement =>
  guardThat(db, `SELECT current_version_id = ?3 FROM products WHERE tenant_id = ?1 AND id = ?2`, tenantId, productId, version);

/**
 * The new version of product `productId` from `current` with `change`, after `extra` statements,
 * in one batch; false when the product is no longer at `current` (or a guard in `extra` failed):
 * nothing was written.
 */
export async function writeNewVersion(db: D1Database, tenantId: number, productId: number, current: number, change: VersionChange, extra: D1PreparedStatement[] = []): Promise<boolean> {
  return (await batchUnlessGuardFails(db, [versionGuard(db, tenantId, productId, current), ...extra, ...newVersionStatements(db, tenantId, String(productId), current, change)])) !== null;
}
