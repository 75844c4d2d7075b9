/**
 * One session channel (RFC 4254 §5, §6.5) running a subsystem, as a byte stream both ways with
 * the peer's flow-control window respected (§5.2): `write` waits for WINDOW_ADJUST, and incoming
 * data is acknowledged once half of our window is used. Global requests are refused politely
 * (§4: want-reply → REQUEST_FAILURE), as OpenSSH's `hostkeys-00@openssh.com` needs no answer.
 */
import { SshError } from './errors';
import { MSG, type Transport } from './transport';
import { Reader, Writer } from './wire';

const LOCAL_WINDOW = 2 * 1024 * 1024;
const LOCAL_MAX_PACKET = 32 * 1024;
const LOCAL_ID = 0;

export class Channel {
  private remoteId = 0;
  private remoteWindow = 0;
  private remoteMaxPacket = 0;
  private localConsumed = 0;
  private windowWaiters: Array<() => void> = [];
  private writing: Promise<unknown> = Promise.resolve();
  private error: Error | null = null;
  private closed = false;
  /** Called with each chunk of incoming data. */
  onData: (data: Uint8Array) => void = () => {};
  /** Called once when the channel or the connection ends (with the reason). */
  onEnd: (error: Error) => void = () => {};

  private constructor(private readonly t: Transport) {}

  /** Opens a session channel and starts `subsystem` (e.g. `sftp`), then pumps messages. */
  static async subsystem(t: Transport, subsystem: string): Promise<Channel> {
    const c = new Channel(t);
    await t.send(new Writer().byte(MSG.CHANNEL_OPEN).string('session').uint32(LOCAL_ID).uint32(LOCAL_WINDOW).uint32(LOCAL_MAX_PACKET).bytes());
    const open = await c.next();
    if (open[0] === MSG.CHANNEL_OPEN_FAILURE) {
      const r = new Reader(open.subarray(1));
      r.uint32();
      const code = r.uint32();
      throw new SshError('protocol', `the server refused a session channel (${code}: ${r.text().slice(0, 200)})`);
    }
    if (open[0] !== MSG.CHANNEL_OPEN_CONFIRMATION) throw new SshError('protocol', `the server sent message ${open[0]} instead of opening the channel`);
    const r = new Reader(open.subarray(1));
    r.uint32();
    c.remoteId = r.uint32();
    c.remoteWindow = r.uint32();
    c.remoteMaxPacket = r.uint32();
    await t.send(new Writer().byte(MSG.CHANNEL_REQUEST).uint32(c.remoteId).string('subsystem').bool(true).string(subsystem).bytes());
    for (;;) {
      const m = await c.next();
      if (m[0] === MSG.CHANNEL_WINDOW_ADJUST) {
        c.handle(m);
        continue;
      }
      if (m[0] === MSG.CHANNEL_SUCCESS) break;
      if (m[0] === MSG.CHANNEL_FAILURE) throw new SshError('protocol', `the server has no ${subsystem} subsystem`);
      throw new SshError('protocol', `the server sent message ${m[0]} instead of starting ${subsystem}`);
    }
    void c.pump();
    return c;
  }

  /** The next connection-layer message, global requests answered on the way. */
  private async next(): Promise<Uint8Array> {
    for (;;) {
      const m = await this.t.receive();
      if (m[0] === MSG.GLOBAL_REQUEST) {
        const r = new Reader(m.subarray(1));
        r.string();
        if (r.bool()) await this.t.send(new Writer().byte(MSG.REQUEST_FAILURE).bytes());
        continue;
      }
      return m;
    }
  }

  private async pump(): Promise<void> {
    try {
      while (!this.closed) this.handle(await this.next());
    } catch (e) {
      this.end(e as Error);
    }
  }

  private handle(m: Uint8Array): void {
    const r = new Reader(m.subarray(1));
    switch (m[0]) {
      case MSG.CHANNEL_WINDOW_ADJUST:
        r.uint32();
        this.remoteWindow += r.uint32();
        for (const w of this.windowWaiters.splice(0)) w();
        return;
      case MSG.CHANNEL_DATA: {
        r.uint32();
        const data = r.string();
        this.localConsumed += data.length;
        if (this.localConsumed >= LOCAL_WINDOW / 2) {
          void this.t.send(new Writer().byte(MSG.CHANNEL_WINDOW_ADJUST).uint32(this.remoteId).uint32(this.localConsumed).bytes()).catch(() => undefined);
          this.localConsumed = 0;
        }
        this.onData(data);
        return;
      }
      case MSG.CHANNEL_EXTENDED_DATA:
      case MSG.CHANNEL_REQUEST: // exit-status and the like: no reply wanted by OpenSSH
      case MSG.CHANNEL_SUCCESS:
      case MSG.CHANNEL_FAILURE:
        return;
      case MSG.CHANNEL_EOF:
      case MSG.CHANNEL_CLOSE:
        this.end(new SshError('connection', 'the server closed the channel'));
        return;
      default:
        throw new SshError('protocol', `the server sent unexpected message ${m[0]}`);
    }
  }

  private end(e: Error): void {
    if (this.error) return;
    this.error = e;
    this.closed = true;
    for (const w of this.windowWaiters.splice(0)) w();
    this.onEnd(e);
  }

  /**
   * Sends `data` within the peer's window and packet size. Writes are queued: one caller's bytes
   * never interleave with another's when a message waits for window (SFTP needs whole messages).
   */
  write(data: Uint8Array): Promise<void> {
    const next = this.writing.then(() => this.writeNow(data));
    this.writing = next.catch(() => undefined);
    return next;
  }

  private async writeNow(data: Uint8Array): Promise<void> {
    let o = 0;
    while (o < data.length) {
      if (this.error) throw this.error;
      if (this.remoteWindow === 0) {
        await new Promise<void>((resolve) => this.windowWaiters.push(resolve));
        continue;
      }
      const n = Math.min(data.length - o, this.remoteWindow, this.remoteMaxPacket);
      this.remoteWindow -= n;
      await this.t.send(new Writer().byte(MSG.CHANNEL_DATA).uint32(this.remoteId).string(data.subarray(o, o + n)).bytes());
      o += n;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.t.send(new Writer().byte(MSG.CHANNEL_EOF).uint32(this.remoteId).bytes()).catch(() => undefined);
    await this.t.send(new Writer().byte(MSG.CHANNEL_CLOSE).uint32(this.remoteId).bytes()).catch(() => undefined);
  }
}
