import { writePsdUint8Array, type Layer } from 'ag-psd';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, MAX_GROUP_DEPTH, templateHash } from '../../../src/engine';
import { toApiError } from '../../../src/dynamic-image/errors';
import { ApiError } from '../../../src/errors';

/** An 8 × 8 PSD with one small pixel layer under `depth` nested groups (each isolated: normal at 95 %). */
function nested(depth: number): Uint8Array {
  const pixels = { width: 4, height: 4, data: new Uint8ClampedArray(64).fill(200) };
  let node: Layer = { name: 'Inner', left: 2, top: 2, imageData: pixels };
  for (let i = 0; i < depth; i++) node = { name: `Group ${i}`, opened: true, blendMode: 'normal', opacity: 0.95, children: [node] };
  return writePsdUint8Array({ width: 8, height: 8, children: [node] }, { generateThumbnail: false });
}

describe('group nesting (Photoshop nests at most 10 deep)', () => {
  it(`accepts groups nested ${MAX_GROUP_DEPTH} deep`, async () => {
    const compiled = await compileTemplate(env.FILES, nested(MAX_GROUP_DEPTH));
    let depth = 0;
    for (let n = compiled.layers[0]; n?.children; n = n.children[0]) depth++;
    expect(depth).toBe(MAX_GROUP_DEPTH);
  });

  it('refuses one level more with a 422 naming the limit, before anything is stored', async () => {
    const bytes = nested(MAX_GROUP_DEPTH + 1);
    let error: unknown;
    try {
      await compileTemplate(env.FILES, bytes);
    } catch (e) {
      error = toApiError(e);
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).message).toBe(`The template nests groups ${MAX_GROUP_DEPTH + 1} deep; the limit is ${MAX_GROUP_DEPTH} (Photoshop's own).`);
    expect((await env.FILES.list({ prefix: `compiled/${await templateHash(bytes)}` })).objects).toEqual([]);
  });
});
