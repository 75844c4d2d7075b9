import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, deleteCompiledTemplate, templateHash, templateHasher } from '../../../src/engine/compiled/compile';
import { bytesSource, r2Source } from '../../../src/engine/psd/source';
import { psdFixture } from '../../helpers/fixtures';

describe('a PSD read from a source', () => {
  it('is named and compiled as its bytes are', async () => {
    const bytes = await psdFixture('agpsd-groups.psd');
    const key = 'test-sources/agpsd-groups.psd';
    await env.FILES.put(key, bytes);
    const stored = r2Source(env.FILES, key, bytes.length);
    const hash = await templateHash(bytes);
    expect(await templateHash(stored)).toBe(hash);
    expect(await templateHash(bytesSource(bytes))).toBe(hash);
    const hasher = templateHasher();
    for (let at = 0; at < bytes.length; at += 1000) await hasher.add(bytes.subarray(at, at + 1000));
    expect(await hasher.finish()).toBe(hash);

    const fromBytes = await compileTemplate(env.FILES, bytes);
    await deleteCompiledTemplate(env.FILES, hash);
    const fromStore = await compileTemplate(env.FILES, stored, { hash });
    expect(fromStore).toEqual(fromBytes);
    expect(await stored.read(bytes.length - 4, 100)).toEqual(bytes.subarray(bytes.length - 4));
  });
});
