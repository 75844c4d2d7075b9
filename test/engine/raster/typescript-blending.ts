import { blendSurface } from '../../../src/engine/composite/blend';
import type { Surface } from '../../../src/engine/composite/surface';
import { blendSurfaceWasm, useWasmBlending } from '../../../src/engine/raster/blend';
import { switchedOff } from '../../helpers/switches';

/** `fn` with the compositor's TypeScript blend loops (the WASM path they delegate to switched off). */
export function typescriptBlending<T>(fn: () => T): T {
  return switchedOff(useWasmBlending, fn);
}

/**
 * Bytes in which the WASM blend of `src` over a copy of `dst` differs from the compositor's
 * TypeScript (0: bit-identical); -1 when the WASM path declined the blend.
 */
export function wasmBlendMismatches(dst: Surface, src: Surface, mask: Uint8ClampedArray | null, opacity: number, mode: string): number {
  const expected = { ...dst, data: new Uint8ClampedArray(dst.data) };
  typescriptBlending(() => blendSurface(expected, src, mask, opacity, mode, {}));
  const actual = { ...dst, data: new Uint8ClampedArray(dst.data) };
  if (!blendSurfaceWasm(actual, src, mask, opacity, mode, {})) return -1;
  let mismatches = 0;
  for (let i = 0; i < actual.data.length; i++) if (actual.data[i] !== expected.data[i]) mismatches++;
  return mismatches;
}
