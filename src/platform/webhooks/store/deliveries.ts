/**
 * The outbox's deliveries and attempts, in the WebhookOutbox Durable Object's own SQLite (one per
 * tenant): the only file that knows those tables. The object owns transactions and alarms; this
 * file only reads and writes rows.
 */

export type DeliveryStatus = 'Pending' | 'Delivered' | 'Failed' | 'Cancelled';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  next_at INTEGER,
  last_status INTEGER,
  last_error TEXT,
  created INTEGER NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (status, next_at);
CREATE INDEX IF NOT EXISTS deliveries_endpoint ON deliveries (endpoint_id, created);
CREATE TABLE IF NOT EXISTS attempts (
  delivery_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  at INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  duration INTEGER NOT NULL,
  PRIMARY KEY (delivery_id, n)
);
`;

export type DeliveryRow = {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  max_attempts: number;
  next_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created: number;
};

export type AttemptRow = { delivery_id: string; n: number; at: number; status: number | null; error: string | null; duration: number };

export class DeliveryStore {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(SCHEMA);
  }

  /** A Pending delivery of the event to one endpoint; false when that (event, endpoint) is there already. */
  insertPending(d: { eventId: string; eventType: string; endpointId: string; body: string; maxAttempts: number; now: number }): boolean {
    const cursor = this.sql.exec(
      `INSERT OR IGNORE INTO deliveries (id, event_id, event_type, endpoint_id, body, status, attempts, max_attempts, next_at, created)
           VALUES (?, ?, ?, ?, ?, 'Pending', 0, ?, ?, ?)`,
      `dlv_${crypto.randomUUID().replace(/-/g, '')}`, d.eventId, d.eventType, d.endpointId, d.body, d.maxAttempts, d.now, d.now,
    );
    return cursor.rowsWritten > 0;
  }

  /** Pending deliveries due at `now`, earliest first. */
  due(now: number, limit: number): DeliveryRow[] {
    return this.sql.exec<DeliveryRow>(`SELECT * FROM deliveries WHERE status = 'Pending' AND next_at <= ? ORDER BY next_at LIMIT ?`, now, limit).toArray();
  }

  countAttempt(id: string, attempts: number, nextAt: number): void {
    this.sql.exec(`UPDATE deliveries SET attempts = ?, next_at = ? WHERE id = ?`, attempts, nextAt, id);
  }

  /** The endpoint's deliveries, newest first. */
  ofEndpoint(endpointId: string, limit: number): DeliveryRow[] {
    return this.sql.exec<DeliveryRow>(`SELECT * FROM deliveries WHERE endpoint_id = ? ORDER BY created DESC, id LIMIT ?`, endpointId, limit).toArray();
  }

  find(endpointId: string, id: string): DeliveryRow | undefined {
    return this.sql.exec<DeliveryRow>(`SELECT * FROM deliveries WHERE endpoint_id = ? AND id = ?`, endpointId, id).toArray()[0];
  }

  makePending(id: string, nextAt: number, maxAttempts: number): void {
    this.sql.exec(`UPDATE deliveries SET status = 'Pending', next_at = ?, max_attempts = ? WHERE id = ?`, nextAt, maxAttempts, id);
  }

  /** The endpoint's deliveries and their attempts, gone (run it inside a transaction). */
  deleteOfEndpoint(endpointId: string): void {
    this.sql.exec(`DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE endpoint_id = ?)`, endpointId);
    this.sql.exec(`DELETE FROM deliveries WHERE endpoint_id = ?`, endpointId);
  }

  /** One attempt's outcome and the delivery's new state (run it inside a transaction). */
  recordAttempt(
    d: { id: string; attempt: number },
    a: { started: number; status: number | null; error: string | null; durationMs: number },
    next: { status: DeliveryStatus; nextAt: number | null },
  ): void {
    this.sql.exec(`INSERT OR REPLACE INTO attempts (delivery_id, n, at, status, error, duration) VALUES (?, ?, ?, ?, ?, ?)`, d.id, d.attempt, a.started, a.status, a.error, a.durationMs);
    this.sql.exec(`UPDATE deliveries SET status = ?, last_status = ?, last_error = ?, next_at = ? WHERE id = ?`, next.status, a.status, a.error, next.nextAt, d.id);
  }

  /** When the earliest Pending delivery is due, or null. */
  nextDue(): number | null {
    return this.sql.exec<{ t: number | null }>(`SELECT MIN(next_at) AS t FROM deliveries WHERE status = 'Pending'`).one().t;
  }

  /** Keeps the newest `keep` finished deliveries per endpoint (and their attempts). */
  trim(keep: number): void {
    this.sql.exec(
      `DELETE FROM deliveries WHERE status != 'Pending' AND id IN (
         SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY endpoint_id ORDER BY created DESC) AS r FROM deliveries) WHERE r > ?)`,
      keep,
    );
    this.sql.exec(`DELETE FROM attempts WHERE delivery_id NOT IN (SELECT id FROM deliveries)`);
  }

  attemptsOf(deliveryId: string): AttemptRow[] {
    return this.sql.exec<AttemptRow>(`SELECT * FROM attempts WHERE delivery_id = ? ORDER BY n`, deliveryId).toArray();
  }

  meta(k: string): string | null {
    return this.sql.exec<{ v: string | null }>(`SELECT v FROM meta WHERE k = ?`, k).toArray()[0]?.v ?? null;
  }

  /** The object's tenant, written once (the alarm has no caller to say it). */
  setTenant(tenantId: number): void {
    this.sql.exec(`INSERT OR IGNORE INTO meta (k, v) VALUES ('tenantId', ?)`, String(tenantId));
  }
}
