/**
 * The SSH transport layer (RFC 4253): version exchange (§4.2), the binary packet protocol (§6),
 * algorithm negotiation (§7.1) and one key exchange with ECDH on curve25519 (RFC 8731) or
 * NIST P-256 (RFC 5656 §4), keys derived as §7.2 says, host key signature checked (§8), and
 * strict key exchange (OpenSSH's kex-strict, the Terrapin fix: sequence numbers reset at NEWKEYS).
 *
 * Re-keying is not implemented: OpenSSH re-keys AES-GCM/CTR sessions after 2³² blocks (64 GiB),
 * far past a print file, so a server KEXINIT after the first fails the session (a retry opens a
 * fresh one).
 */
import { CIPHERS, MACS, NONE, type PacketCipher, cipherSpec, createCipher } from './cipher';
import { SshError } from './errors';
import { HOST_KEY_ALGORITHMS, verifySignature } from './hostkey';
import { Reader, Writer, concat, text, utf8 } from './wire';

export const MSG = {
  DISCONNECT: 1,
  IGNORE: 2,
  UNIMPLEMENTED: 3,
  DEBUG: 4,
  SERVICE_REQUEST: 5,
  SERVICE_ACCEPT: 6,
  EXT_INFO: 7,
  KEXINIT: 20,
  NEWKEYS: 21,
  KEX_ECDH_INIT: 30,
  KEX_ECDH_REPLY: 31,
  USERAUTH_REQUEST: 50,
  USERAUTH_FAILURE: 51,
  USERAUTH_SUCCESS: 52,
  USERAUTH_BANNER: 53,
  USERAUTH_60: 60,
  GLOBAL_REQUEST: 80,
  REQUEST_FAILURE: 82,
  CHANNEL_OPEN: 90,
  CHANNEL_OPEN_CONFIRMATION: 91,
  CHANNEL_OPEN_FAILURE: 92,
  CHANNEL_WINDOW_ADJUST: 93,
  CHANNEL_DATA: 94,
  CHANNEL_EXTENDED_DATA: 95,
  CHANNEL_EOF: 96,
  CHANNEL_CLOSE: 97,
  CHANNEL_REQUEST: 98,
  CHANNEL_SUCCESS: 99,
  CHANNEL_FAILURE: 100,
} as const;

export const KEX_ALGORITHMS = ['curve25519-sha256', 'curve25519-sha256@libssh.org', 'ecdh-sha2-nistp256'] as const;
const STRICT_KEX_CLIENT = 'kex-strict-c-v00@openssh.com';
const STRICT_KEX_SERVER = 'kex-strict-s-v00@openssh.com';
const CLIENT_VERSION = 'SSH-2.0-PersonalisationPlatform_1.0';
/** RFC 4253 §6.1: every implementation takes packets of 35000 bytes; OpenSSH takes 256 KiB. */
const MAX_PACKET = 256 * 1024;

export interface TransportOptions {
  /** Preference order; defaults are the module constants. */
  kex?: readonly string[];
  hostKeyAlgorithms?: readonly string[];
  ciphers?: readonly string[];
  /**
   * Called with the server's host key blob once its signature over the exchange hash checked
   * out; throw to refuse the server (pinned fingerprint mismatch).
   */
  verifyHostKey(blob: Uint8Array): Promise<void> | void;
}

/** Bytes from a ReadableStream, read exactly as asked (chunks kept, copied once). */
class Input {
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  private async fill(n: number) {
    while (this.size < n) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await this.reader.read();
      } catch (e) {
        throw new SshError('connection', `the connection failed (${(e as Error).message})`);
      }
      if (r.done) throw new SshError('connection', 'the server closed the connection');
      if (r.value.length) {
        this.chunks.push(r.value);
        this.size += r.value.length;
      }
    }
  }

  async read(n: number): Promise<Uint8Array> {
    await this.fill(n);
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      const c = this.chunks[0]!;
      const take = Math.min(c.length, n - o);
      out.set(c.subarray(0, take), o);
      o += take;
      if (take === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(take);
    }
    this.size -= n;
    return out;
  }

  /** One line ending in LF (the version exchange), CR stripped; at most 255 bytes (§4.2). */
  async line(): Promise<string> {
    const bytes: number[] = [];
    for (;;) {
      const [b] = await this.read(1);
      if (b === 0x0a) break;
      bytes.push(b!);
      if (bytes.length > 255) throw new SshError('protocol', 'the server sent no SSH version line');
    }
    return text(new Uint8Array(bytes)).replace(/\r$/, '');
  }
}

