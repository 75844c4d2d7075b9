/**
 * An SFTP version 3 client (draft-ietf-secsh-filexfer-02), the subset an upload needs: open,
 * write, close, mkdir, stat, rename (and OpenSSH's posix-rename@openssh.com extension, which
 * replaces an existing target atomically), remove, realpath. Requests carry ids and may be in
 * flight together; `upload` keeps a bounded number of WRITEs outstanding so a stream is sent at
 * the link's pace with flat memory.
 */
import type { Channel } from './channel';
import { SshError } from './errors';
import { Reader, Writer } from './wire';

// §3: packet types.
const FXP = {
  INIT: 1,
  VERSION: 2,
  OPEN: 3,
  CLOSE: 4,
  WRITE: 6,
  LSTAT: 7,
  SETSTAT: 9,
  REMOVE: 13,
  MKDIR: 14,
  REALPATH: 16,
  STAT: 17,
  RENAME: 18,
  STATUS: 101,
  HANDLE: 102,
  DATA: 103,
  NAME: 104,
  ATTRS: 105,
  EXTENDED: 200,
} as const;

/** §6.3 open flags. */
export const OPEN = { READ: 1, WRITE: 2, APPEND: 4, CREAT: 8, TRUNC: 0x10, EXCL: 0x20 } as const;

/** §7 status codes. */
export const STATUS = { OK: 0, EOF: 1, NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4, BAD_MESSAGE: 5, NO_CONNECTION: 6, CONNECTION_LOST: 7, OP_UNSUPPORTED: 8 } as const;

export interface Attrs {
  size?: number;
  permissions?: number;
  isDirectory?: boolean;
}

/** Bytes of file data per WRITE (OpenSSH's sftp uses 32 KiB too). */
const WRITE_SIZE = 32 * 1024;
/** WRITEs in flight: 64 × 32 KiB = 2 MiB, OpenSSH's channel window. */
const IN_FLIGHT = 64;

type Pending = { resolve: (r: Reader & { type: number }) => void; reject: (e: Error) => void };

export class Sftp {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = new Uint8Array(0);
  private ended: Error | null = null;
  private version: ((r: Reader) => void) | null = null;
  readonly extensions = new Map<string, string>();

