/**
 * A mockup's artwork layers: the smart objects a design is placed into, read from the mockup's
 * compiled template (compiled at import, or now when the cache lost it). The processor lists
 * them; design previews with a mockup render into them.
 */
import { compileTemplate, loadCompiledTemplate, walkLayers } from '../../engine';
import type { CompiledTemplate, LayerNode } from '../../engine/types';
import { NotFoundError, UnprocessableError } from '../core';
import { engineError } from './engine-error';
import { readAssetBytes } from './engine-store';
import type { AssetRow } from './model';
import { getAsset, type AssetScope } from './service';

/** An asset's stored bytes; 404 when it has none. */
export async function assetContent(s: AssetScope, row: AssetRow): Promise<Uint8Array> {
  const bytes = await readAssetBytes(s.t.env.FILES, row);
  if (!bytes) throw new NotFoundError(`The ${row.type} ${row.id} has no content.`);
  return bytes;
}

export async function compiledOf(s: AssetScope, row: AssetRow): Promise<CompiledTemplate> {
  if (row.mockupType === 'Mockup3D') throw new UnprocessableError('A 3D mockup has no artwork layers.');
  const hash = row.metadata._compiled as string | undefined;
  const stored = hash ? await loadCompiledTemplate(s.t.env.FILES, hash) : null;
  if (stored) return stored;
  try {
    return await compileTemplate(s.t.env.FILES, await assetContent(s, row));
  } catch (e) {
    throw engineError(e);
  }
}

export interface ArtworkLayer {
  name: string;
  index: number;
  width: number;
  height: number;
  corners: number[];
}

const artwork = (l: LayerNode): ArtworkLayer => ({ name: l.name, index: l.id, width: l.smartObject!.width, height: l.smartObject!.height, corners: l.smartObject!.corners });

/** The mockup's smart-object layers (the artwork placeholders), top first. */
export async function artworkLayers(s: AssetScope, id: string): Promise<ArtworkLayer[]> {
  const row = await getAsset(s, id);
  const compiled = await compiledOf(s, row);
  const only = row.mockupType === 'MockupLink' ? (row.metadata.artworkLayer as string | undefined) : undefined;
  return [...walkLayers(compiled.layers)].filter((l) => l.smartObject && (only === undefined || l.name === only)).map(artwork);
}
