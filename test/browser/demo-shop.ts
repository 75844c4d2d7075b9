// The demo client (scripts/demo-client.mjs) as a child process against a browser suite's Worker.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port.js';

/** Starts the demo shop against `issuer`; resolves once /shop answers, with its base URL and the process (kill it in afterAll). */
export async function startDemoShop(issuer: string): Promise<{ url: string; process: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../../scripts/demo-client.mjs')], {
    env: { ...process.env, ISSUER: issuer, DEMO_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (await fetch(`${url}/shop/product.json`).then((r) => r.ok, () => false)) return { url, process: child };
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGTERM');
      throw new Error(`demo client did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
