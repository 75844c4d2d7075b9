// The demo design and mockup of scripts/seed/30-platform.mjs inside workerd (contract, "Demo
// seed"): demo-card-design (public PSD psdtools-text, folder /demo/) and demo-mockup (Mockup2D
// agpsd-shapes-smart-objects), with the metadata an upload computes and their blobs. Idempotent.
import { env } from 'cloudflare:workers';
import { psdFixture } from './fixtures';

const DEMO = [
  {
    id: 'demo-card-design', type: 'design', name: 'Demo card design', folderId: 'de5160000000000000000001', file: 'psdtools-text.psd',
    metadata: { fonts: [{ postscriptName: 'ArialMT', family: null, style: null }], surfaces: [{ width: 400, height: 400 }], printAreas: [{ width: 400, height: 400 }], hasDataSchema: false, _ppi: 72, _px: { width: 400, height: 400 } },
  },
  { id: 'demo-mockup', type: 'mockup', name: 'Demo mockup', folderId: 'de5160000000000000000002', file: 'agpsd-shapes-smart-objects.psd', metadata: { _ppi: 72, _px: { width: 500, height: 500 } } },
] as const;

const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, '0')).join('');

export async function seedDemoAssets(): Promise<void> {
  if ((await env.DB.prepare(`SELECT count(*) AS n FROM assets WHERE tenant_id = 1 AND id IN ('demo-card-design', 'demo-mockup') AND blob_sha IS NOT NULL`).first<{ n: number }>())?.n === 2) return;
  for (const a of DEMO) {
    const bytes = await psdFixture(a.file);
    const sha = hex(await crypto.subtle.digest('SHA-256', bytes));
    await env.FILES.put(`p/1/blobs/${sha}`, bytes, { httpMetadata: { contentType: 'image/vnd.adobe.photoshop' }, customMetadata: { sha256: sha } });
    await env.DB.batch([
      env.DB.prepare(`INSERT OR IGNORE INTO folders (tenant_id, id, type, owner_id, parent_id, name, path, depth) VALUES (1, ?1, ?2, '', '', 'demo', '/demo/', 1)`).bind(a.folderId, a.type),
      env.DB.prepare(
        `INSERT OR IGNORE INTO assets (tenant_id, id, type, owner_id, folder_id, name, blob_sha, size, mime_type, format, metadata, design_type, has_problems, mockup_type)
         VALUES (1, ?1, ?2, '', ?3, ?4, ?5, ?6, 'image/vnd.adobe.photoshop', 'psd', ?7, ?8, ?9, ?10)`,
      ).bind(a.id, a.type, a.folderId, a.name, sha, bytes.length, JSON.stringify(a.metadata), a.type === 'design' ? 'Psd' : null, a.type === 'design' ? 1 : 0, a.type === 'mockup' ? 'Mockup2D' : null),
      // Rows another test inserted without content get it now.
      env.DB.prepare(`UPDATE assets SET blob_sha = ?2, size = ?3, mime_type = 'image/vnd.adobe.photoshop', format = 'psd', metadata = ?4 WHERE tenant_id = 1 AND id = ?1 AND blob_sha IS NULL`).bind(
        a.id, sha, bytes.length, JSON.stringify(a.metadata)),
      env.DB.prepare(`INSERT INTO blobs (tenant_id, sha256, size, content_type, refcount) VALUES (1, ?1, ?2, 'image/vnd.adobe.photoshop', 0) ON CONFLICT (tenant_id, sha256) DO NOTHING`).bind(sha, bytes.length),
      env.DB.prepare(`UPDATE blobs SET refcount = (SELECT count(*) FROM assets WHERE tenant_id = 1 AND blob_sha = ?1) WHERE tenant_id = 1 AND sha256 = ?1`).bind(sha),
    ]);
  }
}
