// Real delivery servers from Debian packages (OpenSSH's sshd, vsftpd), started on loopback ports
// by test/global-setup.ts and stopped after the run. Ports, keys and credentials reach the tests
// through vitest's provide/inject (`inject('delivery')`).
//
// - sshd (`/usr/sbin/sshd -D -e -f <temp config>`): its own host keys (ed25519, ECDSA P-256, RSA),
//   `AuthorizedKeysFile` in the temp folder with the test's client keys, `internal-sftp`.
//   A TCP proxy in front of it cuts every odd connection after CUT_AFTER bytes from the client
//   (the dropped-connection test: the first attempt dies mid-upload, the retry goes through).
// - vsftpd, three instances: explicit FTPS (AUTH TLS) with `require_ssl_reuse=NO`, the same with
//   `require_ssl_reuse=YES` (vsftpd's default, which Workers sockets cannot satisfy), and
//   implicit FTPS; a self-signed certificate for 127.0.0.1 made by openssl.
// - The login: password authentication checks a real system account, so when the run is root
//   (here and in CI) a throw-away user with a random name and password is made with useradd and
//   deleted after the run. Without root, sshd runs as the current user and only key
//   authentication is tested (`delivery.user` is then the current user and `password` empty).
// - Workers verify TLS certificates against the trust store and cannot pin one (docs/delivery.md):
//   the runtime is told to trust the test certificate through SSL_CERT_FILE (a bundle of the
//   system CAs plus it), which workerd's BoringSSL reads when Miniflare starts it after this
//   setup. Test-only: production verification is untouched.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect as netConnect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/** Bytes from the client after which the proxy cuts an odd-numbered connection. */
export const CUT_AFTER = 3 * 1024 * 1024;
/** The same for a second proxy (the runner test's small file): past the ~3 KB of handshake and login. */
export const CUT_AFTER_SMALL = 12 * 1024;

export interface DeliveryServers {
  /** False when sshd or vsftpd is missing: the delivery tests skip. */
  available: boolean;
  /** `GET <inspector>/files/sftp|ftp`, `/rss`, `/proxies` (see `inspector`). */
  inspector: string;
  dir: string;
  user: string;
  password: string;
  sshPort: number;
  /** The cutting proxy in front of sshd. */
  sshCutPort: number;
  /** A second cutting proxy, after CUT_AFTER_SMALL bytes (its own connection count). */
  sshCutSmallPort: number;
  /** `SHA256:…` of each host key, as `ssh-keygen -lf` prints it. */
  hostKeys: Record<'ed25519' | 'ecdsa' | 'rsa', string>;
  /** Client private keys (OpenSSH format) whose public halves are authorised; `other` is not. */
  keys: Record<'ed25519' | 'ecdsa' | 'rsa' | 'ed25519Passphrase' | 'rsaPassphrase' | 'other', string>;
  keyPassphrase: string;
  /** Where sftp uploads land (the user's writable folder, absolute). */
  sftpRoot: string;
  ftpsPort: number;
  ftpsReusePort: number;
  ftpsImplicitPort: number;
  /** Explicit FTPS with a self-signed certificate the runtime does not trust. */
  ftpsUntrustedPort: number;
  /** Where FTPS uploads land (the FTP user's home, which is its login folder). */
  ftpRoot: string;
  tlsFingerprint: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    delivery: DeliveryServers;
  }
}

