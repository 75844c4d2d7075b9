import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import { renderTemplate, type LayerOverrides } from '../../../src/engine';
import { clearEngineCaches } from '../../../src/engine/cache';
import { renderFrame } from '../../../src/engine/frame';
import type { Bounds, CompiledTemplate } from '../../../src/engine/types';
import { ServerTiming } from '../../../src/http/server-timing';
import { equalOutside, firstDifference } from '../../helpers/pixels';

/**
 * What a dirty rectangle promises: with `overrides`, nothing changes outside `dirty`, and the
 * template frame kept, then the rectangle redrawn over it, gives the same bytes as drawn whole.
 */
export async function expectRedrawnWithin(compiled: CompiledTemplate, overrides: LayerOverrides, scale: number, dirty: Bounds | null, what: string): Promise<void> {
  const plain = await renderTemplate(env.FILES, compiled, { scale });
  const personalised = await renderTemplate(env.FILES, compiled, { scale, overrides });
  expect(equalOutside(personalised, plain, dirty), what).toBe(true);
  clearEngineCaches();
  const o = { scale, width: plain.width, height: plain.height, quality: 'high' as const, sharpen: null };
  await renderFrame(env.FILES, compiled, o, new ServerTiming());
  const got = (await renderFrame(env.FILES, compiled, { ...o, overrides }, new ServerTiming())).image;
  expect(firstDifference(got.data, personalised.data), what).toBe(-1);
}
