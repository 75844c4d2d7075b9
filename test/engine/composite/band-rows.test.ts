// Issue 25 §1: at factor 1 a layer's rows are read one 256-row band at a time straight into its
// surface instead of from one buffer joining every band; the rows must be the ones the whole
// stored level gives.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, walkLayers } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { BAND } from '../../../src/engine/compiled/pyramid';
import { loadLayerPixels, loadMaskPixels, StripBuffers } from '../../../src/engine/compiled/store';
import { layerContent, layerMask } from '../../../src/engine/composite/compositor';
import type { RenderContext } from '../../../src/engine/composite/context';
import { resampleGray, resampleRGBA } from '../../../src/engine/composite/resample';
import { maskOver } from '../../../src/engine/composite/surface';
import { psdFixture, psdManifest } from '../../helpers/fixtures';
import { firstDifference } from '../../helpers/pixels';

/** Up to three layers taller than a band in each of the first 30 fixtures, each with its whole stored level 0. */
async function* tallLayers() {
  for (const entry of (await psdManifest()).slice(0, 30)) {
    const compiled = await compileTemplate(env.FILES, await psdFixture(entry.name));
    clearEngineCaches();
    const tall = [...walkLayers(compiled.layers)].filter((n) => n.hasPixels && n.pixelBounds && n.pixelBounds.bottom - n.pixelBounds.top > BAND);
    for (const node of tall.slice(0, 3)) {
      const whole = (await loadLayerPixels(env.FILES, compiled, node, 0))!;
      yield { name: entry.name, compiled, node, b: node.pixelBounds!, whole };
    }
  }
}

describe('layer rows at factor 1', () => {
  it('read band by band, equal the rows of the whole stored level, for clips across band edges', { timeout: 300_000 }, async () => {
    let checked = 0;
    for await (const { name, compiled, node, b, whole } of tallLayers()) {
      // A clip straddling the first band edge inside the layer, one from the top to past it, and all of it.
      const edge = (Math.floor(b.top / BAND) + 1) * BAND;
      const clips = [
        { left: b.left + 1, top: edge - 3, right: b.right - 1, bottom: Math.min(b.bottom, edge + 5) },
        { left: 0, top: 0, right: compiled.width, bottom: Math.min(compiled.height, edge + BAND + 7) },
        { left: 0, top: 0, right: compiled.width, bottom: compiled.height },
      ];
      for (const clip of clips) {
        const ctx: RenderContext = { bucket: env.FILES, compiled, scale: 1, level: 0, factor: 1, clip, overrides: new Map(), patterns: new Map() };
        const got = await layerContent(ctx, node, clip);
        const expected = resampleRGBA(whole.data, whole.bounds, 1, clip);
        expect(got && { x: got.x, y: got.y, w: got.w, h: got.h }, `${name} ${node.name}`).toEqual(expected && { x: expected.x, y: expected.y, w: expected.w, h: expected.h });
        expect(firstDifference(got?.data, expected?.data), `${name} ${node.name} ${JSON.stringify(clip)}`).toBe(-1);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('and pixel masks likewise (masks without vector mask, feather or density)', { timeout: 300_000 }, async () => {
    let checked = 0;
    for (const entry of (await psdManifest()).slice(0, 30)) {
      const compiled = await compileTemplate(env.FILES, await psdFixture(entry.name));
      clearEngineCaches();
      const masked = [...walkLayers(compiled.layers)].filter(
        (n) => n.mask?.hasPixels && !n.mask.disabled && !n.mask.feather && n.mask.density === undefined && !n.vectorMask && n.mask.bounds.bottom - n.mask.bounds.top > 8,
      );
      for (const node of masked.slice(0, 3)) {
        const m = node.mask!;
        const whole = await loadMaskPixels(env.FILES, compiled, node, 0);
        const edge = (Math.floor(m.bounds.top / BAND) + 1) * BAND;
        for (const clip of [
          { left: 0, top: Math.max(0, edge - 3), right: compiled.width, bottom: Math.min(compiled.height, edge + 5) },
          { left: 0, top: 0, right: compiled.width, bottom: compiled.height },
        ]) {
          if (clip.bottom <= clip.top) continue;
          const ctx: RenderContext = { bucket: env.FILES, compiled, scale: 1, level: 0, factor: 1, clip, overrides: new Map(), patterns: new Map() };
          const got = await layerMask(ctx, node, clip);
          const surf = resampleGray(whole!.data, whole!.bounds, 1, clip, m.defaultColor);
          const expected = surf ? maskOver(surf, clip) : m.defaultColor !== 255 ? new Uint8ClampedArray((clip.right - clip.left) * (clip.bottom - clip.top)).fill(m.defaultColor) : null;
          expect(firstDifference(got ?? undefined, expected ?? undefined), `${entry.name} ${node.name} ${JSON.stringify(clip)}`).toBe(-1);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('layer rows shrunk from their level (factor < 1), read band by band', () => {
  it('through a strip\'s buffers equal resampleRGBA of the whole stored level, for clips across band edges', { timeout: 300_000 }, async () => {
    let checked = 0;
    for await (const { name, compiled, node, b, whole } of tallLayers()) {
      for (const factor of [0.625, 0.37]) {
        // Output rows whose taps cross the first band edge inside the layer, a strip from the top past it, and all of it.
        const edge = Math.floor((Math.floor(b.top / BAND) + 1) * BAND * factor);
        const [width, height] = [Math.ceil(compiled.width * factor), Math.ceil(compiled.height * factor)];
        const clips = [
          { left: Math.floor(b.left * factor) + 1, top: edge - 2, right: Math.ceil(b.right * factor) - 1, bottom: Math.min(height, edge + 3) },
          { left: 0, top: 0, right: width, bottom: Math.min(height, edge + 9) },
          { left: 0, top: 0, right: width, bottom: height },
        ];
        // Pooled surfaces (a streamed preview's) and none (each surface its own array).
        for (const buffers of [new StripBuffers(2 * width * height * 4), new StripBuffers()]) {
          for (const clip of clips) {
            const ctx: RenderContext = { bucket: env.FILES, compiled, scale: factor, level: 0, factor, clip, overrides: new Map(), patterns: new Map(), buffers };
            buffers.nextStrip();
            const got = await layerContent(ctx, node, clip);
            const expected = resampleRGBA(whole.data, whole.bounds, factor, clip);
            expect(got && { x: got.x, y: got.y, w: got.w, h: got.h }, `${name} ${node.name}`).toEqual(expected && { x: expected.x, y: expected.y, w: expected.w, h: expected.h });
            expect(firstDifference(got?.data, expected?.data), `${name} ${node.name} ${factor} ${JSON.stringify(clip)}`).toBe(-1);
            checked++;
          }
          buffers.release();
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
  });
});
