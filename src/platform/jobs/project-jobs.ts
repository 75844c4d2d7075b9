import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../../env';

/**
 * Per-project processing state: one instance per project id, so the pipeline steps of one
 * project are serialised without locks in D1.
 */
export class ProjectJobs extends DurableObject<Env> {
  async status(): Promise<{ state: string; updatedAt: number | null }> {
    const state = (await this.ctx.storage.get<string>('state')) ?? 'idle';
    const updatedAt = (await this.ctx.storage.get<number>('updatedAt')) ?? null;
    return { state, updatedAt };
  }

  async setState(state: string): Promise<void> {
    await this.ctx.storage.put({ state, updatedAt: Date.now() });
  }
}