  private constructor(private readonly channel: Channel) {
    channel.onData = (d) => this.receive(d);
    channel.onEnd = (e) => {
      this.ended = e;
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
  }

  /** §4: INIT with version 3; the server's VERSION lists its extensions. */
  static async start(channel: Channel): Promise<Sftp> {
    const s = new Sftp(channel);
    const version = new Promise<Reader>((resolve) => (s.version = resolve));
    await channel.write(new Writer().uint32(5).byte(FXP.INIT).uint32(3).bytes());
    const r = await Promise.race([version, new Promise<never>((_, reject) => s.pending.set(0, { resolve: () => {}, reject }))]);
    s.pending.delete(0);
    const v = r.uint32();
    if (v < 3) throw new SshError('sftp', `the server speaks SFTP version ${v}`);
    while (r.remaining > 0) s.extensions.set(r.text(), r.text());
    return s;
  }

  private receive(data: Uint8Array): void {
    const merged = new Uint8Array(this.buffer.length + data.length);
    merged.set(this.buffer);
    merged.set(data, this.buffer.length);
    let o = 0;
    while (merged.length - o >= 4) {
      const length = new DataView(merged.buffer, merged.byteOffset + o).getUint32(0);
      if (merged.length - o - 4 < length) break;
      const packet = merged.subarray(o + 4, o + 4 + length);
      o += 4 + length;
      const r = new Reader(packet) as Reader & { type: number };
      r.type = r.byte();
      if (r.type === FXP.VERSION) {
        this.version?.(r);
        continue;
      }
      const id = r.uint32();
      const p = this.pending.get(id);
      this.pending.delete(id);
      p?.resolve(r);
    }
    this.buffer = merged.slice(o);
  }

  private async request(type: number, body: (w: Writer) => Writer): Promise<Reader & { type: number }> {
    if (this.ended) throw this.ended;
    const id = this.nextId++;
    const payload = body(new Writer().byte(type).uint32(id)).bytes();
    const result = new Promise<Reader & { type: number }>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // When the write fails the caller gets that error; the answer's rejection then has no reader.
    result.catch(() => undefined);
    try {
      await this.channel.write(new Writer().uint32(payload.length).raw(payload).bytes());
    } catch (e) {
      this.pending.delete(id);
      throw e;
    }
    return result;
  }

  /** Throws unless the answer is STATUS OK. */
  private static ok(r: Reader & { type: number }, what: string): void {
    if (r.type !== FXP.STATUS) throw new SshError('protocol', `SFTP ${what}: unexpected answer ${r.type}`);
    const code = r.uint32();
    if (code !== STATUS.OK) throw Sftp.failure(code, r.remaining >= 4 ? r.text() : '', what);
  }

  private static failure(code: number, message: string, what: string): SshError {
    return new SshError('sftp', `SFTP ${what}: ${message || `status ${code}`}`.slice(0, 300), code);
  }

  private static status(r: Reader & { type: number }, what: string): never {
    if (r.type === FXP.STATUS) {
      const code = r.uint32();
      throw Sftp.failure(code, r.remaining >= 4 ? r.text() : '', what);
    }
    throw new SshError('protocol', `SFTP ${what}: unexpected answer ${r.type}`);
  }

  async open(path: string, flags: number): Promise<Uint8Array> {
    const r = await this.request(FXP.OPEN, (w) => w.string(path).uint32(flags).uint32(0));
    if (r.type !== FXP.HANDLE) Sftp.status(r, `open ${path}`);
    return r.string().slice();
  }

  async close(handle: Uint8Array): Promise<void> {
    Sftp.ok(await this.request(FXP.CLOSE, (w) => w.string(handle)), 'close');
  }

  async write(handle: Uint8Array, offset: number, data: Uint8Array): Promise<void> {
    Sftp.ok(await this.request(FXP.WRITE, (w) => w.string(handle).uint64(offset).string(data)), 'write');
  }

  async mkdir(path: string): Promise<void> {
    Sftp.ok(await this.request(FXP.MKDIR, (w) => w.string(path).uint32(0)), `mkdir ${path}`);
  }

  /** §5: follows symbolic links; null when there is no such file. */
  async stat(path: string): Promise<Attrs | null> {
    const r = await this.request(FXP.STAT, (w) => w.string(path));
    if (r.type === FXP.STATUS) {
      const code = r.uint32();
      if (code === STATUS.NO_SUCH_FILE) return null;
      throw Sftp.failure(code, r.remaining >= 4 ? r.text() : '', `stat ${path}`);
    }
    if (r.type !== FXP.ATTRS) Sftp.status(r, `stat ${path}`);
    return readAttrs(r);
  }

  async remove(path: string): Promise<void> {
    Sftp.ok(await this.request(FXP.REMOVE, (w) => w.string(path)), `remove ${path}`);
  }

  /** §6.5 RENAME fails when the target exists; posix-rename@openssh.com replaces it atomically. */
  async rename(from: string, to: string, replace = false): Promise<void> {
    if (replace && this.extensions.has('posix-rename@openssh.com')) {
      Sftp.ok(await this.request(FXP.EXTENDED, (w) => w.string('posix-rename@openssh.com').string(from).string(to)), `rename to ${to}`);
      return;
    }
    if (replace && (await this.stat(to))) await this.remove(to);
    Sftp.ok(await this.request(FXP.RENAME, (w) => w.string(from).string(to)), `rename to ${to}`);
  }

  async realpath(path: string): Promise<string> {
    const r = await this.request(FXP.REALPATH, (w) => w.string(path));
    if (r.type !== FXP.NAME) Sftp.status(r, `realpath ${path}`);
    if (r.uint32() < 1) throw new SshError('protocol', 'SFTP realpath: no name');
    return r.text();
  }

  /**
   * Writes a stream into an open file from offset 0, WRITE_SIZE bytes a request, at most
   * IN_FLIGHT requests outstanding: memory stays at about IN_FLIGHT × WRITE_SIZE whatever the
   * file's size. Returns the bytes written.
   */
  async upload(handle: Uint8Array, body: ReadableStream<Uint8Array>): Promise<number> {
    const reader = body.getReader();
    const inFlight: Promise<void>[] = [];
    let offset = 0;
    let carry = new Uint8Array(0);
    const send = async (chunk: Uint8Array) => {
      const p = this.write(handle, offset, chunk);
      p.catch(() => undefined);
      inFlight.push(p);
      offset += chunk.length;
      if (inFlight.length >= IN_FLIGHT) await inFlight.shift();
    };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        let data = value;
        if (carry.length) {
          const merged = new Uint8Array(carry.length + data.length);
          merged.set(carry);
          merged.set(data, carry.length);
          data = merged;
          carry = new Uint8Array(0);
        }
        let o = 0;
        for (; data.length - o >= WRITE_SIZE; o += WRITE_SIZE) await send(data.slice(o, o + WRITE_SIZE));
        carry = data.slice(o);
      }
      if (carry.length) await send(carry);
      await Promise.all(inFlight);
      return offset;
    } catch (e) {
      await reader.cancel().catch(() => undefined);
      throw e;
    }
  }
}

/** §5 ATTRS. */
function readAttrs(r: Reader): Attrs {
  const flags = r.uint32();
  const a: Attrs = {};
  if (flags & 1) a.size = r.uint64();
  if (flags & 2) {
    r.uint32();
    r.uint32();
  }
  if (flags & 4) {
    a.permissions = r.uint32();
    a.isDirectory = (a.permissions & 0o170000) === 0o040000;
  }
  return a;
}
