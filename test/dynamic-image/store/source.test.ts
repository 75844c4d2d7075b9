import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../../src/dynamic-image/store/files';
import { templateHash } from '../../../src/engine';

/**
 * FileStore.source (resolveTemplate's recompile by range): every read is of the version whose head
 * was taken. A template is hashed by one pass of reads and compiled by another; a file replaced in
 * between must not give a compiled form named by one version's hash and made of the other's bytes
 * (content-addressed, it would then be served for the first version for good) (review29).
 */
describe('FileStore.source', () => {
  const v1 = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 13) & 255);
  const v2 = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7 + 1) & 255);

  it('reads the version it was made for', async () => {
    const store = new FileStore(env.FILES);
    await store.put('templates', 'source/a.psd', v1);
    const head = (await store.head('templates', 'source/a.psd'))!;
    const source = (await store.source('templates', head))!;
    expect(source.size).toBe(v1.length);
    expect(await source.read(100, 50)).toEqual(v1.subarray(100, 150));
    expect(await templateHash(source)).toBe(await templateHash(v1));
  });

  it('refuses to read a file replaced since its head, with a 409, rather than mix versions', async () => {
    const store = new FileStore(env.FILES);
    await store.put('templates', 'source/b.psd', v1);
    const head = (await store.head('templates', 'source/b.psd'))!;
    const source = (await store.source('templates', head))!;
    const first = await source.read(0, 1000);
    await store.put('templates', 'source/b.psd', v2); // replaced by another request meanwhile
    await expect(source.read(1000, 1000)).rejects.toMatchObject({ status: 409 });
    expect(first).toEqual(v1.subarray(0, 1000));
  });
});

describe('a template put into R2 by other means (no recorded hash)', () => {
  it('is compiled on first use and its compiled name recorded by that first use', async () => {
    const { psdFixture } = await import('../../helpers/fixtures');
    const { postJson } = await import('../helpers');
    const { ENGINE_VERSION } = await import('../../../src/engine');
    const bytes = await psdFixture('psdtools-blend-overlay.psd');
    await env.FILES.put('templates/source-seeded/seeded.psd', bytes); // as the seed script does
    const res = await postJson('/api/information/template', { template: 'source-seeded/seeded' });
    expect(res.status, await res.text()).toBe(200);
    // The head's own recording of the hash (a put of the same bytes) keeps the etag R2 gives the
    // content, so the reads pinned to it (source) and putMeta still find the file unchanged.
    expect((await env.FILES.head('templates/source-seeded/seeded.psd'))!.customMetadata).toMatchObject({ compiled: await templateHash(bytes), engine: ENGINE_VERSION });
  });
});

describe('a template put into R2 by an R2 multipart upload, with no recorded hash', () => {
  it('is compiled on first use (the hash recorded by a single put changes its etag)', async () => {
    const { psdFixture } = await import('../../helpers/fixtures');
    const { postJson } = await import('../helpers');
    const { ENGINE_VERSION } = await import('../../../src/engine');
    const bytes = await psdFixture('psdtools-blend-screen.psd');
    const key = 'templates/source-seeded/multipart.psd';
    const upload = await env.FILES.createMultipartUpload(key);
    await upload.complete([await upload.uploadPart(1, bytes)]);
    const etag = (await env.FILES.head(key))!.etag;
    const res = await postJson('/api/information/template', { template: 'source-seeded/multipart' });
    expect(res.status, await res.text()).toBe(200);
    const after = (await env.FILES.head(key))!;
    expect(after.etag).not.toBe(etag); // the premise: the recording put gave it another etag
    expect(after.customMetadata).toMatchObject({ compiled: await templateHash(bytes), engine: ENGINE_VERSION });
  });
});