function negotiate(what: string, client: readonly string[], server: string[]): string {
  const found = client.find((c) => server.includes(c));
  if (!found) throw new SshError('algorithms', `no ${what} in common (the server offers ${server.join(', ') || 'none'})`);
  return found;
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', concat(...parts)));
}

/** An ephemeral ECDH key pair: its public value for the wire and the shared secret K's magnitude. */
async function ephemeral(kex: string): Promise<{ publicKey: Uint8Array; secret(peer: Uint8Array): Promise<Uint8Array> }> {
  if (kex.startsWith('curve25519')) {
    const pair = (await crypto.subtle.generateKey({ name: 'X25519' }, true, ['deriveBits'])) as CryptoKeyPair;
    return {
      publicKey: new Uint8Array((await crypto.subtle.exportKey('raw', pair.publicKey)) as ArrayBuffer),
      async secret(peer) {
        if (peer.length !== 32) throw new SshError('protocol', 'the server sent a malformed curve25519 public key');
        const pub = await crypto.subtle.importKey('raw', peer, { name: 'X25519' }, false, []);
        const k = new Uint8Array(await crypto.subtle.deriveBits({ name: 'X25519', public: pub } as unknown as SubtleCryptoDeriveKeyAlgorithm, pair.privateKey, 256));
        // RFC 8731 §3: an all-zero shared secret means a low-order point: abort.
        if (k.every((b) => b === 0)) throw new SshError('protocol', 'the curve25519 shared secret is zero');
        return k;
      },
    };
  }
  const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits'])) as CryptoKeyPair;
  return {
    publicKey: new Uint8Array((await crypto.subtle.exportKey('raw', pair.publicKey)) as ArrayBuffer),
    async secret(peer) {
      let pub: CryptoKey;
      try {
        pub = await crypto.subtle.importKey('raw', peer, { name: 'ECDH', namedCurve: 'P-256' }, false, []);
      } catch {
        throw new SshError('protocol', 'the server sent an invalid P-256 point');
      }
      return new Uint8Array(await crypto.subtle.deriveBits({ name: 'ECDH', public: pub } as unknown as SubtleCryptoDeriveKeyAlgorithm, pair.privateKey, 256));
    },
  };
}

export class Transport {
  private readonly input: Input;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private sendCipher: PacketCipher = NONE;
  private recvCipher: PacketCipher = NONE;
  private sendSeq = 0;
  private recvSeq = 0;
  private sending: Promise<unknown> = Promise.resolve();
  private closed = false;
  sessionId: Uint8Array = new Uint8Array(0);
  serverVersion = '';
  /** The server's host key blob, once verified. */
  hostKey: Uint8Array = new Uint8Array(0);

  constructor(
    readable: ReadableStream<Uint8Array>,
    writable: WritableStream<Uint8Array>,
    private readonly options: TransportOptions,
  ) {
    this.input = new Input(readable.getReader());
    this.writer = writable.getWriter();
  }

  /** Version exchange and the first key exchange. */
  async start(): Promise<void> {
    await this.writeRaw(utf8(`${CLIENT_VERSION}\r\n`));
    // §4.2: the server may send other lines before its version line.
    for (let i = 0; i < 20 && !this.serverVersion; i++) {
      const line = await this.input.line();
      if (line.startsWith('SSH-')) {
        if (!/^SSH-(2\.0|1\.99)-/.test(line)) throw new SshError('protocol', `the server speaks another SSH version (${line.slice(0, 40)})`);
        this.serverVersion = line;
      }
    }
    if (!this.serverVersion) throw new SshError('protocol', 'the server sent no SSH version line');
    await this.keyExchange();
  }

  private async writeRaw(bytes: Uint8Array): Promise<void> {
    try {
      await this.writer.write(bytes);
    } catch (e) {
      throw new SshError('connection', `the connection failed (${(e as Error).message})`);
    }
  }

  /** Sends one message; packets go out in call order (sequence numbers, AES-GCM nonces). */
  send(payload: Uint8Array): Promise<void> {
    const next = this.sending.then(() => this.sendNow(payload));
    this.sending = next.catch(() => undefined);
    return next;
  }

