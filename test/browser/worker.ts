// Starts the Worker the way `npm run dev` does (build steps, D1 migrations, every seed script,
// `wrangler dev`), but on a free port and with its own throw-away local state, so browser tests
// never touch the developer's data. The state lives under a temporary project directory: a copy
// of wrangler.toml beside links to the repository, so `scripts/dev.mjs --seed-only` (which takes
// the directory it is started from as the project) writes that project's .wrangler/state.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

const repo = path.resolve(import.meta.dirname, '../..');
/** Entries of the repository the temporary project must not share. */
const OWN = new Set(['wrangler.toml', '.wrangler', '.dev.vars', '.git', 'test-results']);

export interface LocalWorker {
  url: string;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
}

async function waitUntilUp(url: string, child: ChildProcess, log: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(`${url}/.well-known/openid-configuration`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`wrangler dev did not answer within ${timeoutMs} ms:\n${log()}`);
}

export async function startLocalWorker(): Promise<LocalWorker> {
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' };
  const project = mkdtempSync(path.join(os.tmpdir(), 'admin-browser-'));
  for (const entry of readdirSync(repo)) {
    if (!OWN.has(entry)) symlinkSync(path.join(repo, entry), path.join(project, entry));
  }
  copyFileSync(path.join(repo, 'wrangler.toml'), path.join(project, 'wrangler.toml'));
  copyFileSync(path.join(repo, '.dev.vars.example'), path.join(project, '.dev.vars'));

  // Build steps, migrations and every seed in one process, as `npm run dev` prepares them (one
  // `wrangler` child per step cost 3-4 times as long). --preserve-symlinks-main: the script sees
  // the temporary project as its root. --reseed: seed even if a stamp said the state is current.
  run(process.execPath, ['--preserve-symlinks-main', path.join(project, 'scripts/dev.mjs'), '--seed-only', '--reseed'], project, env);

  // A port can still be taken between our check and wrangler's bind: try another one then.
  let started: { url: string; child: ChildProcess } | undefined;
  for (let attempt = 1; !started; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(
      'npx',
      ['wrangler', 'dev', '--port', String(port), '--ip', '127.0.0.1', '--var', `ISSUER:${url}`, '--show-interactive-dev-session=false'],
      { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    try {
      await waitUntilUp(url, child, () => output.slice(-4000), 180_000);
      started = { url, child };
    } catch (err) {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
      if (attempt < 3 && /address already in use/i.test(output)) continue;
      rmSync(project, { recursive: true, force: true });
      throw err;
    }
  }
  const { url, child } = started;

  return {
    url,
    async stop() {
      if (child.pid && child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        process.kill(-child.pid, 'SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      }
      rmSync(project, { recursive: true, force: true });
    },
  };
}
