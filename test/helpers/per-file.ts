// Which test file is running, as a number that test/setup.ts moves on before each file: where files
// share one runtime (vitest.engine.config.ts, vitest.shared.config.ts) modules stay loaded from one
// file to the next, and a cache a helper means to keep for one file (tokens) must key by it.
let current = 0;

/** The running test file's number. */
export const testFile = (): number => current;

/** Called by test/setup.ts before each file. */
export function nextTestFile(): void {
  current++;
}