function run(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** `run` without blocking: the key generations of the setup run side by side. */
function runAsync(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout))),
  );
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Waits until something accepts connections on the port (and sends a first line, unless TLS comes first). */
async function ready(port: number, what: string, child: ChildProcess, log: () => string, greeting = true): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = netConnect(port, '127.0.0.1');
      if (!greeting) s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('data', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
      setTimeout(() => (s.destroy(), resolve(false)), 300);
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not start: ${log()}`);
}

function start(cmd: string, args: string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-4000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-4000)));
  return { child, log: () => out };
}

/** A loopback proxy that cuts connections 1, 3, 5, … after `cutAfter` client bytes. */
async function cuttingProxy(target: number, cutAfter: number): Promise<Server & { stats: { connections: number; cut: number } }> {
  let n = 0;
  const stats = { connections: 0, cut: 0 };
  const server = createServer((client: Socket) => {
    const cut = n++ % 2 === 0;
    stats.connections++;
    const upstream = netConnect(target, '127.0.0.1');
    let sent = 0;
    client.on('data', (d: Buffer) => {
      sent += d.length;
      if (cut && sent > cutAfter) {
        if (!client.destroyed) stats.cut++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(d);
    });
    upstream.on('data', (d) => client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, { stats });
}

/**
 * What the servers stored, for the tests (workerd cannot read the disk): `GET /files/<root>`
 * lists `{path: {size, sha256}}` under the sftp or ftp root; `GET /rss` is the resident memory
 * of this run's workerd processes (descendants of this process), for the flat-memory test;
 * `GET /proxies` the cutting proxies' connection and cut counts.
 */
async function inspector(roots: Record<string, string>, proxies: Record<string, { stats: unknown }>): Promise<Server> {
  const { createServer: http } = await import('node:http');
  const { readdirSync, statSync, createReadStream } = await import('node:fs');
  const { createHash } = await import('node:crypto');
  const list = async (base: string) => {
    const out: Record<string, { size: number; sha256: string }> = {};
    const walk = async (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const f = path.join(d, e.name);
        if (e.isDirectory()) await walk(f);
        else if (e.isFile()) {
          const h = createHash('sha256');
          for await (const c of createReadStream(f)) h.update(c as Buffer);
          out[path.relative(base, f)] = { size: statSync(f).size, sha256: h.digest('hex') };
        }
      }
    };
    await walk(base);
    return out;
  };
  const rss = () => {
    const children = new Map<number, number[]>();
    const names = new Map<number, string>();
    for (const p of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        names.set(Number(p), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')));
        children.set(ppid, [...(children.get(ppid) ?? []), Number(p)]);
      } catch {
        // gone
      }
    }
    let total = 0;
    const visit = (pid: number) => {
      for (const c of children.get(pid) ?? []) {
        if (names.get(c)?.startsWith('workerd')) {
          const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${c}/status`, 'utf8'));
          total += Number(m?.[1] ?? 0) * 1024;
        }
        visit(c);
      }
    };
    visit(process.pid);
    return total;
  };
  const server = http(async (req, res) => {
    const [, kind, name] = (req.url ?? '').split('/');
    try {
      if (kind === 'files' && name && roots[name]) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await list(roots[name]!)));
      if (kind === 'proxies') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(Object.entries(proxies).map(([k, v]) => [k, v.stats]))));
      if (kind === 'rss') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ rss: rss() }));
      res.writeHead(404).end();
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server as unknown as Server;
}

const fingerprintOf = (pub: string) => run('ssh-keygen', ['-lf', pub]).split(' ')[1]!;

