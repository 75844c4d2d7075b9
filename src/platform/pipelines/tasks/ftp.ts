/**
 * upload-to-ftp: a small FTP client over Workers TCP sockets (`cloudflare:sockets`), since Node's
 * FTP clients need `net`. Ftp (plain), Ftps (explicit: `secureTransport: 'starttls'`, AUTH TLS,
 * `startTls()`, PBSZ 0, PROT P; data sockets TLS from the start) and FtpsImplicit (TLS from the
 * start, port 990). Passive mode: EPSV first, then PASV (whose address is ignored: data goes to
 * the control host). A 425/522 on the data channel means the server wants TLS session reuse,
 * which Workers sockets may not give (workerd's TLS resumes the control session, so vsftpd's
 * require_ssl_reuse=YES passes): the task fails saying so. Hosts pass the outbound policy
 * (public hosts only). Files are stored as `.<name>.part`, then renamed. FTPS is tested against
 * vsftpd (docs/delivery.md: certificates, tlsCertificateFingerprint).
 *
 * Every value that reaches a command line is checked after interpolation (remote-paths.ts): CR,
 * LF and NUL fail the task naming the parameter; folder and file names are reduced to safe
 * segments, so a project field or an asset name cannot add commands or leave the folder.
 */
import { connect } from 'cloudflare:sockets';
import { TaskFailure, TransientFailure } from './errors';
import { configured, protocolValue, protocolValues, remoteFolder, remoteHost, remoteName, safeSegments } from './remote-paths';
import { uploadToSftp } from './sftp';
import type { TaskModule } from './types';

interface Reply {
  code: number;
  text: string;
}

class Control {
  private buffer = '';
  private reader: ReadableStreamDefaultReader<Uint8Array>;
  private writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(private socket: Socket) {
    this.reader = socket.readable.getReader();
    this.writer = socket.writable.getWriter();
  }

  /** One reply (multi-line `123-…` up to `123 …`). */
  async reply(): Promise<Reply> {
    let first: string | null = null;
    const lines: string[] = [];
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl < 0) {
        const { value, done } = await this.reader.read();
        if (done) throw new TransientFailure('the FTP server closed the connection');
        this.buffer += this.decoder.decode(value, { stream: true });
        continue;
      }
      const line = this.buffer.slice(0, nl).replace(/\r$/, '');
      this.buffer = this.buffer.slice(nl + 1);
      lines.push(line);
      first ??= line.slice(0, 3);
      if (/^\d{3} /.test(line) && line.startsWith(first) && (lines.length === 1 || line.slice(0, 3) === first)) {
        return { code: Number(line.slice(0, 3)), text: lines.join('\n') };
      }
      if (lines.length === 1 && /^\d{3}$/.test(line)) return { code: Number(line), text: line };
    }
  }

  async send(command: string): Promise<Reply> {
    // The last line of defence: callers check their values first, naming the parameter.
    protocolValue('FTP command', command);
    await this.writer.write(new TextEncoder().encode(`${command}\r\n`));
    return this.reply();
  }

  async expect(command: string, ok: (code: number) => boolean, what = command.split(' ')[0]): Promise<Reply> {
    const r = await this.send(command);
    if (!ok(r.code)) throw failure(r, what!);
    return r;
  }

  /** AUTH TLS done: the same connection continues over TLS. */
  upgrade(): void {
    this.reader.releaseLock();
    this.writer.releaseLock();
    this.socket = this.socket.startTls();
    this.reader = this.socket.readable.getReader();
    this.writer = this.socket.writable.getWriter();
  }

  /**
   * Waits for the TLS handshake. workerd reports a refused one (a certificate that does not chain
   * to a trusted CA or does not name the host) only as "internal error": a retry will not help.
   */
  async opened(): Promise<void> {
    try {
      await this.socket.opened;
    } catch {
      throw new TaskFailure('the TLS handshake failed: Workers accept only a certificate that chains to a public certificate authority and names the host (docs/delivery.md)');
    }
  }

  async close(): Promise<void> {
    await this.socket.close().catch(() => {});
  }
}

function failure(r: Reply, what: string): Error {
  const text = `FTP ${what}: ${r.text.split('\n').pop()}`;
  if (r.code === 425 || r.code === 522) return new TaskFailure('server requires TLS session reuse (not supported)');
  if (r.code === 530 || r.code === 532) return new TaskFailure(`${text} (login refused)`);
  return r.code >= 500 ? new TaskFailure(text) : new TransientFailure(text);
}

/** The data port from EPSV (`(|||port|)`) or PASV (`(h1,h2,h3,h4,p1,p2)`; its address is ignored). */
async function passivePort(control: Control): Promise<number> {
  const epsv = await control.send('EPSV');
  const m = /\(\|\|\|(\d+)\|\)/.exec(epsv.text);
  if (epsv.code === 229 && m) return Number(m[1]);
  const pasv = await control.send('PASV');
  const p = /(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)/.exec(pasv.text);
  if (pasv.code !== 227 || !p) throw failure(pasv, 'PASV');
  return Number(p[5]) * 256 + Number(p[6]);
}

