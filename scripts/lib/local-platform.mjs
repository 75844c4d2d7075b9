// The local instance's bindings (D1 `DB`, R2 `FILES`, …) in this Node process, through wrangler's
// getPlatformProxy: the same storage `wrangler dev` and `wrangler … --local` use
// (.wrangler/state beside wrangler.toml), so seed and admin scripts need one process instead of
// one `wrangler` child per object.
//
// `--persist-to <dir>` (as wrangler's own flag: relative to the working directory) selects
// another state directory.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// Loaded on first use: importing wrangler takes a second or more, which `npm run dev` skips when
// the seed is current.
const wrangler = () => import('wrangler');

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
  const { getPlatformProxy } = await wrangler();
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

/** The D1 and R2 bindings of wrangler.toml (ids, bucket names, migrations) and its compatibility settings. */
async function storageConfig(root) {
  const { unstable_readConfig } = await wrangler();
  const config = unstable_readConfig({ config: path.join(root, 'wrangler.toml') }, { hideWarnings: true });
  return {
    compatibility_date: config.compatibility_date,
    compatibility_flags: config.compatibility_flags,
    d1_databases: config.d1_databases.map((d) => ({ ...d, migrations_dir: path.resolve(root, d.migrations_dir ?? 'migrations') })),
    r2_buckets: config.r2_buckets,
  };
}

/**
 * Like withLocalPlatform, but with only the D1 and R2 bindings and no variables: the seeds need
 * nothing else. The full wrangler.toml would also bind the Durable Objects, which a proxy outside
 * the Worker cannot run, and wrangler and workerd print three warnings about them on every run.
 * Same database ids and bucket names, so the same state as `wrangler dev`.
 */
export async function withLocalStorage(root, work, persistTo = persistToArg()) {
  const state = persistTo ? path.resolve(process.cwd(), persistTo) : path.join(root, '.wrangler/state');
  const dir = path.join(root, '.wrangler/tmp/local-storage');
  mkdirSync(dir, { recursive: true });
  // One file per process: parallel runs (the browser tests' Worker copies) never read a half-written one.
  const configPath = path.join(dir, `wrangler-${process.pid}.json`);
  const config = await storageConfig(root);
  const { getPlatformProxy } = await wrangler();
  writeFileSync(configPath, JSON.stringify({ name: 'local-storage', ...config }, null, 2));
  try {
    const proxy = await getPlatformProxy({ configPath, envFiles: [], persist: { path: path.join(state, 'v3') } });
    try {
      return await work(proxy.env, config);
    } finally {
      await proxy.dispose();
    }
  } finally {
    rmSync(configPath, { force: true });
  }
}

/**
 * Applies the D1 migrations not yet applied, as `wrangler d1 migrations apply DB --local` does
 * (the same `d1_migrations` table, one batch per file with its row), inside this process.
 * Returns the names applied.
 */
export async function applyLocalMigrations(env, config, binding = 'DB') {
  const { unstable_splitSqlQuery } = await wrangler();
  const d1 = config.d1_databases.find((d) => d.binding === binding);
  const table = `"${(d1.migrations_table ?? 'd1_migrations').replace(/"/g, '""')}"`;
  const db = env[binding];
  await db.prepare(
    `CREATE TABLE IF NOT EXISTS ${table}(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
  ).run();
  const applied = new Set((await db.prepare(`SELECT name FROM ${table}`).all()).results.map((r) => r.name));
  const pending = readdirSync(d1.migrations_dir).filter((f) => f.endsWith('.sql') && !applied.has(f)).sort();
  for (const name of pending) {
    const sql = `${readFileSync(path.join(d1.migrations_dir, name), 'utf8')}\nINSERT INTO ${table} (name) values ('${name.replace(/'/g, "''")}');`;
    await db.batch(unstable_splitSqlQuery(sql).map((q) => db.prepare(q)));
  }
  return pending;
}

/** True when the module at `moduleUrl` is the script node was started with (not imported). */
export const isMain = (moduleUrl) => Boolean(process.argv[1]) && pathToFileURL(path.resolve(process.argv[1])).href === moduleUrl;
