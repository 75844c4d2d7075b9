import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Tests run inside workerd, which cannot read the file system. This Node-side server hands them
 * the shared PSD fixtures (`/shared/...` → ../shared) and the repo's own test assets
 * (`/assets/...` → test/assets), and plays "the internet" for image URLs. It answers only on
 * loopback.
 */
const roots: Record<string, string> = {
  shared: path.resolve(import.meta.dirname, '../../shared'),
  assets: path.resolve(import.meta.dirname, 'assets'),
};

let server: Server;

export default async function setup(project: TestProject) {
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Special routes for HTTP behaviour tests: /status/404, /slow/5000, /redirect/N
    const [, kind, ...rest] = url.pathname.split('/');
    if (kind === 'status') {
      res.writeHead(Number(rest[0]) || 500).end();
      return;
    }
    if (kind === 'slow') {
      setTimeout(() => res.writeHead(200).end('late'), Number(rest[0]) || 1000);
      return;
    }
    if (kind === 'redirect') {
      const n = Number(rest[0]) || 0;
      const target = n > 1 ? `/redirect/${n - 1}/${rest.slice(1).join('/')}` : `/${rest.slice(1).join('/')}`;
      res.writeHead(302, { location: target }).end();
      return;
    }
    const root = roots[kind];
    const file = root && path.resolve(root, decodeURIComponent(rest.join('/')));
    if (!file || !file.startsWith(root)) {
      res.writeHead(404).end();
      return;
    }
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      const type = file.endsWith('.json') ? 'application/json' : file.endsWith('.png') ? 'image/png' : file.endsWith('.jpg') ? 'image/jpeg' : 'application/octet-stream';
      res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  project.provide('fixtureServer', `http://127.0.0.1:${port}`);
  return async () => {
    await new Promise((resolve) => server.close(resolve));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    fixtureServer: string;
  }
}