/** RNFR/RNTO (RFC 959 §4.1.3); a server that will not rename over an existing file gets DELE first. */
async function renameOver(control: Control, from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await control.expect(`RNFR ${from}`, (c) => c === 350, 'RNFR');
    const r = await control.send(`RNTO ${to}`);
    if (r.code === 250) return;
    if (attempt > 0 || r.code < 500) throw failure(r, 'RNTO');
    await control.send(`DELE ${to}`);
  }
}

export const uploadToFtp: TaskModule<'upload-to-ftp'> = {
  async run(ctx, p) {
    if (p.protocol === 'Sftp') return uploadToSftp.run(ctx, p);
    // workerd verifies certificates against its trust store and exposes none (docs/delivery.md).
    if (p.tlsCertificateFingerprint) throw new TaskFailure('tlsCertificateFingerprint: Workers TLS sockets verify the server certificate against public certificate authorities and cannot pin one; use a certificate from a public CA and leave this parameter out');
    protocolValues(p, ['host', 'userName', 'password', 'folder', 'fileName']);
    const host = remoteHost(p.host, p.port, ctx.env);
    const list = ctx.task.inputs.flatMap((r) => ctx.inputs(r.name));
    if (!list.length) throw new TaskFailure('there is nothing to upload');
    const folder = remoteFolder(p.folder, configured(ctx.task.parameters, 'folder') ?? '/');
    const given = p.fileName?.trim() ? remoteName(p.fileName, 'fileName') : undefined;
    const names = list.map((a) => (list.length === 1 && given ? given : remoteName(a.fileName, `the name of ${a.name}`)));
    const tls = p.protocol !== 'Ftp';
    const socket = connect({ hostname: host, port: p.port }, { secureTransport: p.protocol === 'FtpsImplicit' ? 'on' : p.protocol === 'Ftps' ? 'starttls' : 'off', allowHalfOpen: false });
    const control = new Control(socket);
    const abort = () => void control.close();
    ctx.signal.addEventListener('abort', abort);
    try {
      if (p.protocol === 'FtpsImplicit') await control.opened();
      const greeting = await control.reply();
      if (greeting.code !== 220) throw failure(greeting, 'greeting');
      if (p.protocol === 'Ftps') {
        await control.expect('AUTH TLS', (c) => c === 234);
        control.upgrade();
        await control.opened();
      }
      const user = await control.send(`USER ${p.userName}`);
      if (user.code === 331) await control.expect(`PASS ${p.password}`, (c) => c === 230 || c === 202, 'PASS');
      else if (user.code !== 230) throw failure(user, 'USER');
      if (tls) {
        await control.expect('PBSZ 0', (c) => c === 200);
        await control.expect('PROT P', (c) => c === 200);
      }
      await control.expect('TYPE I', (c) => c === 200);
      if (folder && folder !== '/') {
        const cwd = await control.send(`CWD ${folder}`);
        if (cwd.code >= 400) {
          // Create the folder a segment at a time (an existing one answers 550 to MKD: fine).
          if (folder.startsWith('/')) await control.expect('CWD /', (c) => c < 400);
          for (const segment of safeSegments(folder)) {
            await control.send(`MKD ${segment}`);
            await control.expect(`CWD ${segment}`, (c) => c < 400, 'CWD');
          }
        }
      }
      for (const [i, a] of list.entries()) {
        const name = names[i]!;
        const port = await passivePort(control);
        const data = connect({ hostname: host, port }, { secureTransport: tls ? 'on' : 'off', allowHalfOpen: false });
        // Stored under a temporary name, then renamed: production never picks up half a file.
        const stor = await control.send(`STOR .${name}.part`);
        if (stor.code !== 150 && stor.code !== 125) {
          await data.close().catch(() => {});
          throw failure(stor, 'STOR');
        }
        const obj = await ctx.env.FILES.get(a.key);
        if (!obj) throw new TaskFailure(`the artifact ${a.fileName} has no content`);
        // Streams from R2 into the data socket: the file is never held whole.
        // pipeTo closes the data socket's writable side (FIN) once the file is sent; the server
        // then answers 226 on the control connection.
        await obj.body.pipeTo(data.writable);
        const done = await control.reply();
        await data.close().catch(() => {});
        if (done.code !== 226 && done.code !== 250) throw failure(done, 'STOR');
        await renameOver(control, `.${name}.part`, name);
      }
      await control.send('QUIT').catch(() => undefined);
    } catch (e) {
      if (ctx.signal.aborted) throw new TransientFailure('the FTP upload did not finish within processingTimeout');
      if (e instanceof TaskFailure || e instanceof TransientFailure) throw e;
      throw new TransientFailure(`FTP: ${(e as Error).message}`);
    } finally {
      ctx.signal.removeEventListener('abort', abort);
      await control.close();
    }
  },
};

