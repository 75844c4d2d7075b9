import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { execFile, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ftpFiles, startFtpServer } from './helpers/ftp-server.js';
import { PRINT_TOOLS } from './helpers/print-tools.js';
import { startDeliveryServers } from './helpers/delivery-servers.js';
import { handleStandIn } from './helpers/stand-ins.js';

/**
 * Tests run inside workerd, which cannot read the file system. This Node-side server hands them
 * the PSD fixtures (`/fixtures/...` → test/fixtures), the repo's other test assets
 * (`/assets/...` → test/assets) and bundled fonts, and plays "the internet" for image URLs. It
 * answers only on loopback, and serves only files inside the repository.
 */
const roots: Record<string, string> = {
  fixtures: path.resolve(import.meta.dirname, 'fixtures'),
  assets: path.resolve(import.meta.dirname, 'assets'),
  fonts: path.resolve(import.meta.dirname, '../assets/fonts'),
};

let server: Server;
/** Calls to /flaky/<key>/… by key (see below). */
const flakyCalls: Record<string, Array<Record<string, unknown>>> = {};

/**
 * POST /tools/<name> with a file body runs a prepress tool on it, as a person checking a PDF
 * would: qpdf --check, pdfinfo, pdffonts print text; pdftoppm returns page 1..n PNGs as JSON
 * base64 (`?r=<dpi>`, `?page=<n>` for one page, `?scaleTo=<px>`); djpeg decodes a JPEG to a
 * binary PPM with libjpeg-turbo (`?scale=1/2` … `1/8` scaled). Only these tools, no shell.
 */
const TOOLS: Record<string, (file: string, q: URLSearchParams, dir: string) => [string, string[]]> = {
  'qpdf-check': (f) => ['qpdf', ['--check', f]],
  pdfinfo: (f) => ['pdfinfo', ['-box', f]],
  pdffonts: (f) => ['pdffonts', [f]],
  pdftotext: (f) => ['pdftotext', ['-layout', f, '-']],
  // zbar-tools: decodes every barcode in an image (PNG body), one value per line.
  zbarimg: (f) => ['zbarimg', ['--raw', '-q', f]],
  // dmtx-utils: DataMatrix, which zbar does not read.
  dmtxread: (f) => ['dmtxread', ['-N', '1', '-m', '5000', f]],
  // libjpeg-turbo's reference decoder: exit 2 and a stderr warning on any corrupt JPEG data.
  // `?scale=1/4` or `?scale=3/8` (any k/8): libjpeg's own DCT-domain scaled decode, the reference for ours.
  djpeg: (f, q, dir) => [
    'djpeg',
    [...(/^(1\/[1248]|[1-8]\/8)$/.test(q.get('scale') ?? '') ? ['-scale', q.get('scale')!] : []), '-pnm', '-outfile', path.join(dir, 'page.ppm'), f],
  ],
  pdftoppm: (f, q, dir) => [
    'pdftoppm',
    [
      '-png',
      ...(q.get('r') ? ['-r', String(Number(q.get('r')))] : []),
      ...(q.get('scaleTo') ? ['-scale-to', String(Number(q.get('scaleTo')))] : []),
      ...(q.get('page') ? ['-f', String(Number(q.get('page'))), '-l', String(Number(q.get('page')))] : []),
      f,
      path.join(dir, 'page'),
    ],
  ],
};

