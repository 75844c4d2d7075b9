import { useWasmBlending } from '../../../src/engine/raster/blend';

/** `fn` with the compositor's TypeScript blend loops (the WASM path they delegate to switched off). */
export function typescriptBlending<T>(fn: () => T): T {
  useWasmBlending(false);
  try {
    return fn();
  } finally {
    useWasmBlending(true);
  }
}
