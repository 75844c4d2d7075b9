// External apps of one tenant in D1. Deleting goes through the identity service's deleteApp,
// which also revokes everything issued to the app.
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client';
import { apps } from '../../../db/schema';
import { generateClientId, generateClientSecret } from '../../client-secrets';
import { deleteApp } from '../../grants';
import { nowSeconds } from '../../crypto';
import type { AppSettings } from './form';

export type AppRow = typeof apps.$inferSelect;

export function listApps(db: Database, tenantId: number): Promise<AppRow[]> {
  return db.select().from(apps).where(eq(apps.tenantId, tenantId)).orderBy(desc(apps.createdAt), apps.name).all();
}

/** The app with this client id if it belongs to the tenant (another tenant's app is "not found"). */
export function findApp(db: Database, tenantId: number, clientId: string): Promise<AppRow | undefined> {
  return db.select().from(apps).where(and(eq(apps.tenantId, tenantId), eq(apps.clientId, clientId))).get();
}

/**
 * Stores a new app with a generated client id and, when its flow uses one, a new secret. The
 * secret is returned once for display; only its SHA-256 is stored.
 */
export async function createApp(db: Database, tenantId: number, settings: AppSettings): Promise<{ clientId: string; secret?: string }> {
  const clientId = generateClientId();
  const issued = settings.requireClientSecret ? await generateClientSecret() : undefined;
  await db.insert(apps).values({ clientId, tenantId, ...settings, secretHash: issued?.secretHash ?? null });
  return { clientId, secret: issued?.secret };
}

/**
 * Saves edited settings. Turning "Require client secret" on for an app without a secret issues
 * one (returned once); turning it off forgets the stored hash.
 */
export async function updateApp(db: Database, app: AppRow, settings: AppSettings): Promise<{ secret?: string }> {
  let secretHash = settings.requireClientSecret ? app.secretHash : null;
  let secret: string | undefined;
  if (settings.requireClientSecret && !secretHash) {
    const issued = await generateClientSecret();
    secret = issued.secret;
    secretHash = issued.secretHash;
  }
  await db
    .update(apps)
    .set({ ...settings, authType: app.authType, secretHash, updatedAt: nowSeconds() })
    .where(and(eq(apps.tenantId, app.tenantId), eq(apps.clientId, app.clientId)));
  return { secret };
}

export const removeApp = (db: Database, app: AppRow): Promise<void> => deleteApp(db, app.clientId);