async function runTool(name: string, q: URLSearchParams, req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) {
  const tool = TOOLS[name] ?? PRINT_TOOLS[name];
  if (!tool) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const dir = await mkdtemp(path.join(tmpdir(), 'tool-'));
  try {
    const file = path.join(dir, 'input.pdf');
    await writeFile(file, Buffer.concat(chunks));
    const [cmd, args] = tool(file, q, dir);
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(cmd, args, { maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    const pages: string[] = [];
    {
      // Every tool writes its outputs as page* in the temporary folder (sorted by name).
      const { readdir } = await import('node:fs/promises');
      for (const f of (await readdir(dir)).filter((f) => f.startsWith('page')).sort()) {
        pages.push((await readFile(path.join(dir, f))).toString('base64'));
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...result, pages }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export default async function setup(project: TestProject) {
  // The Worker imports the WASM kernels as modules and serves Swagger UI from static assets: run
  // the build steps, so a bare `npx vitest run` on a clean clone works as `npm test` (pretest) does.
  for (const script of ['10-wasm.mjs', '20-swagger-ui.mjs']) {
    const build = spawnSync(process.execPath, [path.resolve(import.meta.dirname, '../scripts/build', script)], { stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`build step scripts/build/${script} failed`);
  }

  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // Special routes for HTTP behaviour tests: /status/404, /slow/5000, /redirect/N
    const [, kind, ...rest] = url.pathname.split('/');
    // Stand-ins for external systems at the fetch boundary (test/helpers/stand-ins.ts).
    if (await handleStandIn(kind, rest, url, req, res)) return;
    if (kind === 'tools' && req.method === 'POST') {
      await runTool(rest[0], url.searchParams, req, res);
      return;
    }
    if (kind === 'status') {
      res.writeHead(Number(rest[0]) || 500).end();
      return;
    }
    if (kind === 'slow') {
      setTimeout(() => res.writeHead(200).end('late'), Number(rest[0]) || 1000);
      return;
    }
    // /big/<bytes>: a small JPEG padded with zeros after its end (decodable), or with ?kind=text
    // 'a's; ?chunked=1 declares no length.
    if (kind === 'big') {
      const size = Math.min(Number(rest[0]) || 0, 256 << 20);
      const text = url.searchParams.get('kind') === 'text';
      const chunk = Buffer.alloc(Math.min(size, 1 << 20), text ? 0x61 : 0);
      if (!text) (await readFile(path.join(roots.assets, 'marker-40x20.jpg'))).copy(chunk);
      res.writeHead(200, { 'content-type': 'application/octet-stream', ...(url.searchParams.has('chunked') ? {} : { 'content-length': size }) });
      let sent = 0;
      const pump = () => {
        while (sent < size && !res.destroyed) {
          const part = sent === 0 ? chunk.subarray(0, Math.min(chunk.length, size)) : Buffer.alloc(Math.min(chunk.length, size - sent));
          sent += part.length;
          if (!res.write(part)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => (sent = size));
      pump();
      return;
    }
    // /redirect-to/<url-encoded target>?status=302; /echo answers the method, authorization and body as JSON.
    if (kind === 'redirect-to') {
      res.writeHead(Number(url.searchParams.get('status')) || 302, { location: decodeURIComponent(rest.join('/')) }).end();
      return;
    }
    if (kind === 'echo') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, authorization: req.headers.authorization ?? null, body: Buffer.concat(chunks).toString() }));
      return;
    }
    // /flaky/<key>/<n>: the first n calls per key answer 503, later ones 200 (pipeline invoke-url
    // retries); /calls/<key> lists the calls made (method, Idempotency-Key, body).
    if (kind === 'ftp-files') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ftpFiles));
      return;
    }
    if (kind === 'flaky' || kind === 'calls') {
      const key = rest[0] ?? '';
      const list = (flakyCalls[key] ??= []);
      if (kind === 'calls') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      list.push({
        method: req.method,
        path: url.pathname + url.search,
        idempotencyKey: req.headers['idempotency-key'] ?? null,
        authorization: req.headers.authorization ?? null,
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        at: Date.now(),
      });
      const ok = list.length > (Number(rest[1]) || 0);
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok, calls: list.length }));
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
  // A plain FTP server for upload-to-ftp (test/helpers/ftp-server.ts).
  const ftp = await startFtpServer();
  project.provide('ftpPort', ftp.port);
  // Real servers from Debian packages (sshd, vsftpd) on loopback: test/helpers/delivery-servers.ts.
  const delivery = await startDeliveryServers(project);
  return async () => {
    await delivery.close();
    await ftp.close();
    await new Promise((resolve) => server.close(resolve));
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    fixtureServer: string;
    ftpPort: number;
  }
}
