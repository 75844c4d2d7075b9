// External apps (OAuth clients) of one tenant: the admin panel's operations over the identity
// store. Deleting goes through the identity service's deleteClient, which also revokes everything
// issued to the app.
import type { Database } from '../../../db/client';
import { generateClientId, generateClientSecret } from '../../client-secrets';
import { deleteClient } from '../../grants';
import { nowSeconds } from '../../crypto';
import { clients } from '../../store';
import type { AppSettings } from './app-form';

export type AppRow = clients.ClientRow;

export const listClientApps = (db: Database, tenantId: number): Promise<AppRow[]> => clients.listForTenant(db, tenantId);

/** The app with this client id if it belongs to the tenant (another tenant's app is "not found"). */
export const findClientApp = (db: Database, tenantId: number, clientId: string): Promise<AppRow | undefined> => clients.findInTenant(db, tenantId, clientId);

/**
 * Stores a new app with a generated client id and, when its flow uses one, a new secret. The
 * secret is returned once for display; only its SHA-256 is stored.
 */
export async function createClientApp(db: Database, tenantId: number, settings: AppSettings): Promise<{ clientId: string; secret?: string }> {
  const clientId = generateClientId();
  const issued = settings.requireClientSecret ? await generateClientSecret() : undefined;
  await clients.insert(db, { clientId, tenantId, ...settings, secretHash: issued?.secretHash ?? null });
  return { clientId, secret: issued?.secret };
}

/**
 * Saves edited settings. Turning "Require client secret" on for an app without a secret issues
 * one (returned once); turning it off forgets the stored hash.
 */
export async function updateClientApp(db: Database, app: AppRow, settings: AppSettings): Promise<{ secret?: string }> {
  let secretHash = settings.requireClientSecret ? app.secretHash : null;
  let secret: string | undefined;
  if (settings.requireClientSecret && !secretHash) {
    const issued = await generateClientSecret();
    secret = issued.secret;
    secretHash = issued.secretHash;
  }
  await clients.update(db, app.tenantId, app.clientId, { ...settings, authType: app.authType, secretHash, updatedAt: nowSeconds() });
  return { secret };
}

export const removeClientApp = (db: Database, app: AppRow): Promise<void> => deleteClient(db, app.clientId);
