// PSD/PSB designs and mockups are staged in R2 as they stream in and compiled from there by range
// (issue 25 §1; contract: "processing reads from R2"), named by the hash taken on the way.
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { templateHash } from '../../../src/engine';
import { psdFixture } from '../../helpers/fixtures';
import { seedPlatform } from '../../helpers/platform';
import { S, upload, uploadJson } from '../storage/helpers';
import { listKeys } from '../../helpers/r2-keys';

beforeAll(seedPlatform);

const sha256 = async (bytes: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');

const keys = (prefix: string) => listKeys(env.FILES, prefix);

describe('PSD uploads are compiled from R2', () => {
  it('a design and a mockup: their blob holds the bytes, their compiled form is the templateHash, no staging stays', async () => {
    for (const [type, fixture] of [['designs', 'psdtools-text.psd'], ['mockups', 'agpsd-shapes-smart-objects.psd']] as const) {
      const bytes = await psdFixture(fixture);
      const dto = await uploadJson(`${S}/${type}`, bytes, fixture, { path: '/staged/' });
      const blob = await env.FILES.get(`p/1/blobs/${await sha256(bytes)}`);
      expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(bytes);
      const compiled = await templateHash(bytes);
      expect(await keys(`compiled/${compiled}/`), type).not.toHaveLength(0);
      expect(JSON.stringify(dto)).not.toContain(compiled); // the located metadata stays internal
    }
    expect(await keys('p/1/cache/staging/')).toEqual([]);
  }, 120_000); // two compiles: 19 s alone, past 30 s on a loaded machine

  it('a refused PSD leaves nothing: no staging, no blob, no compiled form', async () => {
    const good = await psdFixture('psdtools-blend-multiply.psd');
    const bad = good.slice(0, 3000);
    const before = { blobs: await keys('p/1/blobs/'), compiled: await keys('compiled/') };
    const res = await upload(`${S}/designs`, bad, 'cut.psd', { path: '/staged/' });
    expect(res.status).toBe(422);
    expect(await keys('p/1/cache/staging/')).toEqual([]);
    expect({ blobs: await keys('p/1/blobs/'), compiled: await keys('compiled/') }).toEqual(before);
  });
});