  private async sendNow(payload: Uint8Array): Promise<void> {
    if (this.closed) throw new SshError('connection', 'the SSH connection is closed');
    const c = this.sendCipher;
    // §6: at least 4 bytes of padding; the length field counts for the block except with AEAD.
    const unpadded = (c.aead ? 1 : 5) + payload.length;
    let padding = c.block - (unpadded % c.block);
    if (padding < 4) padding += c.block;
    const packet = new Uint8Array(5 + payload.length + padding);
    const view = new DataView(packet.buffer);
    view.setUint32(0, 1 + payload.length + padding);
    packet[4] = padding;
    packet.set(payload, 5);
    crypto.getRandomValues(packet.subarray(5 + payload.length));
    const sealed = await c.seal(this.sendSeq, packet);
    this.sendSeq = (this.sendSeq + 1) >>> 0;
    await this.writeRaw(sealed);
  }

  /** The next packet's payload, as it came (no message filtering). */
  private async receiveRaw(): Promise<Uint8Array> {
    const c = this.recvCipher;
    const headLength = c.aead ? 4 : c.block;
    const head = await this.input.read(headLength);
    const plainHead = await c.openHead(head);
    const length = new DataView(plainHead.buffer, plainHead.byteOffset).getUint32(0);
    const aligned = c.aead ? length % c.block === 0 : (length + 4) % c.block === 0;
    if (length < 5 || length > MAX_PACKET || !aligned) throw new SshError('protocol', 'the server sent a malformed packet');
    const rest = await this.input.read(length + 4 - headLength);
    const mac = c.macLength ? await this.input.read(c.macLength) : new Uint8Array(0);
    const body = await c.openRest(this.recvSeq, head, plainHead, rest, mac);
    this.recvSeq = (this.recvSeq + 1) >>> 0;
    const padding = body[0]!;
    if (padding < 4 || padding + 1 > body.length) throw new SshError('protocol', 'the server sent a packet with bad padding');
    return body.subarray(1, body.length - padding);
  }

  /**
   * The next message for the layers above: transport chatter (IGNORE, DEBUG, UNIMPLEMENTED,
   * EXT_INFO) skipped, DISCONNECT thrown, and a re-key refused.
   */
  async receive(): Promise<Uint8Array> {
    for (;;) {
      const p = await this.receiveRaw();
      switch (p[0]) {
        case MSG.IGNORE:
        case MSG.DEBUG:
        case MSG.UNIMPLEMENTED:
        case MSG.EXT_INFO:
          continue;
        case MSG.DISCONNECT: {
          const r = new Reader(p.subarray(1));
          const code = r.uint32();
          throw new SshError('disconnect', `the server disconnected (${code}: ${r.text().slice(0, 200)})`);
        }
        case MSG.KEXINIT:
          throw new SshError('protocol', 'the server started a key re-exchange, which this client does not do');
        default:
          return p;
      }
    }
  }

