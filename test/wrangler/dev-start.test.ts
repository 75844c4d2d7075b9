/**
 * `npm run dev` itself (issue 24, local start), in a throw-away project beside the repository:
 * on another PORT the issuer follows the port, and a second start skips the migrations and the
 * seed (their inputs did not change) yet serves the same seeded data. No Durable Object or
 * Request.cf warnings on the way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../browser/free-port.js';

const repo = path.resolve(import.meta.dirname, '../..');
/** Entries of the repository the temporary project must not share (its state is its own). */
const OWN = new Set(['wrangler.toml', '.wrangler', '.dev.vars', '.git', 'test-results']);

let project: string;

beforeAll(() => {
  project = mkdtempSync(path.join(os.tmpdir(), 'dev-start-'));
  for (const entry of readdirSync(repo)) {
    if (!OWN.has(entry)) symlinkSync(path.join(repo, entry), path.join(project, entry));
  }
  copyFileSync(path.join(repo, 'wrangler.toml'), path.join(project, 'wrangler.toml'));
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Starts `npm run dev` (scripts/dev.mjs) on `port` until its "Ready on" line; its output so far. */
async function startDev(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  // --preserve-symlinks-main: the script sees the temporary project as its root.
  const child = spawn(process.execPath, ['--preserve-symlinks-main', path.join(project, 'scripts/dev.mjs')], {
    cwd: project,
    env: { ...process.env, PORT: String(port), NO_COLOR: '1', CI: 'true' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const deadline = Date.now() + 180_000;
  while (!output.includes('Ready on')) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm run dev was not ready within 180 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { child, output: () => output };
}

async function stopDev(child: ChildProcess): Promise<void> {
  if (!child.pid || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid, 'SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
  if (child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
}

describe('npm run dev', () => {
  it('follows PORT and skips the unchanged seed on a restart', { timeout: 420_000 }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    const first = await startDev(port);
    try {
      expect(first.output()).toContain('Applied D1 migrations: 0000_init.sql');
      expect(first.output()).toContain('Identity demo seed');
      const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as { issuer: string };
      expect(discovery.issuer).toBe(`http://localhost:${port}`);
    } finally {
      await stopDev(first.child);
    }
    expect(first.output()).not.toMatch(/Durable Object|Request\.cf|Scheduled Workers/);

    const second = await startDev(port);
    try {
      expect(second.output()).toContain('Migrations and demo seed unchanged since the last run');
      expect(second.output()).not.toContain('Identity demo seed');
      const token = await fetch(`${base}/connect/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${btoa('demo-backend:demo-backend-secret')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(200);
    } finally {
      await stopDev(second.child);
    }
  });
});
