// The local instance's bindings (D1 `DB`, R2 `FILES`, …) in this Node process, through wrangler's
// getPlatformProxy: the same storage `wrangler dev` and `wrangler … --local` use
// (.wrangler/state beside wrangler.toml), so seed and admin scripts need one process instead of
// one `wrangler` child per object.
//
// `--persist-to <dir>` (as wrangler's own flag: relative to the working directory) selects
// another state directory.
import path from 'node:path';
import { getPlatformProxy } from 'wrangler';

/** The project whose wrangler.toml is used: the directory the running script lives under. */
export function projectRoot(scriptUrl) {
  return path.resolve(path.dirname(new URL(scriptUrl).pathname), '../..');
}

/** `--persist-to <dir>` / `--persist-to=<dir>` from argv, else undefined. */
export function persistToArg(argv = process.argv.slice(2)) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--persist-to') return argv[i + 1];
    if (argv[i].startsWith('--persist-to=')) return argv[i].slice('--persist-to='.length);
  }
  return undefined;
}

/**
 * Runs `work(env)` against the local bindings and disposes of them afterwards.
 *
 * @example await withLocalPlatform(root, async (env) => env.FILES.put('k', 'v'));
 */
export async function withLocalPlatform(root, work, persistTo = persistToArg()) {
  const state = persistTo ? path.resolve(process.cwd(), persistTo) : path.join(root, '.wrangler/state');
  const proxy = await getPlatformProxy({
    configPath: path.join(root, 'wrangler.toml'),
    persist: { path: path.join(state, 'v3') },
  });
  try {
    return await work(proxy.env);
  } finally {
    await proxy.dispose();
  }
}
