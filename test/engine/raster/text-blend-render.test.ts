import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { textSpace, useWasmBlending } from '../../../src/engine/raster/blend';
import { kernels } from '../../../src/engine/raster/kernels';
import { psdFixture } from '../../helpers/fixtures';

/**
 * Text edges blend in the WASM kernel from the text space's tables (raster/blend.ts textSpace):
 * whole documents with text, compiled and rendered with the kernel and with the compositor's
 * TypeScript loop alone, come out byte for byte the same.
 */
describe('text blending, WASM against TypeScript, on real documents', () => {
  it.each(['webtoon-mobile-ui-example.psd', 'agpsd-text-bug-1920.psd', 'psdtools-layer-effects-all.psd'])(
    '%s renders the same bytes either way',
    async (name) => {
      await kernels();
      const bytes = await psdFixture(name);
      // Each way from nothing: no surface the other way drew kept in the engine's caches.
      const render = async () => {
        clearEngineCaches();
        const compiled = await compileTemplate(env.FILES, bytes);
        return { compiled, image: await renderTemplate(env.FILES, compiled, { scale: 1 }) };
      };
      const { compiled, image: wasm } = await render();
      expect(compiled.textGamma, 'the document blends text with a gamma').toBeGreaterThan(1);
      expect(textSpace(compiled.textGamma!).table, 'the kernel takes this gamma').not.toBeNull();
      useWasmBlending(false);
      let typescript;
      try {
        typescript = (await render()).image;
      } finally {
        useWasmBlending(true);
      }
      let mismatches = 0;
      for (let i = 0; i < wasm.data.length; i++) if (wasm.data[i] !== typescript.data[i]) mismatches++;
      expect(wasm.data.length).toBe(typescript.data.length);
      expect(mismatches).toBe(0);
    },
  );
});