export async function startDeliveryServers(project: TestProject): Promise<{ close: () => Promise<void> }> {
  const unavailable = { available: false } as DeliveryServers;
  if (!existsSync('/usr/sbin/sshd') || !existsSync('/usr/sbin/vsftpd')) {
    project.provide('delivery', unavailable);
    return { close: async () => {} };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'delivery-'));
  chmodSync(dir, 0o755);
  const children: ChildProcess[] = [];
  const servers: Server[] = [];
  const root = process.getuid?.() === 0;
  let user = userInfo().username;
  let password = '';
  const home = path.join(dir, 'home');
  mkdirSync(home);
  if (root) {
    // A throw-away account: random name (parallel runs do not meet), random password.
    user = `dlv${randomBytes(4).toString('hex')}`;
    password = randomBytes(12).toString('base64url');
    run('useradd', ['-M', '-d', home, '-s', '/bin/sh', user]);
    run('chpasswd', [], `${user}:${password}\n`);
    const uid = Number(run('id', ['-u', user]).trim());
    const gid = Number(run('id', ['-g', user]).trim());
    chownSync(home, uid, gid);
  }
  const cleanup = async () => {
    for (const c of children) c.kill('SIGTERM');
    for (const s of servers) s.close();
    if (root) spawnSync('userdel', [user]);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // sshd: host keys, client keys, config.
    const hostKeys = {} as DeliveryServers['hostKeys'];
    const hostSpecs = [['ed25519', ['-t', 'ed25519']], ['ecdsa', ['-t', 'ecdsa', '-b', '256']], ['rsa', ['-t', 'rsa', '-b', '2048']]] as const;
    const keyPassphrase = 'correct horse battery';
    const clientSpecs = [
      ['ed25519', ['-t', 'ed25519'], ''],
      ['ecdsa', ['-t', 'ecdsa', '-b', '256'], ''],
      ['rsa', ['-t', 'rsa', '-b', '2048'], ''],
      ['ed25519Passphrase', ['-t', 'ed25519'], keyPassphrase],
      ['rsaPassphrase', ['-t', 'rsa', '-b', '2048'], keyPassphrase],
      ['other', ['-t', 'ed25519'], ''],
    ] as const;
    // The TLS keys too (used further down): RSA generation is the slow part of the setup.
    const ca = path.join(dir, 'test-ca.pem');
    const caKey = path.join(dir, 'test-ca.key');
    const cert = path.join(dir, 'ftps.pem');
    const key = path.join(dir, 'ftps.key');
    const csr = path.join(dir, 'ftps.csr');
    const selfCert = path.join(dir, 'self.pem');
    const selfKey = path.join(dir, 'self.key');
    await Promise.all([
      ...hostSpecs.map(([name, args]) => runAsync('ssh-keygen', ['-q', ...args, '-N', '', '-C', `host-${name}`, '-f', path.join(dir, `host_${name}`)])),
      ...clientSpecs.map(([name, args, pass]) => runAsync('ssh-keygen', ['-q', ...args, '-N', pass, '-C', `client-${name}`, '-f', path.join(dir, `client_${name}`)])),
      runAsync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=delivery test CA', '-keyout', caKey, '-out', ca]),
      runAsync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', key, '-out', csr]),
      runAsync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', selfKey, '-out', selfCert]),
    ]);
    for (const [name] of hostSpecs) hostKeys[name] = fingerprintOf(path.join(dir, `host_${name}.pub`));
    const keys = {} as DeliveryServers['keys'];
    const authorized: string[] = [];
    for (const [name] of clientSpecs) {
      const file = path.join(dir, `client_${name}`);
      keys[name] = readFileSync(file, 'utf8');
      if (name !== 'other') authorized.push(readFileSync(`${file}.pub`, 'utf8').trim());
    }
    writeFileSync(path.join(dir, 'authorized_keys'), `${authorized.join('\n')}\n`, { mode: 0o644 });
    const sftpRoot = path.join(home, 'sftp');
    mkdirSync(sftpRoot);
    if (root) {
      const uid = Number(run('id', ['-u', user]).trim());
      chownSync(sftpRoot, uid, Number(run('id', ['-g', user]).trim()));
    }
    const sshPort = await freePort();
    const sshdConfig = path.join(dir, 'sshd_config');
    writeFileSync(
      sshdConfig,
      [
        `Port ${sshPort}`,
        'ListenAddress 127.0.0.1',
        ...(['ed25519', 'ecdsa', 'rsa'] as const).map((k) => `HostKey ${path.join(dir, `host_${k}`)}`),
        `PidFile ${path.join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
        'StrictModes no',
        'PermitRootLogin yes',
        'PubkeyAuthentication yes',
        'PasswordAuthentication yes',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'MaxStartups 50',
        'Subsystem sftp internal-sftp',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    // Privilege separation needs /run/sshd (made by the service unit, absent in containers).
    if (root) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const sshd = start('/usr/sbin/sshd', ['-D', '-e', '-f', sshdConfig]);
    children.push(sshd.child);
    await ready(sshPort, 'sshd', sshd.child, sshd.log);
    const proxy = await cuttingProxy(sshPort, CUT_AFTER);
    const proxySmall = await cuttingProxy(sshPort, CUT_AFTER_SMALL);
    servers.push(proxy, proxySmall);

    // vsftpd: a certificate for 127.0.0.1 from a throw-away CA (workerd's rustls refuses a
    // self-signed CA certificate used as the server's own: CaUsedAsEndEntity), three instances.
    const ext = path.join(dir, 'ftps.ext');
    writeFileSync(ext, 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n');
    run('openssl', ['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', cert]);
    const tlsFingerprint = run('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256']).trim().split('=')[1]!;
    const empty = path.join(dir, 'empty');
    mkdirSync(empty, { mode: 0o755 });
    const ftpRoot = path.join(home, 'ftp');
    mkdirSync(ftpRoot);
    if (root) chownSync(ftpRoot, Number(run('id', ['-u', user]).trim()), Number(run('id', ['-g', user]).trim()));
    // selfCert: a self-signed certificate nobody trusts, for the refusal test.
    const vsftpd = async (name: string, extra: string[], [certFile, keyFile] = [cert, key]) => {
      const port = await freePort();
      const pasv = 30000 + Math.floor(Math.random() * 30000);
      const conf = path.join(dir, `vsftpd-${name}.conf`);
      writeFileSync(
        conf,
        [
          'listen=YES',
          'listen_ipv6=NO',
          'listen_address=127.0.0.1',
          `listen_port=${port}`,
          'background=NO',
          'anonymous_enable=NO',
          'local_enable=YES',
          'write_enable=YES',
          'local_umask=022',
          `local_root=${ftpRoot}`,
          'pasv_enable=YES',
          'pasv_address=127.0.0.1',
          `pasv_min_port=${pasv}`,
          `pasv_max_port=${pasv + 20}`,
          `secure_chroot_dir=${empty}`,
          'seccomp_sandbox=NO',
          'pam_service_name=vsftpd',
          'ssl_enable=YES',
          'ssl_tlsv1=YES',
          `rsa_cert_file=${certFile}`,
          `rsa_private_key_file=${keyFile}`,
          'force_local_logins_ssl=YES',
          'force_local_data_ssl=YES',
          'xferlog_enable=NO',
          `vsftpd_log_file=${path.join(dir, `vsftpd-${name}.log`)}`,
          ...extra,
          '',
        ].join('\n'),
      );
      const p = start('/usr/sbin/vsftpd', [conf]);
      children.push(p.child);
      // Implicit TLS sends no clear-text greeting: a TCP connect will do.
      await ready(port, `vsftpd ${name}`, p.child, p.log, !extra.includes('implicit_ssl=YES'));
      return port;
    };
    // vsftpd must start as root and logs in a system account: without root the FTPS tests skip.
    const ftpsPort = root ? await vsftpd('explicit', ['require_ssl_reuse=NO']) : 0;
    const ftpsReusePort = root ? await vsftpd('reuse', ['require_ssl_reuse=YES']) : 0;
    const ftpsImplicitPort = root ? await vsftpd('implicit', ['require_ssl_reuse=NO', 'implicit_ssl=YES']) : 0;
    const ftpsUntrustedPort = root ? await vsftpd('untrusted', ['require_ssl_reuse=NO'], [selfCert, selfKey]) : 0;

    // workerd (BoringSSL) reads SSL_CERT_FILE when Miniflare starts it, after this setup.
    const bundle = path.join(dir, 'ca-bundle.pem');
    const system = ['/etc/ssl/certs/ca-certificates.crt'].filter(existsSync).map((f) => readFileSync(f, 'utf8'));
    writeFileSync(bundle, [...system, readFileSync(ca, 'utf8')].join('\n'));
    process.env.SSL_CERT_FILE = bundle;

    const files = await inspector({ sftp: sftpRoot, ftp: ftpRoot }, { cut: proxy, cutSmall: proxySmall });
    servers.push(files);
    project.provide('delivery', {
      available: true,
      inspector: `http://127.0.0.1:${(files.address() as AddressInfo).port}`,
      dir,
      user,
      password,
      sshPort,
      sshCutPort: (proxy.address() as AddressInfo).port,
      sshCutSmallPort: (proxySmall.address() as AddressInfo).port,
      hostKeys,
      keys,
      keyPassphrase,
      sftpRoot,
      ftpsPort,
      ftpsReusePort,
      ftpsImplicitPort,
      ftpsUntrustedPort,
      ftpRoot,
      tlsFingerprint,
    });
  } catch (e) {
    await cleanup();
    throw e;
  }
  return { close: cleanup };
}
