// Uploads beyond one R2 part: the stream is cut into equal 8 MiB parts (R2 refuses a multipart
// upload whose parts differ in size), hashed on the way, and the stored file is byte-exact.
import { env } from 'cloudflare:workers';
import { beforeAll, expect, it } from 'vitest';
import { seedPlatform } from '../../helpers/platform';
import { api, S, uploadJson } from './helpers';

beforeAll(seedPlatform);

it('a 17 MB resource goes through an R2 multipart upload and comes back byte for byte', async () => {
  const bytes = new Uint8Array(17 * 1024 * 1024 + 12345);
  for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) & 255;
  const dto = await uploadJson(`${S}/resources`, bytes, 'big.bin', { namespace: 'large' });
  expect(dto.size).toBe(bytes.length);
  const sha = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const stored = await env.FILES.head(`p/1/blobs/${sha}`);
  expect(stored?.size).toBe(bytes.length);
  const tail = await api('GET', `${S}/resources/${dto.id}/file`, undefined, { token: 1, headers: { range: 'bytes=-5000' } });
  expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 5000));
  // Nothing is left in staging.
  expect((await env.FILES.list({ prefix: 'p/1/cache/staging/' })).objects).toHaveLength(0);
}, 60_000);
