/**
 * `{{secrets.<name>}}` for the runner: the back-office's sealed tenant secrets
 * (catalogue/tenant.ts `readTenantSecret`). A secret that no longer opens fails the task.
 */
import type { Env } from '../../env';
import { TaskFailure } from '../pipelines/tasks/errors';

export async function readSecret(env: Env, tenantId: number, name: string): Promise<string | undefined> {
  try {
    // The catalogue loads when a task first reads a secret, not at start-up (docs/performance.md).
    const { readTenantSecret } = await import('../catalogue/tenant');
    return (await readTenantSecret(env, tenantId, name)) ?? undefined;
  } catch {
    throw new TaskFailure(`the secret ${name} cannot be read`);
  }
}
