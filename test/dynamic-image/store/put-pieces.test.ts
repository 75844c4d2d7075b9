import { env } from 'cloudflare:workers';
import { expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store/files';
import { sha256Hex } from '../../../src/engine/hash';

it('a body above 1 MB goes to R2 in pieces (issue 25 §1) and reads back whole, with its SHA-256', async () => {
  const bytes = Uint8Array.from({ length: 3_500_001 }, (_, i) => (i * 7 + (i >> 11)) & 255);
  const store = new FileStore(env.FILES);
  const stored = await store.put('templates', 'pieces/x.psd', bytes.subarray(1), { contentType: 'image/vnd.adobe.photoshop' });
  expect(stored!.size).toBe(3_500_000);
  expect(stored!.sha256).toBe(await sha256Hex(bytes.subarray(1)));
  const obj = await env.FILES.get('templates/pieces/x.psd');
  expect(Buffer.compare(Buffer.from(await obj!.arrayBuffer()), Buffer.from(bytes.subarray(1)))).toBe(0);
});
