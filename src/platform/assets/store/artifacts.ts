/**
 * SQL on the `artifacts` table (uploaded files and what jobs produce). The only code that names it.
 */

/** A final artifact of an earlier job, as extract-project-artifacts borrows it. */
export interface EarlierFinalArtifact {
  id: string;
  name: string;
  alias: string | null;
  format: string | null;
  size: number;
  key: string | null;
  itemId: number | null;
}

/**
 * The final artifacts of a project's completed jobs other than `exceptJobId`, oldest first. It
 * joins `jobs` for the status: one statement keeps the read consistent (a job store call per
 * artifact would not).
 */
export async function finalArtifactsOfCompletedJobs(db: D1Database, tenantId: number, projectId: number, exceptJobId: string): Promise<EarlierFinalArtifact[]> {
  const { results } = await db
    .prepare(
      `SELECT a.id, a.name, a.alias, a.format, a.size, a.r2_key AS key, a.project_item_id AS itemId FROM artifacts a
       JOIN jobs j ON j.tenant_id = a.tenant_id AND j.id = a.job_id
       WHERE a.tenant_id = ?1 AND a.project_id = ?2 AND a.type = 'Final' AND a.job_id <> ?3 AND j.status = 'Completed'
       ORDER BY a.created, a.alias`,
    )
    .bind(tenantId, projectId, exceptJobId)
    .all<EarlierFinalArtifact>();
  return results;
}
