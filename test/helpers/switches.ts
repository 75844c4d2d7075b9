/**
 * The engine's test switches (`useWasmBlending`, `useEffectKernels`, `useUnitShortcuts`, …: on by
 * default) turned off around a body and on again however it ends: the TypeScript, the passes or the
 * whole drawing that the fast path stands for.
 */
export function switchedOff<T>(use: (on: boolean) => void, body: () => T): T {
  use(false);
  try {
    return body();
  } finally {
    use(true);
  }
}

/** switchedOff for a body that awaits: the switch is on again once its promise settles, not before. */
export async function switchedOffAwaiting<T>(use: (on: boolean) => void, body: () => Promise<T>): Promise<T> {
  use(false);
  try {
    return await body();
  } finally {
    use(true);
  }
}
