import { useWasmBlending } from '../../../src/engine/raster/blend';
import { switchedOff } from '../../helpers/switches';

/** `fn` with the compositor's TypeScript blend loops (the WASM path they delegate to switched off). */
export function typescriptBlending<T>(fn: () => T): T {
  return switchedOff(useWasmBlending, fn);
}