  private async keyExchange(): Promise<void> {
    const o = this.options;
    const cookie = crypto.getRandomValues(new Uint8Array(16));
    const kexList = [...(o.kex ?? KEX_ALGORITHMS), STRICT_KEX_CLIENT];
    const ciphers = o.ciphers ?? CIPHERS;
    const clientInit = new Writer()
      .byte(MSG.KEXINIT)
      .raw(cookie)
      .nameList(kexList)
      .nameList(o.hostKeyAlgorithms ?? HOST_KEY_ALGORITHMS)
      .nameList(ciphers)
      .nameList(ciphers)
      .nameList(MACS)
      .nameList(MACS)
      .nameList(['none'])
      .nameList(['none'])
      .nameList([])
      .nameList([])
      .bool(false)
      .uint32(0)
      .bytes();
    await this.send(clientInit);
    const serverInit = await this.receiveRaw();
    if (serverInit[0] !== MSG.KEXINIT) throw new SshError('protocol', `the server sent message ${serverInit[0]} before KEXINIT`);
    const r = new Reader(serverInit.subarray(17));
    const [sKex, sHostKey, sEncCS, sEncSC, sMacCS, sMacSC, sCompCS, sCompSC] = Array.from({ length: 8 }, () => r.nameList()) as [string[], string[], string[], string[], string[], string[], string[], string[]];
    r.nameList();
    r.nameList();
    const guessFollows = r.bool();
    const strict = sKex.includes(STRICT_KEX_SERVER);
    const kex = negotiate('key exchange', o.kex ?? KEX_ALGORITHMS, sKex);
    const hostKeyAlgorithm = negotiate('host key algorithm', o.hostKeyAlgorithms ?? HOST_KEY_ALGORITHMS, sHostKey);
    const encCS = negotiate('cipher', ciphers, sEncCS);
    const encSC = negotiate('cipher', ciphers, sEncSC);
    const macCS = cipherSpec(encCS).aead ? '' : negotiate('MAC', MACS, sMacCS);
    const macSC = cipherSpec(encSC).aead ? '' : negotiate('MAC', MACS, sMacSC);
    negotiate('compression', ['none'], sCompCS);
    negotiate('compression', ['none'], sCompSC);
    // §7: a guessed first kex packet is ignored when the guess was wrong (ours would always match
    // OpenSSH's first choice only by chance); strict kex forbids it.
    if (guessFollows && (sKex[0] !== kex || sHostKey[0] !== hostKeyAlgorithm)) await this.receiveRaw();

    const eph = await ephemeral(kex);
    await this.send(new Writer().byte(MSG.KEX_ECDH_INIT).string(eph.publicKey).bytes());
    let reply = await this.receiveRaw();
    while (!strict && (reply[0] === MSG.IGNORE || reply[0] === MSG.DEBUG)) reply = await this.receiveRaw();
    if (reply[0] !== MSG.KEX_ECDH_REPLY) throw new SshError('protocol', `the server sent message ${reply[0]} instead of the ECDH reply`);
    const rr = new Reader(reply.subarray(1));
    const hostKey = rr.string();
    const serverPublic = rr.string();
    const signature = rr.string();
    const k = await eph.secret(serverPublic);
    // RFC 5656 §4 / RFC 8731 §3.1: H = HASH(V_C || V_S || I_C || I_S || K_S || Q_C || Q_S || K).
    const h = await sha256(
      new Writer()
        .string(CLIENT_VERSION)
        .string(this.serverVersion)
        .string(clientInit)
        .string(serverInit)
        .string(hostKey)
        .string(eph.publicKey)
        .string(serverPublic)
        .mpint(k)
        .bytes(),
    );
    if (!(await verifySignature(hostKey, signature, h, hostKeyAlgorithm))) {
      throw new SshError('host-key', 'the server host key signature does not verify');
    }
    await o.verifyHostKey(hostKey);
    this.hostKey = hostKey;
    if (!this.sessionId.length) this.sessionId = h;

    await this.send(new Writer().byte(MSG.NEWKEYS).bytes());
    const kMp = new Writer().mpint(k).bytes();
    // §7.2: key X = HASH(K || H || X || session_id), extended by HASH(K || H || K1 || …).
    const derive = async (letter: string, length: number) => {
      let out = await sha256(kMp, h, utf8(letter), this.sessionId);
      while (out.length < length) out = concat(out, await sha256(kMp, h, out));
      return out.subarray(0, length);
    };
    const specCS = cipherSpec(encCS);
    const specSC = cipherSpec(encSC);
    const send = await createCipher(encCS, await derive('C', specCS.keyLength), await derive('A', specCS.ivLength), macCS ? await derive('E', 32) : new Uint8Array(0), 'encrypt');
    const recv = await createCipher(encSC, await derive('D', specSC.keyLength), await derive('B', specSC.ivLength), macSC ? await derive('F', 32) : new Uint8Array(0), 'decrypt');
    // NEWKEYS is queued behind nothing else: switch once it is out.
    await this.sending;
    this.sendCipher = send;
    if (strict) this.sendSeq = 0;
    const newKeys = await this.receiveRaw();
    if (newKeys[0] !== MSG.NEWKEYS) throw new SshError('protocol', `the server sent message ${newKeys[0]} instead of NEWKEYS`);
    this.recvCipher = recv;
    if (strict) this.recvSeq = 0;
  }

  /** RFC 4253 §11.1: says goodbye (best effort) and closes the socket's writable side. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.send(new Writer().byte(MSG.DISCONNECT).uint32(11).string('bye').string('').bytes()).catch(() => undefined);
    this.closed = true;
    await this.writer.close().catch(() => undefined);
  }
}
