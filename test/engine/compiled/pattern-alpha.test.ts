import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, loadStoredComposite, renderTemplate } from '../../../src/engine';
import { loadPattern } from '../../../src/engine/compiled/store';
import { madeFixture } from '../../helpers/fixtures';

/**
 * A pattern's transparency reaches the compiled template and the render: made-al-pattern-alpha.psd
 * (test/fixtures/psd-made/make-al.mjs) draws a 4 × 3 tile whose pixels run from clear to opaque by
 * a linked Pattern Overlay at 80 %, an unlinked one, a pattern stroke and a pattern fill layer
 * over a coloured background; its merged image is worked out from Photoshop's documented
 * behaviour (the overlay's colour the tile's, its coverage the tile's alpha × the effect's
 * opacity, the layer beneath showing through). ag-psd read the tile opaque, so the clear parts
 * drew solid (docs/fidelity.md, "Patterns with transparency").
 */
const NAME = 'made-al-pattern-alpha.psd';
const BLUE = [20, 40, 230];
const BG = [200, 100, 50];
const TILE_ALPHA = [255, 0, 128, 64, 200, 255, 0, 32, 96, 160, 255, 16];

describe('patterns with transparency', () => {
  it('are compiled with their alpha', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture(NAME));
    const tile = await loadPattern(env.FILES, compiled, 'a1fa0000-0000-4000-8000-00000000a1fa');
    expect([tile?.width, tile?.height]).toEqual([4, 3]);
    expect([...tile!.data].filter((_, i) => i % 4 === 3)).toEqual(TILE_ALPHA);
  });

  it('draw overlay, stroke and fill within a level of the expected composite, the layer beneath showing through clear pixels', async () => {
    const compiled = await compileTemplate(env.FILES, await madeFixture(NAME));
    const frame = await renderTemplate(env.FILES, compiled, { scale: 1 });
    const want = (await loadStoredComposite(env.FILES, compiled))!;
    const at = (x: number, y: number) => [...frame.data.subarray((y * frame.width + x) * 4, (y * frame.width + x) * 4 + 3)];
    let worst = 0;
    for (let i = 0; i < want.length; i += 4) for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(frame.data[i + c] - want[i + c]));
    expect(worst).toBeLessThanOrEqual(1);
    // The linked overlay's layer (3, 3)..(15, 11): tile pixel (1, 0) is clear, the blue shows; (0, 0) opaque white at 80 %.
    expect(at(4, 3)).toEqual(BLUE);
    expect(at(3, 3)).toEqual(BLUE.map((v) => Math.round(v + (250 - v) * 0.8)));
    // The fill layer (25, 14)..(37, 22), tiled from the document origin: (26, 14) is tile pixel (2, 2), opaque grey;
    // (25, 16) tile pixel (1, 1) opaque; (29, 14) tile pixel (1, 2) at 160.
    expect(at(26, 14)).toEqual([128, 128, 128]);
    expect(at(29, 14)).toEqual(BG.map((v, c) => Math.round(v + ([0, 255, 255][c] - v) * (160 / 255))));
  });
});
